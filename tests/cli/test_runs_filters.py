"""`handoff runs list` filters (the same library call the viewer's run list makes), events in `runs show`, per-day health."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import handoff
from handoff.cli import main


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    """The demo store (INV-88214, INV-88190 with the same loss, three clean invoices), checked once."""
    from handoff.demo import run_demo

    path = str(tmp_path_factory.mktemp("filters") / "store")
    handoff.configure(scrub=False)
    runs = run_demo(path)
    handoff.shutdown()
    assert CliRunner().invoke(main, ["check", "--since", "1h", "--store", path]).exit_code == 0
    return path, runs


def listed(*args: str) -> list[str]:
    result = CliRunner().invoke(main, ["runs", "list", "--json", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return [row["run_id"] for row in json.loads(result.output)]


def test_attr_filter_finds_the_invoice(demo_store):
    """`--attr invoice=INV-88214` lists exactly that invoice's run."""
    store, runs = demo_store
    assert listed("--attr", "invoice=INV-88214", "--store", store) == [runs["INV-88214"]]
    assert listed("--attr", "invoice=INV-88214", "--attr", "customer=Contoso Retail", "--store", store) == []
    assert listed("--attr", "customer=Contoso Retail", "--store", store) == [runs["INV-88209"]]


def test_search_matches_attribute_values_and_run_ids_ignoring_case(demo_store):
    """`--search` finds runs by part of an attribute value or of the run id."""
    store, runs = demo_store
    assert listed("--search", "inv-8821", "--store", store) == [runs["INV-88214"], runs["INV-88216"], runs["INV-88211"]]
    assert listed("--search", runs["INV-88190"][-8:].lower(), "--store", store) == [runs["INV-88190"]]


def test_failing_check_and_step_filters(demo_store):
    """`--failing-check` lists the runs whose stored check failed; `--step` the runs through a step."""
    store, runs = demo_store
    hit = [runs["INV-88214"], runs["INV-88190"]]
    assert listed("--failing-check", "transform-constraints", "--store", store) == hit
    # INV-88216's verifier errored and was recorded broken: verifier-broken failed there.
    assert listed("--failing-check", "verifier-broken", "--store", store) == [runs["INV-88216"]]
    assert listed("--failing-check", "*", "--store", store) == [*hit, runs["INV-88216"]]
    assert listed("--failing-check", "edge-constraints", "--store", store) == []
    assert len(listed("--step", "orchestrator.compress_v3", "--store", store)) == 5
    assert listed("--step", "no-such-step", "--store", store) == []
    text = CliRunner().invoke(main, ["runs", "list", "--step", "pricer", "--store", store]).output
    assert text == (
        "no runs matching the filters (no step 'pricer'; steps: extract, intake, orchestrator.compress_v3, "
        "price, validate, verify, write)\n"
    )


def test_bad_attr_filter_is_one_line_error(demo_store):
    """An --attr without '=' prints one line saying how to write it."""
    store, _runs = demo_store
    result = CliRunner().invoke(main, ["runs", "list", "--attr", "invoice", "--store", store])
    assert result.exit_code == 1
    assert result.output == "Error: bad attribute filter 'invoice': use KEY=VALUE, e.g. invoice=INV-88214\n"


def test_runs_show_lists_a_runs_events(tmp_path):
    """A fallback recorded inside a step appears under the run's table and in its JSON."""
    store = str(tmp_path / "store")
    handoff.configure(store=store, scrub=False)

    @handoff.step(to="retrieve")
    def retrieve(query: str) -> str:
        handoff.fallback("rag-conv-empty", error=LookupError("no passages"))
        return "default answer"

    with handoff.run("support") as run:
        retrieve("where is my order")
    handoff.shutdown()
    text = CliRunner().invoke(main, ["runs", "show", run.run_id, "--store", store]).output
    assert text.splitlines()[-1] == "event hf-1: fallback rag-conv-empty: LookupError no passages"
    doc = json.loads(CliRunner().invoke(main, ["runs", "show", run.run_id, "--store", store, "--json"]).output)
    assert [(e["handoff_id"], e["kind"], e["name"]) for e in doc["events"]] == [("hf-1", "fallback", "rag-conv-empty")]


def test_health_per_day_gives_the_degraded_share_per_step(demo_store):
    """`health --per-day` says, per day, that the compressor was degraded on 2 of the 5 runs."""
    store, _runs = demo_store
    result = CliRunner().invoke(main, ["health", "--per-day", "--json", "--store", store])
    rows = {row["step"]: (row["runs"], row["degraded_runs"], row["degraded_rate"]) for row in json.loads(result.output)}
    assert rows == {
        "extract": (5, 0, 0.0),
        "orchestrator.compress_v3": (5, 2, 0.4),
        "price": (5, 0, 0.0),
        "validate": (5, 0, 0.0),
        "verify": (5, 1, 0.2),
        "write": (5, 0, 0.0),
    }
