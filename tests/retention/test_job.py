"""The retention job on a local directory and on S3: tiers, overrides, idempotence, cost, reports."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

import pytest

from handoff.errors import ContentGone
from handoff.queries.content import fetch_content
from handoff.queries.db import connect
from handoff.retention.job import apply, plan
from handoff.retention.policy import parse_policy
from tests.retention._data import BRIEF, NOW, VALIDATOR_REPORT, keys, rows, tiers_of, write_run


def test_content_is_gone_after_30_days_and_digest_rows_are_kept(store):
    """After apply, a 40-day-old run keeps digests, tokens, timings and constraints but no content, anywhere."""
    old, new = write_run(store, 40), write_run(store, 5)
    report = apply(store, now=NOW)
    assert report.status == "done"
    assert tiers_of(store) == {old: ["digest"] * 3, new: ["full"] * 3}
    day = (NOW - timedelta(days=40)).date().isoformat()
    assert keys(store, f"content/dt={day}/") == []
    row = rows(store, "SELECT * FROM handoffs WHERE run_id = ? AND handoff_id = 'hf-2'", [old])[0]
    assert (row["input_ref"], row["output_ref"], row["attributes"], row["config"], row["error_message"]) == (
        None,
        None,
        {},
        None,
        None,
    )
    assert row["input_sha256"] == hashlib.sha256(VALIDATOR_REPORT.encode()).hexdigest()
    assert (row["input_tokens"], row["duration_ms"], row["output_bytes"]) == (25, 25.0, len(BRIEF))
    assert "clause:7.2(b)" in row["input_constraints"]
    with pytest.raises(ContentGone, match="dropped by retention"):
        fetch_content(store, connect(store), old, "hf-2", "in")
    assert (
        fetch_content(store, connect(store), new, "hf-2", "out") == b"freight surcharge: 9.1% (clause 7.2); rebate 9.5%"
    )


def test_nothing_younger_than_30_days_changes(store):
    """A run 29 days old is untouched: same objects, full tier."""
    run = write_run(store, 29)
    before = keys(store, "")
    report = apply(store, now=NOW)
    assert (report.days, tiers_of(store)) == ([], {run: ["full"] * 3})
    assert [key for key in keys(store, "") if not key.startswith("_retention/")] == before


def test_apply_is_idempotent(store):
    """Running apply twice at the same time changes nothing the second time and leaves one copy of each row."""
    write_run(store, 40)
    write_run(store, 40, big=True)
    first = apply(store, now=NOW)
    objects = [key for key in keys(store, "") if not key.startswith("_retention/")]
    second = apply(store, now=NOW)
    assert (len(first.days), second.days, second.scan) == (1, [], "incremental")
    assert [key for key in keys(store, "") if not key.startswith("_retention/")] == objects
    assert rows(store, "SELECT count(*) AS n FROM raw_handoffs")[0]["n"] == 6
    assert apply(store, now=NOW, full_scan=True).days == []


def test_large_payload_blobs_are_dropped_with_the_content(store):
    """Payloads stored as blobs go when their handoff reaches the digest tier."""
    write_run(store, 40, big=True)
    day = (NOW - timedelta(days=40)).date().isoformat()
    assert len(keys(store, f"blobs/dt={day}/")) == 2
    apply(store, now=NOW)
    assert keys(store, f"blobs/dt={day}/") == []


def test_days_past_the_last_tier_are_deleted_from_every_table(store):
    """At 365 days a run is gone: handoffs, content, runs rows; younger days stay."""
    old, young = write_run(store, 400), write_run(store, 100)
    day = (NOW - timedelta(days=400)).date().isoformat()
    report = apply(store, now=NOW)
    assert report.totals() == {
        "digest": {"rows": 3, "days": 1},
        "gone": {"rows": 3, "days": 1},
        "runs:gone": {"rows": 1, "days": 1},
    }
    assert [key for key in keys(store, "") if f"dt={day}" in key] == []
    assert tiers_of(store) == {young: ["digest"] * 3}
    assert [r["run_id"] for r in rows(store, "SELECT run_id FROM runs")] == [young]
    assert old not in tiers_of(store)


def test_overrides_keep_errored_runs_content_for_90_days(store):
    """With the override, an errored run keeps its content at 40 days and loses it at 91."""
    policy = parse_policy(
        '[[tier]]\nname = "full"\nmax_age = "30d"\n[[tier]]\nname = "digest"\nmax_age = "365d"\n'
        'keeps = ["digests", "timings", "tokens", "constraints"]\n'
        '[[override]]\nrun_status = "error"\ntier = "full"\nmax_age = "90d"\n'
    )
    errored, ok = write_run(store, 40, status="error"), write_run(store, 40)
    apply(store, policy, now=NOW)
    assert tiers_of(store) == {errored: ["full"] * 3, ok: ["digest"] * 3}
    assert fetch_content(store, connect(store), errored, "hf-3", "out") == b"total $171,312.00"
    later = apply(store, policy, now=NOW + timedelta(days=51))
    assert (later.scan, tiers_of(store)) == ("incremental", {errored: ["digest"] * 3, ok: ["digest"] * 3})
    day = (NOW - timedelta(days=40)).date().isoformat()
    assert keys(store, f"content/dt={day}/") == []


def test_plan_changes_nothing_and_predicts_apply(store):
    """`plan` writes nothing and reports the same rows, objects and bytes that `apply` then changes."""
    write_run(store, 40)
    write_run(store, 400)
    before = keys(store, "")
    predicted = plan(store, now=NOW).to_dict()
    assert keys(store, "") == before
    done = apply(store, now=NOW).to_dict()
    for name in ("tiers", "objects_deleted", "bytes_deleted", "objects_written", "bytes_written", "days"):
        assert predicted[name] == done[name], name


def test_the_report_is_stored_under_retention(store):
    """Each apply leaves a JSON report under `_retention/reports/` with what it changed."""
    write_run(store, 40)
    report = apply(store, now=NOW)
    stored = json.loads(store.get(report.report_key))
    assert report.report_key.startswith("_retention/reports/")
    assert (stored["status"], stored["tiers"], stored["now"]) == (
        "done",
        {"digest": {"rows": 3, "days": 1}},
        NOW.isoformat(),
    )


def test_later_runs_list_only_the_days_that_crossed_a_boundary(store):
    """After the first run, apply looks only at the days that crossed a boundary (30 and 365 days) since the last one."""
    for days_ago in range(0, 60):
        write_run(store, days_ago)
    first = apply(store, now=NOW)
    assert (first.scan, len(first.days)) == ("full", 29)
    second = apply(store, now=NOW + timedelta(days=1))
    assert (second.scan, second.days_listed, [work.age_days for work in second.days]) == ("incremental", 2, [30])
    assert apply(store, now=NOW + timedelta(days=1)).days_listed == 0
