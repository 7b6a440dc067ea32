"""The recorder never hurts the instrumented application."""

from __future__ import annotations

import logging

import handoff
from handoff.testing import capture


def test_unwritable_store_leaves_result_unchanged_and_counts_failure(tmp_path, caplog):
    """With a store that cannot be written, decorated functions return as usual and the failure is counted and logged once."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the store directory should be")
    handoff.configure(store=str(blocker / "store"), scrub=False)
    try:

        @handoff.step(to="price")
        def price(brief: str) -> dict:
            return {"total": "169825.06"}

        with caplog.at_level(logging.WARNING):
            results = [price(f"brief {i}") for i in range(3)]
            assert handoff.flush(10)
            results.append(price("brief 3"))
            assert handoff.flush(10)
        assert results == [{"total": "169825.06"}] * 4
        counters = handoff.stats()
        assert counters["written"] == 0
        assert counters["export_failures"] >= 1
        assert counters["dropped"] + counters["spooled"] >= 4
    finally:
        handoff.shutdown()


def test_failing_renderer_does_not_break_the_call():
    """A render= function that raises is counted as a capture error; the step still runs and returns."""

    @handoff.step(to="s", render=lambda x: 1 / 0)
    def s(x: str) -> str:
        return "result"

    with capture() as records:
        assert s("x") == "result"
        counters = records.stats()
    assert counters["capture_errors"] == 1


def test_unserializable_input_is_recorded_not_raised():
    """An argument that is not JSON-serializable is rendered with str() instead of failing the call."""

    class Opaque:
        def __str__(self) -> str:
            return "<opaque>"

    @handoff.step(to="s")
    def s(obj) -> str:
        return "ok"

    with capture() as records:
        assert s({"obj": Opaque()}) == "ok"
    assert records.handoffs[0].input == b'{"obj":"<opaque>"}'


def test_full_queue_drops_and_counts_without_blocking():
    """When the queue is full, records are dropped and counted, and the app is not slowed by waiting."""

    @handoff.step(to="s")
    def s(x: str) -> str:
        return x

    with capture(max_queue=5, max_batch=1000, flush_interval_s=60) as records:
        with handoff.run("burst"):
            for i in range(20):
                assert s(str(i)) == str(i)
        counters = records.stats()
    # 22 records: the run's start row, 20 handoffs, the run's end row; the queue holds 5.
    assert counters["enqueued"] == 5
    assert counters["dropped"] + counters["spooled"] == 17


def test_disabled_recording_records_nothing():
    """configure(enabled=False) turns recording off; functions behave exactly the same."""

    @handoff.step(to="s")
    def s(x: str) -> str:
        return x + "!"

    with capture(enabled=False) as records:
        assert s("a") == "a!"
    assert records.handoffs == []
