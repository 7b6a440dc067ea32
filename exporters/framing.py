"""How raw records travel from the application to the writer process, and how they wait on disk.

Records cross the channel as one frame per batch: a pickle of plain tuples (a type tag and the
record's fields in order), which the C pickler writes at memory speed. The channel is a private
socket pair between the application and the worker it started, so nothing else can write to it.

When the application must spill raw records (the worker is behind and the in-memory bound is
reached), :class:`RawSpill` writes them encrypted with AES-GCM under a key that exists only in
the memory of the application and of its worker: raw content never reaches the disk readable.
A crash of the application takes the key with it, so what it had spilled is lost (counted by
the next process that finds the files); a crash of the worker loses nothing, because the
application still holds the key and hands the files to the next worker.
"""

from __future__ import annotations

import contextlib
import operator
import os
import pickle
import secrets
import socket
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

from handoff.model import Event, Handoff, Record, RunRecord

_TYPES = (Handoff, RunRecord, Event)
_GETTERS = [operator.attrgetter(*(f.name for f in fields(kind))) for kind in _TYPES]
_TAGS = {kind: tag for tag, kind in enumerate(_TYPES)}

#: Message kinds on the channel (first byte of every frame).
HELLO, BATCH, SPILLED, FLUSH, QUIT = b"H", b"B", b"P", b"F", b"Q"
_ID = struct.Struct(">Q")

_LENGTH = struct.Struct(">I")


class Channel:
    """Length-prefixed frames over a connected stream socket (one sender and one receiver thread at most).

    ``sendall`` and ``recv_into`` release the GIL while the kernel copies, and never re-slice a
    buffer, so sending a large frame costs the application's other threads next to nothing.
    """

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def send_bytes(self, data: bytes) -> None:
        """Send one frame; raises ``OSError`` when the other side is gone."""
        self.sock.sendall(_LENGTH.pack(len(data)))
        self.sock.sendall(data)

    def recv_bytes(self) -> bytes:
        """Receive one frame; raises ``EOFError`` when the other side closed the channel."""
        (size,) = _LENGTH.unpack(self._read(_LENGTH.size))
        return bytes(self._read(size))

    def _read(self, size: int) -> bytearray:
        buffer = bytearray(size)
        view, got = memoryview(buffer), 0
        while got < size:
            n = self.sock.recv_into(view[got:], size - got)
            if n == 0:
                raise EOFError("the channel was closed")
            got += n
        return buffer

    def poll(self, timeout_s: float | None) -> bool:
        """Whether a frame (or end of file) can be read within ``timeout_s`` (``None``: wait)."""
        import select

        return bool(select.select([self.sock], [], [], timeout_s)[0])

    def close(self) -> None:
        """Close this end (the other end's reads then end)."""
        with contextlib.suppress(OSError):
            self.sock.close()


RAW_MAGIC = b"HORAW002"
RAW_SUFFIX = ".raw"
_RAW_HEADER = struct.Struct(">8sQ12sQ")  # magic, record count, nonce, ciphertext length


@dataclass
class Batch:
    """A batch the application holds until the worker acknowledges it: records in memory, or a spilled file."""

    ident: int
    count: int
    nbytes: int  # bytes held in memory (0 once spilled to disk)
    records: list | None = None
    path: Path | None = None
    sends: int = 0
    raw_bytes: int = 0  # what a spilled batch weighs once the worker reads it


@dataclass
class FlushRequest:
    """One ``force_flush`` waiting for the worker to make every batch up to ``mark`` durable."""

    done: threading.Event = field(default_factory=threading.Event)
    mark: int | None = None  # last batch id it waits for; set by the sender
    ident: int = 0


def encode_records(records: Sequence[Record]) -> bytes:
    """Serialize records as plain tuples (one pickle call for the whole batch)."""
    return pickle.dumps(
        [(_TAGS[type(r)], _GETTERS[_TAGS[type(r)]](r)) for r in records], protocol=pickle.HIGHEST_PROTOCOL
    )


def decode_records(data: bytes) -> list[Record]:
    """Rebuild the records :func:`encode_records` serialized."""
    return [_TYPES[tag](*values) for tag, values in pickle.loads(data)]


def frame(kind: bytes, ident: int, payload: bytes = b"") -> bytes:
    """One channel message: kind, a 64-bit id (batch or flush), payload."""
    return kind + _ID.pack(ident) + payload


def unframe(data: bytes) -> tuple[bytes, int, bytes]:
    """Split a channel message into ``(kind, id, payload)``."""
    return data[:1], _ID.unpack_from(data, 1)[0], data[1 + _ID.size :]


def record_bytes(record: Record) -> int:
    """What a record costs in memory, roughly: its payloads plus a fixed overhead."""
    if isinstance(record, Handoff):
        return 600 + len(record.input or b"") + len(record.output or b"")
    return 300


def new_key() -> bytes:
    """A fresh AES-256 key for one application process's raw spill."""
    return secrets.token_bytes(32)


