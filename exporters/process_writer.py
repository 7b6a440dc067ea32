"""The application's side of the writer process: :class:`ProcessStoreWriter`.

The hot path (:meth:`ProcessStoreWriter.on_end`) only appends the record to a bounded queue;
it never scrubs, extracts, encodes or touches a disk. A sender thread cuts the queue into
batches, serializes them (one pickle of plain tuples, see :mod:`handoff.exporters.framing`) and
sends them over a socket pair to a worker process (:mod:`handoff.exporters.worker`) that it
starts on first use as a fresh interpreter (never a fork of the application). An acknowledger
thread reads the worker's answers.

What the application relies on (docs/architecture.md "Background writer" says how):
nothing handed over is lost when the worker dies (each batch stays here until the worker
acknowledges it durable, and is sent again to the next worker); memory is bounded by
``max_queue`` and ``max_queue_bytes``, past which the calling thread appends each record to a
spill file itself, AES-GCM encrypted under a key held only in memory (one write into the page
cache, no fsync: nothing is lost while the disk has room, and memory stays bounded); ``force_flush`` returns once everything handed over
before it is durable (``False`` on timeout or after a drop); after ``os.fork()`` the child gets
its own queue, threads, key and worker; where no process can start, the thread writer takes over.
"""

from __future__ import annotations

import collections
import logging
import os
import pickle
import socket
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from handoff.diagnostics import Counters, warn_once
from handoff.exporters.framing import (
    BATCH,
    FLUSH,
    HELLO,
    QUIT,
    SPILLED,
    Batch,
    Channel,
    FlushRequest,
    RawSpill,
    encode_records,
    frame,
    new_key,
    record_bytes,
)
from handoff.model import Record

log = logging.getLogger("handoff.exporters")

#: Records per batch sent to the worker or spilled to disk, and bytes: small, so that serializing
#: (and encrypting) one batch holds the GIL briefly (the application's threads never wait long for it).
CHUNK_RECORDS = 256
CHUNK_BYTES = 256 << 10
#: A spill file is handed to the worker once it holds this much (or at the sender's next tick).
SPILL_CHUNK_BYTES = 4 << 20
#: A batch sent to this many workers that all died before acknowledging it is dropped.
MAX_SENDS = 3
#: How often the sender wakes when nothing asks it to (it also wakes on a full chunk or a flush).
TICK_S = 0.05


