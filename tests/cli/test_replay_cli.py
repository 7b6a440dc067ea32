"""handoff replay on the reference incident: the counts an on-call engineer quotes, and one-line errors."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import handoff
from handoff.cli import main
from tests.replays import steps

LOST_TEXTS = ["7.2(b)", "base is the rebated subtotal", "per 7.2(b)"]


def _run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_replaying_the_compressor_keeps_the_qualifier_in_a_minority(demo_copy):
    """Twenty replays of the INV-88214 compressor keep the lost 7.2(b) qualifier in 6 of 20, reproducibly."""
    result = _run("replay", demo_copy.incident, "hf-3", "--times", "20", "--json", "--store", demo_copy.store)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {key: report[key] for key in ("run_id", "handoff_id", "step", "replays", "distinct_outputs")} == {
        "run_id": demo_copy.incident,
        "handoff_id": "hf-3",
        "step": "orchestrator.compress_v3",
        "replays": 20,
        "distinct_outputs": 2,
    }
    assert (report["original_reproduced"], report["errors"], report["pseudonyms"]) == (14, {}, 0)
    assert report["constraints"] == [
        {"token": "clause:7.2(b)", "class": "clause", "text": "7.2(b)", "kept": 6},
        {
            "token": "qualifier:base is the rebated subtotal",
            "class": "qualifier",
            "text": "base is the rebated subtotal",
            "kept": 6,
        },
        {"token": "qualifier:per 7.2(b)", "class": "qualifier", "text": "per 7.2(b)", "kept": 6},
    ]
    shown = _run("runs", "show", report["replay_run_id"], "--store", demo_copy.store)
    assert shown.exit_code == 0
    assert f"replay_of={demo_copy.incident}/hf-3" in shown.output
    assert shown.output.count("validate → orchestrator.compress_v3") == 20


def test_the_fixed_compressor_keeps_it_in_every_replay(demo_copy):
    """--target handoff.demo:compress_v4 keeps the qualifier in 20 of 20: the fix, shown on the stored input."""
    result = _run(
        "replay", demo_copy.incident, "hf-3", "--target", "handoff.demo:compress_v4", "--concurrency", "4",
        "--store", demo_copy.store,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == (
        f"replayed {demo_copy.incident} hf-3 (→ orchestrator.compress_v3) 20 times with handoff.demo:compress_v4"
    )
    assert lines[3] == "outputs: 20 returned, 1 distinct, 0 equal to the original output (by digest)"
    rows = [line.split() for line in lines if "kept in" in line]
    assert [" ".join(row[-5:]) for row in rows] == ["kept in 20 of 20"] * 3


def test_the_markdown_report_is_a_table_for_the_ticket(demo_copy):
    """--markdown gives the summary as a list and the lost constraints as a table."""
    result = _run("replay", demo_copy.incident, "hf-3", "--times", "20", "--markdown", "--store", demo_copy.store)
    assert result.exit_code == 0, result.output
    table = result.stdout.split("\n\n", 1)[1].splitlines()
    assert table == [
        "| lost constraint | class | kept |",
        "|---|---|---|",
        "| `7.2(b)` | clause | kept in 6 of 20 |",
        "| `base is the rebated subtotal` | qualifier | kept in 6 of 20 |",
        "| `per 7.2(b)` | qualifier | kept in 6 of 20 |",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("hf-9",), "Error: handoff hf-9 not found in run {run}\n"),
        (
            ("hf-3", "--target", "no_such_module:compress"),
            "Error: cannot import no_such_module for no_such_module:compress: "
            "ModuleNotFoundError: No module named 'no_such_module'\n",
        ),
        (
            ("hf-3", "--target", "handoff.demo"),
            "Error: bad target 'handoff.demo': use module:function (e.g. handoff.demo:compress_v4)\n",
        ),
        (
            ("hf-5",),
            "Error: write is a tool step: replaying it repeats its side effects; "
            "pass --allow-side-effects (allow_side_effects=True) to do it anyway\n",
        ),
        (
            ("hf-3", "--model", "gpt-x"),
            "Error: --model applies to model calls recorded by the OpenAI and Anthropic adapters, "
            "not to orchestrator.compress_v3\n",
        ),
    ],
)
def test_errors_are_one_line(demo_copy, args, message):
    """An unknown handoff, a module that cannot be imported, a tool step, --model on a function: one Error: line."""
    result = CliRunner().invoke(main, ["replay", demo_copy.incident, *args, "--store", demo_copy.store])
    assert (result.exit_code, result.output) == (1, message.format(run=demo_copy.incident))


def test_a_render_step_without_replay_is_one_error_line(tmp_path):
    """A render= step that declares no replay= is refused with one Error: line."""
    store = str(tmp_path / "store")
    handoff.configure(store=store, scrub_key="test-key-replay")
    with handoff.run("t") as run:
        steps.rendered_only(steps.REPORT, 20)
    handoff.flush()
    result = CliRunner().invoke(main, ["replay", run.run_id, "hf-1", "--store", store])
    assert (result.exit_code, result.output) == (
        1,
        "Error: step rendered renders its input with render= and declares no replay= to rebuild its arguments "
        "from the stored input; add replay= to the step, or give --target module:function\n",
    )
