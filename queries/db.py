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

from handoff.diagnostics import warn_once
from handoff.errors import CorruptFile, QueryError
from handoff.queries.sources import completed_sql, source_sql, unreadable_files
from handoff.store import ObjectStore, open_store
from handoff.store.layout import TABLES
from handoff.store.tables import PRIMARY_KEYS, dedup_order


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


def create_views(
    con: duckdb.DuckDBPyConnection, store: ObjectStore, skip: set[str] | None = None, *, by_name: bool = False
) -> None:
    """Create (or replace) one deduplicating view per table on ``con``.

    The views leave out the files in ``skip``, read by column name with ``by_name``, and have
    every column of the current schema (typed nulls where no file has it yet).
    """
    for table in TABLES:
        source = source_sql(con, store, table, skip, by_name=by_name)
        keys = ", ".join(f'"{key}"' for key in PRIMARY_KEYS[table])
        order = dedup_order(table)
        con.execute(f"CREATE OR REPLACE VIEW raw_{table} AS {completed_sql(con, table, source)}")
        # A row without a run id is not one of ours (a foreign file read through a dataset schema).
        con.execute(
            f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM raw_{table} WHERE run_id IS NOT NULL "
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
    reading = _Reading(store)
    _stores[id(con)] = reading
    while len(_stores) > 64:
        _stores.pop(next(iter(_stores)))
    try:
        create_views(con, store)
    except duckdb.Error as exc:
        # A file the views cannot bind to (truncated, foreign) fails them all: leave it out.
        if not _contain(con, reading, exc):
            raise translate(exc) from exc
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


class _Reading:
    """What one open connection reads: its store, the files its views leave out as unreadable, and whether they read by column name."""

    def __init__(self, store: ObjectStore) -> None:
        self.store = store
        self.skip: set[str] | None = None
        # Set after DuckDB found files of two schema versions (an old file after new ones).
        self.by_name = False

    def rebuild(self, con: duckdb.DuckDBPyConnection) -> None:
        create_views(con, self.store, self.skip, by_name=self.by_name)


# Which store each open connection reads, so a query that lost a race with compaction or
# retention (a listed file deleted before it was read) can rebuild its views and run again,
# and one that tripped over an unreadable file can leave it out and answer from the rest.
_stores: dict[int, _Reading] = {}
_RETRIES = 3


def _contain(con: duckdb.DuckDBPyConnection, reading: _Reading, exc: Exception) -> bool:
    """Find the files that do not read (every footer, plus the one ``exc`` names), warn once each, rebuild without them.

    Return whether any new file was left out (if not, the error is not one skipping can fix).
    """
    found = unreadable_files(reading.store)
    # A schema mismatch names a file of ours of another version, not a bad one (footers decide).
    named = None if _schema_mismatch(exc) else _named_key(reading.store, translate(exc))
    if named is not None and named not in found:
        found[named] = _first_line(exc)
    new = {key: why for key, why in found.items() if key not in (reading.skip or set())}
    if not new:
        return False
    for key, why in sorted(new.items()):
        warn_once(f"skipped unreadable file {reading.store.uri(key)}: {why} (see `handoff fsck`)".replace("%", "%%"))
    reading.skip = (reading.skip or set()) | set(new)
    reading.rebuild(con)
    return True


def _named_key(store: ObjectStore, error: Exception) -> str | None:
    """Return the store key of the file a translated error names, if it names one of the store's files."""
    uri = getattr(error, "uri", None)
    if not isinstance(error, CorruptFile) or not uri:
        return None
    root = store.local_path("")
    if root is None:
        root = store.arrow_filesystem()[1]
    root = root.rstrip("/") + "/"
    return uri[len(root) :] if uri.startswith(root) else None


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
    """``fetch(con, sql, params)``; translate errors; rebuild the views and retry when a file vanished or did not read."""
    for attempt in range(_RETRIES + 1):
        try:
            return fetch(con, sql, params or [])
        except duckdb.Error as exc:
            reading = _stores.get(id(con))
            if attempt == _RETRIES or reading is None or not _recover(con, reading, exc):
                raise translate(exc) from exc
    raise AssertionError("unreachable")


def _recover(con: duckdb.DuckDBPyConnection, reading: _Reading, exc: Exception) -> bool:
    """Rebuild the views after a race with compaction or over an unreadable file; tell whether a retry can help."""
    if _vanished(exc):
        reading.rebuild(con)
        return True
    mismatch = _schema_mismatch(exc)
    if (mismatch or isinstance(translate(exc), CorruptFile)) and _contain(con, reading, exc):
        return True
    if mismatch and not reading.by_name:
        # Every file reads as one of ours, of two schema versions: read them by column name.
        reading.by_name = True
        reading.rebuild(con)
        return True
    return False


def _schema_mismatch(exc: Exception) -> bool:
    return "schema mismatch" in str(exc).lower()


def _as_dicts(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    cursor = con.execute(sql, params)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _as_arrow(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> pa.Table:
    relation = con.sql(sql, params=params)
    # DuckDB 2 renamed fetch_arrow_table to to_arrow_table.
    return relation.to_arrow_table() if hasattr(relation, "to_arrow_table") else relation.arrow()


def _as_columns_and_rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any]) -> tuple[list[str], list[tuple]]:
    cursor = con.execute(sql, params)
    columns = [column[0] for column in cursor.description or []]
    return columns, (cursor.fetchall() if columns else [])


def query(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    """Run ``sql`` and return rows as dicts; DuckDB errors become handoff errors.

    When a file listed by the views was deleted before it was read (compaction or retention
    replaced it), the views are rebuilt over the current files and the query runs again; when
    a file does not read, it is left out (with one warning naming it) and the query runs again.
    """
    return _run(con, sql, params, _as_dicts)


def query_arrow(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> pa.Table:
    """:func:`query`, returning an Arrow table (to register and query again without reading the store twice)."""
    return _run(con, sql, params, _as_arrow)


def run_select(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[list[str], list[tuple]]:
    """Run a user's query (``handoff sql``) after :func:`check_select`; return ``(column names, rows)``."""
    check_select(sql)
    return _run(con, sql, None, _as_columns_and_rows)
