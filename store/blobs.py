"""Payloads above the inline limit, each in its own zstd-compressed object: the one blob codec.

The writer encodes with :func:`encode_blob` (it prepares objects and puts them later, so it
never puts a blob itself); readers fetch with :func:`get_blob`.
"""

from __future__ import annotations

import zstandard

from handoff.errors import CorruptFile
from handoff.store.base import ObjectStore
from handoff.store.layout import blob_key

__all__ = ["blob_key", "decode_blob", "encode_blob", "get_blob"]

#: zstd level of every blob: fast to write on the writer thread, and payloads compress well at it.
BLOB_LEVEL = 3


def encode_blob(data: bytes) -> bytes:
    """Return ``data`` compressed as a blob object holds it."""
    return zstandard.ZstdCompressor(level=BLOB_LEVEL).compress(data)


def decode_blob(raw: bytes, uri: str) -> bytes:
    """Return the payload of a blob object's bytes; raise ``CorruptFile`` naming ``uri`` when it does not decompress."""
    try:
        return zstandard.ZstdDecompressor().decompress(raw, max_output_size=1 << 34)
    except zstandard.ZstdError as exc:
        raise CorruptFile(f"blob {uri} does not decompress: {exc}", uri=uri) from exc


def get_blob(store: ObjectStore, key: str) -> bytes:
    """Fetch and decompress one payload; raise ``CorruptFile`` when it does not decompress."""
    return decode_blob(store.get(key), store.uri(key))
