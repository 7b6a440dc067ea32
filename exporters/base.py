"""The exporter interface: where captured records go.

``RecordExporter.export`` runs on the writer's background thread, never on the caller's. It
returns an :class:`ExportResult` and does not raise: the writer counts a failure and decides
what to do with the batch (retry, spool, drop), the application never sees it.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from typing import Sequence, Union

from handoff.record import Event, Handoff, RunRecord

Record = Union[Handoff, RunRecord, Event]


class ExportResult(enum.Enum):
    """What became of one batch."""

    SUCCESS = 0
    FAILURE = 1


class RecordExporter(ABC):
    """Receives batches of records from :class:`~handoff.exporters.writer.BatchStoreWriter`."""

    @abstractmethod
    def export(self, batch: Sequence[Record]) -> ExportResult:
        """Deliver one batch; called on the writer thread, must not raise."""

    def shutdown(self) -> None:
        """Release resources; called once when the writer shuts down."""
