"""``handoff runs list``, ``handoff runs show`` and ``handoff show``: read runs by id."""

from __future__ import annotations

import sys

import click

from handoff.cli._common import errors_as_click, open_views
from handoff.cli._options import json_option, markdown_option, store_option
from handoff.cli._render import fmt, human_bytes, human_ms, markdown_table, print_json, print_table


@click.group()
def runs() -> None:
    """List runs and read one run by its id.

    Example:

        handoff runs list --since 24h
    """


@runs.command("list")
@click.option("--since", default=None, metavar="DURATION", help="Only runs started this recently (e.g. 24h, 7d).")
@click.option("--status", default=None, help="Only runs with this status (ok, error, running).")
@click.option(
    "--attr", "attrs", multiple=True, metavar="KEY=VALUE", help="Only runs with this attribute value (repeatable)."
)
@click.option("--search", default=None, metavar="TEXT", help="Only runs whose id or an attribute value contains TEXT.")
@click.option("--step", default=None, metavar="STEP", help="Only runs with a handoff from or to this step.")
@click.option(
    "--failing-check", default=None, metavar="CHECK", help="Only runs where this stored check failed ('*': any)."
)
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1), help="At most this many runs.")
@store_option
@json_option
def list_command(
    since: str | None,
    status: str | None,
    attrs: tuple[str, ...],
    search: str | None,
    step: str | None,
    failing_check: str | None,
    limit: int,
    store_url: str | None,
    as_json: bool,
) -> None:
    """List recent runs, newest first; filters combine.

    Example:

        handoff runs list --since 24h --attr invoice=INV-88214 --status error --limit 20
    """
    from handoff.durations import parse_duration
    from handoff.queries.runs import list_runs, parse_attr_filter

    with errors_as_click():
        window = parse_duration(since) if since else None
        wanted = dict(parse_attr_filter(text) for text in attrs)
        _store, con = open_views(store_url)
        rows = list_runs(
            con,
            since=window,
            status=status,
            attrs=wanted,
            search=search,
            step=step,
            failing_check=failing_check,
            limit=limit,
        )
    if as_json:
        print_json(rows)
        return
    if not rows:
        filtered = " matching the filters" if attrs or search or step or failing_check else ""
        click.echo(
            "no runs" + (f" in the last {since}" if since else "") + filtered + _known_names(con, step, failing_check)
        )
        return
    print_table(
        ["run", "name", "started", "duration", "status", "handoffs", "errors", "fallbacks", "attributes"],
        [
            [
                r["run_id"],
                r["name"],
                r["start_ts"],
                human_ms(r["duration_ms"]),
                r["status"],
                r["handoffs"],
                r["errors"],
                r["fallbacks"],
                " ".join(f"{k}={v}" for k, v in sorted(r["attributes"].items())),
            ]
            for r in rows
        ],
    )


def _known_names(con, step: str | None, failing_check: str | None) -> str:
    """A hint naming the steps (or checks with stored results) that exist, when the filter named another."""
    from handoff.queries.runs import check_names, step_names

    with errors_as_click():
        if step and step not in (steps := step_names(con)):
            return f" (no step {step!r}; steps: {', '.join(steps) or 'none'})"
        if failing_check and failing_check != "*" and failing_check not in (checks := check_names(con)):
            return f" (no stored results of {failing_check!r}; checks with results: {', '.join(checks) or 'none'})"
    return ""


def _ratio(row: dict) -> str:
    return "-" if row.get("ratio") is None else f"{row['ratio']:.2f}"


def _tokens(row: dict) -> str:
    mark = "~" if row.get("tokens_estimated") else ""
    return f"{mark}{fmt(row.get('input_tokens'))}→{mark}{fmt(row.get('output_tokens'))}"


def _short(digest: str | None) -> str:
    return digest[:8] if digest else "-"


_SHOW_COLUMNS = [
    "id",
    "from → to",
    "parent",
    "att",
    "status",
    "in",
    "out",
    "tokens in→out",
    "out/in",
    "duration",
    "sha in",
    "sha out",
]


def _show_rows(run: dict) -> list[list[str]]:
    return [
        [
            h["handoff_id"],
            f"{h['from_step'] or '-'} → {h['to_step']}",
            h["parent_handoff_id"] or "-",
            str(h["attempt"]),
            h["status"],
            human_bytes(h["input_bytes"]),
            human_bytes(h["output_bytes"]),
            _tokens(h),
            _ratio(h),
            human_ms(h["duration_ms"]),
            _short(h["input_sha256"]),
            _short(h["output_sha256"]),
        ]
        for h in run["handoffs"]
    ]


def _header_line(run: dict) -> str:
    attrs = " ".join(f"{k}={v}" for k, v in sorted(run["attributes"].items()))
    return (
        f"run {run['run_id']}  {run['name']}  {attrs}\n"
        f"started {fmt(run['start_ts'])} UTC  duration {human_ms(run['duration_ms'])}  status {run['status']}  "
        f"handoffs {len(run['handoffs'])}"
    )


def _event_line(event: dict) -> str:
    where = event["handoff_id"] or "run"
    message = f" {event['error_type'] or ''} {event['error_message'] or ''}".rstrip()
    return f"{where}: {event['kind']} {event['name']}{':' if message else ''}{message}"


