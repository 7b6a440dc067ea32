"""Table schemas and Parquet I/O.

Every table is Hive-partitioned by day (``<table>/dt=YYYY-MM-DD/<writer>-<n>.parquet``); ``dt``
lives in the path, not in the files. Files are zstd-compressed and written once.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from handoff.errors import CorruptFile, StoreError
from handoff.store.base import ObjectStore
from handoff.store.layout import table_key

_TS = pa.timestamp("us", tz="UTC")
_STRINGS = pa.list_(pa.string())
_ATTRS = pa.map_(pa.string(), pa.string())

HANDOFFS = pa.schema(
    [
        ("run_id", pa.string()),
        ("handoff_id", pa.string()),
        ("seq", pa.int32()),
        ("from_step", pa.string()),
        ("to_step", pa.string()),
        ("kind", pa.string()),
        ("parent_handoff_id", pa.string()),
        ("fan_in", _STRINGS),
        ("ts", _TS),
        ("duration_ms", pa.float64()),
        ("status", pa.string()),
        ("error_type", pa.string()),
        ("error_message", pa.string()),
        ("input_ref", pa.string()),
        ("output_ref", pa.string()),
        ("input_sha256", pa.string()),
        ("output_sha256", pa.string()),
        ("digest_alg", pa.string()),
        ("input_bytes", pa.int64()),
        ("output_bytes", pa.int64()),
        ("input_content_type", pa.string()),
        ("output_content_type", pa.string()),
        ("input_tokens", pa.int32()),
        ("output_tokens", pa.int32()),
        ("tokens_estimated", pa.bool_()),
        ("model", pa.string()),
        ("effort", pa.string()),
        ("prompt_pack", pa.string()),
        ("template", pa.string()),
        ("config", pa.string()),
        ("attempt", pa.int16()),
        ("retry_of", pa.string()),
        ("trace_id", pa.string()),
        ("span_id", pa.string()),
        ("input_constraints", _STRINGS),
        ("output_constraints", _STRINGS),
        ("constraints_version", pa.int16()),
        ("tier", pa.string()),
        ("attributes", _ATTRS),
        ("writer", pa.string()),
        ("schema_version", pa.int16()),
        # Schema version 2 (issue 19): null on rows written before it.
        ("verdict", pa.string()),
        ("verdict_reason", pa.string()),
        ("output_empty", pa.bool_()),
        ("allow_empty", pa.bool_()),
        ("capture_error", pa.string()),
    ]
)

CONTENT = pa.schema(
    [
        ("run_id", pa.string()),
        ("handoff_id", pa.string()),
        ("side", pa.string()),
        ("ts", _TS),
        ("content", pa.binary()),
        ("content_type", pa.string()),
        ("stored_sha256", pa.string()),
        ("scrub_status", pa.string()),
    ]
)

RUNS = pa.schema(
    [
        ("run_id", pa.string()),
        ("name", pa.string()),
        ("start_ts", _TS),
        ("end_ts", _TS),
        ("status", pa.string()),
        ("attributes", _ATTRS),
        ("recorded_ts", _TS),
        ("writer", pa.string()),
    ]
)

EVENTS = pa.schema(
    [
        ("run_id", pa.string()),
        ("handoff_id", pa.string()),
        ("ts", _TS),
        ("kind", pa.string()),
        ("name", pa.string()),
        ("error_type", pa.string()),
        ("error_message", pa.string()),
        ("attributes", _ATTRS),
        ("writer", pa.string()),
    ]
)

CHECKS = pa.schema(
    [
        ("run_id", pa.string()),
        ("handoff_id", pa.string()),
        ("parent_handoff_id", pa.string()),
        ("ts", _TS),
        ("check", pa.string()),
        ("severity", pa.string()),
        ("status", pa.string()),
        ("lost", _STRINGS),
        ("detail", pa.string()),
        ("checked_ts", _TS),
    ]
)

ANNOTATIONS = pa.schema(
    [
        ("run_id", pa.string()),
        ("handoff_id", pa.string()),
        ("ts", _TS),
        ("kind", pa.string()),
        ("text", pa.string()),
        ("author", pa.string()),
        ("attributes", _ATTRS),
    ]
)

SCHEMAS: dict[str, pa.Schema] = {
    "handoffs": HANDOFFS,
    "content": CONTENT,
    "runs": RUNS,
    "events": EVENTS,
    "checks": CHECKS,
    "annotations": ANNOTATIONS,
}

#: Columns that identify one row; views and compaction deduplicate on them.
PRIMARY_KEYS: dict[str, tuple[str, ...]] = {
    "handoffs": ("run_id", "handoff_id"),
    "content": ("run_id", "handoff_id", "side"),
    "runs": ("run_id",),
    "events": ("run_id", "handoff_id", "ts", "name"),
    "checks": ("run_id", "handoff_id", "parent_handoff_id", "check", "checked_ts"),
    "annotations": ("run_id", "ts", "kind", "text"),
}

#: Columns that make two rows copies of one record, for compaction. For handoffs the digests too:
#: two rows with one id but different bytes are different records (a conflict ``fsck`` reports),
#: never merged into one; a batch written twice (a writer retried it) gives true copies.
DEDUP_KEYS: dict[str, tuple[str, ...]] = {
    **PRIMARY_KEYS,
    "handoffs": ("run_id", "handoff_id", "input_sha256", "output_sha256"),
}


#: Which copy of a duplicated row wins (first in this order), for the query views and compaction.
#: A row rewritten by retention (tier digest) wins over its full copy: between the job's write and
#: delete phases both exist, and no reader may see the dropped content again. Of a run's start and
#: end rows the later wins; on a tie (engines that read timestamps at millisecond precision) the end row.
ROW_PREFERENCE: dict[str, str] = {
    "handoffs": "CASE tier WHEN 'full' THEN 1 ELSE 0 END, ts",
    "runs": "recorded_ts DESC, end_ts DESC NULLS LAST",
}


def dedup_order(table: str) -> str:
    """Return the ORDER BY that picks the surviving copy of a duplicated row of ``table``."""
    return ROW_PREFERENCE.get(table, ", ".join(f'"{key}"' for key in PRIMARY_KEYS[table]))


def _map_items(value: dict[str, str] | None) -> list[tuple[str, str]]:
    return sorted((str(k), str(v)) for k, v in (value or {}).items())


def to_table(table: str, rows: Iterable[dict[str, Any]]) -> pa.Table:
    """Build an Arrow table of ``table``'s schema from dict rows, sorted by run id."""
    schema = SCHEMAS[table]
    rows = sorted(rows, key=lambda row: (row.get("run_id") or "", str(row.get("handoff_id") or "")))
    columns = {}
    for name in schema.names:
        values = [row.get(name) for row in rows]
        if pa.types.is_map(schema.field(name).type):
            values = [_map_items(value) for value in values]
        columns[name] = values
    return pa.Table.from_pydict(columns, schema=schema)


