"""Table and blob I/O on a local directory or an S3-compatible bucket."""

from __future__ import annotations

import os

from handoff.config import resolve_store
from handoff.store.base import ObjectInfo, ObjectStore, PendingObject
from handoff.store.local import LocalObjectStore


def open_store(url: str | os.PathLike[str] | None = None) -> ObjectStore:
    """Open the store at ``url``: a directory path, ``file://`` URL or ``s3://bucket/prefix``.

    ``None`` means ``HANDOFF_STORE`` or ``./.handoff`` (:func:`handoff.config.resolve_store`).
    """
    url = resolve_store(url)
    if url.startswith("s3://"):
        from handoff.store.s3 import S3ObjectStore

        return S3ObjectStore.from_url(url)
    if url.startswith("file://"):
        url = url[len("file://") :]
    return LocalObjectStore(url)


__all__ = ["LocalObjectStore", "ObjectInfo", "ObjectStore", "PendingObject", "open_store"]
