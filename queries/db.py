"""DuckDB views over the store's Parquet tables.

``connect(store)`` returns an in-memory DuckDB connection with one view per table
(``handoffs``, ``content``, ``runs``, ``events``, ``checks``, ``annotations``), each
deduplicated on its primary key so a reader never sees a row twice (compaction and retries
can leave two copies for a moment). Local stores are read by DuckDB's own Parquet reader;
other stores through a pyarrow filesystem, so nothing needs a DuckDB extension.

The connection can read the store and nothing else: DuckDB's external access is off except for
the store's directory (none at all for S3, which pyarrow reads), Python replacement scans are
off, and the configuration is locked, so no statement can turn any of it back on. SQL a user
writes (``handoff sql``, ``--where``) must also be one ``SELECT`` (:func:`check_select`) or one
expression (:func:`check_expression`): writes, ``COPY``, ``ATTACH``, ``INSTALL`` and host files
are refused with one line.
"""

from __future__ import annotations

import os
import re
import secrets
import tempfile
from typing import Any

import duckdb
import pyarrow as pa

from handoff.errors import CorruptFile, QueryError, StoreError
from handoff.store import ObjectStore, open_store
from handoff.store.layout import TABLES
from handoff.store.tables import PRIMARY_KEYS, SCHEMAS, dedup_order


def _empty(table: str) -> pa.Table:
    schema = SCHEMAS[table].append(pa.field("dt", pa.date32()))
    return schema.empty_table()


def _source_sql(con: duckdb.DuckDBPyConnection, store: ObjectStore, table: str) -> str:
    """Register or describe the raw files of ``table``; return a FROM-able SQL expression."""
    base = store.local_path(table)
    if base is not None:
        import glob

        files = sorted(glob.glob(f"{base}/dt=*/*.parquet"))
        if not files:
            con.register(f"_empty_{table}", _empty(table))
            return f"_empty_{table}"
        path = f"{base}/dt=*/*.parquet".replace("'", "''")
        # No union_by_name unless files of an older schema are present: reading every file's schema
        # up front costs more than the query on a large store (about 3x on a year of day files).
        by_name = id(con) in _read_by_name or _predates_schema(table, files[0])
        union = ", union_by_name = true" if by_name else ""
        return f"read_parquet('{path}', hive_partitioning = true, hive_types = {{'dt': DATE}}{union})"
    import pyarrow.dataset as ds

    filesystem, root = store.arrow_filesystem()
    partitioning = ds.partitioning(pa.schema([("dt", pa.date32())]), flavor="hive")
    # The full schema: files written before a column existed read it as null.
    schema = SCHEMAS[table].append(pa.field("dt", pa.date32()))
    try:
        dataset = ds.dataset(
            f"{root}/{table}", filesystem=filesystem, format="parquet", partitioning=partitioning, schema=schema
        )
    except (FileNotFoundError, pa.ArrowInvalid, OSError) as exc:
        if (
            "not exist" in str(exc)
            or isinstance(exc, FileNotFoundError)
            or "NoSuchKey" in str(exc)
            or "Path does not exist" in str(exc)
        ):
            dataset = None
        else:
            raise StoreError(f"cannot read {store.uri(table)}: {exc}", uri=store.uri(table)) from exc
    if dataset is None or not dataset.files:
        con.register(f"_empty_{table}", _empty(table))
        return f"_empty_{table}"
    con.register(f"_arrow_{table}", dataset)
    return f"_arrow_{table}"


def _predates_schema(table: str, first_file: str) -> bool:
    """Whether the table's first file (oldest day) lacks columns of the current schema.

    Then the store holds files of an older schema version, and the views read by column name.
    A store whose first file is current but that holds an older file later (a writer rolled
    back) makes DuckDB refuse the read with a schema mismatch; :func:`query` then rebuilds the
    views reading by column name too. Either way no column is dropped silently.
    """
    import pyarrow.parquet as pq

    try:
        names = set(pq.read_schema(first_file).names)
    except (OSError, pa.ArrowInvalid):
        return False  # a corrupt file: the query reports it, naming the file
    return not set(SCHEMAS[table].names) <= names


