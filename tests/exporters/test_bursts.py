"""A burst larger than the writer's memory bound loses nothing while the disk has room, and memory stays bounded."""

from __future__ import annotations

import logging

import pytest

import handoff
from bench.bursts import run_burst
from handoff.capture.recorder import writer_status
from handoff.diagnostics import forget_warnings


@pytest.mark.parametrize("scenario", ["local-up", "local-down"])
def test_a_burst_of_2000_records_of_200_kb_loses_nothing(scenario):
    """2,000 x 200 KB as fast as the app can: every record is written or spooled, none dropped, RSS grows <= 300 MB."""
    result = run_burst(2000, 204_800, scenario, "process")
    kept = result["written"] + result["spooled"]
    assert (result["enqueued"], kept, result["dropped"], result["flushed"]) == (2005, 2005, 0, True)
    assert result["spilled"] > 0
    assert result["rss_growth_mb"] <= 300


def test_a_full_spill_quota_still_counts_its_drops(tmp_path, spool_dir, monkeypatch, caplog):
    """With a spill quota smaller than a record, what overflows memory is dropped, counted, shown and logged once."""
    monkeypatch.delenv("HANDOFF_WRITER")
    forget_warnings()
    blocker = tmp_path / "file"
    blocker.write_text("")
    handoff.configure(
        store=str(blocker / "store"), scrub=False, max_queue_bytes=30_000, spool_max_bytes=5_000, flush_interval_s=30
    )
    with caplog.at_level(logging.WARNING, logger="handoff"), handoff.run("quota"):
        for n in range(40):
            with handoff.record("price", from_="compress") as h:
                h.input(f"{n} " + "x" * 9000)
    assert handoff.flush(120) is False
    counters = writer_status()["counters"]
    assert counters["dropped"] > 0
    assert (counters["spooled"] + counters["written"] + counters["dropped"], counters["spilled"]) == (42, 0)
    spill_warnings = [r.getMessage().rsplit(": ", 1)[-1] for r in caplog.records if "cannot spill" in r.getMessage()]
    assert spill_warnings == ["the raw spill is full (spool_max_bytes)"]
