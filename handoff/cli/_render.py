"""Output for people (rich tables on a terminal), scripts (``--json``) and tickets (``--markdown``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import Any

import click

from handoff.units import human_bytes, human_ms  # noqa: F401 - re-exported for the commands


def _jsonable(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, (set, tuple)):
        return list(value)
    return str(value)


def print_json(value: Any) -> None:
    """Print ``value`` as indented JSON (datetimes as ISO 8601)."""
    click.echo(json.dumps(value, indent=2, default=_jsonable, sort_keys=False))


def fmt(value: Any) -> str:
    """Format one cell for a table."""
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt(item) for item in value) or "-"
    return str(value)


def markdown_table(columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """Return a GitHub-flavoured Markdown table."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(fmt(cell).replace("|", "\\|") for cell in row) + " |")
    return "\n".join(lines)


#: Columns holding ids a reader copies whole: never wrapped (other columns fold to make room).
ID_COLUMNS = frozenset({"run", "run_id", "run id", "id", "handoff", "handoff_id", "parent"})


def print_table(columns: Sequence[str], rows: Iterable[Sequence[Any]], title: str | None = None) -> None:
    """Print a table: rich on a terminal, plain aligned text when piped.

    Cells are plain text, never rich markup: a recorded ``[red]`` or ``[/x]`` prints as itself.
    Id columns keep each id on one line.
    """
    rows = [[fmt(cell) for cell in row] for row in rows]
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    tty = sys.stdout.isatty()
    console = Console(soft_wrap=False, width=None if tty else 200, markup=False, highlight=False, emoji=False)
    table = Table(
        title=Text(title) if title else None, box=box.SIMPLE_HEAD if tty else None, header_style="bold", pad_edge=False
    )
    for index, column in enumerate(columns):
        if column in ID_COLUMNS:
            widest = max((len(row[index]) for row in rows if index < len(row)), default=len(column))
            table.add_column(Text(column), no_wrap=True, overflow="ignore", min_width=max(widest, len(column)))
        else:
            table.add_column(Text(column), overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    console.print(table)
