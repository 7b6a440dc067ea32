"""Named checks: the built-in constraint checks, user checks, and every result kept in ``checks``."""

from __future__ import annotations

from datetime import timedelta

import pytest

from handoff.queries import connect
from handoff.queries.checks import Outcome, register_check, run_checks, unregister_check, write_results
from handoff.queries.db import query
from handoff.store import open_store
from handoff.store.compact import compact

INCIDENT_LOSS = ("clause:7.2(b)", "qualifier:base is the rebated subtotal", "qualifier:per 7.2(b)")


def _summary(results):
    return [(r.handoff_id, r.parent_handoff_id, r.check, r.status, r.lost) for r in results]


def test_the_compressor_is_the_only_place_flagged_in_the_incident_run(demo):
    """On INV-88214 every edge passes and only the compressor's own input → output fails."""
    results = run_checks(connect(demo.store), run_id=demo.incident)
    assert _summary(results) == [
        ("hf-1", None, "empty-output", "pass", ()),
        ("hf-2", "hf-1", "edge-constraints", "pass", ()),
        ("hf-2", None, "empty-output", "pass", ()),
        ("hf-3", "hf-2", "edge-constraints", "pass", ()),
        ("hf-3", None, "empty-output", "pass", ()),
        ("hf-3", None, "transform-constraints", "fail", INCIDENT_LOSS),
        ("hf-4", "hf-3", "edge-constraints", "pass", ()),
        ("hf-4", None, "empty-output", "pass", ()),
        ("hf-5", "hf-4", "edge-constraints", "pass", ()),
        ("hf-5", None, "empty-output", "pass", ()),
        ("hf-6", "hf-3", "edge-constraints", "pass", ()),
        ("hf-6", "hf-4", "edge-constraints", "pass", ()),
        ("hf-6", None, "empty-output", "pass", ()),
        ("hf-6", None, "verifier-broken", "pass", ()),
    ]
    assert {(r.check, r.severity) for r in results} == {
        ("edge-constraints", "HIGH"),
        ("transform-constraints", "HIGH"),
        ("empty-output", "MED"),
        ("verifier-broken", "HIGH"),
    }


def test_clean_invoices_pass_every_check(demo):
    """A run that lost nothing records passes only."""
    results = run_checks(connect(demo.store), run_id=demo.runs["INV-88209"])
    assert [(r.handoff_id, r.check, r.status) for r in results] == [
        ("hf-1", "empty-output", "pass"),
        ("hf-2", "edge-constraints", "pass"),
        ("hf-2", "empty-output", "pass"),
        ("hf-3", "edge-constraints", "pass"),
        ("hf-3", "empty-output", "pass"),
        ("hf-3", "transform-constraints", "pass"),
        ("hf-4", "edge-constraints", "pass"),
        ("hf-4", "empty-output", "pass"),
        ("hf-5", "edge-constraints", "pass"),
        ("hf-5", "empty-output", "pass"),
        ("hf-6", "edge-constraints", "pass"),
        ("hf-6", "edge-constraints", "pass"),
        ("hf-6", "empty-output", "pass"),
        ("hf-6", "verifier-broken", "pass"),
    ]


def test_results_are_written_passes_included(demo_copy):
    """The checks table holds every result, one per parent of a fan-in, so a check that ran cannot be mistaken for one that did not."""
    store = open_store(demo_copy.store)
    results = run_checks(connect(store), run_id=demo_copy.incident)
    write_results(store, results)
    stored = (
        'SELECT handoff_id, parent_handoff_id, "check", severity, status, lost FROM checks '
        """WHERE "check" NOT IN ('empty-output', 'verifier-broken') ORDER BY handoff_id, parent_handoff_id NULLS LAST"""
    )
    expected = [
        ("hf-2", "hf-1", "edge-constraints", "HIGH", "pass", []),
        ("hf-3", "hf-2", "edge-constraints", "HIGH", "pass", []),
        ("hf-3", None, "transform-constraints", "HIGH", "fail", list(INCIDENT_LOSS)),
        ("hf-4", "hf-3", "edge-constraints", "HIGH", "pass", []),
        ("hf-5", "hf-4", "edge-constraints", "HIGH", "pass", []),
        # The verifier reads two upstream outputs: both edge results are kept, not deduplicated into one.
        ("hf-6", "hf-3", "edge-constraints", "HIGH", "pass", []),
        ("hf-6", "hf-4", "edge-constraints", "HIGH", "pass", []),
    ]
    assert [tuple(row.values()) for row in query(connect(store), stored)] == expected
    compact(store, tables=("checks",), min_files=1, grace_s=0)
    assert [tuple(row.values()) for row in query(connect(store), stored)] == expected


