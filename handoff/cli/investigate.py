"""``handoff alerts``, ``check``, ``blast-radius``, ``health``, ``sql`` and ``views``: find the failing edge.

Each command opens the store's views, calls one library function in ``handoff.queries`` and
renders the result: a table on a terminal, ``--json`` for scripts (the shapes in
docs/investigating.md are a contract), ``--markdown`` for an incident ticket. ``handoff diff``
lives in :mod:`handoff.cli.diff` and is listed in :data:`COMMANDS` with these.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

import click

from handoff.cli._common import errors_as_click, open_views
from handoff.cli._options import json_option, markdown_option, since_option, store_option
from handoff.cli._render import markdown_table, print_json, print_table
from handoff.cli._silent import coverage_json, print_collapses, print_coverage
from handoff.cli.diff import diff_command

#: Scans with more rows than this show a progress bar (on a terminal only).
PROGRESS_MIN_ROWS = 5000


def _progress(label: str):
    """A wrapper for long iterables: a rich progress bar on a terminal, nothing when piped."""

    def wrap(rows: list) -> Iterable:
        if not sys.stdout.isatty() or len(rows) < PROGRESS_MIN_ROWS:
            return rows
        from rich.progress import track

        return track(rows, description=label, transient=True)

    return wrap


def _open(store_url: str | None):
    """The store and its views; DuckDB's own progress bar only on a terminal (it writes to fd 1, past ``--json``)."""
    return open_views(store_url, progress_bar=sys.stdout.isatty())


def _duration(text: str) -> timedelta:
    from handoff.durations import parse_duration

    return parse_duration(text)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _lost_cell(lost: list[dict[str, str]]) -> str:
    return (
        "; ".join(
            f"{item['class']}: {item['text']}"
            + (f" → {item['downstream_text']}" if item.get("status") == "changed" else "")
            for item in lost
        )
        or "-"
    )


def _emit(rows: list[list[Any]], columns: list[str], as_markdown: bool, title: str | None = None) -> None:
    if as_markdown:
        click.echo(markdown_table(columns, rows))
    else:
        print_table(columns, rows, title=title)


# -- alerts ----------------------------------------------------------------------------------------


@click.command("alerts")
@since_option
@click.option(
    "--max-ratio", default=0.25, show_default=True, type=float, help="Alert below this output/input size ratio."
)
@click.option(
    "--min-bytes", default=1024, show_default=True, type=click.IntRange(0), help="Ignore inputs smaller than this."
)
@click.option(
    "--step-ratio", "step_ratios", multiple=True, metavar="STEP=RATIO", help="Per-step --max-ratio (repeatable)."
)
@click.option(
    "--collapse-ratio",
    default=0.5,
    show_default=True,
    type=float,
    help="output-collapse: alert when a step's median output falls below this share of its baseline.",
)
@click.option(
    "--baseline-days", default=7.0, show_default=True, type=float, help="output-collapse: baseline length in days."
)
@click.option(
    "--min-outputs",
    default=20,
    show_default=True,
    type=click.IntRange(1),
    help="output-collapse: ignore steps with fewer outputs in the window or baseline.",
)
@store_option
@json_option
@markdown_option
def alerts_command(
    since: str,
    max_ratio: float,
    min_bytes: int,
    step_ratios: tuple[str, ...],
    collapse_ratio: float,
    baseline_days: float,
    min_outputs: int,
    store_url: str | None,
    as_json: bool,
    as_markdown: bool,
) -> None:
    """Compression alerts (transforms and edges that handed on much less than they got) and output collapse.

    An agent step's own output is naturally smaller than its input and is not alerted on.
    Each compression alert lists the constraints lost. output-collapse fires for a step whose
    outputs in the window got much shorter than over the --baseline-days before it.

    Example:

        handoff alerts --since 24h --max-ratio 0.25 --step-ratio orchestrator.compress_v3=0.1
    """
    from handoff.queries.alerts import find_alerts, parse_step_ratio
    from handoff.queries.checks import UpstreamTexts
    from handoff.queries.collapse import find_collapses

    with errors_as_click():
        ratios = dict(parse_step_ratio(text) for text in step_ratios)
        store, con = _open(store_url)
        window = _duration(since)
        alerts = find_alerts(con, since=window, max_ratio=max_ratio, min_bytes=min_bytes, step_ratios=ratios)
        details = UpstreamTexts(store, con).details_all(alerts)
        collapses = find_collapses(
            con, since=window, baseline_days=baseline_days, max_ratio=collapse_ratio, min_outputs=min_outputs
        )
    if as_json:
        print_json(
            [
                {
                    "run_id": a.run_id,
                    "handoff_id": a.handoff_id,
                    "parent_handoff_id": a.parent_handoff_id,
                    "check": a.check,
                    "severity": a.severity,
                    "status": a.status,
                    "lost": lost,
                    "ratio": round(a.ratio, 4),
                }
                for a, lost in zip(alerts, details)
            ]
            + [c.as_dict() for c in collapses]
        )
        return
    print_collapses(collapses, as_markdown)
    if not alerts:
        click.echo(f"no compression alerts in the last {since}")
        return
    columns = ["run", "handoff", "parent", "from → to", "alert", "severity", "ratio", "in → out", "lost"]
    rows = [
        [
            a.run_id,
            a.handoff_id,
            a.parent_handoff_id,
            f"{a.from_step or '-'} → {a.to_step}",
            a.check,
            a.severity,
            f"{a.ratio:.2f}",
            f"{a.input_bytes} → {a.output_bytes} B",
            _lost_cell(lost),
        ]
        for a, lost in zip(alerts, details)
    ]
    _emit(rows, columns, as_markdown)


