"""An exporter that keeps records in memory, for tests of your own instrumentation."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from handoff.exporters.base import ExportResult, Record, RecordExporter
from handoff.model import Event, Handoff, RunRecord


class InMemoryExporter(RecordExporter):
    """Collects every exported record; ``handoffs``, ``runs`` and ``events`` return copies."""

    def __init__(self) -> None:
        self._records: list[Record] = []
        self._lock = threading.Lock()

    def export(self, batch: Sequence[Record]) -> ExportResult:
        """Append the batch."""
        with self._lock:
            self._records.extend(batch)
        return ExportResult.SUCCESS

    def _of(self, kind: type) -> list:
        with self._lock:
            return [record for record in self._records if isinstance(record, kind)]

    @property
    def handoffs(self) -> list[Handoff]:
        """Every handoff record exported so far, in export order."""
        return self._of(Handoff)

    @property
    def runs(self) -> list[RunRecord]:
        """Every run record (start and end) exported so far."""
        return self._of(RunRecord)

    @property
    def events(self) -> list[Event]:
        """Every event exported so far."""
        return self._of(Event)

    def clear(self) -> None:
        """Forget everything exported so far."""
        with self._lock:
            self._records.clear()
