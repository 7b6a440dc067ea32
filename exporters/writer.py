"""The background writer: a bounded queue drained by one daemon thread.

Modelled on OpenTelemetry's ``BatchProcessor``. :meth:`BatchStoreWriter.on_end` runs on the
application's thread: it only appends to a queue and never blocks, waits on I/O or raises.
One worker wakes on batch size or a timer and hands batches to the exporter, with
instrumentation suppressed so the writer's own store traffic is never recorded.
"""

from __future__ import annotations

import atexit
import collections
import logging
import os
import threading
import time
import weakref
from typing import Callable

from handoff.exporters.base import ExportResult, Record, RecordExporter

log = logging.getLogger("handoff.exporters")


class _OnceFilter(logging.Filter):
    """Lets each distinct message through once per process, so a failing store does not flood logs."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        key = str(record.msg)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True


_once_log = logging.getLogger("handoff.once")
_once_log.addFilter(_OnceFilter())


def warn_once(message: str, *args: object) -> None:
    """Log a warning the first time ``message`` (the format string) is seen in this process."""
    _once_log.warning(message, *args)


class Counters:
    """What the writer did since the process started; read with :meth:`snapshot`."""

    NAMES = ("enqueued", "written", "export_failures", "spooled", "retried", "dropped", "capture_errors")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values = dict.fromkeys(self.NAMES, 0)

    def add(self, name: str, amount: int = 1) -> None:
        """Add ``amount`` to counter ``name``."""
        with self._lock:
            self._values[name] += amount

    def snapshot(self) -> dict[str, int]:
        """Return a copy of every counter."""
        with self._lock:
            return dict(self._values)


class BatchStoreWriter:
    """Queues records from the hot path and exports them in batches on a daemon thread.

    ``exporter_factory`` is called on the worker thread on first use, so building the
    exporter (opening the store, loading the scrubber) never runs on the caller's thread.
    """

    def __init__(
        self,
        exporter_factory: Callable[[], RecordExporter],
        *,
        max_queue: int = 20_000,
        max_batch: int = 2_000,
        flush_interval_s: float = 1.0,
        counters: Counters | None = None,
    ) -> None:
        self._exporter_factory = exporter_factory
        self._exporter: RecordExporter | None = None
        self.max_queue = max_queue
        self.max_batch = max_batch
        self.flush_interval_s = flush_interval_s
        self.counters = counters or Counters()
        self._init_state()
        weak = weakref.WeakMethod(self._reinit_after_fork)
        os.register_at_fork(after_in_child=lambda: (weak() or (lambda: None))())

    def _init_state(self) -> None:
        self._queue: collections.deque[Record] = collections.deque()
        self._flush_requests: collections.deque[threading.Event] = collections.deque()
        self._wake = threading.Event()
        self._shutdown = False
        self._worker: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def _reinit_after_fork(self) -> None:
        # The worker thread does not survive fork; records queued in the parent are the parent's.
        self._init_state()

    def _ensure_worker(self) -> None:
        if self._worker is not None and self._worker.is_alive():
            return
        with self._start_lock:
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._run, name="handoff-writer", daemon=True)
                self._worker.start()

    # -- hot path ------------------------------------------------------------------------

    def on_end(self, record: Record) -> None:
        """Queue one record; runs on the caller's thread, never blocks and never raises."""
        if self._shutdown:
            self._drop(1, "the writer is shut down")
            return
        if len(self._queue) >= self.max_queue:
            self._overflow(record)
            return
        self._queue.append(record)
        self.counters.add("enqueued")
        if len(self._queue) >= self.max_batch:
            self._wake.set()
        self._ensure_worker()

    def _overflow(self, record: Record) -> None:
        """Called when the queue is full; the base writer drops and counts."""
        self._drop(1, "the queue is full")

    def _drop(self, count: int, why: str) -> None:
        self.counters.add("dropped", count)
        warn_once("handoff: dropping records because %s (see `handoff status`)", why)

    # -- worker --------------------------------------------------------------------------

    def _run(self) -> None:
        from opentelemetry import context

        token = context.attach(context.set_value(context._SUPPRESS_INSTRUMENTATION_KEY, True))
        try:
            while True:
                self._wake.wait(self.flush_interval_s)
                self._wake.clear()
                requests = self._take_flush_requests()
                self._drain()
                for request in requests:
                    request.set()
                if self._shutdown and not self._queue:
                    return
        finally:
            context.detach(token)

    def _take_flush_requests(self) -> list[threading.Event]:
        taken = []
        while self._flush_requests:
            taken.append(self._flush_requests.popleft())
        return taken

    def _drain(self) -> None:
        while self._queue:
            batch = []
            while self._queue and len(batch) < self.max_batch:
                batch.append(self._queue.popleft())
            self._export(batch)

    def _get_exporter(self) -> RecordExporter:
        if self._exporter is None:
            self._exporter = self._exporter_factory()
        return self._exporter

    def _export(self, batch: list[Record]) -> None:
        try:
            result = self._get_exporter().export(batch)
        except Exception as exc:  # noqa: BLE001 - an exporter bug must not kill the worker
            warn_once("handoff: the exporter raised %s; records in that batch are counted as failed", exc)
            result = ExportResult.FAILURE
        if result is ExportResult.SUCCESS:
            self.counters.add("written", len(batch))
        else:
            self._on_failure(batch)

    def _on_failure(self, batch: list[Record]) -> None:
        """Called with a batch the exporter could not deliver; the base writer counts and drops it."""
        self.counters.add("export_failures")
        self._drop(len(batch), "the store could not be written")

    # -- lifecycle -----------------------------------------------------------------------

    def force_flush(self, timeout_s: float = 30.0) -> bool:
        """Export everything queued before this call; return ``False`` if ``timeout_s`` ran out."""
        if not self._queue and (self._worker is None or not self._worker.is_alive()):
            return True
        request = threading.Event()
        self._flush_requests.append(request)
        self._ensure_worker()
        self._wake.set()
        return request.wait(timeout_s)

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Flush, stop the worker and shut the exporter down; later records are dropped and counted."""
        if self._shutdown:
            return True
        done = self.force_flush(timeout_s)
        self._shutdown = True
        self._wake.set()
        worker = self._worker
        if worker is not None and worker is not threading.current_thread():
            worker.join(max(0.0, timeout_s))
        if self._exporter is not None:
            try:
                self._exporter.shutdown()
            except Exception as exc:  # noqa: BLE001
                warn_once("handoff: exporter shutdown failed: %s", exc)
        return done


def register_atexit(writer: BatchStoreWriter, timeout_s: float = 10.0) -> None:
    """Flush ``writer`` at interpreter exit."""
    weak = weakref.ref(writer)

    def _flush_at_exit() -> None:
        target = weak()
        if target is not None:
            start = time.monotonic()
            target.shutdown(timeout_s)
            log.debug("handoff: flushed at exit in %.3fs", time.monotonic() - start)

    atexit.register(_flush_at_exit)
