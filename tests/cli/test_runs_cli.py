"""The on-call commands: runs list, runs show, show, demo — output and one-line errors."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import handoff
from handoff.cli import main


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    """A store holding the demo: INV-88214, one more affected invoice and three clean ones."""
    from handoff.demo import run_demo

    path = tmp_path_factory.mktemp("demo") / "store"
    handoff.configure(scrub=False)
    runs = run_demo(str(path))
    handoff.shutdown()
    return str(path), runs


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_demo_reference_run_shows_the_compressor_edge_at_ratio_018(demo_store):
    """In the demo's INV-88214 run the compressor (a transform) has an output/input ratio near 0.18."""
    store, runs = demo_store
    result = invoke("runs", "show", runs["INV-88214"], "--store", store, "--json")
    assert result.exit_code == 0
    run = json.loads(result.output)
    assert run["attributes"] == {"customer": "Northwind Freight", "invoice": "INV-88214"}
    edges = [(h["handoff_id"], h["from"], h["to"], h["parent_handoff_id"], h["kind"]) for h in run["handoffs"]]
    assert edges == [
        ("hf-1", "intake", "extract", None, "agent"),
        ("hf-2", "extract", "validate", "hf-1", "agent"),
        ("hf-3", "validate", "orchestrator.compress_v3", "hf-2", "transform"),
        ("hf-4", "orchestrator.compress_v3", "price", "hf-3", "agent"),
        ("hf-5", "price", "write", "hf-4", "tool"),
        ("hf-6", "price", "verify", "hf-4", "verifier"),
    ]
    compressor = run["handoffs"][2]
    assert compressor["output_bytes"] / compressor["input_bytes"] == pytest.approx(0.18, abs=0.02)
    assert "from_step" not in compressor and "to_step" not in compressor


def test_demo_pricer_overcharges_because_the_qualifier_was_lost(demo_store):
    """The stored pricer output is the reference incident's wrong total, and the brief lacks the qualifier."""
    store, runs = demo_store
    run_id = runs["INV-88214"]
    brief = invoke("show", run_id, "hf-3", "--output", "--store", store).output
    report = invoke("show", run_id, "hf-3", "--input", "--store", store).output
    pricing = json.loads(invoke("show", run_id, "hf-4", "--output", "--store", store).output)
    assert "surcharge base is the rebated subtotal per 7.2(b)" in report.replace("The surcharge", "surcharge")
    assert "7.2(b)" not in brief and "freight surcharge: 9.1% (clause 7.2)" in brief
    assert (pricing["surcharge_base"], pricing["surcharge"], pricing["total"]) == ("172000.00", "15652.00", "171312.00")


def test_runs_show_table_has_one_line_per_handoff(demo_store):
    """runs show prints the header and one line per handoff with ids, edge, parent, attempt, status and ratio."""
    store, runs = demo_store
    out = invoke("runs", "show", runs["INV-88214"], "--store", store).output
    lines = out.splitlines()
    assert lines[0].startswith(f"run {runs['INV-88214']}  invoice  customer=Northwind Freight invoice=INV-88214")
    assert "status ok" in lines[1] and "handoffs 6" in lines[1]
    row = next(line for line in lines if line.startswith("hf-3 "))
    assert "validate → orchestrator.compress_v3" in row and " hf-2 " in row and " 0.18 " in row


def test_runs_show_markdown_is_a_ticket_document(demo_store):
    """--markdown prints a heading and a Markdown table to paste into an incident ticket."""
    store, runs = demo_store
    out = invoke("runs", "show", runs["INV-88214"], "--store", store, "--markdown").output
    assert out.startswith(f"### Run `{runs['INV-88214']}` — invoice")
    assert "| id | from → to | parent |" in out
    assert "| hf-3 | validate → orchestrator.compress_v3 | hf-2 | 1 | ok |" in out


def test_runs_list_lists_every_demo_run(demo_store):
    """runs list shows all demo runs, newest first, and --json is machine-readable."""
    store, runs = demo_store
    listed = json.loads(invoke("runs", "list", "--store", store, "--json", "--since", "1h").output)
    assert {r["run_id"] for r in listed} == set(runs.values())
    assert listed[0]["run_id"] == runs["INV-88214"]
    assert all(r["status"] == "ok" and r["handoffs"] == 6 for r in listed)
    assert json.loads(invoke("runs", "list", "--store", store, "--json", "--status", "error").output) == []


