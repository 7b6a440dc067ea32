"""The exporter interface: where captured records go.

Every method here runs on the writer's background thread, never on the caller's.

- :class:`RecordExporter` delivers a batch in one call: ``export`` returns an
  :class:`ExportResult` and does not raise. The writer counts a failure and drops the batch.
- :class:`StagedExporter` splits that in two, which is what lets the writer keep a batch
  while the store is down without holding raw content: ``prepare`` does the CPU work (scrub,
  extract, encode) and returns finished objects with their final keys; ``write`` puts them and
  raises on failure. The writer spools what ``write`` could not put and calls ``write`` again
  later with the same objects, so ``write`` must be idempotent (same keys, same bytes).
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from collections.abc import Sequence

from handoff.model import Record
from handoff.store.base import PendingObject

__all__ = ["ExportResult", "PendingObject", "Record", "RecordExporter", "StagedExporter"]


class ExportResult(enum.Enum):
    """What became of one batch."""

    SUCCESS = 0
    FAILURE = 1


class RecordExporter(ABC):
    """Receives batches of records from :class:`~handoff.exporters.writer.BatchStoreWriter`."""

    @abstractmethod
    def export(self, batch: Sequence[Record]) -> ExportResult:
        """Deliver one batch; called on the writer thread, must not raise."""

    def shutdown(self) -> None:  # noqa: B027 - optional: most exporters hold nothing to release
        """Release resources; called once when the writer shuts down."""


class StagedExporter(RecordExporter):
    """An exporter whose batches are prepared into finished objects first, then written.

    The writer calls :meth:`prepare` once per batch and :meth:`write` once or more per prepared
    batch (again after a failure, possibly in another process that finds it in the spool).
    """

    @abstractmethod
    def prepare(self, batch: Sequence[Record]) -> list[PendingObject]:
        """Turn a batch into finished objects, in the order they must be written; may raise."""

    @abstractmethod
    def write(self, objects: Sequence[PendingObject]) -> None:
        """Put prepared objects; raise on any failure. Putting the same objects twice is harmless."""

    def export(self, batch: Sequence[Record]) -> ExportResult:
        """Prepare and write one batch, for a writer without a spool; ``FAILURE`` instead of raising."""
        try:
            self.write(self.prepare(batch))
        except Exception as exc:  # noqa: BLE001 - exporters report, they do not raise
            self.export_failed(batch, exc)
            return ExportResult.FAILURE
        return ExportResult.SUCCESS

    def export_failed(self, batch: Sequence[Record], exc: Exception) -> None:  # noqa: B027 - a hook, off by default
        """Called when :meth:`export` fails; the default says nothing (the writer counts and warns)."""
