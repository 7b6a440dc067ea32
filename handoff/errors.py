"""Errors raised by the store, query and retention code.

The capture API never raises these into an instrumented application; they reach
people through the CLI and through code that reads the store.

    HandoffError
    ├── StoreError                 the store could not be read or written (carries ``uri``)
    │   ├── StoreUnreachable       connection refused, timeout, bad credentials
    │   └── CorruptFile            a Parquet file or blob that does not decode (carries ``uri``)
    ├── NotFound
    │   ├── RunNotFound            no such run id (carries ``run_id``)
    │   ├── HandoffNotFound        no such handoff in a run (carries ``run_id``, ``handoff_id``)
    │   └── ContentGone            the content was dropped by retention or never stored
    ├── QueryError                 a DuckDB query failed (bad ``--where``, bad SQL)
    ├── LockHeld                   another job holds the retention lock
    └── ReplayError                a recorded step cannot be replayed (carries ``run_id``, ``handoff_id``)
"""

from __future__ import annotations


class HandoffError(Exception):
    """Root of every error the store, query and retention code raises."""


class StoreError(HandoffError):
    """The store could not be read or written."""

    def __init__(self, message: str, *, uri: str | None = None) -> None:
        super().__init__(message)
        self.uri = uri


class StoreUnreachable(StoreError):
    """The store did not answer, or refused the credentials."""


class CorruptFile(StoreError):
    """A stored file exists but does not decode."""


class NotFound(HandoffError):
    """Something asked for by id is not in the store."""


class RunNotFound(NotFound):
    """No run with this id is in the store."""

    def __init__(self, run_id: str) -> None:
        super().__init__(f"run {run_id} not found in the store")
        self.run_id = run_id


class HandoffNotFound(NotFound):
    """The run exists but has no handoff with this id."""

    def __init__(self, run_id: str, handoff_id: str) -> None:
        super().__init__(f"handoff {handoff_id} not found in run {run_id}")
        self.run_id = run_id
        self.handoff_id = handoff_id


class ContentGone(NotFound):
    """The handoff exists but its content is no longer stored (retention, or withheld)."""

    def __init__(self, run_id: str, handoff_id: str, reason: str) -> None:
        super().__init__(f"content of {run_id}/{handoff_id} is not available: {reason}")
        self.run_id = run_id
        self.handoff_id = handoff_id


class QueryError(HandoffError):
    """A query over the store failed."""


class LockHeld(HandoffError):
    """Another job holds the lock this job needs."""


class ReplayError(HandoffError):
    """A recorded handoff cannot be replayed: its step cannot be imported, or its arguments rebuilt."""

    def __init__(self, message: str, *, run_id: str | None = None, handoff_id: str | None = None) -> None:
        super().__init__(message)
        self.run_id = run_id
        self.handoff_id = handoff_id
