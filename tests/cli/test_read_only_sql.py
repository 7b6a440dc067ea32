"""Read-only SQL: `handoff sql`, `--where` and every query read the store and nothing else.

Each case here reproduced issue 13 before the connection was sandboxed: `handoff sql` read
`/etc/passwd`, wrote files with COPY, attached databases, installed extensions, and a
`blast-radius --where` injection printed a host file.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from handoff.cli import main
from handoff.errors import QueryError
from handoff.queries import connect
from handoff.queries.db import check_expression, check_select, query
from handoff.store import LocalObjectStore
from tests.retention._data import NOW, write_run

HOST_FILE = "/etc/hostname"


def _invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def store_dir(tmp_path: Path) -> str:
    """A local store with one lossy run recorded today."""
    root = tmp_path / "store"
    write_run(LocalObjectStore(root), 0, now=NOW)
    return str(root)


def _store_files(root: str) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in Path(root).rglob("*"))


def test_sql_still_answers_a_select_over_the_views(store_dir):
    """An ordinary SELECT over the views keeps working in the sandboxed connection."""
    result = _invoke("sql", "SELECT count(*) AS n FROM handoffs", "--store", store_dir, "--json")
    assert (result.exit_code, result.output.replace(" ", "").replace("\n", "")) == (0, '[{"n":3}]')


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT * FROM read_text('/etc/passwd')",
        f"SELECT * FROM read_csv('{HOST_FILE}')",
        "SELECT * FROM glob('/etc/*')",
    ],
)
def test_sql_cannot_read_a_host_file(store_dir, statement):
    """`handoff sql` refuses to read files outside the store with one Error line and exit 1."""
    result = _invoke("sql", statement, "--store", store_dir)
    lines = result.output.strip().splitlines()
    assert (result.exit_code, len(lines), lines[0].startswith("Error: refused: queries read only the store")) == (
        1,
        1,
        True,
    )
    assert "root:" not in result.output


@pytest.mark.parametrize(
    ("statement", "kind"),
    [
        ("COPY (SELECT * FROM handoffs) TO '{tmp}/out.csv'", "COPY"),
        ("COPY (SELECT * FROM handoffs) TO '{store}/handoffs/dt=2026-11-29/evil.parquet'", "COPY"),
        ("ATTACH '{tmp}/x.duckdb' AS x", "ATTACH"),
        ("EXPORT DATABASE '{store}/dump'", "EXPORT"),
        ("INSTALL httpfs", "LOAD"),  # DuckDB parses INSTALL as a LOAD statement
        ("LOAD httpfs", "LOAD"),
        ("CREATE TABLE t AS SELECT 1", "CREATE"),
        ("SET enable_external_access = true", "SET"),
        ("SELECT 1; COPY (SELECT 1) TO '{tmp}/two.csv'", None),
    ],
)
def test_sql_refuses_every_statement_but_one_select(store_dir, tmp_path, statement, kind):
    """Writes, COPY, ATTACH, EXPORT, INSTALL and SET are refused in one line, and nothing is written anywhere."""
    before = _store_files(store_dir)
    outside = sorted(p.name for p in tmp_path.iterdir())
    result = _invoke("sql", statement.format(tmp=tmp_path, store=store_dir), "--store", store_dir)
    expected = (
        f"Error: only SELECT queries are allowed (the store is read-only here), not {kind}"
        if kind
        else ("Error: give exactly one SELECT statement, not 2")
    )
    assert (result.exit_code, result.output.strip()) == (1, expected)
    assert (_store_files(store_dir), sorted(p.name for p in tmp_path.iterdir())) == (before, outside)


def test_an_empty_sql_statement_is_one_error_line(store_dir):
    """`handoff sql ""` answers with one Error line and exit 1, not a traceback."""
    result = _invoke("sql", "", "--store", store_dir)
    assert (result.exit_code, result.output.strip()) == (1, "Error: give exactly one SELECT statement, not 0")


def test_the_connection_cannot_be_reopened_from_inside(store_dir):
    """Even code that bypasses the statement check cannot turn external access back on: the configuration is locked."""
    con = connect(store_dir)
    with pytest.raises(QueryError, match="refused: queries read only the store"):
        query(con, "SET enable_external_access = true")
    with pytest.raises(QueryError, match="refused: queries read only the store"):
        query(con, f"SELECT * FROM read_text('{HOST_FILE}')")


def test_blast_radius_where_cannot_smuggle_in_a_host_file(store_dir):
    """A `--where` that closes the predicate and UNIONs a host file is refused with one line, the file unread."""
    run_id = query(connect(store_dir), "SELECT run_id FROM runs")[0]["run_id"]
    injection = f"1=1) UNION ALL SELECT content, 'x', now() FROM read_text('{HOST_FILE}') WHERE (1=1"
    result = _invoke("blast-radius", run_id, "hf-2", "--where", injection, "--store", store_dir)
    assert result.exit_code == 1
    assert result.output.startswith("Error: --where must be one SQL expression: Parser Error")
    assert len(result.output.strip().splitlines()) == 1
    assert Path(HOST_FILE).read_text().strip() not in result.output


def test_check_select_and_check_expression_accept_reads_only():
    """The two guards accept a SELECT (WITH, DESCRIBE) and a predicate, and refuse statements."""
    for sql in ("SELECT 1", "WITH a AS (SELECT 1) SELECT * FROM a", "DESCRIBE handoffs"):
        check_select(sql)
    check_expression("model = 'gpt-x' AND attempt > 1")
    with pytest.raises(QueryError, match="not UPDATE"):
        check_select("UPDATE handoffs SET model = 'x'")
    with pytest.raises(QueryError, match="one SQL expression"):
        check_expression("1=1; DROP VIEW handoffs")


def test_sql_over_an_s3_store_reads_through_pyarrow_and_nothing_else(s3_store, s3_url):
    """An S3 store is still queried (pyarrow dataset registered with DuckDB) while host files stay out of reach."""
    write_run(s3_store, 0, now=NOW)
    ok = _invoke("sql", "SELECT count(*) AS n FROM handoffs", "--store", s3_url, "--json")
    refused = _invoke("sql", f"SELECT * FROM read_text('{HOST_FILE}')", "--store", s3_url)
    assert (ok.exit_code, ok.output.replace(" ", "").replace("\n", "")) == (0, '[{"n":3}]')
    assert (refused.exit_code, refused.output.startswith("Error: refused: queries read only the store")) == (1, True)
