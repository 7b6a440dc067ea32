"""Outages between the writer and S3 (500, 503, connection resets, stalls), injected by a proxy on loopback."""

from __future__ import annotations

import threading
import time

import pytest

import handoff
from handoff.config import reset_settings
from handoff.queries import connect, query
from handoff.store.s3 import S3ObjectStore


@pytest.fixture
def s3_behind_proxy(fault_proxy, s3_url, spool_dir, monkeypatch, writer_mode):
    """Recording configured into S3 through the fault proxy, with short timeouts and one attempt per request."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", fault_proxy.url)
    monkeypatch.setenv("HANDOFF_S3_MAX_ATTEMPTS", "1")
    monkeypatch.setenv("HANDOFF_S3_CONNECT_TIMEOUT_S", "2")
    monkeypatch.setenv("HANDOFF_S3_READ_TIMEOUT_S", "20")
    reset_settings()
    handoff.configure(store=s3_url, scrub=False, spool_dir=str(spool_dir), flush_interval_s=0.2)
    yield fault_proxy
    handoff.shutdown(10)
    reset_settings()


@handoff.step(to="price", from_="orchestrator.compress_v3", kind="agent")
def price(brief: str) -> str:
    """A pipeline step whose result must not change whether the store is up or not."""
    return f"priced: {brief}"


def rows_in_s3(s3_url: str, moto_endpoint: str, monkeypatch, run_id: str) -> int:
    """Count the handoff rows of a run, read straight from moto (not through the proxy)."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_endpoint)
    con = connect(S3ObjectStore.from_url(s3_url))
    return query(con, "SELECT count(*) AS n FROM handoffs WHERE run_id = ?", [run_id])[0]["n"]


def run_pipeline(count: int) -> tuple[str, list[str]]:
    """Call the decorated step ``count`` times in one run; return the run id and the results."""
    with handoff.run("faults") as run:
        results = [price(f"brief {n}") for n in range(count)]
    return run.run_id, results


@pytest.mark.parametrize("fault", ["500", "503", "reset"])
def test_nothing_is_lost_through_an_outage_and_all_arrives_after_recovery(
    fault, s3_behind_proxy, s3_url, moto_endpoint, monkeypatch
):
    """During 500s, 503s or connection resets the app's results are unchanged, records are spooled, and all arrive after recovery."""
    proxy = s3_behind_proxy
    proxy.reset() if fault == "reset" else proxy.fail(int(fault))
    run_id, results = run_pipeline(30)
    assert handoff.flush(30) is True
    during = handoff.stats()
    proxy.heal()
    assert handoff.flush(30) is True
    after = handoff.stats()
    assert results == [f"priced: brief {n}" for n in range(30)]
    assert (
        (during["written"], during["spooled"], during["dropped"]),
        (after["written"], after["retried"], after["dropped"]),
    ) == (
        (0, 32, 0),
        (32, 32, 0),
    )
    assert fault in proxy.log or (fault == "reset" and "reset" in proxy.log)
    assert rows_in_s3(s3_url, moto_endpoint, monkeypatch, run_id) == 30


def test_a_call_made_during_a_stall_does_not_wait_for_it(s3_behind_proxy, s3_url, moto_endpoint, monkeypatch):
    """While the writer is stuck on a stalled S3 request, the decorated function still returns at once."""
    proxy = s3_behind_proxy
    proxy.stall(5.0)
    with handoff.run("stalled") as run:
        price("first")
        flusher = threading.Thread(target=handoff.flush, args=(300,))
        flusher.start()
        deadline = time.monotonic() + 120  # the writer process may take long to start on a loaded machine
        while proxy.stalled_now == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        result = price("during the stall")
        stalled_when_returned = (proxy.stalled_now > 0, flusher.is_alive())
    proxy.heal()
    flusher.join(300)
    assert handoff.flush(30) is True
    assert (result, stalled_when_returned) == ("priced: during the stall", (True, True))
    assert rows_in_s3(s3_url, moto_endpoint, monkeypatch, run.run_id) == 2


def test_an_exception_in_the_step_is_reraised_unchanged_while_the_store_is_down(s3_behind_proxy):
    """A failing step raises its own exception, not a store error, during an outage."""
    s3_behind_proxy.fail(503)

    @handoff.step(to="validate")
    def validate(report: str) -> str:
        raise KeyError(report)

    with pytest.raises(KeyError) as caught:
        validate("clause 7.2(b)")
    assert caught.value.args == ("clause 7.2(b)",)
