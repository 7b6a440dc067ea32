"""The writer process: ``python -m handoff.exporters.worker FD``, started by :mod:`handoff.exporters.process_writer`.

It receives raw record batches from the application over a socket pair, and does everything
the application must not: scrub, extract constraints, encode Parquet, write the store, spool
while the store is down. A fresh interpreter (never a fork of the application, whose threads
and locks would be copied mid-flight), it imports nothing of the application.

Batches are coalesced up to ``max_batch`` records (and ``max_batch_bytes``) or
``flush_interval_s``, prepared once, written (or spooled), and then acknowledged one by one:
``written``, ``spooled`` or ``dropped``. An acknowledgement means *durable*: in the store or
in the local spool (already scrubbed). The application keeps every batch until then, so if this
process dies it sends them again to the next one; batches this one had written are written
again under new file names, true duplicates the views hide and compaction removes.

Messages back are pickled tuples: ``("ready", pid)``, ``("ack", [(batch id, records)], outcome,
deltas, why dropped)``, ``("flushed", flush id, deltas)``, ``("log", logger, level, text)`` and ``("bye",)``.
When the application goes away without saying so (it was killed), the worker still processes
what it had received, then exits.
"""

from __future__ import annotations

import logging
import os
import pickle
import signal
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any

from handoff.exporters.framing import (
    BATCH,
    FLUSH,
    HELLO,
    QUIT,
    SPILLED,
    Channel,
    RawSpill,
    decode_records,
    record_bytes,
    unframe,
)

log = logging.getLogger("handoff.exporters")


class _Forward(logging.Handler):
    """Sends the worker's log records to the application, which logs them (once) as its own."""

    def __init__(self, send) -> None:
        super().__init__(logging.INFO)
        self._send = send

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._send(("log", record.name, record.levelno, record.getMessage()))
        except Exception:  # noqa: BLE001 - a log line must never take the worker down
            pass


