"""DDL for outside engines: the store's tables and ``handoff sql``'s views for Spark, Trino and Athena.

``render(dialect)`` returns one SQL script: a database ``handoff``, an external table
``handoff.raw_<table>`` per table (schema taken from ``store.tables``, so a table with no files
yet still reads, and ``dt`` is a DATE), and the deduplicated views ``handoff sql`` offers
(``handoffs``, ``content``, ``runs``, ``events``, ``checks``, ``annotations``, ``edges``).

The views are written once, in Trino's SQL (``view_source``), and transpiled per dialect
with sqlglot. Which copy of a duplicated row wins comes from ``store.tables`` (the rule the
DuckDB views and compaction use). ``deploy/sql/<dialect>.sql`` is this module's output with
``${HANDOFF_STORE}`` for the store root; a test checks the shipped files are current, and
``python -m handoff.queries.ddl deploy/sql`` rewrites them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa

from handoff.store.layout import TABLES
from handoff.store.tables import PRIMARY_KEYS, SCHEMAS, dedup_order

#: The dialects ``render`` writes, each also a sqlglot dialect name.
DIALECTS = ("spark", "trino", "athena")
#: The database (Trino: schema) every table and view is created in.
DATABASE = "handoff"
#: What stands for the store root in the shipped files.
PLACEHOLDER = "${HANDOFF_STORE}"
#: Every view, in the order ``render`` creates them (``edges`` reads ``handoffs``).
VIEWS = (*TABLES, "edges")
#: The first day Athena's partition projection considers.
PROJECTION_START = "2025-01-01"

_SCALARS: dict[str, dict[str, str]] = {
    "spark": {
        "string": "STRING",
        "int16": "SMALLINT",
        "int32": "INT",
        "int64": "BIGINT",
        "double": "DOUBLE",
        "bool": "BOOLEAN",
        "binary": "BINARY",
        "timestamp": "TIMESTAMP",
        "date32": "DATE",
    },
    "trino": {
        "string": "VARCHAR",
        "int16": "SMALLINT",
        "int32": "INTEGER",
        "int64": "BIGINT",
        "double": "DOUBLE",
        "bool": "BOOLEAN",
        "binary": "VARBINARY",
        "timestamp": "TIMESTAMP(3)",
        "date32": "DATE",
    },
    "athena": {
        "string": "STRING",
        "int16": "SMALLINT",
        "int32": "INT",
        "int64": "BIGINT",
        "double": "DOUBLE",
        "bool": "BOOLEAN",
        "binary": "BINARY",
        "timestamp": "TIMESTAMP",
        "date32": "DATE",
    },
}
_NESTED = {
    "spark": ("ARRAY<{}>", "MAP<{}, {}>"),
    "trino": ("ARRAY({})", "MAP({}, {})"),
    "athena": ("ARRAY<{}>", "MAP<{}, {}>"),
}
_QUOTE = {"spark": "`", "trino": '"', "athena": "`"}

_EDGES = """
WITH links AS (
    SELECT run_id, handoff_id, parent_handoff_id AS parent_id
    FROM handoff.handoffs
    WHERE parent_handoff_id IS NOT NULL
    UNION
    SELECT h.run_id, h.handoff_id, f.parent_id
    FROM handoff.handoffs AS h
    CROSS JOIN UNNEST(h.fan_in) AS f(parent_id)
)
SELECT
    c.run_id,
    p.handoff_id AS parent_handoff_id,
    c.handoff_id,
    c.seq,
    c.ts,
    p.to_step AS from_step,
    c.to_step,
    c.kind,
    p.output_bytes AS parent_output_bytes,
    c.input_bytes AS child_input_bytes,
    CASE WHEN p.output_bytes > 0 THEN CAST(c.input_bytes AS DOUBLE) / p.output_bytes END AS size_ratio,
    p.output_tokens AS parent_output_tokens,
    c.input_tokens AS child_input_tokens,
    CASE WHEN p.output_tokens > 0 THEN CAST(c.input_tokens AS DOUBLE) / p.output_tokens END AS token_ratio,
    coalesce(p.output_constraints, ARRAY[]) AS upstream,
    coalesce(c.input_constraints, ARRAY[]) AS downstream,
    array_sort(filter(coalesce(p.output_constraints, ARRAY[]),
        t -> NOT starts_with(t, 'terms:') AND NOT contains(coalesce(c.input_constraints, ARRAY[]), t))) AS lost,
    array_sort(filter(coalesce(c.input_constraints, ARRAY[]),
        t -> NOT starts_with(t, 'terms:') AND NOT contains(coalesce(p.output_constraints, ARRAY[]), t))) AS gained,
    p.output_sha256 = c.input_sha256 AS digests_equal,
    p.output_sha256 AS parent_output_sha256,
    c.input_sha256 AS child_input_sha256,
    c.model,
    c.template,
    c.prompt_pack,
    c.tier,
    c.dt
