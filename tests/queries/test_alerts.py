"""Compression alerts: transform steps and edges that handed on much less than they received."""

from __future__ import annotations

from datetime import timedelta

import pytest

from handoff.queries import connect
from handoff.queries.alerts import find_alerts, parse_step_ratio

INCIDENT_LOSS = ("clause:7.2(b)", "qualifier:base is the rebated subtotal", "qualifier:per 7.2(b)")


def test_the_incident_compressor_is_the_only_alert_in_its_run(demo):
    """The compressor's 0.18 output/input ratio alerts, with the constraints it lost; the pricer's edge does not."""
    alerts = [a for a in find_alerts(connect(demo.store)) if a.run_id == demo.incident]
    assert [(a.handoff_id, a.parent_handoff_id, a.check, a.severity, round(a.ratio, 2), a.lost) for a in alerts] == [
        ("hf-3", None, "compression-transform", "HIGH", 0.18, INCIDENT_LOSS)
    ]


def test_agent_steps_are_not_alerted_on(demo):
    """The extractor shrinks a 17 KB invoice to 115 bytes, as an agent should, and no alert fires."""
    alerts = find_alerts(connect(demo.store), max_ratio=1.0, min_bytes=0)
    assert {a.to_step for a in alerts if a.check == "compression-transform"} == {"orchestrator.compress_v3"}
    assert "extract" not in {a.to_step for a in alerts}


def test_a_per_step_threshold_overrides_the_default(demo):
    """A step allowed to compress to 10% raises no alert at 18%."""
    con = connect(demo.store)
    assert find_alerts(con, step_ratios={"orchestrator.compress_v3": 0.1}) == []


def test_an_edge_that_shrinks_alerts_with_its_parent(tmp_path):
    """An edge whose child input is a fraction of the parent output alerts, naming the parent and the loss."""
    from datetime import datetime, timezone

    from handoff.store import open_store
    from handoff.store.tables import to_table, write_table

    ts = datetime.now(timezone.utc) - timedelta(hours=1)
    common = {"run_id": "run_x", "ts": ts, "status": "ok", "tier": "digest", "kind": "agent"}
    rows = [
        {
            **common,
            "handoff_id": "hf-1",
            "seq": 1,
            "from_step": "intake",
            "to_step": "research",
            "input_bytes": 900,
            "output_bytes": 8000,
            "output_constraints": ["percent:9.1", "date:2026-03-11"],
        },
        {
            **common,
            "handoff_id": "hf-2",
            "seq": 2,
            "from_step": "research",
            "to_step": "write",
            "parent_handoff_id": "hf-1",
            "input_bytes": 1000,
            "output_bytes": 900,
            "input_constraints": ["percent:9.1"],
        },
    ]
    store = open_store(str(tmp_path / "store"))
    write_table(store, "handoffs", ts.strftime("%Y-%m-%d"), "t", 0, to_table("handoffs", rows))
    alerts = find_alerts(connect(store))
    assert [(a.run_id, a.handoff_id, a.parent_handoff_id, a.check, a.severity, a.ratio, a.lost) for a in alerts] == [
        ("run_x", "hf-2", "hf-1", "compression-edge", "HIGH", 0.125, ("date:2026-03-11",))
    ]
    assert find_alerts(connect(store), step_ratios={"write": 0.1}) == []


def test_small_inputs_are_ignored(demo):
    """``min_bytes`` keeps tiny payloads out of the alerts."""
    assert find_alerts(connect(demo.store), min_bytes=10_000) == []


def test_bad_thresholds_are_refused():
    """A ratio outside (0, 1] or a malformed STEP=RATIO is an error a user can read."""
    with pytest.raises(ValueError, match="bad ratio 1.5"):
        find_alerts(None, max_ratio=1.5)
    with pytest.raises(ValueError, match="bad --step-ratio 'compress'"):
        parse_step_ratio("compress")
    assert parse_step_ratio("orchestrator.compress_v3=0.1") == ("orchestrator.compress_v3", 0.1)
