"""The circuit-breaker webhook: a total deadline, http/https only, and no secrets in the logs.

Each reproduced issue 13: a server dripping a byte every few seconds held `handoff check` for a
minute against a 5 s timeout, `file://` URLs were accepted (and nothing sent), and a failed POST
logged the URL with its credentials and token.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from handoff.cli import main
from handoff.queries.health import BreakerTrip, CircuitBreaker
from handoff.queries.webhook import WebhookError, check_url, post_json, redact_url

TRIP = BreakerTrip(
    "transform-constraints",
    "HIGH",
    ("run_a", "run_b", "run_c"),
    datetime(2026, 3, 11, 9, tzinfo=timezone.utc),
    datetime(2026, 3, 11, 9, 5, tzinfo=timezone.utc),
    15.0,
)


class _DrippingServer:
    """A loopback server that answers one byte every ``interval_s`` for ``total_s``: a status line, then an endless header."""

    def __init__(self, interval_s: float = 0.5, total_s: float = 30.0) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/hook"
        self.interval_s, self.total_s = interval_s, total_s
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            conn.recv(65536)
            deadline = time.monotonic() + self.total_s
            for byte in b"HTTP/1.1 200 OK\r\nX-Drip: " + b"a" * 10_000:
                if self.stop.wait(self.interval_s) or time.monotonic() > deadline:
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


def test_a_dripping_server_cannot_hold_the_post_past_its_deadline():
    """A server sending a byte every 0.5 s for 30 s (each read well under the timeout) is cut off at the 1 s total deadline."""
    server = _DrippingServer()
    started = time.monotonic()
    try:
        with pytest.raises(WebhookError, match=r"^no complete answer within 1s$"):
            post_json(server.url, b"{}", deadline_s=1.0)
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert elapsed < 15, f"held for {elapsed:.1f}s"


def test_the_breaker_logs_the_deadline_and_carries_on(caplog):
    """The breaker's POST to a dripping server ends at its timeout, is logged once, and does not raise."""
    server = _DrippingServer()
    breaker = CircuitBreaker(threshold_runs=1, webhook_url=server.url, timeout_s=1)
    started = time.monotonic()
    try:
        with caplog.at_level(logging.ERROR, logger="handoff"):
            breaker.emit(TRIP)
        elapsed = time.monotonic() - started
    finally:
        server.close()
    assert (
        caplog.records[-1].getMessage() == f"circuit breaker webhook {server.url} failed: no complete answer within 1s"
    )
    assert elapsed < 15


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://example.invalid/x", "gopher://127.0.0.1/", "/just/a/path", "http:///nohost"]
)
def test_only_http_and_https_webhooks_are_accepted(url):
    """A webhook URL that is not http(s) with a host is refused when the breaker is built, not silently ignored."""
    with pytest.raises(ValueError, match=r"^bad webhook URL "):
        CircuitBreaker(webhook_url=url)


def test_check_with_a_file_webhook_is_one_error_line(demo_copy):
    """`handoff check --webhook file://…` exits 1 with one Error line before checking anything."""
    result = CliRunner().invoke(main, ["check", "--store", demo_copy.store, "--webhook", "file:///tmp/alerts.json"])
    assert (result.exit_code, result.output) == (
        1,
        "Error: bad webhook URL file:///tmp/alerts.json: only http:// and https:// are allowed\n",
    )


def test_a_failed_post_logs_the_url_without_credentials_or_query(caplog):
    """The log line names host and path but not the user, password or token of the webhook URL."""
    url = "http://alice:s3cr3t-pw@127.0.0.1:9/hooks/handoff?token=tok-98765&x=1"
    breaker = CircuitBreaker(threshold_runs=1, webhook_url=url, timeout_s=1)
    with caplog.at_level(logging.ERROR, logger="handoff"):
        breaker.emit(TRIP)
    message = caplog.records[-1].getMessage()
    assert message.startswith("circuit breaker webhook http://***@127.0.0.1:9/hooks/handoff?… failed: ")
    assert not any(secret in message for secret in ("alice", "s3cr3t-pw", "tok-98765"))


def test_a_webhook_with_credentials_still_delivers(webhook):
    """Credentials in the URL are sent (as Basic auth) and the alert body arrives."""
    host_and_path = webhook.url.split("://", 1)[1]
    status = post_json(f"http://bob:pw@{host_and_path}?k=v", b'{"check": "x"}', deadline_s=5)
    assert (status, webhook.bodies) == (204, [{"check": "x"}])


def test_an_error_status_is_a_failure(webhook):
    """A webhook answering 404 counts as failed, not delivered."""
    webhook.server.RequestHandlerClass.do_POST = lambda self: (self.send_response(404), self.end_headers())
    with pytest.raises(WebhookError, match="^answered HTTP 404$"):
        post_json(webhook.url, b"{}", deadline_s=5)


_secret = st.text(
    alphabet=st.characters(min_codepoint=48, max_codepoint=122, categories=("L", "N")), min_size=6, max_size=20
)


@given(user=_secret, password=_secret, token=_secret, path=st.sampled_from(["", "/", "/hooks/a", "/a/b/c"]))
def test_redact_url_never_shows_userinfo_or_query(user, password, token, path):
    """Whatever the credentials and query, the redacted URL keeps host and path and drops every secret."""
    url = f"https://{user}:{password}@alerts.example.com:8443{path}?token={token}#frag"
    redacted = redact_url(url)
    assert redacted == f"https://***@alerts.example.com:8443{path}?…"
    check_url(url)


@given(st.text(max_size=60))
def test_redact_url_never_raises(text):
    """Any string, URL or not, redacts to a string without raising."""
    assert isinstance(redact_url(text), str)


def test_a_breaker_timeout_must_be_positive():
    """A zero or negative webhook deadline is a ValueError at construction."""
    with pytest.raises(ValueError, match="timeout_s"):
        CircuitBreaker(webhook_url="http://127.0.0.1:9/", timeout_s=0)
