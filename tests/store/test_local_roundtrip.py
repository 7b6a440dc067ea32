"""The local store: what the writer puts on disk and what the queries read back."""

from __future__ import annotations

import hashlib
import os

import pyarrow.parquet as pq
import pytest

import handoff
from handoff.queries import connect, query
from handoff.queries.content import fetch_content
from handoff.queries.runs import get_run
from handoff.store import open_store


@pytest.fixture
def store_dir(tmp_path):
    path = tmp_path / "store"
    handoff.configure(store=str(path), scrub=False, flush_interval_s=0.05)
    yield path
    handoff.shutdown()


def _pipeline():
    @handoff.step(to="validate", model="validate-l", template="prompts/validate.j2@9f1c2ab")
    def validate(doc: str) -> str:
        return "REPORT\nsurcharge base is the rebated subtotal per 7.2(b)\n"

    @handoff.step(to="orchestrator.compress_v3", kind="transform")
    def compress(report: str) -> str:
        return "freight surcharge: 9.1% (clause 7.2)"

    with handoff.run("invoice", invoice="INV-88214") as run:
        compress(validate("invoice INV-88214"))
    return run.run_id


def test_round_trip_keeps_every_field(store_dir):
    """Digest rows read back through DuckDB carry the ids, parents, digests, sizes and config recorded."""
    run_id = _pipeline()
    assert handoff.flush()
    con = connect(str(store_dir))
    run = get_run(con, run_id)
    assert (run["name"], run["status"], run["attributes"]) == ("invoice", "ok", {"invoice": "INV-88214"})
    first, second = run["handoffs"]
    report = b"REPORT\nsurcharge base is the rebated subtotal per 7.2(b)\n"
    assert (first["handoff_id"], first["from_step"], first["to_step"], first["model"], first["template"]) == (
        "hf-1",
        "invoice",
        "validate",
        "validate-l",
        "prompts/validate.j2@9f1c2ab",
    )
    assert (second["handoff_id"], second["from_step"], second["kind"], second["parent_handoff_id"]) == (
        "hf-2",
        "validate",
        "transform",
        "hf-1",
    )
    assert first["output_sha256"] == second["input_sha256"] == hashlib.sha256(report).hexdigest()
    assert (second["input_bytes"], second["output_bytes"]) == (
        len(report),
        len(b"freight surcharge: 9.1% (clause 7.2)"),
    )
    assert (second["tier"], second["schema_version"], second["attempt"]) == ("full", 2, 1)
    assert second["tokens_estimated"] is True
    store = open_store(str(store_dir))
    assert fetch_content(store, con, run_id, "hf-2", "in") == report
    assert fetch_content(store, con, run_id, "hf-2", "out") == b"freight surcharge: 9.1% (clause 7.2)"


def test_layout_is_hive_partitioned_and_packed(store_dir):
    """One flush writes one content file and one digest file per day, under dt= partitions, sorted by run id."""
    for _ in range(3):
        _pipeline()
    assert handoff.flush()
    files = sorted(p.relative_to(store_dir).as_posix() for p in store_dir.rglob("*") if p.is_file())
    tables = sorted({f.split("/")[0] for f in files})
    assert tables == ["content", "handoffs", "runs"]
    assert all(f.split("/")[1].startswith("dt=") and f.endswith(".parquet") for f in files)
    digest_files = [f for f in files if f.startswith("handoffs/")]
    content_files = [f for f in files if f.startswith("content/")]
    assert len(digest_files) == len(content_files) == 1
    digests = pq.read_table(store_dir / digest_files[0])
    assert digests.num_rows == 6
    run_ids = digests.column("run_id").to_pylist()
    assert run_ids == sorted(run_ids)
    assert pq.read_table(store_dir / content_files[0]).num_rows == 12


def test_no_temp_files_left_and_refs_name_their_file(store_dir):
    """Writes are atomic (no temp file remains) and every ref names an existing file and row."""
    run_id = _pipeline()
    assert handoff.flush()
    leftovers = [p for p in store_dir.rglob("*") if ".tmp-" in p.name]
    assert leftovers == []
    con = connect(str(store_dir))
    for row in query(con, "SELECT input_ref, output_ref FROM handoffs WHERE run_id = ?", [run_id]):
        for ref in row.values():
            key, _, selector = ref.partition("#")
            assert os.path.isfile(store_dir / key)
            assert selector.startswith(run_id + "/hf-")


def test_payload_above_inline_limit_goes_to_its_own_blob(tmp_path):
    """A payload above the inline limit is stored as its own zstd object and still reads back exactly."""
    path = tmp_path / "store"
    handoff.configure(store=str(path), scrub=False, inline_limit_bytes=1024)
    try:
        big = "line of a very long document\n" * 200

        @handoff.step(to="summarize")
        def summarize(doc: str) -> str:
            return "short"

        with handoff.run("big") as run:
            summarize(big)
        assert handoff.flush()
    finally:
        handoff.shutdown()
    con = connect(str(path))
    (row,) = query(con, "SELECT input_ref, output_ref FROM handoffs WHERE run_id = ?", [run.run_id])
    assert row["input_ref"] == f"blobs/dt={row['input_ref'].split('dt=')[1][:10]}/{run.run_id}/hf-1.in.zst"
    assert "#" in row["output_ref"]
    assert fetch_content(open_store(str(path)), con, run.run_id, "hf-1", "in") == big.encode()


def test_views_deduplicate_a_file_written_twice(store_dir):
    """If the same rows land in two files (a retried batch), every view still shows each row once."""
    run_id = _pipeline()
    assert handoff.flush()
    (digest_file,) = list(store_dir.glob("handoffs/dt=*/*.parquet"))
    (digest_file.parent / "copy-000001.parquet").write_bytes(digest_file.read_bytes())
    con = connect(str(store_dir))
    assert query(con, "SELECT count(*) AS n FROM handoffs WHERE run_id = ?", [run_id]) == [{"n": 2}]
    assert query(con, "SELECT count(*) AS n FROM raw_handoffs WHERE run_id = ?", [run_id]) == [{"n": 4}]


def test_flush_at_run_end_when_asked(tmp_path):
    """handoff.run(..., flush=True) has written the run's records when the block exits."""
    path = tmp_path / "store"
    handoff.configure(store=str(path), scrub=False, flush_interval_s=60)
    try:

        @handoff.step(to="s")
        def s(x: str) -> str:
            return x

        with handoff.run("flushing", flush=True) as run:
            s("payload")
        con = connect(str(path))
        assert [h["handoff_id"] for h in get_run(con, run.run_id)["handoffs"]] == ["hf-1"]
    finally:
        handoff.shutdown()
