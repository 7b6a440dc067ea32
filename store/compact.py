"""Compaction: merge a day partition's small Parquet files into one file sorted by run id.

Every flush of every process writes its own small files; compaction turns a day's files into
one, so queries open fewer objects. It is safe with concurrent readers and writers because
it only ever adds a complete file before it removes anything:

1. list the partition's files (files written later are simply not part of this round);
2. read them, drop duplicate rows (same primary key, and for handoffs the same digests: rows
   that share an id but not their bytes are a conflict ``fsck`` reports, and both are kept;
   of true copies the one the query views prefer stays)
   and write the merged file under a new unique name, atomically (a day of one file is
   rewritten too when that file holds duplicates, such as a run's start and end rows written
   in one flush: a compacted day's raw files hold exactly the rows the views show);
3. wait ``grace_s`` (default 30 s), so a query that listed the old files before the merged
   file existed can finish reading them;
4. only then delete the inputs.

Between 2 and 4 a reader sees every row twice, and the views deduplicate on the primary
key, so it sees each row once; after 4 it sees the merged file alone. A crash between 2 and
4 leaves duplicates that the views hide and the next compaction (or ``fsck --repair``)
removes. The grace period bounds how long a reader may hold a file listing: the CLI lists
per command; a long-lived ``connect()`` should be reopened after ``handoff compact``.

The ``content`` table is not compacted: handoff rows name their content file in
``input_ref``/``output_ref``, content is already packed one file per flush, and retention
drops it a whole day at a time.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

import pyarrow as pa
from ulid import ULID

from handoff.store.base import ObjectInfo, ObjectStore
from handoff.store.layout import TABLES, day_of_key, table_key, table_prefix
from handoff.store.tables import DEDUP_KEYS, SCHEMAS, conform, dedup_order, encode_parquet, read_file

#: Tables compaction merges (see the module docstring for why ``content`` is not one).
COMPACTABLE = tuple(table for table in TABLES if table != "content")
_COMPACTED_PREFIX = "compact-"


@dataclass(frozen=True)
class CompactResult:
    """One merged partition: how many files and rows went in, how many rows came out, and where."""

    table: str
    day: str
    files_in: int
    rows_in: int
    rows_out: int
    key: str


def partitions(store: ObjectStore, table: str) -> dict[str, list[ObjectInfo]]:
    """Return ``{day: [Parquet files]}`` for one table (temp files excluded)."""
    found: dict[str, list[ObjectInfo]] = defaultdict(list)
    for info in store.list(table_prefix(table)):
        day = day_of_key(info.key)
        name = info.key.rsplit("/", 1)[-1]
        if day is not None and name.endswith(".parquet") and not name.startswith("."):
            found[day.isoformat()].append(info)
    return dict(found)


def _is_compacted(key: str) -> bool:
    return key.rsplit("/", 1)[-1].startswith(_COMPACTED_PREFIX)


def _has_duplicates(store: ObjectStore, table: str, key: str) -> bool:
    """Whether the Parquet file ``key`` of ``table`` holds two rows with one primary key."""
    keys = list(DEDUP_KEYS[table])
    rows = read_file(store, key, columns=keys)
    return rows.group_by(keys).aggregate([]).num_rows < rows.num_rows


def _needs_merge(store: ObjectStore, table: str, files: list[ObjectInfo], min_files: int) -> bool:
    if len(files) >= min_files:
        return True
    # A file compaction wrote is duplicate-free by construction: checking it again would read a
    # whole compacted year on every run.
    return len(files) == 1 and not _is_compacted(files[0].key) and _has_duplicates(store, table, files[0].key)


def _merge(tables: list[pa.Table], table: str) -> pa.Table:
    import duckdb

    merged = pa.concat_tables([conform(table, t) for t in tables], promote_options="default")
    keys = ", ".join(f'"{key}"' for key in DEDUP_KEYS[table])
    order = dedup_order(table)
    con = duckdb.connect(":memory:")
    con.register("merged", merged)
    result = con.sql(
        f"SELECT * FROM merged QUALIFY row_number() OVER (PARTITION BY {keys} ORDER BY {order}) = 1 ORDER BY {keys}"
    ).to_arrow_table()
    return result.cast(SCHEMAS[table])


def merge_partition(store: ObjectStore, table: str, day: str, files: list[ObjectInfo]) -> CompactResult:
    """Write the merged file of one partition's ``files`` (the inputs stay); return what was done."""
    inputs = [read_file(store, info.key) for info in files]
    merged = _merge(inputs, table)
    key = table_key(table, day, f"{_COMPACTED_PREFIX}{str(ULID()).lower()}", 0)
    store.put(key, encode_parquet(merged))
    return CompactResult(table, day, len(files), sum(t.num_rows for t in inputs), merged.num_rows, key)


def _delete_all(store: ObjectStore, keys: list[str]) -> None:
    # One request for many keys where the store offers it (S3): shortens the time during which
    # a reader's listing can name a file that is gone by the time it opens it.
    delete_many = getattr(store, "delete_many", None)
    if delete_many is not None:
        delete_many(keys)
        return
    for key in keys:
        store.delete(key)


def _selected(day: str, only_day: date | None, cutoff: date | None) -> bool:
    if only_day is not None:
        return day == only_day.isoformat()
    return cutoff is None or date.fromisoformat(day) < cutoff


def compact(
    store: ObjectStore,
    *,
    day: date | None = None,
    older_than: timedelta | None = None,
    tables: tuple[str, ...] = COMPACTABLE,
    min_files: int = 2,
    grace_s: float = 30.0,
) -> list[CompactResult]:
    """Compact the partitions of ``day``, or those older than ``older_than``, or all; return one result per merge.

    Partitions with fewer than ``min_files`` files are left alone (already compact) unless their
    one file holds duplicate rows, which are then dropped. Inputs are
    deleted ``grace_s`` seconds after every merged file is written (see the module docstring).
    """
    if grace_s < 0:
        raise ValueError("grace_s must be >= 0")
    if day is not None and older_than is not None:
        raise ValueError("give either day or older_than, not both")
    unknown = sorted(set(tables) - set(COMPACTABLE))
    if unknown:
        raise ValueError(f"cannot compact {', '.join(unknown)}: choose from {', '.join(COMPACTABLE)}")
    cutoff = (datetime.now(timezone.utc) - older_than).date() if older_than is not None else None
    merged: list[tuple[CompactResult, list[ObjectInfo]]] = []
    for table in tables:
        for part_day, files in sorted(partitions(store, table).items()):
            if _selected(part_day, day, cutoff) and _needs_merge(store, table, files, min_files):
                merged.append((merge_partition(store, table, part_day, files), files))
    if merged and grace_s:
        time.sleep(grace_s)
    # Only now may the inputs go: every row is readable from a merged file, and readers that
    # listed the old files have had the grace period to finish with them.
    for _result, files in merged:
        _delete_all(store, [info.key for info in files])
    return [result for result, _files in merged]