class ProcessStoreWriter:
    """Hands records to a writer process; see the module docstring for what callers rely on.

    ``config`` is what the worker builds its exporter from (:func:`handoff.exporters.factory.worker_config`),
    ``spool`` the store's spool (status files, the raw spill's directory), ``fallback`` builds the
    thread writer used when no process can be started.
    """

    mode = "process"

    def __init__(
        self,
        settings: Any,
        *,
        config: dict[str, Any],
        spool: Any,
        counters: Counters | None = None,
        fallback: Callable[[], Any] | None = None,
    ) -> None:
        self.settings = settings
        self.counters = counters or Counters()
        self.max_queue = settings.max_queue
        self.max_queue_bytes = settings.max_queue_bytes
        self.spool = spool
        self._config = config
        self._fallback_factory = fallback
        self.started_s = time.time()
        self._init_state()
        weak = weakref.WeakMethod(self._init_state)
        os.register_at_fork(after_in_child=lambda: (weak() or (lambda: None))())

    def _init_state(self) -> None:
        # Also the child's state after fork: nothing of the parent's queue, threads or worker.
        old = getattr(self, "_conn", None)
        if old is not None:
            old.close()  # the child's copy of the parent's channel; the parent's stays open
        if getattr(self, "_segment", None) is not None:
            self._segment.forget()  # the child's copy of the parent's spill file; the parent keeps writing it
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._queue: collections.deque[Record] = collections.deque()
        self._segment: Any = None  # the spill file the calling threads append to, under _segment_lock
        self._segment_lock = threading.Lock()
        self._mem_records = self._mem_bytes = self._raw_bytes = 0
        self._unsent: collections.deque[Batch] = collections.deque()
        self._inflight: collections.OrderedDict[int, Batch] = collections.OrderedDict()
        self._next_id = 1
        self._flushes: list[FlushRequest] = []
        self._flush_sent: dict[int, FlushRequest] = {}
        self._flush_ids = 0
        self._key = new_key()
        self._raw = RawSpill(self.spool.directory / "raw", self._key) if self.spool is not None else None
        self._conn: Any = None
        self._proc: subprocess.Popen | None = None
        self._worker_pid: int | None = None
        self._dead = False
        self._ready = False
        self._early_deaths = 0
        self._restart_at = 0.0
        self.restarts = 0
        self._fallback: Any = None
        self._sender: threading.Thread | None = None
        self._shutdown = False
        self._status_written: dict | None = None
        self._status_at = 0.0
        self._dropped_mark = self.counters.snapshot()["dropped"]

    # -- hot path ------------------------------------------------------------------------

    def on_end(self, record: Record) -> None:
        """Queue one record; runs on the caller's thread, never blocks, never does I/O, never raises."""
        if self._shutdown:
            self._drop(1, "the writer is shut down")
            return
        size = record_bytes(record)
        with self._lock:
            fallback = self._fallback
            if fallback is not None:
                wake = False
            elif self._mem_records < self.max_queue and self._mem_bytes + size <= self.max_queue_bytes:
                self._queue.append(record)
                self._mem_records += 1
                self._mem_bytes += size
                wake = len(self._queue) >= CHUNK_RECORDS
            else:
                wake = "spill" if self._raw is not None else None
        if fallback is not None:
            fallback.on_end(record)
            return
        if wake is None:
            self._drop(1, "the queue is full and there is no spool to spill to")
            return
        if wake == "spill" and not self._append_to_spill(record, size):
            return
        self.counters.add("enqueued")
        if wake is True:
            self._wake.set()
        if self._sender is None:
            self._start_sender()

    def _drop(self, count: int, why: str) -> None:
        self.counters.add("dropped", count)
        warn_once(f"handoff: dropping records because {why} (see `handoff status`)")

    def _append_to_spill(self, record: Record, size: int) -> bool:
        """Past the memory bound: write the record, encrypted, to the spill file from the calling thread.

        One ``write`` into the page cache; ``False`` (counted as dropped, logged once) only when the
        disk is full, the spill directory cannot be written, or the spill reached ``spool_max_bytes``.
        """
        with self._segment_lock:
            try:
                segment = self._segment
                held = self._raw_bytes + (segment.size if segment is not None else 0)
                if held + size > self.settings.spool_max_bytes:
                    raise OSError("the raw spill is full (spool_max_bytes)")
                if segment is None:
                    segment = self._segment = self._raw.open_segment()
                segment.append([record], size)
            except OSError as exc:
                warn_once("handoff: cannot spill records to %s: %s", self._raw.directory, exc)
                self._drop(1, "the spill cannot be written")
                return False
            if segment.size >= SPILL_CHUNK_BYTES:
                self._seal_segment_locked()
        return True

    def _seal_segment(self) -> None:
        """Hand the current spill file (if any) to the sender as a batch."""
        if self._segment is not None:
            with self._segment_lock:
                self._seal_segment_locked()

    def _seal_segment_locked(self) -> None:
        segment, self._segment = self._segment, None
        if segment is None or not segment.count:
            if segment is not None:
                segment.abandon()
            return
        try:
            path = segment.close()
        except OSError as exc:
            segment.abandon()
            warn_once("handoff: cannot spill records to %s: %s", self._raw.directory, exc)
            self._drop(segment.count, "the spill cannot be written")
            return
        with self._lock:
            self._raw_bytes += segment.size
            self._unsent.append(Batch(self._new_id(), segment.count, 0, path=path, raw_bytes=segment.raw_bytes))
        self.counters.add("spilled", segment.count)
        self._wake.set()

    def _start_sender(self) -> None:
        with self._lock:
            if self._sender is None:
                self._sender = threading.Thread(target=self._run_sender, name="handoff-sender", daemon=True)
                self._sender.start()

    # -- sender thread -------------------------------------------------------------------

    def _run_sender(self) -> None:
        while True:
            self._wake.wait(TICK_S)
            self._wake.clear()
            try:
                if self._fallback is None and not self._ensure_worker():
                    self._hand_to_fallback()
                if self._fallback is not None:
                    self._release_flushes()
                    return
                requests = self._new_flushes()
                self._seal_segment()  # before the cut: a flush covers what was spilled before it
                self._cut_batches()
                with self._lock:
                    for request in requests:
                        request.mark = self._next_id - 1  # after the cut: covers everything queued before the flush
                self._send_batches()
                self._send_flushes()
                self._publish_status()
            except Exception as exc:  # noqa: BLE001 - the sender must keep going; the worker restart path recovers
                warn_once("handoff: the writer's sender failed (%s); retrying", exc)
                time.sleep(TICK_S)
            if self._shutdown and self._idle():
                self._quit_worker()
                return

    def _idle(self) -> bool:
        with self._lock:
            return not (
                self._queue or self._segment or self._unsent or self._inflight or self._flushes or self._flush_sent
            )

    def _new_id(self) -> int:
        ident, self._next_id = self._next_id, self._next_id + 1
        return ident

    def _cut_batches(self) -> None:
        with self._lock:
            while self._queue:
                records, nbytes = [], 0
                while self._queue and len(records) < CHUNK_RECORDS and nbytes < CHUNK_BYTES:
                    record = self._queue.popleft()
                    records.append(record)
                    nbytes += record_bytes(record)
                self._unsent.append(Batch(self._new_id(), len(records), nbytes, records=records))

    def _send_batches(self) -> None:
        window = self.max_queue_bytes // 2
        while True:
            with self._lock:
                if not self._unsent or self._dead:
                    return
                batch = self._unsent[0]
                in_flight = sum(b.nbytes for b in self._inflight.values())
                if self._inflight and in_flight + batch.nbytes > window:
                    return  # the worker is behind: keep the rest here (new records spill past the bound)
                self._unsent.popleft()
                self._inflight[batch.ident] = batch
                batch.sends += 1
            if batch.path is not None:
                message = frame(
                    SPILLED, batch.ident, struct.pack(">QQ", batch.count, batch.raw_bytes) + str(batch.path).encode()
                )
            else:
                message = frame(BATCH, batch.ident, encode_records(batch.records))
            if not self._send(message):
                return

    def _send(self, message: bytes) -> bool:
        try:
            self._conn.send_bytes(message)
            return True
        except OSError:
            self._dead = True
            return False

    def _new_flushes(self) -> list[FlushRequest]:
        with self._lock:
            return [request for request in self._flushes if request.mark is None]

    def _send_flushes(self) -> None:
        with self._lock:
            first_unsent = self._unsent[0].ident if self._unsent else self._next_id
            ready = [r for r in self._flushes if r.mark is not None and r.mark < first_unsent]
            self._flushes = [r for r in self._flushes if r not in ready]
            for request in ready:
                self._flush_ids += 1
                request.ident = self._flush_ids
                self._flush_sent[request.ident] = request
        for request in ready:
            self._send(frame(FLUSH, request.ident))

    def _release_flushes(self) -> None:
        with self._lock:
            waiting = self._flushes + list(self._flush_sent.values())
            self._flushes, self._flush_sent = [], {}
        for request in waiting:
            request.done.set()

    # -- the worker process --------------------------------------------------------------

    def _ensure_worker(self) -> bool:
        """Start or restart the worker when needed; ``False`` when no process can be started."""
        if self._conn is not None and not self._dead:
            return True
        try:
            if self._conn is not None:
                self._reap_dead_worker()
            if time.monotonic() < self._restart_at:
                return True
            self._start_worker()
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            warn_once("handoff: cannot start the writer process (%s); writing on a thread instead", exc)
            return False
        return True

    def _start_worker(self) -> None:
        if not sys.executable or not os.path.exists(sys.executable):
            raise OSError("no Python interpreter to start (sys.executable is empty)")
        if self._raw is not None and self.restarts == 0:
            self._forget_orphaned_spill()
        ours, theirs = socket.socketpair()
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "handoff.exporters.worker", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                close_fds=True,
            )
        finally:
            theirs.close()
        conn = Channel(ours)
        hello = {
            **self._config,
            "raw_key": self._key,
            "raw_dir": str(self._raw.directory) if self._raw else None,
            "app_pid": os.getpid(),
            "spool": self.spool is not None,
        }
        conn.send_bytes(frame(HELLO, 0, pickle.dumps(hello, protocol=pickle.HIGHEST_PROTOCOL)))
        self._conn, self._dead, self._ready = conn, False, False
        threading.Thread(target=self._run_acks, args=(conn,), name="handoff-acks", daemon=True).start()

    def _reap_dead_worker(self) -> None:
        proc, conn = self._proc, self._conn
        code = proc.poll() if proc is not None else None
        if proc is not None and code is None:
            proc.kill()
            code = proc.wait(5)
        conn.close()
        self._conn = self._proc = None
        self.restarts += 1
        self._early_deaths = self._early_deaths + 1 if not self._ready else 0
        self._restart_at = time.monotonic() + min(30.0, 0.2 * 2 ** min(self._early_deaths, 8))
        with self._lock:
            resend = list(self._inflight.values())
            self._inflight.clear()
            dropped = [b for b in resend if b.sends >= MAX_SENDS]
            self._unsent.extendleft(reversed([b for b in resend if b.sends < MAX_SENDS]))
            self._flushes = list(self._flush_sent.values()) + self._flushes
            self._flush_sent = {}
        for batch in dropped:
            self._settle(batch)
            self._drop(batch.count, f"the writer process died {MAX_SENDS} times on the same batch")
        warn_once(
            "handoff: the writer process exited (code %s); restarting it and sending its unacknowledged records again",
            code,
        )
        if self._early_deaths >= MAX_SENDS:
            raise OSError(f"the writer process died {self._early_deaths} times before it was ready")

    def _forget_orphaned_spill(self) -> None:
        from handoff.exporters.framing import orphaned_raw_records
        from handoff.exporters.spool import pid_alive

        files, records = orphaned_raw_records(self._raw.directory, pid_alive)
        if files:
            warn_once(
                "handoff: removed %d raw spill files of processes that crashed (%d records, unreadable without "
                "their key, which died with them)",
                files,
                records,
            )

    def _quit_worker(self) -> None:
        if self._conn is not None and not self._dead:
            self._send(frame(QUIT, 0))
            if self._proc is not None:
                try:
                    self._proc.wait(10)
                except subprocess.TimeoutExpired:
                    self._proc.kill()

    # -- acknowledgements (their own thread) -------------------------------------------

    def _run_acks(self, conn: Any) -> None:
        while True:
            try:
                message = pickle.loads(conn.recv_bytes())
            except (EOFError, OSError):
                if conn is self._conn:
                    self._dead = True
                    self._wake.set()
                return
            self._on_message(message)

    def _on_message(self, message: tuple) -> None:
        kind = message[0]
        if kind == "ready":
            self._worker_pid, self._ready, self._early_deaths = message[1], True, 0
        elif kind == "ack":
            _kind, acks, outcome, deltas, why = message
            for ident, count in acks:
                with self._lock:
                    batch = self._inflight.pop(ident, None)
                if batch is not None:
                    self._settle(batch)
                    self.counters.add(outcome, count)
            self._apply(deltas)
            if outcome == "dropped":
                warn_once(f"handoff: dropping records because {why} (see `handoff status`)")
        elif kind == "flushed":
            self._apply(message[2])
            with self._lock:
                request = self._flush_sent.pop(message[1], None)
            if request is not None:
                self._publish_status(force=True)  # before the flush returns, so `handoff status` agrees with it
                request.done.set()
        elif kind == "bye":
            self._apply(message[1])
        elif kind == "log":
            _kind, name, level, text = message
            warn_once(text) if level >= logging.WARNING else logging.getLogger(name).log(level, text)

    def _apply(self, deltas: dict[str, int]) -> None:
        for name, amount in deltas.items():
            self.counters.add(name, amount)

    def _settle(self, batch: Batch) -> None:
        """Forget a batch the worker made durable (or that was dropped): free its memory or its spill file."""
        with self._lock:
            self._mem_records -= batch.count if batch.records is not None else 0
            self._mem_bytes -= batch.nbytes
        batch.records = None
        if batch.path is not None:
            with self._lock:
                self._raw_bytes -= batch.path.stat().st_size if batch.path.exists() else 0
            RawSpill.remove(batch.path)

    # -- fallback ------------------------------------------------------------------------

    def _hand_to_fallback(self) -> None:
        """Give everything pending to a thread writer, which takes over for good."""
        fallback = self._fallback_factory()
        self._seal_segment()
        with self._lock:
            self._fallback = fallback  # from here on the hot path hands records to it directly
            batches = list(self._inflight.values()) + list(self._unsent)
            self._inflight.clear()
            self._unsent.clear()
            loose = list(self._queue)
            self._queue.clear()
        records = []
        for batch in batches:
            records += batch.records if batch.records is not None else self._raw.load(batch.path)
            self._settle(batch)
        fallback.take_over(records + loose)
        self.mode = "thread"

    # -- lifecycle -----------------------------------------------------------------------

    def pending_records(self) -> int:
        """Records handed over and not yet durable (queued, spilled, in flight)."""
        with self._lock:
            held = sum(b.count for b in self._unsent) + sum(b.count for b in self._inflight.values())
            spilling = self._segment.count if self._segment is not None else 0
            return len(self._queue) + spilling + held

    def force_flush(self, timeout_s: float = 30.0) -> bool:
        """Wait until everything handed over before this call is durable.

        ``False`` on timeout, or if any record was dropped since the previous flush.
        """
        if self._fallback is not None:
            return self._fallback.force_flush(timeout_s) and self._no_new_drops()
        if self._sender is None and not (self.spool is not None and self.spool.has_pending()):
            return self._no_new_drops()
        request = FlushRequest()
        with self._lock:
            self._flushes.append(request)
        if self._sender is None:
            self._start_sender()
        self._wake.set()
        done = request.done.wait(timeout_s)
        if self._fallback is not None:
            done = self._fallback.force_flush(max(0.1, timeout_s)) and done
        return self._no_new_drops() and done

    def _no_new_drops(self) -> bool:
        dropped = self.counters.snapshot()["dropped"]
        fresh, self._dropped_mark = dropped > self._dropped_mark, dropped
        return not fresh

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Flush, stop the worker; records still not durable after ``timeout_s`` are counted as dropped."""
        if self._shutdown:
            return True
        done = self.force_flush(timeout_s)
        self._shutdown = True
        self._wake.set()
        if self._fallback is not None:
            return self._fallback.shutdown(timeout_s) and done
        sender = self._sender
        if sender is not None and sender is not threading.current_thread():
            sender.join(max(1.0, timeout_s))
        left = self.pending_records()
        if left:
            self._drop(left, "they were not durable when the writer shut down")
            self._discard_pending()
        self._publish_status(force=True)
        return done and not left

    def _discard_pending(self) -> None:
        self._seal_segment()
        with self._lock:
            batches = list(self._inflight.values()) + list(self._unsent)
            self._inflight.clear()
            self._unsent.clear()
            self._queue.clear()
        for batch in batches:
            self._settle(batch)

    # -- status --------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        """What ``handoff status`` shows for this process: mode, worker, counters, what waits."""
        if self._fallback is not None:
            return {**self._fallback.status(), "mode": "thread", "worker_restarts": self.restarts, "worker_pid": None}
        return {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "store": self.spool.store_url if self.spool is not None else None,
            "started": self.started_s,
            "updated": time.time(),
            "queued": self.pending_records(),
            "backlog": bool(self.spool is not None and self.spool.has_pending()),
            "mode": "process",
            "worker_pid": self._worker_pid,
            "worker_restarts": self.restarts,
            "counters": self.counters.snapshot(),
        }

    def _publish_status(self, force: bool = False) -> None:
        if self.spool is None or (not force and time.monotonic() - self._status_at < 1.0):
            return
        snapshot = self.counters.snapshot()
        if snapshot == self._status_written and not force:
            return
        self._status_at = time.monotonic()
        try:
            self.spool.write_status(self.status())
            self._status_written = snapshot
        except OSError as exc:
            warn_once("handoff: cannot write the status file in %s: %s", self.spool.directory, exc)
