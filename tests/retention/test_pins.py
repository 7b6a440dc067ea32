"""Pins: a pinned run keeps its content past its tier until it is unpinned."""

from __future__ import annotations

from datetime import timedelta

import pytest

from handoff.errors import RunNotFound
from handoff.queries.content import fetch_content
from handoff.queries.db import connect
from handoff.retention.job import apply
from handoff.retention.pins import pin, pin_history, pinned_runs, unpin
from tests.retention._data import NOW, keys, rows, tiers_of, write_run, write_runs


def test_a_pinned_run_keeps_its_content_and_its_neighbours_lose_theirs(store):
    """Pinning the incident run keeps its content readable after 30 days; runs of the same day drop theirs."""
    incident, other = write_run(store, 40, big=True), write_run(store, 40)
    pin(store, incident, reason="INV-88214 incident", by="oncall", now=NOW)
    report = apply(store, now=NOW)
    assert (report.days[0].held_by_pins, dict(report.days[0].rows)) == (3, {"digest": 3})
    assert tiers_of(store) == {incident: ["full"] * 3, other: ["digest"] * 3}
    con = connect(store)
    assert fetch_content(store, con, incident, "hf-3", "out") == b"total $171,312.00"
    assert fetch_content(store, con, incident, "hf-2", "in").startswith(b"clause 7.2 freight surcharge")
    content = rows(store, "SELECT DISTINCT run_id FROM content")
    assert content == [{"run_id": incident}]
    assert apply(store, now=NOW).days == []


def test_unpinning_lets_the_next_apply_drop_the_content(store):
    """After `unpin`, the next apply (even an incremental one) moves the run to the digest tier."""
    incident = write_run(store, 40)
    pin(store, incident, reason="INV-88214 incident", by="oncall", now=NOW)
    apply(store, now=NOW)
    unpin(store, incident, reason="INV-88214 closed", by="oncall", now=NOW + timedelta(hours=1))
    report = apply(store, now=NOW + timedelta(hours=2))
    assert (report.scan, tiers_of(store)) == ("incremental", {incident: ["digest"] * 3})
    day = (NOW - timedelta(days=40)).date().isoformat()
    assert keys(store, f"content/dt={day}/") == []


def test_a_pinned_run_outlives_the_last_tier(store):
    """A run pinned for a legal hold is kept whole past 365 days, every table included."""
    held, gone = write_run(store, 400), write_run(store, 400)
    pin(store, held, reason="legal hold 2026-17", by="legal", now=NOW)
    apply(store, now=NOW)
    assert tiers_of(store) == {held: ["full"] * 3}
    assert [r["run_id"] for r in rows(store, "SELECT run_id FROM runs")] == [held]
    assert gone not in tiers_of(store)


def test_pins_are_append_only_annotations_with_who_and_why(store):
    """Pin and unpin each add an annotation; the history keeps both, with author and reason."""
    run = write_run(store, 3)
    pin(store, run, reason="INV-88214 incident", by="ana", now=NOW)
    unpin(store, run, reason="closed", by="raj", now=NOW + timedelta(days=1))
    history = [(p.kind, p.reason, p.by, p.ts) for p in pin_history(store)]
    assert history == [("pin", "INV-88214 incident", "ana", NOW), ("unpin", "closed", "raj", NOW + timedelta(days=1))]
    assert pinned_runs(store) == {}
    assert rows(store, "SELECT kind, text, author FROM annotations ORDER BY ts") == [
        {"kind": "pin", "text": "INV-88214 incident", "author": "ana"},
        {"kind": "unpin", "text": "closed", "author": "raj"},
    ]


def test_pinning_an_unknown_run_or_without_a_reason_fails(local_store):
    """A typo in the run id or a missing reason is refused before anything is written."""
    write_run(local_store, 3)
    with pytest.raises(RunNotFound, match="run run_nope not found"):
        pin(local_store, "run_nope", reason="x")
    with pytest.raises(ValueError, match="a pin needs a reason"):
        pin(local_store, "run_nope", reason=" ")
    assert keys(local_store, "annotations/") == []


def test_pinned_content_sharing_a_file_with_expired_content_is_moved_out(store):
    """When a pinned run shares a content file with expiring runs, the file is rewritten with the pinned rows only."""
    incident, other = write_runs(store, 40, 2)
    pin(store, incident, reason="INV-88214 incident", by="oncall", now=NOW)
    day = (NOW - timedelta(days=40)).date().isoformat()
    [before] = keys(store, f"content/dt={day}/")
    report = apply(store, now=NOW)
    [after] = keys(store, f"content/dt={day}/")
    assert after != before and after.split("/")[-1].startswith("retention-")
    assert rows(store, "SELECT DISTINCT run_id FROM content") == [{"run_id": incident}]
    ref = rows(store, "SELECT input_ref FROM handoffs WHERE run_id = ? AND handoff_id = 'hf-3'", [incident])[0][
        "input_ref"
    ]
    assert ref == f"{after}#{incident}/hf-3/in"
    assert (
        fetch_content(store, connect(store), incident, "hf-3", "in")
        == b"freight surcharge: 9.1% (clause 7.2); rebate 9.5%"
    )
    assert report.days[0].to_dict()["objects_written"] == 2
    assert apply(store, now=NOW, full_scan=True).days == []
    assert tiers_of(store) == {incident: ["full"] * 3, other: ["digest"] * 3}
