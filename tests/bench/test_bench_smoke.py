"""Smoke tests for ``python -m bench``: the suite runs end to end on tiny sizes and keeps its contract."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from bench.corpus import SYSTEM_PROMPT, agent_prompts
from bench.results import figure, not_measured, render_markdown
from bench.suite import Task, run_task

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIGURE_KEYS = {
    "id",
    "section",
    "name",
    "value",
    "unit",
    "baseline",
    "baseline_name",
    "ratio",
    "target",
    "met",
    "note",
    "details",
}
OWN_TASKS = [
    "hot_path_10kb",
    "hot_path_paused",
    "hot_path_down",
    "ingest_off",
    "queries",
    "storage",
    "peer",
    "peer_throughput",
    "app_slowdown_process",
    "bursts",
    "constraint_extraction",
]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess, pathlib.Path]:
    """Run the suite's own sections once on tiny sizes into a scratch directory."""
    out = tmp_path_factory.mktemp("bench-out")
    only = [arg for task in OWN_TASKS for arg in ("--only", task)]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            "--quick",
            "--sizes",
            "tiny",
            "--out",
            str(out),
            "--work",
            str(out / "work"),
            *only,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done, out


@pytest.mark.slow
def test_quick_run_writes_results_with_the_contract_shape(tiny_run) -> None:
    """A user running ``python -m bench --quick`` gets results.json with figures, versions, machine and date."""
    done, out = tiny_run
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads((out / "results.json").read_text())
    assert {"figures", "versions", "machine", "date", "mode", "sizes"} <= set(doc)
    assert doc["mode"] == "tiny"
    assert doc["versions"]["handoff-trace"] != "not installed"
    assert doc["machine"]["cores"] >= 1
    for entry in doc["figures"]:
        assert set(entry) == FIGURE_KEYS, entry["id"]
        assert isinstance(entry["met"], bool), entry["id"]


@pytest.mark.slow
def test_quick_run_measures_every_own_figure(tiny_run) -> None:
    """Every section this suite owns produces its figures, measured, on a tiny run."""
    _done, out = tiny_run
    figures = {entry["id"]: entry for entry in json.loads((out / "results.json").read_text())["figures"]}
    expected = {
        "hot_path.median_10kb",
        "hot_path.median_10kb_writer_paused",
        "hot_path.p99_10kb_store_down",
        "ingest.scrub_off_per_s",
        "queries.runs_show_query_ms",
        "queries.runs_show_cli_s",
        "storage.digest_bytes_per_handoff",
        "storage.content_fraction",
        "peer.per_call_10kb",
        "peer.throughput",
        "slowdown.process_300_per_s",
        "writer.process_scrub_on_per_s",
        "writer.process_scrub_off_per_s",
        "bursts.200x1kb_local-up_rss_mb",
        "bursts.200x1kb_local-down_rss_mb",
        "constraints.unique_mb_s",
        "constraints.repeated_mb_s",
    }
    assert expected <= set(figures)
    unmeasured = {fid: figures[fid]["note"] for fid in expected if figures[fid]["value"] is None}
    assert unmeasured == {}


@pytest.mark.slow
def test_results_md_is_rendered_from_results_json(tiny_run) -> None:
    """RESULTS.md is exactly the rendering of results.json, so no figure is ever typed by hand."""
    _done, out = tiny_run
    doc = json.loads((out / "results.json").read_text())
    assert (out / "RESULTS.md").read_text() == render_markdown(doc)


def test_ratio_target_is_met_at_the_limit_and_missed_above_it() -> None:
    """A figure's ratio is value over baseline, and ``met`` compares it with the target's limit."""
    at_limit = figure("x", "s", "x", 13.0, "µs", baseline=10.0, target=("ratio", "<=", 1.3))
    above = figure("y", "s", "y", 13.1, "µs", baseline=10.0, target=("ratio", "<=", 1.3))
    assert (at_limit["ratio"], at_limit["met"], at_limit["target"]) == (1.3, True, "ratio <= 1.3")
    assert (above["ratio"], above["met"]) == (1.31, False)