def conform(table: str, data: pa.Table) -> pa.Table:
    """``data`` with exactly ``table``'s columns, in order; columns a file predates are added as nulls."""
    schema = SCHEMAS[table]
    columns = [
        data.column(field.name) if field.name in data.column_names else pa.nulls(len(data), field.type)
        for field in schema
    ]
    return pa.Table.from_arrays(columns, names=schema.names)


def encode_parquet(data: pa.Table) -> bytes:
    """Serialize a table as zstd-compressed Parquet bytes."""
    sink = io.BytesIO()
    pq.write_table(data, sink, compression="zstd", row_group_size=128 * 1024)
    return sink.getvalue()


def write_table(store: ObjectStore, table: str, day: str, writer: str, n: int, data: pa.Table) -> str:
    """Create one Parquet file in a day partition (``StoreError`` if the name is taken); return its key."""
    key = table_key(table, day, writer, n)
    # Created, never overwritten (If-None-Match: * on S3): the writer and annotator roles may only create.
    if not store.put_if_absent(key, encode_parquet(data)):
        raise StoreError(f"cannot write {store.uri(key)}: a file of that name exists already", uri=store.uri(key))
    return key


def read_file(store: ObjectStore, key: str, columns: list[str] | None = None, filters=None) -> pa.Table:
    """Read one Parquet file; raise ``CorruptFile`` when it does not decode."""
    raw = store.get(key)
    try:
        return pq.read_table(pa.BufferReader(raw), columns=columns, filters=filters)
    except (pa.ArrowInvalid, OSError) as exc:
        raise CorruptFile(f"corrupt Parquet file {store.uri(key)}: {exc}", uri=store.uri(key)) from exc


def schema_problem(table: str, schema: pa.Schema) -> str | None:
    """Return why a file of ``schema`` is not a ``table`` file (a column missing or of another type), or ``None``.

    Extra columns are allowed: a newer writer may add one. So are missing columns other than the
    primary key: a file of an older schema version lacks the columns added since (the views read
    them as nulls). Every column the file does have must be of its type.
    """
    for expected in SCHEMAS[table]:
        if expected.name not in PRIMARY_KEYS[table] and schema.get_field_index(expected.name) < 0:
            continue
        index = schema.get_field_index(expected.name)
        if index < 0:
            return f"not a {table} file: no column {expected.name!r}"
        found = schema.field(index).type
        if not found.equals(expected.type):
            return f"not a {table} file: column {expected.name!r} is {found}, not {expected.type}"
    return None


def file_problem(store: ObjectStore, table: str, key: str) -> str | None:
    """Return why ``key`` cannot be read as a ``table`` file (not Parquet, truncated, foreign schema), or ``None``.

    Reads only the file's footer.
    """
    try:
        local = store.local_path(key)
        if local is not None:
            schema = pq.read_schema(local)
        else:
            filesystem, root = store.arrow_filesystem()
            with filesystem.open_input_file(f"{root}/{key}") as handle:
                schema = pq.read_schema(handle)
    except (pa.ArrowInvalid, OSError) as exc:
        return f"not readable as Parquet: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    return schema_problem(table, schema)
