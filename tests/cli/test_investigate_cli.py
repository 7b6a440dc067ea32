"""The investigation commands as an on-call engineer and a script use them: exact lines and JSON contracts."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from handoff.cli import main
from handoff.cli.investigate import COMMANDS
from handoff.queries import connect
from handoff.queries.db import query

LOST = [
    {"token": "clause:7.2(b)", "class": "clause", "status": "lost", "text": "7.2(b)", "downstream_text": ""},
    {
        "token": "qualifier:base is the rebated subtotal",
        "class": "qualifier",
        "status": "lost",
        "text": "base is the rebated subtotal",
        "downstream_text": "",
    },
    {
        "token": "qualifier:per 7.2(b)",
        "class": "qualifier",
        "status": "lost",
        "text": "per 7.2(b)",
        "downstream_text": "",
    },
]


def _run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_check_json_is_one_object_per_result(demo_copy):
    """``check --json`` prints every result of the run, passes included, in the documented shape."""
    result = _run("check", demo_copy.incident, "--store", demo_copy.store, "--json")
    assert result.exit_code == 0

    def edge(child: str, parent: str) -> dict:
        return {
            "run_id": demo_copy.incident,
            "handoff_id": child,
            "parent_handoff_id": parent,
            "check": "edge-constraints",
            "severity": "HIGH",
            "status": "pass",
            "lost": [],
        }

    assert [r for r in json.loads(result.stdout) if r["check"] != "empty-output"] == [
        edge("hf-2", "hf-1"),
        edge("hf-3", "hf-2"),
        {
            "run_id": demo_copy.incident,
            "handoff_id": "hf-3",
            "parent_handoff_id": None,
            "check": "transform-constraints",
            "severity": "HIGH",
            "status": "fail",
            "lost": LOST,
        },
        edge("hf-4", "hf-3"),
        edge("hf-5", "hf-4"),
        # The verifier reads the brief (hf-3's output) and the pricing (hf-4's): two edges, both kept.
        edge("hf-6", "hf-3"),
        edge("hf-6", "hf-4"),
        {
            "run_id": demo_copy.incident,
            "handoff_id": "hf-6",
            "parent_handoff_id": None,
            "check": "verifier-broken",
            "severity": "HIGH",
            "status": "pass",
            "lost": [],
        },
    ]


def test_check_records_its_results_and_prints_a_summary(demo_copy):
    """The text output opens with the tally; the results land in the checks table."""
    result = _run("check", demo_copy.incident, "--store", demo_copy.store)
    assert result.stdout.splitlines()[0] == "14 checks on 1 run: 13 passed, 1 failed"
    stored = query(connect(demo_copy.store), "SELECT status, count(*) AS n FROM checks GROUP BY status ORDER BY status")
    assert stored == [{"status": "fail", "n": 1}, {"status": "pass", "n": 13}]


def test_check_markdown_is_a_table_for_the_ticket(demo_copy):
    """``--markdown`` prints a Markdown table with the failing compressor row."""
    lines = _run(
        "check", demo_copy.incident, "--store", demo_copy.store, "--markdown", "--no-record"
    ).stdout.splitlines()
    assert lines[1] == "| run | handoff | parent | from → to | check | severity | status | lost |"
    assert lines[8] == (
        f"| {demo_copy.incident} | hf-3 | - | validate → orchestrator.compress_v3 | transform-constraints | HIGH | "
        "fail | clause: 7.2(b); qualifier: base is the rebated subtotal; qualifier: per 7.2(b) |"
    )


def test_check_strict_exits_2_on_a_failure(demo_copy):
    """``--strict`` lets a script stop on a failing check."""
    assert _run("check", demo_copy.incident, "--store", demo_copy.store, "--strict", "--no-record").exit_code == 2
    assert (
        _run("check", demo_copy.runs["INV-88209"], "--store", demo_copy.store, "--strict", "--no-record").exit_code == 0
    )


def test_check_trips_the_breaker_once_and_posts_the_webhook(demo_copy, webhook):
    """Two affected demo runs within minutes trip a 2-run breaker: one POST, one line on stderr."""
    result = _run(
        "check", "--since", "24h", "--store", demo_copy.store, "--breaker-runs", "2", "--webhook", webhook.url
    )
    assert result.exit_code == 0
    assert [body["check"] for body in webhook.bodies] == ["transform-constraints"]
    assert sorted(webhook.bodies[0]["run_ids"]) == sorted([demo_copy.runs["INV-88190"], demo_copy.incident])
    assert result.stderr.startswith(
        "circuit breaker open: HIGH check transform-constraints failed on 2 runs within 15 minutes"
    )


def test_alerts_json_adds_the_ratio(demo):
    """``alerts --json`` has the check keys plus ``ratio``; only the incident's compressor alerts."""
    result = _run("alerts", "--store", demo.store, "--json")
    row = query(
        connect(demo.store),
        "SELECT input_bytes, output_bytes FROM handoffs WHERE run_id = ? AND handoff_id = 'hf-3'",
        [demo.incident],
    )[0]
    assert json.loads(result.stdout) == [
        {
            "run_id": demo.incident,
            "handoff_id": "hf-3",
            "parent_handoff_id": None,
            "check": "compression-transform",
            "severity": "HIGH",
            "status": "fail",
            "lost": LOST,
            "ratio": round(row["output_bytes"] / row["input_bytes"], 4),
        }
    ]
    assert json.loads(result.stdout)[0]["ratio"] == 0.1832


