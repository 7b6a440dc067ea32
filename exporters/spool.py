"""The local spool: where prepared objects wait while the store is unreachable.

A spooled batch is the output of ``StoreExporter.prepare`` (already scrubbed and encoded, with
final keys), never raw records, so spooling keeps the "nothing unscrubbed on disk" promise and
re-sending needs no scrubber. Each batch is one file, written to a temp name, fsynced and
renamed, so a crash leaves either the whole batch or a temp file that :meth:`Spool.clean_temp`
removes; a reader never sees half a batch. Re-sending a batch is idempotent (same keys, same
bytes), so two processes sharing a spool may both deliver it without harm; an advisory
``flock`` keeps them from doing the work twice.

Layout (one directory per store, so one spool root serves many stores)::

    <root>/<store-slug>/store.txt               the store URL
    <root>/<store-slug>/batches/<ns>-<pid>-<rand>.spool
    <root>/<store-slug>/status/<host>-<pid>.json  counters of each writing process (``handoff status``)

The default root is ``platformdirs.user_cache_dir("handoff")/spool``; ``configure(spool_dir=)``
or ``HANDOFF_SPOOL_DIR`` change it, ``configure(spool_max_bytes=)`` bounds it (default 1 GiB).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import re
import secrets
import socket
import struct
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from handoff.errors import CorruptFile
from handoff.store.base import PendingObject
from handoff.store.files import check_file_mode, file_mode_from_env, make_dirs, write_private

MAGIC = b"HOSPOOL1"
SUFFIX = ".spool"
TEMP_PREFIX = ".tmp-"
_SLUG = re.compile(r"[^A-Za-z0-9]+")


def default_spool_root() -> Path:
    """Return the spool root: ``HANDOFF_SPOOL_DIR`` or ``<user cache dir>/handoff/spool``."""
    configured = os.environ.get("HANDOFF_SPOOL_DIR")
    if configured:
        return Path(configured).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("handoff")) / "spool"


def canonical_store_url(store: str) -> str:
    """Return the URL that names a store in the spool: ``s3://...`` as given, directories as absolute paths."""
    store = str(store)
    if store.startswith("s3://"):
        return store.rstrip("/")
    if store.startswith("file://"):
        store = store[len("file://") :]
    return Path(store).expanduser().resolve().as_uri()


def _store_slug(url: str) -> str:
    tail = _SLUG.sub("-", url.split("://", 1)[-1]).strip("-")[-40:]
    return f"{tail}-{hashlib.sha256(url.encode()).hexdigest()[:12]}"


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _write_atomic(path: Path, data: bytes, file_mode: int) -> None:
    temp = path.with_name(f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}-{path.name}")
    try:
        write_private(temp, data, file_mode)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    # The rename is durable only once the directory entry is.
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def encode_batch(objects: Sequence[PendingObject], records: int, store_url: str) -> bytes:
    """Serialize prepared objects: magic, header length, JSON header (keys, sizes, digests), then the bytes."""
    header = {
        "records": records,
        "store": store_url,
        "created": time.time(),
        "objects": [{"key": o.key, "size": len(o.data), "sha256": hashlib.sha256(o.data).hexdigest()} for o in objects],
    }
    raw = json.dumps(header, separators=(",", ":")).encode()
    return b"".join([MAGIC, struct.pack(">Q", len(raw)), raw, *(o.data for o in objects)])


def decode_batch(data: bytes, where: str) -> tuple[list[PendingObject], int]:
    """Parse a spooled batch back into ``(objects, record count)``; raise ``CorruptFile`` if it does not check out."""
    if data[: len(MAGIC)] != MAGIC or len(data) < len(MAGIC) + 8:
        raise CorruptFile(f"spooled batch {where} has no spool header", uri=where)
    (length,) = struct.unpack(">Q", data[len(MAGIC) : len(MAGIC) + 8])
    offset = len(MAGIC) + 8
    try:
        header = json.loads(data[offset : offset + length])
    except ValueError as exc:
        raise CorruptFile(f"spooled batch {where} has a bad header: {exc}", uri=where) from exc
    offset += length
    objects = []
    for item in header["objects"]:
        chunk = data[offset : offset + item["size"]]
        offset += item["size"]
        if hashlib.sha256(chunk).hexdigest() != item["sha256"]:
            raise CorruptFile(f"spooled batch {where}: {item['key']} does not match its digest", uri=where)
        objects.append(PendingObject(item["key"], chunk))
    return objects, int(header["records"])


