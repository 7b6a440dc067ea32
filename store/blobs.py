"""Payloads above the inline limit, each in its own zstd-compressed object."""

from __future__ import annotations

import zstandard

from handoff.errors import CorruptFile
from handoff.store.base import ObjectStore
from handoff.store.layout import blob_key


def put_blob(store: ObjectStore, day: str, run_id: str, handoff_id: str, side: str, data: bytes) -> str:
    """Compress and store one payload; return its key (the ref)."""
    key = blob_key(day, run_id, handoff_id, side)
    store.put(key, zstandard.ZstdCompressor(level=3).compress(data))
    return key


def get_blob(store: ObjectStore, key: str) -> bytes:
    """Fetch and decompress one payload; raise ``CorruptFile`` when it does not decompress."""
    raw = store.get(key)
    try:
        return zstandard.ZstdDecompressor().decompress(raw, max_output_size=1 << 34)
    except zstandard.ZstdError as exc:
        raise CorruptFile(f"blob {store.uri(key)} does not decompress: {exc}", uri=store.uri(key)) from exc