def render_run(run: dict) -> None:
    """Print a run's header, its handoff table and its events (what ``runs show`` prints)."""
    click.echo(_header_line(run))
    print_table(_SHOW_COLUMNS, _show_rows(run))
    for event in run.get("events", ()):
        click.echo("event " + _event_line(event))


def run_markdown(run: dict) -> str:
    """Return a run as a Markdown document to paste into an incident ticket."""
    attrs = ", ".join(f"`{k}={v}`" for k, v in sorted(run["attributes"].items())) or "-"
    lines = [
        f"### Run `{run['run_id']}` — {run['name']}",
        "",
        f"- attributes: {attrs}",
        f"- started: {fmt(run['start_ts'])} UTC, duration {human_ms(run['duration_ms'])}, status **{run['status']}**",
        f"- handoffs: {len(run['handoffs'])}",
        "",
        markdown_table(_SHOW_COLUMNS, _show_rows(run)),
        "",
    ]
    errors = [h for h in run["handoffs"] if h["status"] != "ok"]
    for h in errors:
        lines.append(
            f"- `{h['handoff_id']}` {h['status']}: {h['error_type'] or ''} {h['error_message'] or ''}".rstrip()
        )
    for event in run.get("events", ()):
        lines.append(f"- event {_event_line(event)}")
    return "\n".join(lines)


@runs.command("show")
@click.argument("run_id")
@store_option
@json_option
@markdown_option
def show_run_command(run_id: str, store_url: str | None, as_json: bool, as_markdown: bool) -> None:
    """Show one run: its header, then one line per handoff in order.

    Columns: handoff id, producer → consumer, parent, attempt, status, input and output
    size, tokens (~ marks estimates), output/input ratio, duration and short digests.

    Example:

        handoff runs show run_01JD8X2K7M4Q9V3T6B1N5C8R2P --markdown > ticket.md
    """
    from handoff.queries.runs import get_run, public_record, run_events

    with errors_as_click():
        _store, con = open_views(store_url)
        run = get_run(con, run_id)
        run["events"] = run_events(con, run_id, run)
    if as_json:
        print_json(
            {
                **{k: v for k, v in run.items() if k != "handoffs"},
                "handoffs": [public_record(h) for h in run["handoffs"]],
            }
        )
    elif as_markdown:
        click.echo(run_markdown(run))
    else:
        render_run(run)


def _parse_span_ref(ref: str) -> tuple[str, str, str | None]:
    """Split ``handoff://<run_id>/<handoff_id>[/<in|out>]`` into its parts."""
    parts = ref[len("handoff://") :].strip("/").split("/")
    if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] not in ("in", "out")):
        raise click.ClickException(f"bad ref {ref!r}: expected handoff://<run_id>/<handoff_id>/<in|out>")
    return parts[0], parts[1], parts[2] if len(parts) == 3 else None


@click.command("show")
@click.argument("run_id")
@click.argument("handoff_id", required=False)
@click.option("--input", "side", flag_value="in", help="Print only the input the consumer received.")
@click.option("--output", "side", flag_value="out", help="Print only the output it returned.")
@store_option
def show_content_command(run_id: str, handoff_id: str | None, side: str | None, store_url: str | None) -> None:
    """Print the stored (scrubbed) content of one handoff: input and output, or one of them.

    RUN_ID may also be a ref ``handoff://<run_id>/<handoff_id>/<in|out>`` (a span's
    ``handoff.run_id`` and ``handoff.id``), e.g. ``handoff://run_…/hf-3/in``, with no HANDOFF_ID.

    Example:

        handoff show run_01JD8X2K7M4Q9V3T6B1N5C8R2P hf-3 --input
    """
    from handoff.queries.content import fetch_content

    if run_id.startswith("handoff://"):
        run_id, handoff_id, ref_side = _parse_span_ref(run_id)
        side = side or ref_side
    if handoff_id is None:
        raise click.UsageError("missing HANDOFF_ID (or give a handoff://run/handoff/side ref)")
    with errors_as_click():
        store, con = open_views(store_url)
        if side is not None:
            data = fetch_content(store, con, run_id, handoff_id, side)
            sys.stdout.buffer.write(data)
            if not data.endswith(b"\n"):
                sys.stdout.buffer.write(b"\n")
            sys.stdout.flush()
            return
        parts = [
            (name, _content_or_reason(store, con, run_id, handoff_id, key))
            for name, key in (("input", "in"), ("output", "out"))
        ]
    for name, data in parts:
        if isinstance(data, str):
            click.echo(f"── {handoff_id} {name}: {data} ──")
            continue
        click.echo(f"── {handoff_id} {name} ({len(data)} bytes) ──")
        click.echo(data.decode("utf-8", errors="replace"))


def _content_or_reason(store, con, run_id: str, handoff_id: str, side: str) -> bytes | str:
    """Return one side's content, or why it is not available (the other side may still be)."""
    from handoff.errors import ContentGone
    from handoff.queries.content import fetch_content

    try:
        return fetch_content(store, con, run_id, handoff_id, side)
    except ContentGone as exc:
        return str(exc)
