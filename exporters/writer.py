"""The background writer: a bounded queue drained by one daemon thread.

Modelled on OpenTelemetry's ``BatchProcessor``. :meth:`BatchStoreWriter.on_end` runs on the
application's thread: it only appends to a queue and never blocks, waits on I/O or raises.
One worker wakes on batch size or a timer and hands batches to the exporter, with
instrumentation suppressed so the writer's own store traffic is never recorded.

With a :class:`~handoff.exporters.spool.Spool` and a :class:`~handoff.exporters.base.StagedExporter`
(one that can ``prepare`` and ``write`` separately, as the store exporter does), nothing handed
over is lost while the store is down:

* a batch the store refuses (connection refused, 5xx, throttling, timeouts, bad credentials)
  is spooled to local disk already prepared (scrubbed, encoded) and retried with exponential
  backoff and jitter; while a backlog exists new batches go to the spool behind it, so the
  store receives data in order and the worker never waits on an outage more than once per
  backoff step;
* spooled data is sent first: when the worker starts, on every retry and on every flush;
* when the in-memory queue is full, the hot path does no disk I/O either: the record goes to
  a second bounded in-memory list (the spill) that the worker spools before anything else;
  only when the spill is full too, or the spool is full, is a record dropped, counted and
  logged once. The spill exists so the caller's thread never touches a disk;
* after every worker cycle that changed something, the counters are written to a small
  status file in the spool directory for ``handoff status`` in another process.

``force_flush`` returns once everything queued before it is in the store *or durably in the
spool*: that is the crash-safety line, what a SIGKILL after it cannot take away.
"""

from __future__ import annotations

import atexit
import collections
import logging
import os
import threading
import time
import time as _time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from handoff.diagnostics import Counters, warn_once
from handoff.exporters.base import ExportResult, Record, RecordExporter, StagedExporter
from handoff.exporters.framing import record_bytes

if TYPE_CHECKING:
    from handoff.exporters.spool import Backoff, Spool

log = logging.getLogger("handoff.exporters")