# -- check -----------------------------------------------------------------------------------------


def _breaker(runs: int, window: str, webhook: str | None):
    from handoff.queries.health import CircuitBreaker

    return CircuitBreaker(threshold_runs=runs, window=_duration(window), webhook_url=webhook)


breaker_runs_option = click.option(
    "--breaker-runs",
    default=3,
    show_default=True,
    type=click.IntRange(1),
    help="Circuit breaker: alert once when a HIGH check fails on this many runs...",
)
breaker_window_option = click.option(
    "--breaker-window", default="15m", show_default=True, metavar="DURATION", help="...within this window."
)


def import_plugins(modules: tuple[str, ...]) -> None:
    """Import each module named by ``--plugin`` (they register checks); a missing one is an ``Error:`` line."""
    import importlib

    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise click.ClickException(f"cannot import check module {name}: {exc}") from None


@click.command("check")
@click.argument("run_id", required=False)
@since_option
@click.option(
    "--plugin", "plugins", multiple=True, metavar="MODULE", help="Import a module that registers checks (repeatable)."
)
@click.option("--no-record", is_flag=True, help="Do not write the results to the checks table.")
@click.option("--strict", is_flag=True, help="Exit with status 2 when any check fails.")
@breaker_runs_option
@breaker_window_option
@click.option(
    "--webhook",
    envvar="HANDOFF_ALERT_WEBHOOK",
    default=None,
    metavar="URL",
    help="POST circuit-breaker alerts here as JSON (env HANDOFF_ALERT_WEBHOOK).",
)
@store_option
@json_option
@markdown_option
def check_command(
    run_id: str | None,
    since: str,
    plugins: tuple[str, ...],
    no_record: bool,
    strict: bool,
    breaker_runs: int,
    breaker_window: str,
    webhook: str | None,
    store_url: str | None,
    as_json: bool,
    as_markdown: bool,
) -> None:
    """Run the named checks on one run, or on every run in --since, and record every result.

    Built in: edge-constraints (every edge, parent output → child input) and
    transform-constraints (inside every transform step, input → output), both HIGH;
    verifier-broken (HIGH: a verifier whose verdict is broken, or that raised) and empty-output
    (MED: an ok handoff that returned nothing). Passes are recorded too. Over a window, an
    output-collapse alert opens its circuit breaker at once. A HIGH check failing on --breaker-runs runs within --breaker-window raises one
    circuit-breaker alert (log, OpenTelemetry event, webhook), recorded in the events table so
    the next check does not repeat it while the breaker is open.

    Example:

        handoff check run_01JD8X2K7M4Q9V3T6B1N5C8R2P --json
    """
    from handoff.queries.health import check_and_record

    import_plugins(plugins)
    with errors_as_click():
        breaker = _breaker(breaker_runs, breaker_window, webhook)
        store, con = _open(store_url)
        done = check_and_record(
            store,
            con,
            breaker,
            run_id=run_id,
            since=None if run_id else _duration(since),
            record=not no_record,
            progress=_progress("checking"),
        )
    _print_checks(done.results, done.details, run_id, as_json, as_markdown)
    for trip in done.trips:
        click.echo(trip.message(), err=True)
    if strict and any(r.status == "fail" for r in done.results):
        sys.exit(2)