FROM links AS l
JOIN handoff.handoffs AS c ON c.run_id = l.run_id AND c.handoff_id = l.handoff_id
JOIN handoff.handoffs AS p ON p.run_id = l.run_id AND p.handoff_id = l.parent_id
"""

_HEADERS = {
    "spark": """\
-- Spark SQL: the handoff store as external tables, and the views `handoff sql` offers.
-- Fill in the store root, then run the statements in order (spark-sql -f, or one spark.sql() each):
--   envsubst '$HANDOFF_STORE' < deploy/sql/spark.sql    with HANDOFF_STORE=s3a://bucket/prefix
-- The tables are not PARTITIONED BY in the catalog: Spark finds the dt=YYYY-MM-DD directories
-- when it reads, so new days appear without MSCK REPAIR, a table with no files yet reads as
-- empty, and filters on dt still skip directories. Dropping these tables leaves the files alone.
""",
    "trino": """\
-- Trino (Hive connector): the handoff store as external tables, and the views `handoff sql` offers.
-- Fill in the store root and run with your Hive catalog as the session catalog:
--   envsubst '$HANDOFF_STORE' < deploy/sql/trino.sql | trino --catalog hive    (HANDOFF_STORE=s3://bucket/prefix)
-- The Hive connector reads only registered partitions: run the CALL statements again after
-- each new day (daily, beside the retention job). Timestamps read at millisecond precision
-- unless the catalog sets hive.timestamp-precision=MICROSECONDS (then use TIMESTAMP(6)).
-- Dropping these tables leaves the files alone.
""",
    "athena": """\
-- Amazon Athena: the handoff store as external tables, and the views `handoff sql` offers.
-- Fill in the store root and run the statements one by one (the console runs one at a time):
--   envsubst '$HANDOFF_STORE' < deploy/sql/athena.sql    with HANDOFF_STORE=s3://bucket/prefix
-- Partitions are projected from dt (no MSCK REPAIR TABLE, new days appear by themselves);
-- filter on dt to read fewer days. Dropping these tables leaves the files alone.
""",
}


def column_type(data_type: pa.DataType, dialect: str) -> str:
    """Return the column type of ``dialect`` that reads Arrow type ``data_type`` from Parquet."""
    array, mapping = _NESTED[dialect]
    if pa.types.is_list(data_type):
        return array.format(column_type(data_type.value_type, dialect))
    if pa.types.is_map(data_type):
        return mapping.format(column_type(data_type.key_type, dialect), column_type(data_type.item_type, dialect))
    if pa.types.is_timestamp(data_type):
        return _SCALARS[dialect]["timestamp"]
    if pa.types.is_date32(data_type):
        return _SCALARS[dialect]["date32"]
    return _SCALARS[dialect][str(data_type)]


def _quote(name: str, dialect: str) -> str:
    return f"{_QUOTE[dialect]}{name}{_QUOTE[dialect]}"


def _columns(table: str, dialect: str, *, with_dt: bool) -> str:
    fields = [(field.name, field.type) for field in SCHEMAS[table]]
    if with_dt:
        fields.append(("dt", pa.date32()))
    return ",\n".join(f"  {_quote(name, dialect)} {column_type(kind, dialect)}" for name, kind in fields)


def _location(table: str, store_root: str) -> str:
    return f"{store_root.rstrip('/')}/{table}/"


def check_root(store_root: str) -> str:
    """Return ``store_root`` if it can stand inside an SQL string literal of every dialect, else raise ``ValueError``.

    Spark and Hive read a backslash as an escape and Trino does not, so a quote or a backslash
    cannot be written the same way in all three: such a root is refused rather than escaped.
    """
    if not store_root or any(char in "'\\" or ord(char) < 32 or ord(char) == 127 for char in store_root):
        raise ValueError(
            f"store root {store_root!r} cannot be written into SQL: it is empty or holds a quote, backslash or control character"
        )
    return store_root


def root_for(store_url: str, dialect: str) -> str:
    """Return the store root as ``dialect`` names it: Spark reads S3 as ``s3a://``; a local directory becomes a ``file:`` path."""
    if "://" in store_url or store_url.startswith("file:"):
        scheme, rest = store_url.split(":", 1)
        return check_root(f"s3a:{rest}" if dialect == "spark" and scheme == "s3" else store_url)
    return check_root("file:" + str(Path(store_url).expanduser().resolve()))


def create_table(table: str, dialect: str, store_root: str = PLACEHOLDER) -> list[str]:
    """Return the statements that (re)create the external table ``raw_<table>`` in ``dialect``."""
    name = f"{DATABASE}.raw_{table}"
    location = _location(table, store_root)
    if dialect == "spark":
        body = (
            f"CREATE TABLE {name} (\n{_columns(table, dialect, with_dt=True)}\n)\nUSING PARQUET\nLOCATION '{location}'"
        )
        return [f"DROP TABLE IF EXISTS {name}", body]
    if dialect == "trino":
        body = (
            f"CREATE TABLE {name} (\n{_columns(table, dialect, with_dt=True)}\n)\nWITH (\n  format = 'PARQUET',\n"
            f"  external_location = '{location}',\n  partitioned_by = ARRAY['dt']\n)"
        )
        sync = f"CALL system.sync_partition_metadata('{DATABASE}', 'raw_{table}', 'FULL')"
        return [f"DROP TABLE IF EXISTS {name}", body, sync]
    if dialect == "athena":
        return [f"DROP TABLE IF EXISTS {name}", _athena_table(table, name, location)]
    raise ValueError(f"unknown dialect {dialect!r}: choose from {', '.join(DIALECTS)}")


def _athena_table(table: str, name: str, location: str) -> str:
    properties = {
        "projection.enabled": "true",
        "projection.dt.type": "date",
        "projection.dt.format": "yyyy-MM-dd",
        "projection.dt.range": f"{PROJECTION_START},NOW",
        "projection.dt.interval": "1",
        "projection.dt.interval.unit": "DAYS",
    }
    listed = ",\n".join(f"  '{key}' = '{value}'" for key, value in properties.items())
    return (
        f"CREATE EXTERNAL TABLE {name} (\n{_columns(table, 'athena', with_dt=False)}\n)\n"
        f"PARTITIONED BY (`dt` DATE)\nSTORED AS PARQUET\nLOCATION '{location}'\nTBLPROPERTIES (\n{listed}\n)"
    )


def view_source(view: str) -> str:
    """Return the Trino SQL that defines ``view`` (the source every dialect is transpiled from)."""
    if view == "edges":
        return f"CREATE OR REPLACE VIEW {DATABASE}.edges AS {_EDGES}"
    names = ", ".join(f'"{name}"' for name in [*SCHEMAS[view].names, "dt"])
    keys = ", ".join(f'"{key}"' for key in PRIMARY_KEYS[view])
    return (
        f"CREATE OR REPLACE VIEW {DATABASE}.{view} AS SELECT {names} FROM ("
        f"SELECT *, row_number() OVER (PARTITION BY {keys} ORDER BY {dedup_order(view)}) AS dedup_rank "
        f"FROM {DATABASE}.raw_{view}) AS ranked WHERE dedup_rank = 1"
    )


def create_view(view: str, dialect: str) -> str:
    """Return the statement that creates (or replaces) ``view`` in ``dialect``."""
    import sqlglot

    return sqlglot.transpile(view_source(view), read="trino", write=dialect, pretty=True)[0]


def statements(dialect: str, store_root: str = PLACEHOLDER) -> list[str]:
    """Return every statement of ``dialect``'s script, in the order they must run."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}: choose from {', '.join(DIALECTS)}")
    if store_root != PLACEHOLDER:
        check_root(store_root)
    database = "SCHEMA" if dialect == "trino" else "DATABASE"
    found = [f"CREATE {database} IF NOT EXISTS {DATABASE}"]
    for table in TABLES:
        found.extend(create_table(table, dialect, store_root))
    found.extend(create_view(view, dialect) for view in VIEWS)
    return found


def render(dialect: str, store_root: str = PLACEHOLDER) -> str:
    """Return ``dialect``'s whole script: a header comment, then each statement ending in ``;``."""
    body = "\n\n".join(f"{statement};" for statement in statements(dialect, store_root))
    return f"{_HEADERS[dialect]}-- Generated by `handoff ddl {dialect}` from store/tables.py and queries/ddl.py.\n\n{body}\n"


def split_statements(script: str) -> list[str]:
    """Split a script ``render`` wrote into its statements (comment lines dropped)."""
    lines = [line for line in script.splitlines() if not line.lstrip().startswith("--")]
    return [part.strip() for part in "\n".join(lines).split(";\n") if part.strip().rstrip(";")]


def write_files(folder: Path) -> list[Path]:
    """Write ``<dialect>.sql`` for every dialect into ``folder``; return the paths."""
    paths = []
    for dialect in DIALECTS:
        path = folder / f"{dialect}.sql"
        path.write_text(render(dialect), encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    for written in write_files(Path(sys.argv[1] if len(sys.argv) > 1 else "deploy/sql")):
        print(written)
