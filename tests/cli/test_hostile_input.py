"""The command-line inputs issue 13 found answering with a traceback, a wrong exit code or mangled text.

Each failed before its fix: `--since 99999999d` (every command with `--since`) raised
OverflowError; a `[/…]` in a run attribute or step name crashed `runs list`, `runs show` and
`health` (cells were read as rich markup, and `[red]` silently vanished); `fsck`, `compact` and
`status` on a store that does not exist printed "clean" and exited 0; long cells wrapped run ids.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import handoff
from handoff.cli import main

SINCE_COMMANDS = [("runs", "list"), ("alerts",), ("check",), ("health",), ("fsck",)]


def _invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def markup_store(tmp_path_factory):
    """A store whose run name, attributes and step names look like rich markup, plus a very long attribute."""
    root = tmp_path_factory.mktemp("markup") / "store"
    handoff.configure(store=str(root), scrub=False)

    @handoff.step(to="price[/x] [red]loud[/red]")
    def price(prompt: str) -> str:
        return "total 171312.00"

    with handoff.run("invoice[/bold]", note="[/…] [red]x[/red]", blob="y" * 400) as run:
        price("surcharge 9.1% (clause 7.2)")
    handoff.flush(timeout_s=30)
    handoff.shutdown()
    return str(root), run.run_id


@pytest.mark.parametrize("command", SINCE_COMMANDS, ids=" ".join)
def test_a_since_beyond_a_century_is_one_error_line(markup_store, command):
    """`--since 99999999d` is refused with one Error line and exit 1 by every command that takes it."""
    store, _ = markup_store
    result = _invoke(*command, "--since", "99999999d", "--store", store)
    assert (result.exit_code, result.output) == (1, "Error: bad duration '99999999d': longer than 36525 days\n")


def test_runs_list_prints_markup_looking_text_as_text(markup_store):
    """`runs list` prints a run name and attributes holding `[/…]` and `[red]` exactly as recorded."""
    store, run_id = markup_store
    result = _invoke("runs", "list", "--store", store)
    assert result.exit_code == 0
    assert "invoice[/bold]" in result.output and "[/…] [red]x[/red]" in " ".join(result.output.split())


def test_runs_show_and_health_print_markup_looking_step_names_as_text(markup_store):
    """`runs show` and `health` print a step name like `price[/x] [red]loud[/red]` literally and exit 0."""
    store, run_id = markup_store
    shown, health = _invoke("runs", "show", run_id, "--store", store), _invoke("health", "--store", store)
    assert (shown.exit_code, "invoice[/bold] → price[/x] [red]loud[/red]" in shown.output) == (0, True)
    assert (health.exit_code, "price[/x] [red]loud[/red]" in health.output) == (0, True)


def test_run_ids_never_wrap_in_a_table(markup_store):
    """Beside a 400-character attribute, the run id stays whole on one line of `runs list`."""
    store, run_id = markup_store
    lines = _invoke("runs", "list", "--store", store).output.splitlines()
    assert [line.split()[0] for line in lines[1:2]] == [run_id]
    assert sum(run_id in line for line in lines) == 1


@pytest.mark.parametrize(
    "command", [("fsck",), ("compact",), ("status",), ("runs", "list"), ("retention", "plan")], ids=" ".join
)
def test_a_store_that_does_not_exist_is_an_error(tmp_path, command):
    """Commands on a store directory that does not exist exit 1 naming it, instead of reporting a clean store."""
    missing = tmp_path / "no-such-store"
    result = _invoke(*command, "--store", str(missing))
    expected = f"Error: no store at {missing} (run `handoff demo`, or set --store / HANDOFF_STORE)\n"
    assert (result.exit_code, result.output, missing.exists()) == (1, expected, False)


def test_json_output_keeps_markup_looking_text(markup_store):
    """`runs show --json` carries the recorded step name byte for byte."""
    store, run_id = markup_store
    result = _invoke("runs", "show", run_id, "--store", store, "--json")
    assert [h["to"] for h in json.loads(result.output)["handoffs"]] == ["price[/x] [red]loud[/red]"]
