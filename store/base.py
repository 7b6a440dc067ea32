"""The object-store interface every backend implements (a local directory, S3).

Keys are ``/``-separated paths relative to the store root (``handoffs/dt=2026-11-29/w1-ab-000001.parquet``).
Objects are written once and never modified: ``put`` is atomic (a reader sees the whole object
or nothing), and writers use unique names, so many processes can write without coordination.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class ObjectInfo:
    """One stored object: its key, size and last-modified time (seconds since the epoch)."""

    key: str
    size: int
    mtime: float


@dataclass(frozen=True)
class PendingObject:
    """One finished object waiting to be put: its key and bytes (the writer's batches, retention's rewrites)."""

    key: str
    data: bytes


class ObjectStore(ABC):
    """A flat namespace of immutable objects under a root URL."""

    #: ``file:///abs/path`` or ``s3://bucket/prefix``; names the store in messages.
    url: str

    @abstractmethod
    def put(self, key: str, data: bytes) -> None:
        """Store ``data`` under ``key`` atomically; raise ``StoreError`` on failure."""

    @abstractmethod
    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Store ``data`` under ``key`` only if nothing is there; return whether it was stored.

        Used for locks: of two concurrent callers exactly one gets ``True``.
        """

    @abstractmethod
    def get(self, key: str) -> bytes:
        """Return the object's bytes; raise ``NotFound``-like ``StoreError`` when it is missing."""

    @abstractmethod
    def exists(self, key: str) -> bool:
        """Tell whether ``key`` is stored."""

    @abstractmethod
    def list(self, prefix: str) -> Iterator[ObjectInfo]:
        """Yield the objects whose key starts with ``prefix``, in key order."""

    @abstractmethod
    def delete(self, key: str) -> None:
        """Remove ``key``; removing a missing key is not an error."""

    def uri(self, key: str) -> str:
        """Return the full URI of ``key``, for messages."""
        return f"{self.url.rstrip('/')}/{key}"

    def local_path(self, key: str) -> str | None:
        """Return a filesystem path for ``key`` when the store is a local directory, else ``None``."""
        return None

    def arrow_filesystem(self):  # pragma: no cover - overridden
        """Return ``(pyarrow.fs.FileSystem, base_path)`` for reading Parquet with pyarrow or DuckDB."""
        raise NotImplementedError
