"""verifier-broken and empty-output: recorded through the real writer into a store, checked on digest rows."""

from __future__ import annotations

from datetime import timedelta

import pyarrow as pa
import pyarrow.parquet as pq

import handoff
from handoff.analysis.verdicts import classify_verdict
from handoff.queries import connect
from handoff.queries.checks import run_checks
from handoff.queries.db import query
from handoff.queries.health import CircuitBreaker, check_and_record
from handoff.queries.verification import VerifierCoverage, verification_coverage
from handoff.store import open_store

REPLIES = {
    "INV-1": "VERIFIED: surcharge base per 7.2(b).",
    "INV-2": "FAIL: surcharge on the unrebated subtotal",
    "INV-3": "VERIFIED [Verification error, auto-pass: session expired]",
}


def _record(store: str) -> dict[str, str]:
    handoff.configure(store=store, scrub=False)

    @handoff.step(to="verify", kind="verifier")
    def verify(pricing: str) -> str:
        reply = REPLIES[pricing]
        handoff.verdict(*classify_verdict(reply))
        return reply

    @handoff.step(to="retrieve")
    def retrieve(q: str) -> list:
        return [] if q == "nothing" else ["7.2(b)"]

    @handoff.step(to="rerank", allow_empty=True)
    def rerank(q: str) -> str:
        return "  \n"

    runs = {}
    for invoice in REPLIES:
        with handoff.run("invoice", invoice=invoice) as run:
            verify(invoice)
            retrieve("nothing" if invoice == "INV-2" else "surcharge")
            rerank(invoice)
        runs[invoice] = run.run_id
    assert handoff.flush()
    return runs


def test_digest_rows_carry_verdicts_and_emptiness(tmp_path):
    """The writer stores verdict, verdict_reason, output_empty, allow_empty and status=broken on digest rows."""
    store = str(tmp_path / "store")
    runs = _record(store)
    rows = query(
        connect(store),
        "SELECT run_id, to_step, status, verdict, verdict_reason, output_empty, allow_empty, schema_version "
        "FROM handoffs ORDER BY run_id, seq",
    )
    by_invoice = {v: k for k, v in runs.items()}
    assert [(by_invoice[r.pop("run_id")], *r.values()) for r in rows] == [
        ("INV-1", "verify", "ok", "pass", "VERIFIED: surcharge base per 7.2(b).", False, False, 2),
        ("INV-1", "retrieve", "ok", None, None, False, False, 2),
        ("INV-1", "rerank", "ok", None, None, True, True, 2),
        ("INV-2", "verify", "ok", "fail", "FAIL: surcharge on the unrebated subtotal", False, False, 2),
        ("INV-2", "retrieve", "ok", None, None, True, False, 2),
        ("INV-2", "rerank", "ok", None, None, True, True, 2),
        (
            "INV-3",
            "verify",
            "broken",
            "broken",
            "verification error: VERIFIED [Verification error, auto-pass: session expired]",
            False,
            False,
            2,
        ),
        ("INV-3", "retrieve", "ok", None, None, False, False, 2),
        ("INV-3", "rerank", "ok", None, None, True, True, 2),
    ]
    events = query(connect(store), "SELECT kind, name FROM events ORDER BY run_id")
    assert events == [{"kind": "verdict", "name": name} for name in ("pass", "fail", "broken")]


def test_checks_flag_the_broken_verifier_and_the_empty_output_only(tmp_path):
    """verifier-broken fails the broken run (HIGH), empty-output fails the empty retrieve (MED); allow_empty is not checked."""
    store = str(tmp_path / "store")
    runs = _record(store)
    results = run_checks(connect(store), since=timedelta(hours=1))
    by_invoice = {v: k for k, v in runs.items()}
    summary = [
        (by_invoice[r.run_id], r.to_step, r.check, r.severity, r.status, r.detail)
        for r in results
        if r.check in ("verifier-broken", "empty-output")
    ]
    assert summary == [
        ("INV-1", "verify", "empty-output", "MED", "pass", ""),
        ("INV-1", "verify", "verifier-broken", "HIGH", "pass", "pass"),
        ("INV-1", "retrieve", "empty-output", "MED", "pass", ""),
        ("INV-2", "verify", "empty-output", "MED", "pass", ""),
        ("INV-2", "verify", "verifier-broken", "HIGH", "pass", "fail"),
        ("INV-2", "retrieve", "empty-output", "MED", "fail", "empty output (2 bytes)"),
        (
            "INV-3",
            "verify",
            "verifier-broken",
            "HIGH",
            "fail",
            "broken: verification error: VERIFIED [Verification error, auto-pass: session expired]",
        ),
        ("INV-3", "retrieve", "empty-output", "MED", "pass", ""),
    ]