#: A prepared batch holds at most about this many bytes of payload (and ``max_batch`` records).
MAX_BATCH_BYTES = 32 << 20


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
        max_queue_bytes: int = 64 << 20,
        max_batch: int = 2_000,
        flush_interval_s: float = 1.0,
        counters: Counters | None = None,
        spool: Spool | None = None,
        backoff: Backoff | None = None,
    ) -> None:
        self._exporter_factory = exporter_factory
        self._exporter: RecordExporter | None = None
        self.max_queue = max_queue
        self.max_queue_bytes = max_queue_bytes
        self.max_batch = max_batch
        self.flush_interval_s = flush_interval_s
        self.counters = counters or Counters()
        self.spool = spool
        if spool is not None and backoff is None:
            from handoff.exporters.spool import Backoff

            backoff = Backoff()
        self.backoff = backoff
        self.started_s = _time.time()
        self._dropped_mark = self.counters.snapshot()["dropped"]
        self._init_state()
        weak = weakref.WeakMethod(self._reinit_after_fork)
        os.register_at_fork(after_in_child=lambda: (weak() or (lambda: None))())

    def _init_state(self) -> None:
        self._queue: collections.deque[Record] = collections.deque()
        self._spill: collections.deque[Record] = collections.deque()
        self._queue_bytes = self._spill_bytes = 0
        # True while the spool may hold batches: new batches queue behind them.
        self._backlog = self.spool is not None
        self._status_written: dict[str, int] | None = None
        self._flush_requests: collections.deque[threading.Event] = collections.deque()
        self._wake = threading.Event()
        self._shutdown = False
        self._worker: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def _reinit_after_fork(self) -> None:
        # The worker thread does not survive fork; records queued in the parent are the parent's.
        # The exporter is rebuilt too: it holds the parent's writer name (file names would
        # collide with the parent's) and upload threads that did not survive either.
        self._exporter = None
        self._init_state()

    def _ensure_worker(self) -> None:
        if self._worker is not None and self._worker.is_alive():
            return
        with self._start_lock:
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._run, name="handoff-writer", daemon=True)
                self._worker.start()

    # -- hot path ------------------------------------------------------------------------

    mode = "thread"

    def on_end(self, record: Record) -> None:
        """Queue one record; runs on the caller's thread, never blocks and never raises."""
        if self._shutdown:
            self._drop(1, "the writer is shut down")
            return
        size = record_bytes(record)
        if len(self._queue) >= self.max_queue or self._queue_bytes + size > self.max_queue_bytes:
            self._overflow(record, size)
            return
        self._queue.append(record)
        self._queue_bytes += size  # approximate under concurrent callers: a soft bound
        self.counters.add("enqueued")
        if len(self._queue) >= self.max_batch:
            self._wake.set()
        self._ensure_worker()

    def take_over(self, records: list[Record]) -> None:
        """Queue records another writer had accepted (already counted as enqueued), ahead of new ones."""
        self._queue.extend(records)
        self._queue_bytes += sum(map(record_bytes, records))
        self._wake.set()
        self._ensure_worker()

    def _overflow(self, record: Record, size: int) -> None:
        """Called on the caller's thread when the queue is full: spill to memory for the worker to spool, else drop."""
        if (
            self.spool is not None
            and len(self._spill) < self.max_queue
            and self._spill_bytes + size <= self.max_queue_bytes // 4
        ):
            self._spill.append(record)
            self._spill_bytes += size
            self.counters.add("enqueued")
            self._wake.set()
            self._ensure_worker()
            return
        self._drop(1, "the queue is full")

    def _drop(self, count: int, why: str) -> None:
        self.counters.add("dropped", count)
        warn_once(f"handoff: dropping records because {why} (see `handoff status`)")

    # -- worker --------------------------------------------------------------------------

    def _run(self) -> None:
        from opentelemetry import context

        token = context.attach(context.set_value(context._SUPPRESS_INSTRUMENTATION_KEY, True))
        try:
            self._retry_spool(force=True)
            while True:
                self._wake.wait(self.flush_interval_s)
                self._wake.clear()
                requests = self._take_flush_requests()
                self._retry_spool(force=bool(requests))
                self._drain()
                self._publish_status()
                for request in requests:
                    request.set()
                if self._shutdown and not self._queue and not self._spill:
                    return
        finally:
            context.detach(token)

    def _take_flush_requests(self) -> list[threading.Event]:
        taken = []
        while self._flush_requests:
            taken.append(self._flush_requests.popleft())
        return taken

    def _drain(self) -> None:
        while self._spill:
            batch, exporter = self._take(self._spill), self._get_exporter()
            if isinstance(exporter, StagedExporter):
                self._spool_batch(batch, exporter)
            else:
                self._export(batch)
        while self._queue:
            self._export(self._take(self._queue))

    def _take(self, source: collections.deque[Record]) -> list[Record]:
        batch, nbytes = [], 0
        while source and len(batch) < self.max_batch and nbytes < MAX_BATCH_BYTES:
            record = source.popleft()
            batch.append(record)
            nbytes += record_bytes(record)
        if source is self._queue:
            self._queue_bytes -= nbytes
        else:
            self._spill_bytes -= nbytes
        return batch

    def _get_exporter(self) -> RecordExporter:
        if self._exporter is None:
            self._exporter = self._exporter_factory()
        return self._exporter

    def _export(self, batch: list[Record]) -> None:
        exporter = self._get_exporter()
        if self.spool is not None and isinstance(exporter, StagedExporter):
            self._export_spooling(batch, exporter)
            return
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

    # -- spool ---------------------------------------------------------------------------

    def _prepare(self, batch: list[Record], exporter: StagedExporter) -> list | None:
        before = getattr(exporter, "encode_errors", 0)
        try:
            return exporter.prepare(batch)
        except Exception as exc:  # noqa: BLE001 - a prepare bug must not kill the worker
            warn_once("handoff: preparing a batch failed (%s); its records are dropped", exc)
            self.counters.add("export_failures")
            self._drop(len(batch), "a batch could not be prepared")
            return None
        finally:
            self.counters.add("encode_errors", getattr(exporter, "encode_errors", 0) - before)

    def _export_spooling(self, batch: list[Record], exporter: StagedExporter) -> None:
        objects = self._prepare(batch, exporter)
        if objects is None:
            return
        if self._backlog:
            # Behind a backlog: keep order and do not wait on a store that just failed.
            self._spool_objects(objects, len(batch))
            return
        try:
            exporter.write(objects)
        except Exception as exc:  # noqa: BLE001 - any failure to write means: keep it locally
            self._write_failed(exc)
            self._spool_objects(objects, len(batch))
            return
        self.counters.add("written", len(batch))

    def _spool_batch(self, batch: list[Record], exporter: StagedExporter) -> None:
        objects = self._prepare(batch, exporter)
        if objects is not None:
            self._spool_objects(objects, len(batch))

    def _spool_objects(self, objects: list, records: int) -> None:
        assert self.spool is not None
        try:
            stored = self.spool.put(objects, records)
        except OSError as exc:
            warn_once("handoff: cannot write the spool at %s: %s", self.spool.directory, exc)
            stored = False
        if stored:
            self.counters.add("spooled", records)
            self._backlog = True
        else:
            self._drop(records, "the spool is full or cannot be written")

    def _write_failed(self, exc: Exception) -> None:
        assert self.backoff is not None
        self.counters.add("export_failures")
        delay = self.backoff.failed()
        self._backlog = True
        warn_once("handoff: the store cannot be written (%s); spooling and retrying with backoff", exc)
        log.info("handoff: store write failed (%s); next retry in %.1fs", exc, delay)

    def _retry_spool(self, force: bool = False) -> None:
        """Send spooled batches first; on failure back off (a flush retries at once)."""
        if self.spool is None or not self._backlog or not (force or self.backoff.due()):
            return
        from handoff.exporters.spool import deliver

        exporter = self._get_exporter()
        try:
            self.spool.clean_temp()
            self.spool.prune_statuses()
            deliver(self.spool, exporter.write, self._delivered)
        except Exception as exc:  # noqa: BLE001
            self._write_failed(exc)
            return
        self.backoff.succeeded()
        self._backlog = False

    def _delivered(self, records: int) -> None:
        self.counters.add("written", records)
        self.counters.add("retried", records)

    def status(self) -> dict[str, Any]:
        """Return what ``handoff status`` shows for this process: counters, queue length, pid, times."""
        import socket

        return {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "store": self.spool.store_url if self.spool is not None else None,
            "started": self.started_s,
            "updated": _time.time(),
            "queued": len(self._queue) + len(self._spill),
            "backlog": self._backlog,
            "mode": "thread",
            "counters": self.counters.snapshot(),
        }

    def _publish_status(self) -> None:
        if self.spool is None:
            return
        snapshot = self.counters.snapshot()
        if snapshot == self._status_written:
            return
        try:
            self.spool.write_status(self.status())
            self._status_written = snapshot
        except OSError as exc:
            warn_once("handoff: cannot write the status file in %s: %s", self.spool.directory, exc)

    # -- lifecycle -----------------------------------------------------------------------

    def force_flush(self, timeout_s: float = 30.0) -> bool:
        """Export everything queued before this call; ``False`` if ``timeout_s`` ran out or a record was dropped since the last flush."""
        idle = not self._queue and not self._spill and (self._worker is None or not self._worker.is_alive())
        if idle and not (self.spool is not None and self.spool.has_pending()):
            return self._no_new_drops()
        request = threading.Event()
        self._flush_requests.append(request)
        self._ensure_worker()
        self._wake.set()
        done = request.wait(timeout_s)
        return self._no_new_drops() and done

    def _no_new_drops(self) -> bool:
        dropped = self.counters.snapshot()["dropped"]
        fresh, self._dropped_mark = dropped > self._dropped_mark, dropped
        return not fresh

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
        left = len(self._queue) + len(self._spill)
        if left and (worker is None or not worker.is_alive()):
            self._drop(left, "they were not durable when the writer shut down")
            done = False
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
            if target.shutdown(timeout_s):
                log.debug("handoff: flushed at exit in %.3fs", time.monotonic() - start)
                return
            counts = target.counters.snapshot()
            unwritten = counts["enqueued"] - counts["written"] - counts["spooled"] - counts["dropped"]
            if unwritten <= 0:  # the worker finished while shutdown joined it
                return
            # Never silent: the daemon worker dies with the interpreter and takes these records with it.
            log.warning(
                "handoff: %d records were not written at exit (the writer did not finish in %gs)", unwritten, timeout_s
            )

    atexit.register(_flush_at_exit)