def _completed(con: duckdb.DuckDBPyConnection, table: str, source: str) -> str:
    """``SELECT`` over ``source`` adding, as typed nulls, the table's columns no file has yet."""
    have = {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
    missing = [f for f in SCHEMAS[table] if f.name not in have]
    if not missing:
        return f"SELECT * FROM {source}"
    nulls = ", ".join(f'CAST(NULL AS {_DUCK_TYPES[str(f.type)]}) AS "{f.name}"' for f in missing)
    return f"SELECT *, {nulls} FROM {source}"


#: DuckDB types of the Arrow types a column can be added with (``_completed``).
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


def deduped_sql(table: str, where: str) -> str:
    """Return SQL selecting ``table``'s rows matching ``where``, deduplicated like its view.

    The filter runs on the raw files before deduplication, so DuckDB can prune partitions and
    row groups (files are sorted by run id): a lookup by run id reads a few row groups instead
    of deduplicating the whole table first.
    """
    keys = ", ".join(f'"{key}"' for key in PRIMARY_KEYS[table])
    return (
        f"SELECT * FROM raw_{table} WHERE {where} "
        f"QUALIFY row_number() OVER (PARTITION BY {keys} ORDER BY {dedup_order(table)}) = 1"
    )


def create_views(con: duckdb.DuckDBPyConnection, store: ObjectStore) -> None:
    """Create (or replace) one deduplicating view per table on ``con``."""
    for table in TABLES:
        source = _source_sql(con, store, table)
        keys = ", ".join(f'"{key}"' for key in PRIMARY_KEYS[table])
        order = dedup_order(table)
        con.execute(f"CREATE OR REPLACE VIEW raw_{table} AS {_completed(con, table, source)}")
        con.execute(
            f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM raw_{table} "
            f"QUALIFY row_number() OVER (PARTITION BY {keys} ORDER BY {order}) = 1"
        )
    from handoff.queries.edges import create_edges_view

    create_edges_view(con)


def connect(store: ObjectStore | str | None = None, *, progress_bar: bool = False) -> duckdb.DuckDBPyConnection:
    """Open an in-memory DuckDB connection with views over ``store`` (a store or its URL) that reads only the store.

    ``progress_bar`` shows DuckDB's progress bar for long queries (it draws on stdout even when
    piped, so only on a terminal); it is fixed here because the configuration is locked.
    """
    if not isinstance(store, ObjectStore):
        store = open_store(store)
    con = sandboxed_connection(store.local_path(""), progress_bar=progress_bar)
    _read_by_name.discard(id(con))  # an id reused from a closed connection
    try:
        create_views(con, store)
    except duckdb.Error as exc:
        raise translate(exc) from exc
    _stores[id(con)] = store
    while len(_stores) > 64:
        _stores.pop(next(iter(_stores)))
    return con


def sandboxed_connection(readable_dir: str | None, *, progress_bar: bool = False) -> duckdb.DuckDBPyConnection:
    """Return an in-memory connection that can touch no file outside ``readable_dir`` (none when ``None``), locked."""
    con = duckdb.connect(":memory:")
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"SET enable_progress_bar = {str(progress_bar).lower()}")
    # Spill files go to a fresh private directory (DuckDB creates it only if it spills), not ./.tmp.
    con.execute(
        "SET temp_directory = ?", [os.path.join(tempfile.gettempdir(), f"handoff-duckdb-{secrets.token_hex(8)}")]
    )
    if readable_dir is not None:
        con.execute("SET allowed_directories = ?", [[os.path.join(readable_dir, "")]])
    con.execute("SET python_enable_replacements = false")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


#: Statement types a user's query may be: reading only (``WITH``, ``DESCRIBE``, ``SHOW`` and
#: ``SUMMARIZE`` parse as SELECT).
_READ_ONLY = ("SELECT",)


