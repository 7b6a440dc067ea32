"""Every command explains itself with an example and is in the README."""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from handoff.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        path = prefix + (name,)
        yield path, command
        if isinstance(command, click.Group):
            yield from all_commands(command, path)


def test_every_command_help_ends_with_an_example():
    """`handoff <command> --help` works for every command and ends with an example invocation."""
    commands = list(all_commands(main))
    assert len(commands) >= 4
    for path, _command in commands:
        result = CliRunner().invoke(main, [*path, "--help"])
        assert result.exit_code == 0, path
        text = result.output
        example = text[text.index("Example:") :] if "Example:" in text else ""
        assert "handoff " in example, f"`handoff {' '.join(path)} --help` has no example"


def test_every_command_is_in_the_readme():
    """The README's CLI reference mentions every command by its full name."""
    readme = README.read_text(encoding="utf-8")
    missing = [" ".join(path) for path, _ in all_commands(main) if f"handoff {' '.join(path)}" not in readme]
    assert missing == []