def _print_checks(results, details, run_id: str | None, as_json: bool, as_markdown: bool) -> None:
    if as_json:
        print_json(
            [
                {
                    "run_id": r.run_id,
                    "handoff_id": r.handoff_id,
                    "parent_handoff_id": r.parent_handoff_id,
                    "check": r.check,
                    "severity": r.severity,
                    "status": r.status,
                    "lost": lost,
                }
                for r, lost in zip(results, details)
            ]
        )
        return
    failed = [(r, lost) for r, lost in zip(results, details) if r.status == "fail"]
    runs = len({r.run_id for r in results})
    click.echo(
        f"{_count(len(results), 'check')} on {_count(runs, 'run')}: {len(results) - len(failed)} passed, {len(failed)} failed"
    )
    # One run: every result (a pass is information). A window: only the failures.
    shown = list(zip(results, details)) if run_id else failed
    if not shown:
        return
    columns = ["run", "handoff", "parent", "from → to", "check", "severity", "status", "lost"]
    rows = [
        [
            r.run_id,
            r.handoff_id,
            r.parent_handoff_id,
            f"{r.from_step or '-'} → {r.to_step}",
            r.check,
            r.severity,
            r.status,
            _lost_cell(lost),
        ]
        for r, lost in shown
    ]
    _emit(rows, columns, as_markdown)


# -- blast radius ----------------------------------------------------------------------------------


@click.command("blast-radius")
@click.argument("run_id")
@click.argument("handoff_id")
@click.option("--since", default="365d", show_default=True, metavar="DURATION", help="Look back this far.")
@click.option(
    "--same",
    "same",
    multiple=True,
    type=click.Choice(["template", "model", "prompt_pack", "input"]),
    help="Also require the same template, model, prompt pack or input digest (repeatable).",
)
@click.option(
    "--token", "tokens", multiple=True, metavar="TOKEN", help="Search for these lost tokens instead (repeatable)."
)
@click.option("--where", default=None, metavar="SQL", help="An extra SQL predicate over the searched view's columns.")
@store_option
@json_option
@markdown_option
def blast_radius_command(
    run_id: str,
    handoff_id: str,
    since: str,
    same: tuple[str, ...],
    tokens: tuple[str, ...],
    where: str | None,
    store_url: str | None,
    as_json: bool,
    as_markdown: bool,
) -> None:
    """Find every run the same fault reached: same from → to, same constraints lost.

    The signature comes from RUN_ID/HANDOFF_ID (a transform step's own loss, else the loss on
    the edge into it). Runs on digest rows, so it covers the whole digest-tier window.

    Example:

        handoff blast-radius run_01JD8X2K7M4Q9V3T6B1N5C8R2P hf-3 --since 90d --same template
    """
    from handoff.queries.blast import blast_radius, counts_per_day

    with errors_as_click():
        _store, con = _open(store_url)
        signature, matches = blast_radius(
            con, run_id, handoff_id, since=_duration(since), same=same, tokens=tokens or None, where=where
        )
    if as_json:
        print_json([{"run_id": m.run_id, "handoff_id": m.handoff_id, "ts": m.ts} for m in matches])
        return
    lost = ", ".join(signature.lost) or "-"
    click.echo(
        f"signature: {signature.from_step or '-'} → {signature.to_step} ({signature.scope}) lost {lost}"
        + "".join(f" {column}={value}" for column, value in signature.same)
        + (f" where {signature.where}" if signature.where else "")
        + (f" (incidental, in no other run: {', '.join(signature.incidental)})" if signature.incidental else "")
    )
    click.echo(f"{_count(len({m.run_id for m in matches}), 'run')} matched in the last {since}")
    if matches:
        _emit([[day.isoformat(), count] for day, count in counts_per_day(matches)], ["day", "runs"], as_markdown)
        _emit([[m.run_id, m.handoff_id, m.ts] for m in matches], ["run", "handoff", "ts"], as_markdown)


# -- health ----------------------------------------------------------------------------------------


