"""Where things live under a store root (DESIGN.md "Store layout")."""

from __future__ import annotations

import re
from datetime import date, datetime, timezone

TABLES = ("handoffs", "content", "runs", "events", "checks", "annotations")
BLOBS = "blobs"

_DAY = re.compile(r"/dt=(\d{4}-\d{2}-\d{2})/")


def day_of_ns(ts_ns: int) -> str:
    """Return the UTC day (``YYYY-MM-DD``) of a nanosecond timestamp."""
    return datetime.fromtimestamp(ts_ns / 1e9, tz=timezone.utc).strftime("%Y-%m-%d")


def table_prefix(table: str, day: str | None = None) -> str:
    """Return the key prefix of a table, or of one day partition of it."""
    return f"{table}/dt={day}/" if day else f"{table}/"


def table_key(table: str, day: str, writer: str, n: int) -> str:
    """Return the key of one Parquet file written by ``writer``."""
    return f"{table}/dt={day}/{writer}-{n:06d}.parquet"


def blob_key(day: str, run_id: str, handoff_id: str, side: str) -> str:
    """Return the key of a payload too large to store inline."""
    return f"{BLOBS}/dt={day}/{run_id}/{handoff_id}.{side}.zst"


def content_ref(key: str, run_id: str, handoff_id: str, side: str) -> str:
    """Return the ref naming one content row: ``<file key>#<run_id>/<handoff_id>/<in|out>``."""
    return f"{key}#{run_id}/{handoff_id}/{side}"


def parse_ref(ref: str) -> tuple[str, str | None]:
    """Split a ref into ``(object key, row selector or None)``."""
    key, _, row = ref.partition("#")
    return key, (row or None)


def day_of_key(key: str) -> date | None:
    """Return the partition day a key lives in, or ``None`` when it is not in a day partition."""
    match = _DAY.search("/" + key)
    return date.fromisoformat(match.group(1)) if match else None