class RawSpill:
    """Raw record batches on local disk, AES-GCM encrypted under a key held only in memory.

    A file is ``<directory>/<pid>-<n>.raw`` (written under a temp name, then renamed): a sequence of
    frames, each the record count in the clear (so a later process can count what a crash lost),
    the nonce and the ciphertext's length, then the ciphertext, authenticated with its header.
    :meth:`put` writes a file of one frame; :meth:`open_segment` a file the caller appends to.
    """

    def __init__(self, directory: Path, key: bytes) -> None:
        self.directory = directory
        self._key = key
        self._aead = None
        self._n = 0
        self._n_lock = threading.Lock()

    def seal(self, records: Sequence[Record]) -> bytes:
        """One encrypted frame holding ``records``."""
        if self._aead is None:
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM

            self._aead = AESGCM(self._key)
        plain = encode_records(records)
        nonce = secrets.token_bytes(12)
        header = _RAW_HEADER.pack(RAW_MAGIC, len(records), nonce, len(plain) + 16)
        return header + self._aead.encrypt(nonce, plain, header)

    def _new_path(self) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        with self._n_lock:
            self._n += 1
            return self.directory / f"{os.getpid()}-{self._n:08d}{RAW_SUFFIX}"

    def put(self, records: Sequence[Record]) -> tuple[Path, int]:
        """Encrypt and write one batch; return its path and size in bytes."""
        data = self.seal(records)
        path = self._new_path()
        temp = path.with_name(f".tmp-{path.name}")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
        return path, len(data)

    def open_segment(self) -> Segment:
        """A new file records are appended to one frame at a time (see :class:`Segment`)."""
        return Segment(self, self._new_path())

    def load(self, path: Path) -> list[Record]:
        """Decrypt one file (raises if it was altered or the key is not the writer's)."""
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        aead, data, offset, records = AESGCM(self._key), path.read_bytes(), 0, []
        while offset < len(data):
            header = data[offset : offset + _RAW_HEADER.size]
            magic, _count, nonce, length = _RAW_HEADER.unpack(header)
            if magic != RAW_MAGIC:
                raise ValueError(f"{path} is not a raw spill file")
            start = offset + _RAW_HEADER.size
            records += decode_records(aead.decrypt(nonce, data[start : start + length], header))
            offset = start + length
        return records

    @staticmethod
    def remove(path: Path) -> None:
        """Forget a batch once the worker made it durable."""
        with contextlib.suppress(OSError):
            path.unlink()


class Segment:
    """A raw spill file the application's own threads append records to when its memory bound is reached.

    Each :meth:`append` is one ``write`` of one encrypted frame into the page cache (no fsync): the
    record leaves memory at once, so a burst is bounded by the disk rather than by RAM. The file
    has a temp name until :meth:`close` renames it, and is a raw descriptor (no Python buffer a
    forked child could write twice). Callers serialize appends with a lock of their own.
    """

    def __init__(self, spill: RawSpill, path: Path) -> None:
        self.path = path
        self._spill = spill
        self._temp = path.with_name(f".tmp-{path.name}")
        self._fd = os.open(self._temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        self.count = self.size = self.raw_bytes = 0

    def append(self, records: Sequence[Record], nbytes: int) -> int:
        """Write one frame of ``records`` (weighing ``nbytes`` in memory); return its size on disk."""
        data = memoryview(self._spill.seal(records))
        written = 0
        try:
            while written < len(data):
                written += os.write(self._fd, data[written:])
        except OSError:
            if written:  # a partial frame (disk full): cut it off so the file stays readable
                os.ftruncate(self._fd, self.size)
            raise
        self.count += len(records)
        self.size += len(data)
        self.raw_bytes += nbytes
        return len(data)

    def close(self) -> Path:
        """Close and rename the file to its final name; return it."""
        os.close(self._fd)
        os.replace(self._temp, self.path)
        return self.path

    def forget(self) -> None:
        """Close this process's descriptor only (a forked child's copy of its parent's file)."""
        with contextlib.suppress(OSError):
            os.close(self._fd)

    def abandon(self) -> None:
        """Close and remove the file (a forked child's copy, or a shutdown that gave up)."""
        with contextlib.suppress(OSError):
            os.close(self._fd)
        with contextlib.suppress(OSError):
            os.unlink(self._temp)


def orphaned_raw_records(directory: Path, alive: callable) -> tuple[int, int]:
    """Remove raw spill files of processes that are gone (their key died with them); return ``(files, records)`` lost."""
    files = records = 0
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(directory):
            pid_text = entry.name.removeprefix(".tmp-").split("-", 1)[0]
            if not pid_text.isdigit() or alive(int(pid_text)):
                continue
            records += _count_frames(entry.path)
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                files += 1
    return files, records


def _count_frames(path: str) -> int:
    """Records in a raw spill file, from its frames' clear headers (a truncated last frame is not counted)."""
    count = 0
    with contextlib.suppress(OSError, struct.error), open(path, "rb") as handle:
        while header := handle.read(_RAW_HEADER.size):
            magic, records, _nonce, length = _RAW_HEADER.unpack(header)
            if magic != RAW_MAGIC or handle.seek(length, os.SEEK_CUR) > os.fstat(handle.fileno()).st_size:
                break
            count += records
    return count