@dataclass(frozen=True)
class SpoolState:
    """What ``handoff status`` shows about one store's spool."""

    directory: str
    store: str
    pending_batches: int
    pending_bytes: int
    max_bytes: int
    oldest_age_s: float | None


class Spool:
    """The bounded on-disk queue of prepared batches for one store. Creating one does no I/O."""

    def __init__(
        self,
        store_url: str,
        *,
        root: str | os.PathLike[str] | None = None,
        max_bytes: int = 1 << 30,
        file_mode: int | None = None,
    ) -> None:
        if max_bytes < 0:
            raise ValueError("spool_max_bytes must be >= 0")
        #: Spooled batches hold scrubbed content: created 0600 (dirs 0700) whatever the umask.
        self.file_mode = file_mode_from_env() if file_mode is None else check_file_mode(file_mode)
        self.store_url = canonical_store_url(store_url)
        self.root = Path(root).expanduser() if root else default_spool_root()
        self.directory = self.root / _store_slug(self.store_url)
        self.batches = self.directory / "batches"
        self.status_dir = self.directory / "status"
        self.max_bytes = max_bytes

    def _ensure(self) -> None:
        if not self.batches.is_dir():
            make_dirs(self.batches, self.file_mode)
            make_dirs(self.status_dir, self.file_mode)
            _write_atomic(self.directory / "store.txt", (self.store_url + "\n").encode(), self.file_mode)

    # -- writing -------------------------------------------------------------------------

    def put(self, objects: Sequence[PendingObject], records: int) -> bool:
        """Spool one prepared batch durably; return ``False`` (nothing written) when it would exceed ``max_bytes``."""
        self._ensure()
        data = encode_batch(objects, records, self.store_url)
        if self.size_bytes() + len(data) > self.max_bytes:
            return False
        name = f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(4)}{SUFFIX}"
        _write_atomic(self.batches / name, data, self.file_mode)
        return True

    # -- reading -------------------------------------------------------------------------

    def pending(self) -> list[Path]:
        """Return spooled batch files, oldest first (temp files excluded)."""
        try:
            names = sorted(
                entry.name
                for entry in os.scandir(self.batches)
                if entry.name.endswith(SUFFIX) and not entry.name.startswith(".")
            )
        except FileNotFoundError:
            return []
        return [self.batches / name for name in names]

    def has_pending(self) -> bool:
        """Tell cheaply whether anything is spooled."""
        try:
            return any(
                entry.name.endswith(SUFFIX) and not entry.name.startswith(".") for entry in os.scandir(self.batches)
            )
        except FileNotFoundError:
            return False

    def load(self, path: Path) -> tuple[list[PendingObject], int]:
        """Read one spooled batch; a corrupt one is moved aside to ``corrupt/`` and raises ``CorruptFile``."""
        try:
            return decode_batch(path.read_bytes(), str(path))
        except CorruptFile:
            aside = self.directory / "corrupt"
            make_dirs(aside, self.file_mode)
            os.replace(path, aside / path.name)
            raise

    def remove(self, path: Path) -> None:
        """Forget a delivered batch."""
        path.unlink(missing_ok=True)

    @contextlib.contextmanager
    def claim(self, path: Path) -> Iterator[bool]:
        """Hold an advisory lock on a batch while delivering it; yields ``False`` if another process holds it."""
        import fcntl

        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            yield False
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                yield False
                return
            yield path.exists()
        finally:
            os.close(fd)

    def size_bytes(self) -> int:
        """Return the bytes held by spooled batches."""
        total = 0
        with contextlib.suppress(FileNotFoundError):
            for entry in os.scandir(self.batches):
                with contextlib.suppress(FileNotFoundError):
                    total += entry.stat().st_size
        return total

    def state(self) -> SpoolState:
        """Summarize the spool for ``handoff status``."""
        pending = self.pending()
        oldest = None
        if pending:
            oldest = max(0.0, time.time() - int(pending[0].name.split("-", 1)[0]) / 1e9)
        return SpoolState(str(self.directory), self.store_url, len(pending), self.size_bytes(), self.max_bytes, oldest)

    def clean_temp(self, min_age_s: float = 60.0) -> int:
        """Remove temp files left by crashed processes (or older than ``min_age_s``); return how many."""
        removed = 0
        for folder in (self.batches, self.status_dir):
            with contextlib.suppress(FileNotFoundError):
                for entry in os.scandir(folder):
                    if entry.name.startswith(TEMP_PREFIX) and self._abandoned(entry, min_age_s):
                        Path(entry.path).unlink(missing_ok=True)
                        removed += 1
        return removed

    @staticmethod
    def _abandoned(entry: os.DirEntry, min_age_s: float) -> bool:
        pid_text = entry.name[len(TEMP_PREFIX) :].split("-", 1)[0]
        if pid_text.isdigit() and not pid_alive(int(pid_text)):
            return True
        return time.time() - entry.stat().st_mtime > min_age_s

    # -- status files --------------------------------------------------------------------

    def write_status(self, status: dict[str, Any]) -> None:
        """Atomically write this process's status file (counters, queue length, time)."""
        self._ensure()
        name = f"{socket.gethostname()}-{os.getpid()}.json"
        _write_atomic(self.status_dir / name, json.dumps(status, sort_keys=True).encode(), self.file_mode)

    def prune_statuses(self, max_age_s: float = 86400.0) -> int:
        """Remove status files of processes on this host that exited more than ``max_age_s`` ago; return how many."""
        removed = 0
        host = socket.gethostname()
        for status in self.read_statuses():
            stale = time.time() - float(status.get("updated", 0)) > max_age_s
            if status.get("host") == host and status.get("alive") is False and stale:
                (self.status_dir / f"{host}-{status['pid']}.json").unlink(missing_ok=True)
                removed += 1
        return removed

    def read_statuses(self) -> list[dict[str, Any]]:
        """Return every process's last status, each with ``alive`` set for processes on this host."""
        found = []
        host = socket.gethostname()
        with contextlib.suppress(FileNotFoundError):
            for entry in sorted(os.scandir(self.status_dir), key=lambda e: e.name):
                if entry.name.startswith(TEMP_PREFIX) or not entry.name.endswith(".json"):
                    continue
                with contextlib.suppress(OSError, ValueError):
                    status = json.loads(Path(entry.path).read_text())
                    status["alive"] = pid_alive(int(status["pid"])) if status.get("host") == host else None
                    found.append(status)
        return found


