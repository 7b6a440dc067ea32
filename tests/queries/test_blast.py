"""Blast radius: from one faulty handoff to every run the same fault reached, on digest rows."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest

from handoff.errors import HandoffNotFound, QueryError
from handoff.queries import connect
from handoff.queries.blast import blast_radius, counts_per_day
from tests.queries.population import FAULT_DAYS_AGO


def test_blast_radius_finds_exactly_the_planted_runs(population):
    """Among 6,000 runs, the search from one planted run finds the 10 planted runs and nothing else."""
    signature, matches = blast_radius(connect(population.root), population.planted[-1], "hf-3", now=population.now)
    assert (signature.scope, signature.from_step, signature.to_step) == ("step", "validate", "orchestrator.compress_v3")
    assert signature.lost == ("clause:7.2(b)", "qualifier:base is the rebated subtotal", "qualifier:per 7.2(b)")
    assert [m.run_id for m in matches] == population.planted
    assert {m.handoff_id for m in matches} == {"hf-3"}


def test_blast_radius_covers_the_digest_tier(population):
    """Runs whose content retention dropped (older than 30 days) are still found."""
    con = connect(population.root)
    _sig, recent = blast_radius(con, population.planted[-1], "hf-3", since=timedelta(days=30), now=population.now)
    assert [m.run_id for m in recent] == population.planted[-7:]
    tiers = con.execute("SELECT DISTINCT tier FROM handoffs WHERE run_id = ?", [population.planted[0]]).fetchall()
    assert tiers == [("digest",)]


def test_counts_per_day_count_runs(population):
    """Matches are counted per UTC day, in day order, one count per run."""
    _sig, matches = blast_radius(connect(population.root), population.planted[-1], "hf-3", now=population.now)
    expected = Counter((population.now - timedelta(days=days)).date() for days in FAULT_DAYS_AGO)
    assert counts_per_day(matches) == sorted(expected.items())


def test_a_where_predicate_narrows_the_signature(population):
    """``where`` adds an SQL predicate: here, only runs on the full tier."""
    _sig, matches = blast_radius(
        connect(population.root), population.planted[-1], "hf-3", where="tier = 'full'", now=population.now
    )
    assert [m.run_id for m in matches] == population.planted[-7:]


def test_same_input_digest_narrows_to_identical_inputs(demo):
    """``same=("input",)`` keeps only runs whose compressor received the very same bytes."""
    con = connect(demo.store)
    _sig, both = blast_radius(con, demo.incident, "hf-3")
    _sig, same = blast_radius(con, demo.incident, "hf-3", same=("input",))
    assert sorted(m.run_id for m in both) == sorted([demo.runs["INV-88214"], demo.runs["INV-88190"]])
    assert [m.run_id for m in same] == [demo.incident]


def test_one_token_widens_the_search(population):
    """Searching for ``clause:7.2(b)`` alone also finds no partial-loss runs (they kept "per 7.2(b)")."""
    _sig, matches = blast_radius(
        connect(population.root), population.planted[-1], "hf-3", tokens=("clause:7.2(b)",), now=population.now
    )
    assert [m.run_id for m in matches] == population.planted
    _sig, base = blast_radius(
        connect(population.root),
        population.planted[-1],
        "hf-3",
        tokens=("qualifier:base is the rebated subtotal",),
        now=population.now,
    )
    assert sorted(m.run_id for m in base) == sorted(population.planted + population.variants["partial"])


def test_a_handoff_that_lost_nothing_has_no_signature(demo):
    """Asking from the pricer (whose edge is clean) says there is nothing to search for."""
    with pytest.raises(ValueError, match="lost no constraints"):
        blast_radius(connect(demo.store), demo.incident, "hf-4")


def test_unknown_handoffs_and_bad_sql_are_errors(demo):
    """A wrong handoff id or a bad ``where`` raises a handoff error a CLI can print."""
    con = connect(demo.store)
    with pytest.raises(HandoffNotFound):
        blast_radius(con, demo.incident, "hf-99")
    with pytest.raises(QueryError):
        blast_radius(con, demo.incident, "hf-3", where="no_such_column = 1")


def _incidental_store(root: str, kinds: list[str], now) -> list[str]:
    """One compressor handoff per run; every run drops its own contract number, some drop more.

    ``fault`` runs also drop the 7.2(b) base qualifier, ``decoy`` runs drop the rebate rate instead,
    ``clean`` runs drop only their contract number. Returns the run ids, in ``kinds`` order.
    """
    from handoff.store import open_store
    from tests.queries.population import _STEPS, _handoff_row, _Writer

    kept = ["clause:7.2(b)", "percent:9.1", "percent:9.5", "qualifier:base is the rebated subtotal"]
    drops = {
        "fault": {"clause:7.2(b)", "qualifier:base is the rebated subtotal"},
        "decoy": {"percent:9.5"},
        "clean": set(),
    }
    out, run_ids = _Writer(open_store(root)), []
    for n, kind in enumerate(kinds):
        ts = now - timedelta(hours=n + 1)
        run_id = f"run_01JTEST{n:019d}"
        row, _data = _handoff_row(run_id, 3, _STEPS[2], ts, f"INV-{n}", "fault", "ok")
        contract = f"id:CT-{4100 + n}"
        row["input_constraints"] = sorted([*kept, contract])
        row["output_constraints"] = sorted(set(kept) - drops[kind])
        out.add("handoffs", ts.strftime("%Y-%m-%d"), row)
        out.add(
            "runs",
            ts.strftime("%Y-%m-%d"),
            {"run_id": run_id, "name": "invoice", "start_ts": ts, "end_ts": ts, "status": "ok", "writer": "test"},
        )
        run_ids.append(run_id)
    out.flush()
    return run_ids


def test_an_incidental_loss_on_every_run_does_not_hide_the_fault(tmp_path):
    """Each run also drops a contract number no other run carries: the search still finds exactly the faulty runs."""
    from datetime import datetime, timezone

    now = datetime(2026, 12, 1, 12, tzinfo=timezone.utc)
    kinds = ["fault", "decoy", "clean", "fault", "decoy", "fault", "clean", "fault", "decoy"]
    runs = _incidental_store(str(tmp_path / "store"), kinds, now)
    signature, matches = blast_radius(connect(str(tmp_path / "store")), runs[3], "hf-3", now=now)
    assert signature.lost == ("clause:7.2(b)", "qualifier:base is the rebated subtotal")
    assert signature.incidental == ("id:CT-4103",)
    assert sorted(m.run_id for m in matches) == sorted(run for run, kind in zip(runs, kinds) if kind == "fault")
