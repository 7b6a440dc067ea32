"""``handoff diff``: what one step produced against what the next one received, or two runs edge by edge."""

from __future__ import annotations

import sys
from typing import Any

import click

from handoff.cli._common import errors_as_click, open_views
from handoff.cli._options import json_option, markdown_option, store_option
from handoff.cli._render import markdown_table, print_json, print_table


def _open(store_url: str | None):
    """The store and its views; DuckDB's own progress bar only on a terminal (it writes to fd 1, past ``--json``)."""
    return open_views(store_url, progress_bar=sys.stdout.isatty())


def _emit(rows: list[list[Any]], columns: list[str], as_markdown: bool) -> None:
    if as_markdown:
        click.echo(markdown_table(columns, rows))
    else:
        print_table(columns, rows)


def _elide(text: str, context_words: int) -> str:
    words = text.split(" ")
    if context_words < 0 or len(words) <= 2 * context_words + 1:
        return text
    return " ".join(words[:context_words]) + " … " + " ".join(words[-context_words:]) if context_words else " … "


def _elide_change(text: str, context_words: int) -> str:
    """A long deletion or insertion keeps its start and end: 20x the context of unchanged text, at least 60 words."""
    words = text.split(" ")
    keep = max(20 * context_words, 60)
    if context_words < 0 or len(words) <= 2 * keep + 1:
        return text
    return " ".join(words[:keep]) + f" …({len(words) - 2 * keep} words)… " + " ".join(words[-keep:])


def render_ops(ops: list[tuple[str, str]], *, color: bool, context_words: int = 8) -> str:
    """A word diff as text: ``[-deleted-]`` and ``{+inserted+}`` (red and green on a terminal)."""
    parts = []
    for tag, text in ops:
        if tag == "equal":
            parts.append(_elide(text, context_words))
            continue
        text = _elide_change(text, context_words)
        if color:
            parts.append(
                click.style(text, fg="red", strikethrough=True) if tag == "delete" else click.style(text, fg="green")
            )
        else:
            parts.append(f"[-{text}-]" if tag == "delete" else f"{{+{text}+}}")
    return "".join(parts)


def _delta_lines(result) -> list[str]:
    lines = [f"constraints {result.a} → {result.b}: lost {len(result.lost)}, gained {len(result.gained)}"]
    lines += [f"  - {item['class']}: {item['text']}" for item in result.lost]
    lines += [f"  + {item['class']}: {item['text']}" for item in result.gained]
    return lines


def _header(result) -> str:
    same = "identical" if result.identical else "differ"
    return f"{result.run_id}  {result.a} ({(result.a_sha256 or '-')[:8]}) → {result.b} ({(result.b_sha256 or '-')[:8]}): {same}"


def _diff_json(result) -> dict[str, Any]:
    strip = lambda items: [{"class": i["class"], "text": i["text"]} for i in items]  # noqa: E731
    return {
        "run_id": result.run_id,
        "a": str(result.a),
        "b": str(result.b),
        "identical": result.identical,
        "format": result.format,
        "ops": [{"op": tag, "text": text} for tag, text in result.ops],
        "changes": result.changes,
        "lost": strip(result.lost),
        "gained": strip(result.gained),
    }


def _print_handoff_diff(result, constraints_only: bool, as_markdown: bool, context_words: int) -> None:
    import json

    body: list[str] = []
    if not constraints_only:
        if result.format == "json":
            body.append(
                json.dumps(result.changes, indent=2, sort_keys=True) if result.changes else "(no structural change)"
            )
        elif result.format == "text":
            body.append(
                render_ops(result.ops, color=sys.stdout.isatty() and not as_markdown, context_words=context_words)
            )
        else:
            body.append("(content gone: compared by digest and stored constraint tokens only)")
    if as_markdown:
        click.echo(f"**{_header(result)}**\n")
        if body:
            click.echo("```\n" + body[0] + "\n```\n")
        click.echo("\n".join(_delta_lines(result)))
        return
    click.echo(_header(result))
    for text in body:
        click.echo(text)
    click.echo("\n".join(_delta_lines(result)))


def _print_run_diff(run_a: str, run_b: str, rows, as_json: bool, as_markdown: bool) -> None:
    if as_json:
        print_json(
            [
                {
                    "from": r.from_step,
                    "to": r.to_step,
                    "occurrence": r.occurrence,
                    "a_handoff_id": r.a_handoff_id,
                    "b_handoff_id": r.b_handoff_id,
                    "input": r.input,
                    "output": r.output,
                    "status": r.status,
                }
                for r in rows
            ]
        )
        return
    columns = ["#", "from → to", "A", "B", "input", "output", "status"]
    table = [
        [i, f"{r.from_step or '-'} → {r.to_step}", r.a_handoff_id, r.b_handoff_id, r.input, r.output, r.status]
        for i, r in enumerate(rows, start=1)
    ]
    if not as_markdown:
        click.echo(f"A = {run_a}\nB = {run_b}")
    _emit(table, columns, as_markdown)


@click.command("diff")
@click.argument("args", nargs=-1, required=True)
@click.option(
    "--runs", "compare_runs", is_flag=True, help="Compare two runs edge by edge by digest: diff --runs RUN1 RUN2."
)
@click.option("--constraints", "constraints_only", is_flag=True, help="Show only the constraint delta.")
@click.option(
    "--context",
    "context_words",
    default=8,
    show_default=True,
    type=click.IntRange(-1),
    help="Unchanged words kept around each change (-1: all).",
)
@store_option
@json_option
@markdown_option
def diff_command(
    args: tuple[str, ...],
    compare_runs: bool,
    constraints_only: bool,
    context_words: int,
    store_url: str | None,
    as_json: bool,
    as_markdown: bool,
) -> None:
    """Diff RUN_ID A [B]: A's output against B's input (add :in / :out to choose sides).

    With only A, diff A's own input against its output. Text gets a word-level diff, JSON a
    structural diff; --constraints shows only the constraints lost and gained. With --runs,
    compare two runs handoff by handoff (matched on from → to and order) by digest, which works
    after retention has dropped the content.

    Example:

        handoff diff run_01JD8X2K7M4Q9V3T6B1N5C8R2P hf-2 hf-4 --constraints
    """
    from handoff.queries.diff import diff_handoffs, diff_runs, parse_side

    with errors_as_click():
        if compare_runs:
            if len(args) != 2:
                raise click.UsageError("diff --runs takes two run ids: handoff diff --runs RUN1 RUN2")
            _store, con = _open(store_url)
            _print_run_diff(args[0], args[1], diff_runs(con, args[0], args[1]), as_json, as_markdown)
            return
        if len(args) not in (2, 3):
            raise click.UsageError("diff takes RUN_ID A [B], e.g. handoff diff RUN hf-2 hf-4")
        run_id = args[0]
        a = parse_side(args[1], "out" if len(args) == 3 else "in")
        b = parse_side(args[2], "in") if len(args) == 3 else parse_side(f"{a.handoff_id}:out", "out")
        store, con = _open(store_url)
        result = diff_handoffs(store, con, run_id, a, b)
    if as_json:
        print_json(_diff_json(result))
    else:
        _print_handoff_diff(result, constraints_only, as_markdown, context_words)