def test_a_user_check_runs_beside_the_built_in_ones(demo):
    """A registered callable over an edge gets a result per edge, with its name and severity."""

    def stays_small(edge):
        return Outcome(edge["child_input_bytes"] < 2000, detail=f"{edge['child_input_bytes']} bytes")

    register_check("input-under-2kb", "LOW", stays_small, on="edge")
    try:
        results = run_checks(connect(demo.store), run_id=demo.incident)
    finally:
        unregister_check("input-under-2kb")
    mine = [(r.handoff_id, r.severity, r.status, r.detail) for r in results if r.check == "input-under-2kb"]
    assert mine == [
        ("hf-2", "LOW", "pass", "202 bytes"),
        ("hf-3", "LOW", "fail", "8637 bytes"),
        ("hf-4", "LOW", "pass", "1659 bytes"),
        ("hf-5", "LOW", "pass", "158 bytes"),
        ("hf-6", "LOW", "pass", "1807 bytes"),  # the verifier's input, once per parent edge
        ("hf-6", "LOW", "pass", "1807 bytes"),
    ]


def test_a_handoff_check_returning_none_records_nothing(demo):
    """A check that does not apply to a handoff leaves no result for it."""
    register_check(
        "price-model", "MED", lambda h: h["model"] == "price-l" if h["to_step"] == "price" else None, on="handoff"
    )
    try:
        results = run_checks(connect(demo.store), run_id=demo.incident)
    finally:
        unregister_check("price-model")
    assert [(r.handoff_id, r.status) for r in results if r.check == "price-model"] == [("hf-4", "pass")]


def test_a_bad_severity_is_refused_at_registration():
    """Severities are HIGH, MED or LOW; anything else fails at once."""
    with pytest.raises(ValueError, match="bad severity 'CRITICAL'"):
        register_check("x", "CRITICAL", lambda edge: True)


def test_checks_over_a_window_cover_every_run_in_it(population):
    """``since`` checks every run in the window; the planted fault in the last day fails, the rest pass."""
    results = run_checks(connect(population.root), since=timedelta(hours=24), now=population.now)
    failed = sorted({r.run_id for r in results if r.status == "fail"})
    assert failed == sorted(population.planted[-2:])
    assert len({r.run_id for r in results}) == len({r.run_id for r in results if r.check == "transform-constraints"})


def test_a_check_says_which_token_version_it_compared(demo, population):
    """Rows written by version 2 compare by meaning silently; version 1 rows (no terms) still check, and say so."""
    current = [r for r in run_checks(connect(demo.store), run_id=demo.incident) if r.status == "fail"]
    assert [r.detail.startswith("lost 3, changed 0 of ") and "version" not in r.detail for r in current] == [True]
    old = [r for r in run_checks(connect(population.root), run_id=population.planted[-1]) if r.status == "fail"]
    assert [(r.check, r.lost) for r in old] == [("transform-constraints", INCIDENT_LOSS)]
    assert old[0].detail.endswith("(constraints version 1 tokens: phrases compared by identical token)")


def test_a_check_on_rows_of_an_older_version_names_it():
    """Rows whose terms another version hashed are checked, and the detail says which versions were compared."""
    from handoff.analysis.constraints import stored_tokens
    from handoff.queries.checks import _constraint_outcome

    up = stored_tokens("Do not restart the primary before 06:00 UTC.")
    down = stored_tokens("Restarting the primary is not allowed.")
    as_v2 = [t.replace("terms:v3 ", "terms:", 1) for t in up]
    outcome = _constraint_outcome(as_v2, down)
    assert outcome.detail.endswith("(constraints version 2 and 3 tokens: phrases compared by identical token)")
    assert "version" not in _constraint_outcome(up, down).detail