def test_health_reports_verification_coverage(tmp_path):
    """Per verifier step: runs verified (pass or fail) against broken ones."""
    store = str(tmp_path / "store")
    _record(store)
    (coverage,) = verification_coverage(connect(store), since=timedelta(hours=1))
    assert coverage == VerifierCoverage("verify", runs=3, passed=1, failed=1, broken=1, unverdicted=0)
    assert coverage.summary() == "the verify step verified 2 of 3 runs (66.7%); 1 broken"


def test_broken_verifiers_feed_the_circuit_breaker(tmp_path):
    """Three broken verifier runs within the window open the breaker for verifier-broken once."""
    store = str(tmp_path / "store")
    handoff.configure(store=store, scrub=False)

    @handoff.step(to="verify", kind="verifier")
    def verify(pricing: str) -> str:
        handoff.verdict("broken", reason="rate limit: 429 Too Many Requests")
        return "Error: 429 Too Many Requests"

    for n in range(3):
        with handoff.run("invoice", invoice=f"INV-{n}"):
            verify(str(n))
    assert handoff.flush()
    done = check_and_record(open_store(store), connect(store), CircuitBreaker(), since=timedelta(hours=1))
    assert [(t.check, len(t.run_ids)) for t in done.trips] == [("verifier-broken", 3)]


def _old_copy(new_file, suffix: str) -> pa.Table:
    """The rows of ``new_file`` as a schema-1 writer wrote them (no issue-19 columns), under other run ids."""
    old = pq.read_table(new_file).drop_columns(["verdict", "verdict_reason", "output_empty", "allow_empty"])
    run_ids = pa.array([run_id + suffix for run_id in old.column("run_id").to_pylist()])
    old = old.set_column(old.schema.get_field_index("run_id"), "run_id", run_ids)
    versions = pa.array([1] * len(old), pa.int16())
    return old.set_column(old.schema.get_field_index("schema_version"), "schema_version", versions)


def _by_version(store: str) -> list[dict]:
    sql = (
        "SELECT schema_version, count(*) AS n, count(verdict) AS verdicts, count(output_empty) AS judged, "
        "count(*) FILTER (WHERE status = 'broken') AS broken FROM handoffs GROUP BY ALL ORDER BY schema_version"
    )
    return query(connect(store), sql)


def test_old_files_first_read_with_the_new_columns_null(tmp_path):
    """A store upgraded in place (schema-1 files on older days and beside new ones) reads every row, new columns null on old rows."""
    store = str(tmp_path / "store")
    _record(store)
    (new_file,) = (tmp_path / "store" / "handoffs").glob("dt=*/*.parquet")
    older = tmp_path / "store" / "handoffs" / "dt=2020-01-01"
    older.mkdir()
    pq.write_table(_old_copy(new_file, "a"), older / "a.parquet")
    pq.write_table(_old_copy(new_file, "b"), new_file.parent / "zz-old-writer.parquet")
    assert _by_version(store) == [
        {"schema_version": 1, "n": 18, "verdicts": 0, "judged": 0, "broken": 2},
        {"schema_version": 2, "n": 9, "verdicts": 3, "judged": 9, "broken": 1},
    ]


def test_an_old_file_after_new_ones_still_reads(tmp_path):
    """A schema-1 file written after schema-2 ones (a rolled-back writer) is read too, not refused or dropped."""
    store = str(tmp_path / "store")
    _record(store)
    (new_file,) = (tmp_path / "store" / "handoffs").glob("dt=*/*.parquet")
    later = tmp_path / "store" / "handoffs" / "dt=2099-01-01"
    later.mkdir()
    pq.write_table(_old_copy(new_file, "b"), later / "a.parquet")
    assert _by_version(store) == [
        {"schema_version": 1, "n": 9, "verdicts": 0, "judged": 0, "broken": 1},
        {"schema_version": 2, "n": 9, "verdicts": 3, "judged": 9, "broken": 1},
    ]


def test_a_store_of_only_old_files_has_the_new_columns(tmp_path):
    """Before any schema-2 file exists the views still have verdict, output_empty and allow_empty, all null."""
    store = str(tmp_path / "store")
    _record(store)
    (new_file,) = (tmp_path / "store" / "handoffs").glob("dt=*/*.parquet")
    pq.write_table(_old_copy(new_file, ""), new_file)
    assert _by_version(store) == [{"schema_version": 1, "n": 9, "verdicts": 0, "judged": 0, "broken": 1}]
    results = run_checks(connect(store), since=timedelta(hours=1))
    assert sorted({(r.check, r.status) for r in results}) == [
        ("empty-output", "pass"),
        ("verifier-broken", "fail"),
    ]