def test_alerts_with_a_generous_step_ratio_print_none(demo):
    """A per-step threshold silences a step that is allowed to compress hard."""
    result = _run("alerts", "--store", demo.store, "--step-ratio", "orchestrator.compress_v3=0.1")
    assert result.stdout == "no compression alerts in the last 24h\n"


def test_blast_radius_json_lists_the_planted_runs(population):
    """``blast-radius --json`` is a list of run, handoff and time, and finds exactly the 10 planted runs."""
    result = _run("blast-radius", population.planted[-1], "hf-3", "--store", population.root, "--json")
    rows = json.loads(result.stdout)
    assert [row["run_id"] for row in rows] == population.planted
    assert {tuple(row) for row in rows} == {("run_id", "handoff_id", "ts")}


def test_blast_radius_text_states_the_signature(demo):
    """The text output says what was searched for and how many runs matched."""
    lines = _run("blast-radius", demo.incident, "hf-3", "--store", demo.store).stdout.splitlines()
    assert lines[:2] == [
        "signature: validate → orchestrator.compress_v3 (step) lost clause:7.2(b), "
        "qualifier:base is the rebated subtotal, qualifier:per 7.2(b)",
        "2 runs matched in the last 365d",
    ]


def test_diff_constraints_shows_only_the_delta(demo):
    """``diff RUN hf-2 hf-4 --constraints``: what the pricer never received, as the validator wrote it."""
    lines = _run("diff", demo.incident, "hf-2", "hf-4", "--constraints", "--store", demo.store).stdout.splitlines()
    assert lines[0].startswith(f"{demo.incident}  hf-2:out (")
    assert lines[0].endswith("): differ")
    assert lines[1:] == [
        "constraints hf-2:out → hf-4:in: lost 3, gained 0",
        "  - qualifier: base is the rebated subtotal",
        "  - qualifier: per 7.2(b)",
        "  - clause: 7.2(b)",
    ]


def test_diff_text_marks_the_dropped_sentence(demo):
    """The word diff marks the dropped qualifier sentence as deleted (plain markers when piped)."""
    out = _run("diff", demo.incident, "hf-2", "hf-4", "--context", "-1", "--store", demo.store).stdout
    assert "[-\n\nNotes:-]\n[-Clause 7.2 applies because" in out
    assert "The surcharge base is the rebated subtotal per 7.2(b), so the rebate must be applied first" in out


def test_diff_runs_compares_by_digest(population):
    """``diff --runs`` prints one line per matched handoff with same/changed."""
    lines = _run(
        "diff", "--runs", population.planted[0], population.planted[-1], "--store", population.root
    ).stdout.splitlines()
    assert lines[0] == f"A = {population.planted[0]}"
    assert lines[6].split() == [
        "4",
        "orchestrator.compress_v3",
        "→",
        "price",
        "hf-4",
        "hf-4",
        "changed",
        "same",
        "changed",
    ]