def check_select(sql: str) -> None:
    """Raise ``QueryError`` unless ``sql`` is exactly one SELECT statement (the only kind ``handoff sql`` runs)."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise translate(exc) from exc
    if len(statements) != 1:
        raise QueryError(f"give exactly one SELECT statement, not {len(statements)}")
    kind = statements[0].type.name
    if kind not in _READ_ONLY:
        raise QueryError(f"only SELECT queries are allowed (the store is read-only here), not {kind}")


def check_expression(sql: str) -> None:
    """Raise ``QueryError`` unless ``sql`` is one SQL expression (a ``--where`` predicate)."""
    if not sql.strip():
        raise QueryError("the --where predicate is empty")
    try:
        duckdb.SQLExpression(sql)
    except duckdb.Error as exc:
        raise QueryError(f"--where must be one SQL expression: {_first_line(exc)}") from exc


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# Which store each open connection reads, so a query that lost a race with compaction or
# retention (a listed file deleted before it was read) can rebuild its views and run again.
_stores: dict[int, ObjectStore] = {}
_VANISHED_RETRIES = 3
# Connections whose views read by column name after DuckDB found files of two schemas.
_read_by_name: set[int] = set()


def _schema_mismatch(exc: Exception) -> bool:
    return "schema mismatch" in str(exc).lower()


def _vanished(exc: Exception) -> bool:
    lowered = str(exc).lower()
    return any(
        text in lowered
        for text in ("no such file", "no files found", "cannot open file", "could not open file", "path does not exist")
    )


_FILE_IN_MESSAGE = re.compile(r"""(?:file|File)\s+["']?([^"'\s]+\.parquet)""")


def translate(exc: Exception) -> Exception:
    """Map a DuckDB error to the handoff error a user can act on."""
    message = _first_line(exc)
    lowered = message.lower()
    if (
        isinstance(exc, duckdb.PermissionException)
        or "disabled by configuration" in lowered
        or "configuration has been locked" in lowered
    ):
        return QueryError(f"refused: queries read only the store ({message})")
    if _vanished(exc):
        return QueryError(f"a store file disappeared while it was read (compaction or retention running?): {message}")
    if "parquet" in lowered and any(
        word in lowered for word in ("magic", "corrupt", "invalid", "too small", "footer", "no magic")
    ):
        match = _FILE_IN_MESSAGE.search(message)
        uri = match.group(1) if match else None
        return CorruptFile(f"corrupt Parquet file {uri or ''}: {message}".replace("  ", " "), uri=uri)
    return QueryError(message)


def _run(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None, fetch):
    """``fetch(con, sql, params)``; translate errors, rebuild the views and retry when a file vanished."""
    for attempt in range(_VANISHED_RETRIES + 1):
        try:
            return fetch(con, sql, params or [])
        except duckdb.Error as exc:
            store = _stores.get(id(con))
            mismatch = _schema_mismatch(exc) and id(con) not in _read_by_name
            if attempt == _VANISHED_RETRIES or store is None or not (_vanished(exc) or mismatch):
                raise translate(exc) from exc
            if mismatch:
                _read_by_name.add(id(con))
            create_views(con, store)
    raise AssertionError("unreachable")


def run_select(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[list[str], list[tuple]]:
    """Run a user's query (``handoff sql``) after :func:`check_select`; return ``(column names, rows)``."""
    check_select(sql)
    try:
        cursor = con.execute(sql)
        columns = [column[0] for column in cursor.description or []]
        return columns, (cursor.fetchall() if columns else [])
    except duckdb.Error as exc:
        raise translate(exc) from exc


def _as_dicts(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cursor = con.execute(sql, params)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _as_arrow(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> pa.Table:
    relation = con.sql(sql, params=params)
    # DuckDB 2 renamed fetch_arrow_table to to_arrow_table.
    return relation.to_arrow_table() if hasattr(relation, "to_arrow_table") else relation.arrow()


def query(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    """Run ``sql`` and return rows as dicts; DuckDB errors become handoff errors.

    When a file listed by the views was deleted before it was read (compaction or retention
    replaced it), the views are rebuilt over the current files and the query runs again.
    """
    return _run(con, sql, params, _as_dicts)


def query_arrow(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> pa.Table:
    """:func:`query`, returning an Arrow table (to register and query again without reading the store twice)."""
    return _run(con, sql, params, _as_arrow)
