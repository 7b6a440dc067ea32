"""Helpers for testing your own instrumentation, shipped with the library.

    from handoff.testing import capture

    def test_price_step_is_recorded():
        with capture() as records:
            run_my_pipeline()
        assert [h.to_step for h in records.handoffs] == ["validate", "price"]

``capture()`` swaps in a recorder whose writer exports to an :class:`InMemoryExporter`; records
are flushed when the block exits (call ``records.flush()`` to read them earlier). Nothing is
written to any store, and the previously configured recorder is restored afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace

from handoff.capture.recorder import Recorder, swap_recorder
from handoff.config import current_settings
from handoff.exporters.memory import InMemoryExporter

__all__ = ["CapturedRecords", "InMemoryExporter", "capture"]


class CapturedRecords(InMemoryExporter):
    """An in-memory exporter that can also flush the recorder feeding it."""

    recorder: Recorder

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Export everything recorded so far into this object."""
        return self.recorder.flush(timeout_s)

    def stats(self) -> dict[str, int]:
        """The capturing recorder's counters."""
        return self.recorder.counters.snapshot()


@contextlib.contextmanager
def capture(**settings) -> Iterator[CapturedRecords]:
    """Record into memory for the duration of the block; ``settings`` override e.g. ``digest_key``."""
    records = CapturedRecords()
    recorder = Recorder(replace(current_settings(), **settings), exporter_factory=lambda: records)
    records.recorder = recorder
    previous = swap_recorder(recorder)
    try:
        yield records
    finally:
        recorder.shutdown(10.0)
        swap_recorder(previous)
