"""Where each view's rows come from: every Parquet file of a table, or every file but the unreadable ones.

The fast path names a table's files by pattern (DuckDB's glob locally, a pyarrow dataset over
the table's prefix elsewhere) and reads no footer up front. When a query trips over a file that
is not Parquet, is truncated, or holds another schema (a foreign file dropped into
``handoffs/``), :func:`unreadable_files` reads every footer once, and the views are rebuilt
over an explicit list of the files that read (:func:`source_sql` with ``skip``), so the store
still answers from the rest.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from handoff.errors import StoreError
from handoff.store.base import ObjectStore
from handoff.store.layout import TABLES
from handoff.store.local import TEMP_MARK
from handoff.store.tables import PRIMARY_KEYS, SCHEMAS, file_problem, schema_problem


def _empty(table: str) -> pa.Table:
    schema = SCHEMAS[table].append(pa.field("dt", pa.date32()))
    return schema.empty_table()


def _register_empty(con: duckdb.DuckDBPyConnection, table: str) -> str:
    con.register(f"_empty_{table}", _empty(table))
    return f"_empty_{table}"


def table_files(store: ObjectStore, table: str) -> list[str]:
    """Return the keys of a table's Parquet files in its day partitions (temp files excluded)."""
    return [
        info.key
        for info in store.list(f"{table}/dt=")
        if info.key.endswith(".parquet") and not info.key.rsplit("/", 1)[-1].startswith(TEMP_MARK)
    ]


def unreadable_files(store: ObjectStore) -> dict[str, str]:
    """Return ``key -> why`` for every table file whose footer does not read as that table's Parquet."""
    found: dict[str, str] = {}
    for table in TABLES:
        for key in table_files(store, table):
            problem = file_problem(store, table, key)
            if problem is not None:
                found[key] = problem
    return found


def source_sql(
    con: duckdb.DuckDBPyConnection,
    store: ObjectStore,
    table: str,
    skip: set[str] | None = None,
    *,
    by_name: bool = False,
) -> str:
    """Register or describe the raw files of ``table``; return a FROM-able SQL expression.

    With ``skip`` (keys to leave out, possibly empty) the files are listed and named one by one,
    and read by column name. A local glob reads by column name with ``by_name`` or when the
    table's first file predates the current schema.
    """
    if skip is not None:
        return _listed_sql(con, store, table, [key for key in table_files(store, table) if key not in skip])
    base = store.local_path(table)
    if base is not None:
        import glob

        files = sorted(glob.glob(f"{base}/dt=*/*.parquet"))
        if not files:
            return _register_empty(con, table)
        path = f"{base}/dt=*/*.parquet".replace("'", "''")
        # No union_by_name unless files of an older schema are present: reading every file's schema
        # up front costs more than the query on a large store (about 3x on a year of day files).
        union = ", union_by_name = true" if by_name or _predates_schema(table, files[0]) else ""
        return f"read_parquet('{path}', hive_partitioning = true, hive_types = {{'dt': DATE}}{union})"
    return _dataset_sql(con, store, table, None)


def _listed_sql(con: duckdb.DuckDBPyConnection, store: ObjectStore, table: str, keys: list[str]) -> str:
    if not keys:
        return _register_empty(con, table)
    if store.local_path(table) is None:
        return _dataset_sql(con, store, table, keys)
    paths = ", ".join("'" + store.local_path(key).replace("'", "''") + "'" for key in keys)
    return f"read_parquet([{paths}], hive_partitioning = true, hive_types = {{'dt': DATE}}, union_by_name = true)"


def _dataset_sql(con: duckdb.DuckDBPyConnection, store: ObjectStore, table: str, keys: list[str] | None) -> str:
    """A pyarrow dataset over the table's prefix (or the given files), registered with DuckDB: no extension needed."""
    import pyarrow.dataset as ds

    filesystem, root = store.arrow_filesystem()
    partitioning = ds.partitioning(pa.schema([("dt", pa.date32())]), flavor="hive")
    source = f"{root}/{table}" if keys is None else [f"{root}/{key}" for key in keys]
    try:
        # An explicit schema: no file's footer is read up front, and a foreign first file cannot
        # become the table's schema (its missing columns read as nulls; the views drop rows without a run id).
        dataset = ds.dataset(
            source,
            schema=SCHEMAS[table].append(pa.field("dt", pa.date32())),
            filesystem=filesystem,
            format="parquet",
            partitioning=partitioning,
            partition_base_dir=f"{root}/{table}",
        )
    except (FileNotFoundError, pa.ArrowInvalid, OSError) as exc:
        text = str(exc)
        if isinstance(exc, FileNotFoundError) or any(
            mark in text for mark in ("not exist", "NoSuchKey", "Path does not exist")
        ):
            return _register_empty(con, table)
        raise StoreError(
            f"cannot read {store.uri(table)}: {text.splitlines()[0] if text else exc}", uri=store.uri(table)
        ) from exc
    if not dataset.files:
        return _register_empty(con, table)
    con.register(f"_arrow_{table}", dataset)
    return f"_arrow_{table}"


def _predates_schema(table: str, first_file: str) -> bool:
    """Whether the table's first file (oldest day) is one of ours of an older schema version (lacks appended columns).

    Then the views read by column name. A store whose first file is current but that holds an
    older file later (a writer rolled back) makes DuckDB refuse the read with a schema mismatch;
    the query then rebuilds the views reading by column name too. A foreign or unreadable first
    file is not "older": the read fails and that file is left out (:func:`unreadable_files`).
    """
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(first_file)
    except (OSError, pa.ArrowInvalid):
        return False
    return schema_problem(table, schema) is None and not set(SCHEMAS[table].names) <= set(schema.names)


def completed_sql(con: duckdb.DuckDBPyConnection, table: str, source: str) -> str:
    """``SELECT`` over ``source`` adding, as typed nulls, the table's columns no file has yet."""
    have = {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
    missing = [f for f in SCHEMAS[table] if f.name not in have]
    # Without its key the source is not ours (a foreign first file): binding the views fails and the file is left out.
    if not missing or any(key not in have for key in PRIMARY_KEYS[table]):
        return f"SELECT * FROM {source}"
    nulls = ", ".join(f'CAST(NULL AS {_DUCK_TYPES[str(f.type)]}) AS "{f.name}"' for f in missing)
    return f"SELECT *, {nulls} FROM {source}"


#: DuckDB types of the Arrow types a column can be added with (:func:`completed_sql`).
_DUCK_TYPES = {
    "string": "VARCHAR",
    "bool": "BOOLEAN",
    "int16": "SMALLINT",
    "int32": "INTEGER",
    "int64": "BIGINT",
    "double": "DOUBLE",
    "timestamp[us, tz=UTC]": "TIMESTAMPTZ",
    "list<item: string>": "VARCHAR[]",
    "map<string, string>": "MAP(VARCHAR, VARCHAR)",
}
