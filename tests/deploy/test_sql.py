"""The DDL in ``deploy/sql/``: current, parsed by sqlglot in each dialect, in step with the store's
schemas, and its views return what ``handoff sql`` returns (run here on DuckDB; Spark runs the
Spark file for real in ``test_spark.py``).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
import sqlglot
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlglot import exp

from handoff.cli import main
from handoff.queries import connect, query
from handoff.queries.ddl import (
    DIALECTS,
    PLACEHOLDER,
    VIEWS,
    create_view,
    render,
    split_statements,
    statements,
)
from handoff.queries.edges import EDGE_COLUMNS
from handoff.store.layout import TABLES
from handoff.store.tables import SCHEMAS

SQL = Path(__file__).resolve().parents[2] / "deploy" / "sql"
T = exp.DataType.Type
SCALARS = {
    T.VARCHAR: pa.string(),
    T.TEXT: pa.string(),
    T.SMALLINT: pa.int16(),
    T.INT: pa.int32(),
    T.BIGINT: pa.int64(),
    T.DOUBLE: pa.float64(),
    T.BOOLEAN: pa.bool_(),
    T.BINARY: pa.binary(),
    T.VARBINARY: pa.binary(),
    T.DATE: pa.date32(),
    T.TIMESTAMP: pa.timestamp("us", tz="UTC"),
    T.TIMESTAMPTZ: pa.timestamp("us", tz="UTC"),
}


def shipped(dialect: str) -> list[exp.Expression]:
    """Parse the shipped file of ``dialect`` statement by statement, in that dialect."""
    text = (SQL / f"{dialect}.sql").read_text(encoding="utf-8")
    return [sqlglot.parse_one(statement, read=dialect) for statement in split_statements(text)]


def arrow_type(data_type: exp.DataType) -> pa.DataType:
    """The Arrow type a DDL column type reads (any timestamp precision counts as the store's timestamps)."""
    if data_type.this == T.ARRAY:
        return pa.list_(arrow_type(data_type.expressions[0]))
    if data_type.this == T.MAP:
        key, value = data_type.expressions
        return pa.map_(arrow_type(key), arrow_type(value))
    return SCALARS[data_type.this]


def created(dialect: str, kind: str) -> dict[str, exp.Create]:
    """The CREATE statements of ``kind`` (TABLE or VIEW) in the shipped file, by unqualified name."""
    found = {}
    for statement in shipped(dialect):
        if isinstance(statement, exp.Create) and statement.kind == kind:
            found[statement.find(exp.Table).name] = statement
    return found


def table_columns(create: exp.Create) -> dict[str, pa.DataType]:
    """Every column a CREATE TABLE declares, partition columns included, with the Arrow type it reads."""
    return {column.name: arrow_type(column.kind) for column in create.find_all(exp.ColumnDef)}


def store_columns(table: str) -> dict[str, pa.DataType]:
    """The columns of ``table`` in ``store.tables``, plus the ``dt`` partition column."""
    return {**{field.name: field.type for field in SCHEMAS[table]}, "dt": pa.date32()}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_shipped_files_are_what_handoff_ddl_renders(dialect):
    """deploy/sql/<dialect>.sql is current: rendered from store/tables.py and queries/ddl.py (rerun `python -m handoff.queries.ddl`)."""
    assert (SQL / f"{dialect}.sql").read_text(encoding="utf-8") == render(dialect)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_table_is_declared_with_every_column_and_a_compatible_type(dialect):
    """No schema drift: each table of store/tables.py is an external table with all its columns, typed to read them, and dt a DATE."""
    tables = created(dialect, "TABLE")
    assert sorted(tables) == sorted(f"raw_{table}" for table in TABLES)
    assert {table: table_columns(tables[f"raw_{table}"]) for table in TABLES} == {
        table: store_columns(table) for table in TABLES
    }


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_view_handoff_sql_offers_is_defined_with_its_columns(dialect):
    """Each dialect defines the views of `handoff sql` with the same columns in the same order; edges as in queries/edges.py."""
    views = created(dialect, "VIEW")
    expected = {table: [*SCHEMAS[table].names, "dt"] for table in TABLES}
    assert list(views) == list(VIEWS)
    assert {view: views[view].expression.named_selects for view in views} == {**expected, "edges": list(EDGE_COLUMNS)}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_tables_point_at_their_folder_under_the_store_root(dialect):
    """Each external table reads <store root>/<table>/, the store root written as ${HANDOFF_STORE}."""
    text = (SQL / f"{dialect}.sql").read_text(encoding="utf-8")
    assert [table for table in TABLES if f"'{PLACEHOLDER}/{table}/'" not in text] == []


def test_athena_projects_dt_partitions_so_no_repair_is_needed():
    """Every Athena table is partitioned by dt DATE with date projection, so new days need no MSCK REPAIR."""
    expected = {
        "projection.enabled": "true",
        "projection.dt.type": "date",
        "projection.dt.format": "yyyy-MM-dd",
        "projection.dt.range": "2025-01-01,NOW",
        "projection.dt.interval": "1",
        "projection.dt.interval.unit": "DAYS",
    }
    for name, create in created("athena", "TABLE").items():
        properties = {
            p.name: p.text("value") for p in create.find_all(exp.Property) if p.name.startswith("projection.")
        }
        partitioned = create.find(exp.PartitionedByProperty)
        assert (name, properties, table_columns(partitioned)) == (name, expected, {"dt": pa.date32()})
        assert "EXTERNAL" in create.sql(dialect="athena")


def test_trino_tables_are_partitioned_by_dt_and_synced():
    """Every Trino table lists dt last and is partitioned by it; a partition sync follows each CREATE."""
    parsed = shipped("trino")
    for position, statement in enumerate(parsed):
        if isinstance(statement, exp.Create) and statement.kind == "TABLE":
            name = statement.find(exp.Table).name
            assert list(table_columns(statement))[-1] == "dt"
            assert "PARTITIONED_BY=ARRAY['dt']" in statement.sql(dialect="trino")
            assert (
                parsed[position + 1].sql(dialect="trino")
                == f"CALL system.sync_partition_metadata('handoff', '{name}', 'FULL')"
            )


def test_views_rendered_for_duckdb_return_exactly_the_rows_of_handoff_sql(sql_store):
    """The views the DDL defines, transpiled for DuckDB, return the same columns, types and rows as `handoff sql`'s own views."""
    con = connect(str(sql_store))
    con.execute("CREATE SCHEMA handoff")
    for table in TABLES:
        con.execute(f"CREATE VIEW handoff.raw_{table} AS SELECT * FROM main.raw_{table}")
    for view in VIEWS:
        con.execute(create_view(view, "duckdb"))
    for view in VIEWS:
        ours = con.execute(f"DESCRIBE handoff.{view}").fetchall()
        theirs = con.execute(f"DESCRIBE main.{view}").fetchall()
        assert [row[:2] for row in ours] == [row[:2] for row in theirs], view
    counts = {
        view: query(
            con,
            f"SELECT (SELECT count(*) FROM main.{view}) AS n, "
            f"(SELECT count(*) FROM (SELECT * FROM main.{view} EXCEPT ALL SELECT * FROM handoff.{view})) AS missing, "
            f"(SELECT count(*) FROM (SELECT * FROM handoff.{view} EXCEPT ALL SELECT * FROM main.{view})) AS extra",
        )[0]
        for view in VIEWS
    }
    # The demo: 5 runs of 6 handoffs (the verifier's hf-6 has two parents, one verdict event each),
    # 14 checks a run (13 on INV-88216, whose broken hf-6 gets no empty-output check); the app: 4 handoffs.
    assert counts == {
        "handoffs": {"n": 34, "missing": 0, "extra": 0},
        "content": {"n": 68, "missing": 0, "extra": 0},
        "runs": {"n": 6, "missing": 0, "extra": 0},
        "events": {"n": 5, "missing": 0, "extra": 0},
        "checks": {"n": 69, "missing": 0, "extra": 0},
        "annotations": {"n": 0, "missing": 0, "extra": 0},
        "edges": {"n": 33, "missing": 0, "extra": 0},
    }


def test_the_fixture_store_holds_the_duplicates_and_losses_the_views_must_handle(sql_store):
    """The store the SQL tests read has raw duplicates, digest copies that must win, a lossy edge and a fan-in."""
    rows = query(
        connect(str(sql_store)),
        """
        SELECT (SELECT count(*) FROM raw_handoffs) AS raw_handoffs, (SELECT count(*) FROM raw_runs) AS raw_runs,
               (SELECT count(*) FROM handoffs WHERE tier = 'digest') AS digest,
               (SELECT list(lost) FROM edges WHERE len(lost) > 0) AS lost,
               (SELECT count(*) FROM handoffs WHERE len(fan_in) > 0) AS fan_in""",
    )
    assert rows == [
        {
            "raw_handoffs": 69,
            "raw_runs": 12,
            "digest": 5,
            "lost": [["clause:7.2(b)", "qualifier:per 7.2(b)"]],
            "fan_in": 6,  # the app's fan-in and each demo run's verifier
        }
    ]


ROOTS = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(root=ROOTS)
def test_any_store_root_is_written_as_one_string_literal_or_refused(root):
    """Hostile store roots cannot change the SQL: each is refused, or every statement parses and reads root/<table>/."""
    for dialect in DIALECTS:
        try:
            found = statements(dialect, root)
        except ValueError as exc:
            assert "cannot be written into SQL" in str(exc)
            assert any(char in "'\\" or ord(char) < 32 or ord(char) == 127 for char in root)
            return
        locations = []
        for statement in found[: -len(VIEWS)]:
            parsed = sqlglot.parse_one(statement, read=dialect)
            locations += [
                node.this
                for node in parsed.find_all(exp.Literal)
                if node.is_string and node.this.endswith("/") and not node.this.startswith("projection")
            ]
        assert locations == [f"{root.rstrip('/')}/{table}/" for table in TABLES], dialect


def test_cli_prints_the_shipped_file_or_fills_in_the_store():
    """`handoff ddl spark` prints deploy/sql/spark.sql; with --store s3://… Spark reads s3a:// and Athena s3://."""
    runner = CliRunner()
    plain = runner.invoke(main, ["ddl", "spark"])
    spark = runner.invoke(main, ["ddl", "spark", "--store", "s3://acme-traces/prod"])
    athena = runner.invoke(main, ["ddl", "athena", "--store", "s3://acme-traces/prod/"])
    assert (plain.exit_code, plain.output) == (0, (SQL / "spark.sql").read_text(encoding="utf-8"))
    assert "LOCATION 's3a://acme-traces/prod/handoffs/'" in spark.output and PLACEHOLDER not in spark.output
    assert "LOCATION 's3://acme-traces/prod/runs/'" in athena.output and PLACEHOLDER not in athena.output


def test_cli_refuses_a_store_root_that_cannot_be_quoted():
    """A store root with a quote ends in one `Error:` line and exit status 1, printing no SQL."""
    result = CliRunner().invoke(main, ["ddl", "trino", "--store", "s3://bucket/it's"])
    assert (result.exit_code, result.output) == (
        1,
        'Error: store root "s3://bucket/it\'s" cannot be written into SQL: it is empty or holds a quote, backslash or control character\n',
    )