def test_health_prints_the_degraded_sentence(demo_copy):
    """After a check, health names the degraded step in a sentence."""
    _run("check", "--since", "24h", "--store", demo_copy.store)
    lines = _run("health", "--store", demo_copy.store).stdout.splitlines()
    assert "the orchestrator.compress_v3 step is degraded on 40% of runs (2 of 5)" in lines


def test_sql_and_views(demo):
    """``sql`` runs over the views (edges included) and ``views`` lists them with their columns."""
    # Per run: extract→validate→compress→price, price→write, and the verifier's two parents (brief, pricing).
    assert json.loads(_run("sql", "SELECT count(*) AS n FROM edges", "--store", demo.store, "--json").stdout) == [
        {"n": 30}
    ]
    names = [line.split(":")[0] for line in _run("views", "--store", demo.store).stdout.splitlines()]
    assert names == ["handoffs", "edges", "runs", "events", "checks", "annotations", "content"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["check", "run_nope"], "Error: run run_nope not found in the store"),
        (["blast-radius", "RUN", "hf-99"], "Error: handoff hf-99 not found in run RUN"),
        (["alerts", "--since", "3x"], "Error: bad duration '3x': use a number and a unit, e.g. 90s, 15m, 24h, 7d"),
        (
            ["sql", "SELECT nope FROM handoffs"],
            'Error: Binder Error: Referenced column "nope" not found in FROM clause!',
        ),
    ],
)
def test_errors_are_one_line(demo, args, message):
    """Library errors print one ``Error:`` line and exit 1, never a traceback."""
    args = [demo.incident if a == "RUN" else a for a in args]
    message = message.replace("RUN", demo.incident)
    result = _run(*args, "--store", demo.store)
    assert (result.exit_code, result.output.strip().splitlines()) == (1, [message])


def test_every_command_has_help_ending_with_an_example():
    """Each command's help ends with an ``Example:`` an on-call engineer can copy."""
    for command in COMMANDS:
        assert "Example:" in _run(command.name, "--help").stdout, command.name
        last = command.help.rstrip().splitlines()
        assert (last[-3].strip(), last[-1].strip().split()[0]) == ("Example:", "handoff"), command.name


def test_a_second_check_does_not_repeat_an_open_breaker(demo_copy, webhook):
    """The trip is recorded, so a cron job checking again within the window sends nothing new."""
    args = ("check", "--since", "24h", "--store", demo_copy.store, "--breaker-runs", "2", "--webhook", webhook.url)
    _run(*args)
    second = _run(*args)
    assert (len(webhook.bodies), second.stderr) == (1, "")
    trips = query(connect(demo_copy.store), "SELECT kind, name FROM events WHERE kind = 'circuit_breaker'")
    assert trips == [{"kind": "circuit_breaker", "name": "transform-constraints"}]


def test_plugin_modules_register_user_checks(demo, tmp_path, monkeypatch):
    """``--plugin MODULE`` imports a module whose ``register_check`` calls add checks to the run."""
    from handoff.queries.checks import unregister_check

    (tmp_path / "team_checks.py").write_text(
        "from handoff.queries.checks import register_check\n"
        "register_check('brief-under-400-tokens', 'MED',\n"
        "               lambda e: e['child_input_tokens'] <= 400 if e['to_step'] == 'price' else None)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        result = _run("check", demo.incident, "--plugin", "team_checks", "--no-record", "--json", "--store", demo.store)
    finally:
        unregister_check("brief-under-400-tokens")
    mine = [
        (r["handoff_id"], r["severity"], r["status"])
        for r in json.loads(result.stdout)
        if r["check"] == "brief-under-400-tokens"
    ]
    assert mine == [("hf-4", "MED", "fail")]


def test_a_missing_plugin_is_one_error_line(demo):
    """A plugin that does not import is reported, not raised."""
    result = _run("check", demo.incident, "--plugin", "no_such_checks_module", "--store", demo.store)
    assert (result.exit_code, result.output.splitlines()) == (
        1,
        ["Error: cannot import check module no_such_checks_module: No module named 'no_such_checks_module'"],
    )


def test_piped_output_has_no_progress_bar(demo):
    """When stdout is not a terminal DuckDB's progress bar is off, so nothing but JSON reaches a script."""
    result = _run("sql", "SELECT current_setting('enable_progress_bar') AS bar", "--json", "--store", demo.store)
    assert json.loads(result.stdout) == [{"bar": False}]
