"""Every command under arbitrary arguments: no traceback, a documented exit code, read commands change nothing.

Hypothesis draws a value for each of a command's arguments and options (and whether to pass
each flag); the command runs against a small real store. Exit codes are the documented ones:
0 done, 1 `Error: …` (exactly one line on stderr), 2 a usage error (click) or, for `check
--strict` and a held retention lock, their documented meaning, 3 a partial retention run.
Issue 13 found tracebacks from `--since 99999999d`, `sql ""`, `tier = 5` and `[/…]` in names.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handoff.cli import main
from handoff.store import LocalObjectStore
from tests.retention._data import write_run

#: Commands the fuzz leaves out: `demo` records a new store by design; `ui` serves until stopped.
SKIPPED = {("demo",), ("ui",)}
#: Commands that change the store (the others must leave it byte for byte as it was).
WRITERS = {("compact",), ("retention", "apply"), ("pin",), ("unpin",)}
#: Options whose value is fuzzed only behind a prefix: a bare value could import a real module.
PREFIXED = {"plugins": "zz_fuzz_"}
#: Options never fuzzed: the store under test is always the one given.
FIXED = {"store_url"}

#: What a shell can pass as one argument: any text but NUL (and no lone surrogates).
ARG_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30)
#: Values near the inputs that broke before, mixed with arbitrary text.
HOSTILE = st.sampled_from(
    [
        "",
        " ",
        "0",
        "-1",
        "99999999d",
        "9999999999d",
        "1e400",
        "nan",
        "[/x]",
        "[red]",
        "9999-12-31T23:59:59Z",
        "0001-01-01T00:00:00-01:00",
        "hf-1",
        "run_x",
        "'",
        "1=1) UNION ALL SELECT 1 WHERE (1=1",
        "--json",
        "file:///etc/passwd",
    ]
)
VALUES = st.one_of(ARG_TEXT, HOSTILE)


def _commands(group: click.Group = main, path: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))
        elif (*path, name) not in SKIPPED:
            yield (*path, name), command


COMMANDS = dict(_commands())


def _snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@st.composite
def _invocation(draw, command: click.Command) -> list[str]:
    args: list[str] = []
    for param in command.params:
        if param.name in FIXED:
            continue
        if isinstance(param, click.Argument):
            count = draw(st.integers(0, 3)) if param.nargs == -1 else draw(st.sampled_from([0, 1, 1, 1]))
            args += [draw(VALUES) for _ in range(count)]
        elif isinstance(param, click.Option) and draw(st.booleans()):
            flag = param.opts[0]
            if param.is_flag:
                args.append(flag)
            else:
                args += [flag, PREFIXED.get(param.name, "") + draw(VALUES)]
    return args


@pytest.fixture(scope="module")
def fuzz_store(tmp_path_factory) -> Path:
    """A local store with two runs: one today, one 40 days old (so retention has work)."""
    root = tmp_path_factory.mktemp("fuzz") / "store"
    store = LocalObjectStore(root)
    write_run(store, 0)
    write_run(store, 40)
    return root


def _check(result, path: tuple[str, ...]) -> None:
    assert result.exception is None or isinstance(result.exception, SystemExit), (path, repr(result.exception))
    assert "Traceback" not in result.output
    assert result.exit_code in (0, 1, 2, 3), (path, result.exit_code, result.output)
    if result.exit_code == 1:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), (path, result.stderr)


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_arbitrary_arguments_never_crash_a_command(path, fuzz_store, tmp_path, monkeypatch):
    """Whatever arguments a command is given, it answers with a documented exit code and never a traceback."""
    monkeypatch.chdir(tmp_path)  # relative paths among the arguments land here
    command = COMMANDS[path]
    writes = path in WRITERS
    root = fuzz_store
    if writes:
        root = tmp_path / "store"
        shutil.copytree(fuzz_store, root)
    has_store = any(param.name == "store_url" for param in command.params)
    examples = 6 if path == ("scrub-test",) else 25

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(args=_invocation(command))
    def run(args: list[str]) -> None:
        before = None if writes else _snapshot(root)
        full = [*path, *args, *(["--store", str(root)] if has_store else [])]
        # Writing commands' extra effects (fsck --repair, check without --no-record) go to the copy of the store.
        if not writes and ("--repair" in args or (path == ("check",) and "--no-record" not in args)):
            full.append("--no-record") if path == ("check",) else full.remove("--repair")
        result = CliRunner().invoke(main, full)
        _check(result, path)
        if before is not None:
            assert _snapshot(root) == before, (path, args)

    run()
