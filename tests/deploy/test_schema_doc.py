"""docs/schema.md: every column of every table with its type, and recipes that run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa

from handoff.queries import connect, query
from handoff.store.layout import TABLES
from handoff.store.tables import SCHEMAS

DOC = Path(__file__).resolve().parents[2] / "docs" / "schema.md"
TYPE_NAMES = {
    pa.string(): "string",
    pa.int16(): "int16",
    pa.int32(): "int32",
    pa.int64(): "int64",
    pa.float64(): "float64",
    pa.bool_(): "bool",
    pa.binary(): "binary",
    pa.date32(): "date",
}


def type_name(data_type: pa.DataType) -> str:
    """How docs/schema.md spells an Arrow type."""
    if pa.types.is_timestamp(data_type):
        return "timestamp"
    if pa.types.is_list(data_type):
        return f"list<{type_name(data_type.value_type)}>"
    if pa.types.is_map(data_type):
        return f"map<{type_name(data_type.key_type)},{type_name(data_type.item_type)}>"
    return TYPE_NAMES[data_type]


def documented(table: str) -> dict[str, str]:
    """``{column: type}`` from the table under ``### `<table>` `` in docs/schema.md."""
    section = DOC.read_text(encoding="utf-8").split(f"### `{table}`\n", 1)[1].split("\n### ", 1)[0]
    return dict(re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", section, flags=re.MULTILINE))


def python_blocks() -> list[str]:
    """The ```python blocks of docs/schema.md, in order."""
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_every_column_is_documented_with_its_type():
    """Each table's section lists exactly its columns (dt included), in order, with the stored type."""
    expected = {
        table: {field.name: type_name(field.type) for field in SCHEMAS[table]} | {"dt": "date"} for table in TABLES
    }
    found = {table: documented(table) for table in TABLES}
    assert found == expected
    assert {table: list(found[table]) for table in TABLES} == {table: [*SCHEMAS[table].names, "dt"] for table in TABLES}


def test_the_polars_recipe_reads_what_handoff_sql_shows(sql_store):
    """The Polars recipe, run as written, gives each table's deduplicated rows: the counts and run statuses of the views."""
    namespace: dict = {}
    exec(python_blocks()[0], namespace)  # noqa: S102 - the documented recipe itself
    scan = namespace["scan"]
    counts = {table: scan(str(sql_store), table).collect().height for table in TABLES}
    con = connect(str(sql_store))
    assert counts == {table: query(con, f"SELECT count(*) AS n FROM {table}")[0]["n"] for table in TABLES}
    statuses = scan(str(sql_store), "runs").select("run_id", "status").sort("run_id").collect().rows()
    assert statuses == [
        (r["run_id"], r["status"]) for r in query(con, "SELECT run_id, status FROM runs ORDER BY run_id")
    ]
    assert scan(str(sql_store), "handoffs").filter(namespace["pl"].col("tier") == "digest").collect().height == 5


def test_the_duckdb_pyarrow_recipe_reads_s3_without_the_extension(sql_store, moto_endpoint):
    """The plain-DuckDB recipe over pyarrow's S3 filesystem, run as written against an S3 server, shows each run once, final status."""
    import boto3

    s3 = boto3.client("s3", endpoint_url=moto_endpoint)
    s3.create_bucket(Bucket="acme-traces")
    for path in sorted(sql_store.rglob("*.parquet")):
        s3.put_object(Bucket="acme-traces", Key=f"prod/{path.relative_to(sql_store)}", Body=path.read_bytes())
    namespace: dict = {}
    exec(python_blocks()[1], namespace)  # noqa: S102 - the documented recipe itself
    con = namespace["con"]
    runs = con.execute("SELECT run_id, status, typeof(dt) FROM runs ORDER BY run_id").fetchall()
    expected = query(connect(str(sql_store)), "SELECT run_id, status FROM runs ORDER BY run_id")
    assert runs == [(row["run_id"], row["status"], "DATE") for row in expected]
    # A table with no files yet (nothing annotated) reads as an empty table of the full schema.
    assert namespace["raw_table"](namespace["s3"], "acme-traces/prod", "annotations").num_rows == 0
    # The demo's verifier records one verdict event per run.
    assert namespace["raw_table"](namespace["s3"], "acme-traces/prod", "events").count_rows() == 5