class Backoff:
    """Exponential backoff with jitter between delivery attempts: ``base_s * 2**n``, capped, times 0.5..1."""

    def __init__(self, base_s: float = 0.5, max_s: float = 60.0, rng: random.Random | None = None) -> None:
        self.base_s = base_s
        self.max_s = max_s
        self.failures = 0
        self.next_attempt = 0.0
        self._rng = rng or random.Random()

    def failed(self, now: float | None = None) -> float:
        """Record a failed attempt; return the delay until the next one."""
        delay = min(self.max_s, self.base_s * (2**self.failures)) * self._rng.uniform(0.5, 1.0)
        self.failures += 1
        self.next_attempt = (time.monotonic() if now is None else now) + delay
        return delay

    def succeeded(self) -> None:
        """Reset after a successful delivery."""
        self.failures = 0
        self.next_attempt = 0.0

    def due(self, now: float | None = None) -> bool:
        """Tell whether the next attempt may run now."""
        return (time.monotonic() if now is None else now) >= self.next_attempt


def deliver(
    spool: Spool, write: Callable[[Sequence[PendingObject]], None], on_batch: Callable[[int], None] | None = None
) -> int:
    """Send spooled batches oldest first through ``write`` and remove each once written; return records sent.

    Stops at the first batch that fails by letting ``write``'s error propagate (the rest stay
    spooled, in order). Batches another process is delivering are skipped; corrupt ones are
    moved aside (see :meth:`Spool.load`) and skipped.
    """
    sent = 0
    for path in spool.pending():
        with spool.claim(path) as mine:
            if not mine:
                continue
            try:
                objects, records = spool.load(path)
            except CorruptFile:
                continue
            write(objects)
            spool.remove(path)
        sent += records
        if on_batch is not None:
            on_batch(records)
    return sent