def test_figure_without_a_target_is_never_reported_as_met() -> None:
    """An informational figure has no target, and ``met`` stays False so it is never counted as a met target."""
    entry = figure("x", "s", "x", 5.0, "ms")
    assert (entry["target"], entry["met"], entry["ratio"]) == (None, False, None)


def test_missing_module_becomes_a_not_measured_figure() -> None:
    """A section whose module does not exist yet is reported as not measured, saying why, instead of failing the run."""
    task = Task(
        "nothing", "9. Nothing", "no_such_module", expects=[("nothing.x", "9. Nothing", "x", "s", ("value", "<", 1.0))]
    )
    [entry] = run_task(task, "tiny", "/tmp")
    assert entry["value"] is None
    assert entry["met"] is False
    assert entry["note"] == "not measured: bench/no_such_module.py does not exist yet"


def test_raising_section_becomes_a_not_measured_figure() -> None:
    """A section that raises is reported as not measured with the exception, and the suite carries on."""
    task = Task(
        "broken", "9. Broken", "results", function="not_measured", expects=[("broken.x", "9. Broken", "x", "s", None)]
    )
    [entry] = run_task(task, "tiny", "/tmp")
    assert entry["id"] == "broken.x"
    assert entry["note"].startswith("not measured: raised TypeError: not_measured() missing")


def test_not_measured_figure_keeps_its_target() -> None:
    """A figure that could not be measured still shows the target it is held to, marked not met."""
    entry = not_measured("q", "3", "lookup", "ms", "no store", ("value", "<=", 30))
    assert (entry["value"], entry["target"], entry["met"], entry["note"]) == (
        None,
        "value <= 30",
        False,
        "not measured: no store",
    )


def test_corpus_is_deterministic_and_repeats_its_templates() -> None:
    """The realistic corpus is the same bytes on every machine, and every prompt carries the shared system prompt."""
    first, second = agent_prompts(4), agent_prompts(4)
    assert first == second
    assert [len(p) for p in first] == [10_240] * 4
    assert all(p.startswith(SYSTEM_PROMPT) for p in first)
    assert len(set(first)) == 4


def test_a_partial_run_replaces_its_figures_and_keeps_the_rest_marked_as_earlier() -> None:
    """``python -m bench --only X`` re-measures X without wiping the other figures, which say which run measured them."""
    from bench.results import merge_results

    earlier = {
        "schema_version": 1,
        "date": "2026-12-01T00:00:00Z",
        "mode": "full",
        "machine": {"commit": "abc1234"},
        "figures": [figure("a", "1", "a", 1.0, "ms"), figure("b", "1", "b", 2.0, "ms")],
    }
    partial = {**earlier, "date": "2026-12-07T00:00:00Z", "machine": {"commit": "def5678"}, "mode": "quick"}
    partial["figures"] = [figure("b", "1", "b", 3.0, "ms"), figure("c", "2", "c", 4.0, "ms")]
    merged = merge_results(earlier, partial)
    assert [(f["id"], f["value"]) for f in merged["figures"]] == [("a", 1.0), ("b", 3.0), ("c", 4.0)]
    assert merged["kept_from"] == {"a": {"date": "2026-12-01T00:00:00Z", "commit": "abc1234", "mode": "full"}}
    again = merge_results(merged, {**partial, "figures": [figure("c", "2", "c", 5.0, "ms")]})
    assert again["kept_from"]["a"]["commit"] == "abc1234"
    assert again["kept_from"]["b"] == {"date": "2026-12-07T00:00:00Z", "commit": "def5678", "mode": "quick"}
    page = render_markdown(
        {
            **again,
            "duration_s": 1.0,
            "versions": {},
            "sizes": {},
            "machine": {
                "cpu": "x",
                "cores": 2,
                "memory_gb": 1,
                "os": "l",
                "implementation": "CPython",
                "python": "3",
                "commit": "g",
            },
        }
    )
    assert "(from an earlier run: 2026-12-01T00:00:00Z, commit abc1234, full mode)" in page
    assert "the other 2 are kept from earlier runs" in page