def test_unknown_run_id_is_one_line_error(demo_store):
    """An unknown run id prints one line naming it and exits 1, without a traceback."""
    store, _ = demo_store
    result = invoke("runs", "show", "run_01JXXXXXXXXXXXXXXXXXXXXXXX", "--store", store)
    assert result.exit_code == 1
    assert result.output == "Error: run run_01JXXXXXXXXXXXXXXXXXXXXXXX not found in the store\n"


def test_unknown_handoff_id_is_one_line_error(demo_store):
    """show with a handoff id the run does not have names both ids and exits 1."""
    store, runs = demo_store
    result = invoke("show", runs["INV-88214"], "hf-99", "--store", store)
    assert (result.exit_code, result.output) == (1, f"Error: handoff hf-99 not found in run {runs['INV-88214']}\n")


def test_missing_store_is_one_line_error(tmp_path):
    """Pointing at a store that does not exist says so in one line and exits 1."""
    result = invoke("runs", "list", "--store", str(tmp_path / "nowhere"))
    assert result.exit_code == 1
    assert result.output.startswith("Error: no store at ") and result.output.count("\n") == 1


def test_empty_store_lists_no_runs(tmp_path):
    """An empty store is not an error for runs list: it says there are no runs."""
    (tmp_path / "empty").mkdir()
    result = invoke("runs", "list", "--store", str(tmp_path / "empty"))
    assert (result.exit_code, result.output) == (0, "no runs\n")


def test_a_corrupt_digest_file_is_skipped_and_named_by_fsck(tmp_path):
    """With its one digest file corrupt, `runs show` still answers from the run row (0 handoffs); fsck names the file."""
    from handoff.demo import REFERENCE, run_invoice

    path = tmp_path / "store"
    handoff.configure(store=str(path), scrub=False)
    run_id = run_invoice(REFERENCE)
    handoff.shutdown()
    (digest_file,) = list(path.glob("handoffs/dt=*/*.parquet"))
    digest_file.write_bytes(b"PAR1 this is not parquet at all")
    result = invoke("runs", "show", run_id, "--store", str(path))
    assert (result.exit_code, "handoffs 0" in result.output, "Traceback" in result.output) == (0, True, False)
    checked = invoke("fsck", "--store", str(path))
    assert checked.exit_code == 1 and f"corrupt-file: file://{digest_file}: " in checked.output


def test_bad_duration_is_one_line_error(demo_store):
    """A malformed --since value is rejected with the accepted forms."""
    store, _ = demo_store
    result = invoke("runs", "list", "--since", "yesterday", "--store", store)
    assert (result.exit_code, result.output) == (
        1,
        "Error: bad duration 'yesterday': use a number and a unit, e.g. 90s, 15m, 24h, 7d\n",
    )


def test_demo_command_prints_run_id_and_table(tmp_path, monkeypatch):
    """handoff demo records into the given store and prints INV-88214's run id and table."""
    monkeypatch.setenv("HANDOFF_SCRUB", "0")
    from handoff.config import reset_settings

    reset_settings()
    store = str(tmp_path / "demo")
    result = invoke("demo", "--store", store)
    handoff.shutdown()
    assert result.exit_code == 0
    first = result.output.splitlines()[0]
    assert first.startswith("recorded 5 runs; INV-88214 is run_")
    run_id = first.rsplit(" ", 1)[1]
    assert f"run {run_id}  invoice" in result.output
    assert "hf-3  validate → orchestrator.compress_v3" in result.output


def test_show_accepts_a_handoff_ref(demo_store):
    """handoff show takes a handoff://run/handoff/side ref (a span's run and handoff ids) and prints that side."""
    store, runs = demo_store
    run_id = runs["INV-88214"]
    by_ref = invoke("show", f"handoff://{run_id}/hf-3/out", "--store", store)
    by_ids = invoke("show", run_id, "hf-3", "--output", "--store", store)
    assert by_ref.exit_code == 0
    assert by_ref.output == by_ids.output
    assert by_ref.output.startswith("BRIEF\ninvoice: INV-88214\n")
