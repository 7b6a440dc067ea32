"""Diffs: a handoff side against another, and two runs edge by edge, with content or on digests alone."""

from __future__ import annotations

import pytest

from handoff.queries import connect
from handoff.queries.diff import SideRef, diff_handoffs, diff_runs, json_diff, parse_side, word_diff
from handoff.store import open_store

DROPPED = "The surcharge base is the rebated subtotal per 7.2(b), so the rebate must be applied first"


def test_word_diff_marks_deleted_and_inserted_words():
    """A word-level diff keeps unchanged words and marks what was removed and added."""
    assert word_diff("surcharge 9.1% on the rebated subtotal", "surcharge 9.1% on the subtotal") == [
        ("equal", "surcharge 9.1% on the "),
        ("delete", "rebated "),
        ("equal", "subtotal"),
    ]
    assert word_diff("a b", "a c") == [("equal", "a "), ("delete", "b"), ("insert", "c")]


def test_json_payloads_get_a_structural_diff():
    """Two JSON documents are compared by structure, naming the changed path with old and new values."""
    changes = json_diff(
        {"surcharge_base": "172000.00", "total": "171312.00"}, {"surcharge_base": "155660.00", "total": "171312.00"}
    )
    assert changes == {
        "values_changed": {"root['surcharge_base']": {"new_value": "155660.00", "old_value": "172000.00"}}
    }


def test_sides_parse_with_defaults():
    """``hf-3`` takes the default side; ``hf-3:in`` and ``hf-3:output`` name one; anything else is refused."""
    assert parse_side("hf-3", "out") == SideRef("hf-3", "out")
    assert parse_side("hf-3:in", "out") == SideRef("hf-3", "in")
    assert parse_side("hf-3:output", "in") == SideRef("hf-3", "out")
    with pytest.raises(ValueError, match="bad handoff side 'hf-3:both'"):
        parse_side("hf-3:both", "in")


def test_validator_output_against_pricer_input_shows_the_dropped_sentence(demo):
    """Diffing what the validator wrote with what the pricer received shows the lost qualifier."""
    store = open_store(demo.store)
    result = diff_handoffs(store, connect(store), demo.incident, SideRef("hf-2", "out"), SideRef("hf-4", "in"))
    assert result.format == "text" and not result.identical
    deleted = " ".join(text for tag, text in result.ops if tag == "delete")
    assert DROPPED in " ".join(deleted.split())
    assert [(item["class"], item["text"]) for item in result.lost] == [
        ("qualifier", "base is the rebated subtotal"),
        ("qualifier", "per 7.2(b)"),
        ("clause", "7.2(b)"),
    ]
    assert result.gained == []


def test_an_unchanged_edge_is_identical_by_digest(demo):
    """The validator's output reached the compressor byte for byte."""
    store = open_store(demo.store)
    result = diff_handoffs(store, connect(store), demo.incident, SideRef("hf-2", "out"), SideRef("hf-3", "in"))
    assert result.identical
    assert [tag for tag, _text in result.ops] == ["equal"]
    assert (result.lost, result.gained) == ([], [])


def test_with_content_gone_the_constraint_delta_comes_from_tokens(population):
    """On the digest tier a diff still answers from digests and stored tokens."""
    store = open_store(population.root)
    result = diff_handoffs(store, connect(store), population.planted[0], SideRef("hf-3", "in"), SideRef("hf-3", "out"))
    assert result.format == "digest"
    assert not result.identical
    assert [item["token"] for item in result.lost] == [
        "clause:7.2(b)",
        "qualifier:base is the rebated subtotal",
        "qualifier:per 7.2(b)",
    ]


def test_two_runs_compare_edge_by_edge_on_digests(population):
    """``diff_runs`` says which handoffs changed between two runs, without any content (digest tier)."""
    old_fault, new_fault = population.planted[0], population.planted[-1]
    rows = diff_runs(connect(population.root), old_fault, new_fault)
    assert [(r.from_step, r.to_step, r.a_handoff_id, r.b_handoff_id, r.input, r.output, r.status) for r in rows] == [
        ("intake", "extract", "hf-1", "hf-1", "changed", "changed", "changed"),
        ("extract", "validate", "hf-2", "hf-2", "changed", "changed", "changed"),
        ("validate", "orchestrator.compress_v3", "hf-3", "hf-3", "changed", "changed", "changed"),
        ("orchestrator.compress_v3", "price", "hf-4", "hf-4", "changed", "same", "changed"),
        ("price", "write", "hf-5", "hf-5", "same", "changed", "changed"),
    ]


def test_runs_with_different_steps_show_what_only_one_has(population):
    """A step that exists in one run only is listed as such."""
    rows = diff_runs(connect(population.root), population.planted[0], population.variants["v2"][0])
    assert [(r.to_step, r.status) for r in rows if r.status.startswith("only")] == [
        ("orchestrator.compress_v3", "only in A"),
        ("price", "only in A"),
        ("orchestrator.compress_v2", "only in B"),
        ("price", "only in B"),
    ]
