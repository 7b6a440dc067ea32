"""POST one JSON alert to a webhook: http or https only, a total deadline, secrets kept out of logs.

A per-read socket timeout is not a deadline: a server that drips one byte every few seconds
keeps each read under it for as long as it likes. :func:`post_json` runs the request on a
helper thread and, when the deadline passes, shuts the socket down under it, so the caller gets
its answer (or an error) within ``deadline_s`` plus a moment, whatever the server does.
Redirects are not followed. :func:`redact_url` is what messages show of a URL: scheme, host,
port and path; credentials become ``***`` and the query string ``?…``.
"""

from __future__ import annotations

import http.client
import socket
import threading
from urllib.parse import urlsplit

SCHEMES = ("http", "https")
#: How much of the response body is read (it is not used; reading lets the server finish cleanly).
_MAX_RESPONSE_BYTES = 64 * 1024


class WebhookError(Exception):
    """The webhook could not be reached, did not answer in time, or answered with an error status."""


def check_url(url: str) -> str:
    """Return ``url`` when it is an absolute http(s) URL with a host; raise ``ValueError`` naming the problem otherwise."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError as exc:
        raise ValueError(f"bad webhook URL {redact_url(url)}: {exc}") from None
    if parts.scheme.lower() not in SCHEMES:
        raise ValueError(f"bad webhook URL {redact_url(url)}: only http:// and https:// are allowed")
    if not parts.hostname:
        raise ValueError(f"bad webhook URL {redact_url(url)}: no host")
    return url


def redact_url(url: str) -> str:
    """Return ``url`` fit for a log line: user and password as ``***``, the query string as ``?…``, no fragment."""
    try:
        parts = urlsplit(str(url))
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "<unparseable URL>"
    if ":" in host:
        host = f"[{host}]"
    userinfo = "***@" if "@" in parts.netloc else ""
    query = "?…" if parts.query else ""
    scheme = f"{parts.scheme}://" if parts.scheme else ""
    return f"{scheme}{userinfo}{host}{port}{parts.path}{query}"


def _connection(url: str, timeout_s: float) -> tuple[http.client.HTTPConnection, str]:
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme.lower() == "https" else http.client.HTTPConnection
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return kind(parts.hostname, parts.port, timeout=timeout_s), target


def _headers(url: str, body: bytes) -> dict[str, str]:
    import base64
    from urllib.parse import unquote

    parts = urlsplit(url)
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body)), "User-Agent": "handoff-breaker"}
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
    return headers


def post_json(url: str, body: bytes, *, deadline_s: float) -> int:
    """POST ``body`` to ``url`` and return the HTTP status; raise ``WebhookError`` (its message redacted) on any failure.

    Returns or raises within ``deadline_s`` (plus about a second to unwind), however slowly the
    server answers. A status of 300 or more is a failure.
    """
    check_url(url)
    conn, target = _connection(url, deadline_s)
    outcome: dict[str, object] = {}

    def send() -> None:
        try:
            conn.request("POST", target, body=body, headers=_headers(url, body))
            response = conn.getresponse()
            response.read(_MAX_RESPONSE_BYTES)
            outcome["status"] = response.status
        except Exception as exc:  # noqa: BLE001 - reported to the caller below
            outcome["error"] = exc

    worker = threading.Thread(target=send, name="handoff-webhook", daemon=True)
    worker.start()
    worker.join(deadline_s)
    if worker.is_alive():
        _abort(conn)
        worker.join(1.0)
        raise WebhookError(f"no complete answer within {deadline_s:g}s")
    conn.close()
    if "error" in outcome:
        error = outcome["error"]
        raise WebhookError(f"{type(error).__name__}: {_scrub(str(error), url)}")
    status = int(outcome["status"])  # type: ignore[arg-type]
    if status >= 300:
        raise WebhookError(f"answered HTTP {status}")
    return status


def _abort(conn: http.client.HTTPConnection) -> None:
    """Break a request in flight: shut its socket down so the blocked read on the helper thread returns."""
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    conn.close()


def _scrub(message: str, url: str) -> str:
    """Remove the URL's secrets from an error message that may quote them."""
    parts = urlsplit(url)
    for secret in (parts.password, parts.username, parts.query):
        if secret:
            message = message.replace(secret, "***")
    return message