@click.command("health")
@click.option("--since", default="7d", show_default=True, metavar="DURATION", help="Look back this far.")
@click.option(
    "--by",
    default="to",
    show_default=True,
    type=click.Choice(["to", "from", "model", "template", "prompt_pack", "kind"]),
    help="Group by consumer step (to), producer (from) or config.",
)
@click.option("--per-day", is_flag=True, help="Instead: per UTC day and step, the share of runs it was degraded on.")
@breaker_runs_option
@breaker_window_option
@store_option
@json_option
@markdown_option
def health_command(
    since: str,
    by: str,
    per_day: bool,
    breaker_runs: int,
    breaker_window: str,
    store_url: str | None,
    as_json: bool,
    as_markdown: bool,
) -> None:
    """Per step: runs, error and fallback rates, fallbacks by name, failing checks; verification coverage.

    Per verifier step: runs verified (pass or fail) against broken ones and those without a
    verdict. Also shows the circuit breakers the recorded check results would open. With --per-day,
    one row per day and step instead (what `handoff ui` charts on /health).

    Example:

        handoff health --since 7d --by to
    """
    from handoff.queries.health import failing_results, step_health
    from handoff.queries.verification import verification_coverage

    if per_day:
        _health_per_day(since, by, store_url, as_json, as_markdown)
        return
    with errors_as_click():
        window = _duration(since)
        _store, con = _open(store_url)
        steps = step_health(con, since=window, by=by)
        coverage = verification_coverage(con, since=window)
        trips = _breaker(breaker_runs, breaker_window, None).evaluate(failing_results(con, since=window), emit=False)
    if as_json:
        print_json(
            {
                "steps": [
                    {
                        "step": s.step,
                        "runs": s.runs,
                        "handoffs": s.handoffs,
                        "error_rate": round(s.error_rate, 4),
                        "fallback_rate": round(s.fallback_rate, 4),
                        "degraded_rate": round(s.degraded_rate, 4),
                        "fallbacks": s.fallbacks,
                        "failing_checks": s.failing_checks,
                    }
                    for s in steps
                ],
                "verification": [coverage_json(v) for v in coverage],
                "breakers": [t.as_dict() for t in trips],
            }
        )
        return
    if not steps:
        click.echo(f"no handoffs in the last {since}")
        return
    columns = [by, "runs", "handoffs", "errors", "fallbacks", "degraded", "fallbacks by name", "failing checks"]
    rows = [
        [
            s.step,
            s.runs,
            s.handoffs,
            f"{s.error_rate:.0%}",
            f"{s.fallback_rate:.0%}",
            f"{s.degraded_rate:.0%}",
            ", ".join(f"{k} ({v})" for k, v in s.fallbacks.items()) or "-",
            ", ".join(f"{k} ({_count(v, 'run')})" for k, v in s.failing_checks.items()) or "-",
        ]
        for s in steps
    ]
    _emit(rows, columns, as_markdown)
    for s in steps:
        if s.degraded_runs:
            click.echo(("- " if as_markdown else "") + s.summary())
    print_coverage(coverage, as_markdown)
    for trip in trips:
        click.echo(("- " if as_markdown else "") + trip.message())


def _health_per_day(since: str, by: str, store_url: str | None, as_json: bool, as_markdown: bool) -> None:
    from handoff.queries.health import health_by_day

    with errors_as_click():
        window = _duration(since)
        _store, con = _open(store_url)
        days = health_by_day(con, since=window, by=by)
    if as_json:
        print_json(
            [
                {
                    "day": d.day,
                    "step": d.step,
                    "runs": d.runs,
                    "degraded_runs": d.degraded_runs,
                    "degraded_rate": round(d.degraded_rate, 4),
                }
                for d in days
            ]
        )
        return
    if not days:
        click.echo(f"no handoffs in the last {since}")
        return
    rows = [[d.day.isoformat(), d.step, d.runs, d.degraded_runs, f"{d.degraded_rate:.0%}"] for d in days]
    _emit(rows, ["day", by, "runs", "degraded runs", "degraded"], as_markdown)


# -- sql and views ---------------------------------------------------------------------------------


@click.command("sql")
@click.argument("statement")
@store_option
@json_option
@markdown_option
def sql_command(statement: str, store_url: str | None, as_json: bool, as_markdown: bool) -> None:
    """Run an SQL query over the views (handoffs, edges, runs, events, checks, content, annotations).

    Example:

        handoff sql "SELECT to_step, count(*) FROM edges WHERE len(lost) > 0 GROUP BY ALL"
    """
    from handoff.queries.db import check_select, run_select

    with errors_as_click():
        check_select(statement)
        _store, con = _open(store_url)
        columns, rows = run_select(con, statement)
    if as_json:
        print_json([dict(zip(columns, row)) for row in rows])
    elif columns:
        _emit([list(row) for row in rows], columns, as_markdown)


#: The views ``handoff views`` lists, in this order (each ``raw_<table>`` is also there, undeduplicated).
VIEWS = ("handoffs", "edges", "runs", "events", "checks", "annotations", "content")


@click.command("views")
@store_option
@json_option
def views_command(store_url: str | None, as_json: bool) -> None:
    """List the views you can query with `handoff sql`, and their columns and types.

    Example:

        handoff views --json
    """
    from handoff.queries.db import query

    with errors_as_click():
        _store, con = _open(store_url)
        listing = {
            view: [
                (row["column_name"], row["data_type"])
                for row in query(
                    con,
                    "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
                    [view],
                )
            ]
            for view in VIEWS
        }
    if as_json:
        print_json({view: [{"name": n, "type": t} for n, t in columns] for view, columns in listing.items()})
        return
    for view, columns in listing.items():
        click.echo(f"{view}: " + ", ".join(f"{name} {kind}" for name, kind in columns))


#: Every command this module adds to ``handoff``.
COMMANDS = (
    diff_command,
    alerts_command,
    check_command,
    blast_radius_command,
    health_command,
    sql_command,
    views_command,
)