class Worker:
    """One writer process's loop over its channel (see the module docstring)."""

    def __init__(self, conn: Channel, hello: dict[str, Any]) -> None:
        self.conn = conn
        self.hello = hello
        self.max_batch = int(hello["max_batch"])
        self.max_batch_bytes = int(hello.get("max_batch_bytes", 32 << 20))
        self.flush_interval_s = float(hello["flush_interval_s"])
        self.raw = RawSpill(Path(hello["raw_dir"]), hello["raw_key"]) if hello.get("raw_key") else None
        self.pending: list[tuple[int, int, int, Any]] = []  # (batch id, records, bytes, records or raw path)
        self.pending_records = self.pending_bytes = 0
        self.oldest_s: float | None = None
        self.deltas: dict[str, int] = {}
        self._send_lock = threading.Lock()
        self.app_gone = False
        self._exporter = None
        self._pool = None
        self.spool = self._build_spool()
        from handoff.exporters.spool import Backoff

        self.backoff = Backoff()
        self.backlog = self.spool is not None

    # -- channel -------------------------------------------------------------------------

    def send(self, message: tuple) -> None:
        """Send one message to the application (any thread); once it is gone, messages are dropped."""
        if self.app_gone:
            return
        try:
            with self._send_lock:
                self.conn.send_bytes(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:  # the application was killed: finish what was received, tell no one
            self.app_gone = True

    def count(self, name: str, amount: int = 1) -> None:
        """Add to a counter the next message reports to the application."""
        if amount:
            self.deltas[name] = self.deltas.get(name, 0) + amount

    def take_deltas(self) -> dict[str, int]:
        deltas, self.deltas = self.deltas, {}
        return deltas

    # -- building ------------------------------------------------------------------------

    def _build_spool(self) -> Any:
        if not self.hello.get("spool", True):
            return None
        from handoff.exporters.spool import Spool

        try:
            return Spool(
                self.hello["store"], root=self.hello.get("spool_dir"), max_bytes=int(self.hello["spool_max_bytes"])
            )
        except (ValueError, OSError) as exc:
            log.warning("handoff: spooling is off (%s); records are dropped while the store is down", exc)
            return None

    def exporter(self) -> Any:
        if self._exporter is None:
            from handoff.exporters.factory import build_store_exporter

            self._exporter = build_store_exporter(self.hello)
        return self._exporter

    def analyze(self, records: list) -> list:
        """Scrub and extract every record: in a pool of processes when one is configured, else here."""
        pool_size = int(self.hello.get("pool", 1))
        if pool_size <= 1 or len(records) < 2 * pool_size:
            exporter = self.exporter()
            return [exporter.analyze(record) for record in records]
        if self._pool is None:
            from handoff.exporters.pool import AnalysisPool

            self._pool = AnalysisPool(pool_size, self.hello)
        return self._pool.analyze(records)

    # -- loop ----------------------------------------------------------------------------

    def run(self) -> None:
        """Serve the channel until the application says quit or goes away."""
        self.send(("ready", os.getpid()))
        self.retry_spool(force=True)
        while True:
            if not self.conn.poll(self._timeout_s()):
                self.process(due_only=True)
                self.retry_spool()
                continue
            try:
                data = self.conn.recv_bytes()
            except (EOFError, OSError):
                self.app_gone = True
                self.process()
                return
            if not self.handle(data):
                return

    def _timeout_s(self) -> float | None:
        waits = []
        if self.oldest_s is not None:
            waits.append(self.oldest_s + self.flush_interval_s - time.monotonic())
        if self.backlog and self.spool is not None:
            waits.append(max(0.05, self.backoff.next_attempt - time.monotonic()))
        return max(0.0, min(waits)) if waits else None

    def handle(self, data: bytes) -> bool:
        """Act on one message; ``False`` once the application said quit."""
        kind, ident, payload = unframe(data)
        if kind == BATCH:
            records = decode_records(payload)
            self.add(ident, len(records), sum(map(record_bytes, records)), records)
        elif kind == SPILLED:
            count, nbytes = struct.unpack_from(">QQ", payload)
            self.add(ident, count, nbytes, Path(payload[16:].decode()))
        elif kind == FLUSH:
            self.retry_spool(force=True)  # older spooled data first, as the thread writer does
            self.process()
            self.send(("flushed", ident, self.take_deltas()))
        elif kind == QUIT:
            self.process()
            self.send(("bye", self.take_deltas()))
            return False
        return True

    def add(self, ident: int, records: int, nbytes: int, content: Any) -> None:
        self.pending.append((ident, records, nbytes, content))
        self.pending_records += records
        self.pending_bytes += nbytes
        if self.oldest_s is None:
            self.oldest_s = time.monotonic()
        if self.pending_records >= self.max_batch or self.pending_bytes >= self.max_batch_bytes:
            self.process()

    def process(self, due_only: bool = False) -> None:
        """Prepare and deliver pending batches, a group of at most ``max_batch`` records at a time."""
        if due_only and (self.oldest_s is None or time.monotonic() - self.oldest_s < self.flush_interval_s):
            return
        while self.pending:
            group, records, nbytes = [], 0, 0
            while self.pending and (
                not group or (records + self.pending[0][1] <= self.max_batch and nbytes < self.max_batch_bytes)
            ):
                item = self.pending.pop(0)
                group.append(item)
                records += item[1]
                nbytes += item[2]
            self.pending_records -= records
            self.pending_bytes -= nbytes
            self.deliver_group(group)
        self.oldest_s = None

    def _load(self, content: Any) -> list:
        if isinstance(content, Path):
            if self.raw is None:
                raise RuntimeError("a spilled batch arrived without the key to read it")
            return self.raw.load(content)
        return content

    def deliver_group(self, group: list[tuple[int, int, int, Any]]) -> None:
        """Prepare one group and make it durable; acknowledge each of its batches with the outcome."""
        acks = [(ident, records) for ident, records, _nbytes, _content in group]
        total = sum(records for _ident, records in acks)
        try:
            batch = [record for item in group for record in self._load(item[3])]
            exporter = self.exporter()
            before = exporter.encode_errors
            objects = exporter.assemble(batch, self.analyze(batch))
            self.count("encode_errors", exporter.encode_errors - before)
        except Exception as exc:  # noqa: BLE001 - a bad batch must not take the worker down
            log.warning("handoff: preparing a batch failed (%s); its records are dropped", exc)
            self.count("export_failures")
            self.send(("ack", acks, "dropped", self.take_deltas(), "a batch could not be prepared"))
            return
        outcome = self.store_or_spool(objects, total)
        why = "the spool is full or cannot be written" if self.spool is not None else "the store could not be written"
        self.send(("ack", acks, outcome, self.take_deltas(), why))

    def store_or_spool(self, objects: list, records: int) -> str:
        if not self.backlog:
            try:
                self.exporter().write(objects)
                return "written"
            except Exception as exc:  # noqa: BLE001 - any failure to write means: keep it locally
                self.write_failed(exc)
        if self.spool is None:
            return "dropped"
        try:
            stored = self.spool.put(objects, records)
        except OSError as exc:
            log.warning("handoff: cannot write the spool at %s: %s", self.spool.directory, exc)
            stored = False
        if stored:
            self.backlog = True
            return "spooled"
        return "dropped"

    def write_failed(self, exc: Exception) -> None:
        self.count("export_failures")
        delay = self.backoff.failed()
        self.backlog = self.spool is not None
        log.warning("handoff: the store cannot be written (%s); spooling and retrying with backoff", exc)
        log.info("handoff: store write failed (%s); next retry in %.1fs", exc, delay)

    def retry_spool(self, force: bool = False) -> None:
        """Send spooled batches first; on failure back off (a flush retries at once)."""
        if self.spool is None or not self.backlog or not (force or self.backoff.due()):
            return
        from handoff.exporters.spool import deliver

        try:
            self.spool.clean_temp()
            deliver(self.spool, self.exporter().write, self._delivered)
        except Exception as exc:  # noqa: BLE001
            self.write_failed(exc)
            return
        self.backoff.succeeded()
        self.backlog = False

    def _delivered(self, records: int) -> None:
        self.count("written", records)
        self.count("retried", records)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
        if self._exporter is not None:
            self._exporter.shutdown()


#: How much the writer process lowers its scheduling priority (``nice``) below the application's.
#: Its pool processes inherit it. On a machine whose cores are all busy, the application's threads
#: win the CPU and the writer takes what is left: records wait longer, the application does not.
NICENESS = 10


def lower_priority(increment: int = NICENESS) -> None:
    """Lower this process's priority by ``increment``; where that is not possible, carry on as is."""
    try:
        os.nice(increment)
    except (AttributeError, OSError) as exc:  # no os.nice (Windows) or not permitted
        log.warning("handoff: the writer process runs at the application's priority (%s)", exc)


def main(argv: list[str] | None = None) -> int:
    """Entry point: serve the channel on file descriptor ``argv[0]``."""
    argv = sys.argv[1:] if argv is None else argv
    # Ctrl-C reaches the whole process group; the application decides when its writer stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import socket

    conn = Channel(socket.socket(fileno=int(argv[0])))
    data = conn.recv_bytes()
    kind, _ident, payload = unframe(data)
    if kind != HELLO:
        return 2
    worker = Worker(conn, pickle.loads(payload))
    logging.getLogger("handoff").addHandler(_Forward(worker.send))
    logging.getLogger("handoff").propagate = False
    lower_priority()  # after the forwarding handler, so the application logs it if it cannot
    try:
        worker.run()
    except (BrokenPipeError, ConnectionResetError):
        pass
    finally:
        worker.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
