"""``handoff status``, ``handoff compact`` and ``handoff fsck``: the health of the store and its writers."""

from __future__ import annotations

import time

import click

from handoff.cli._common import errors_as_click, open_existing
from handoff.cli._options import json_option, store_option
from handoff.cli._render import fmt, human_bytes, print_json, print_table

spool_dir_option = click.option(
    "--spool-dir",
    envvar="HANDOFF_SPOOL_DIR",
    default=None,
    metavar="DIR",
    help="Spool root the writers use (env HANDOFF_SPOOL_DIR, default: the user cache dir).",
)


def _spool(store_url: str | None, spool_dir: str | None):
    from handoff.config import resolve_store
    from handoff.exporters.spool import Spool

    return Spool(resolve_store(store_url), root=spool_dir)


def _store_or_spool(store_url: str | None, spool_dir: str | None):
    """Open the store; one that does not exist is an error unless a writer has spooled or reported for it (it was down)."""
    from handoff.store import open_store

    try:
        return open_existing(store_url)
    except click.ClickException:
        spool = _spool(store_url, spool_dir)
        if spool.has_pending() or spool.read_statuses():
            return open_store(store_url)
        raise


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f}{unit}"
    return f"{seconds:.0f}s"


# -- status ------------------------------------------------------------------------------

_COUNTERS = (
    "enqueued", "written", "spooled", "spilled", "retried", "dropped", "export_failures", "encode_errors", "span_errors",
)  # fmt: skip


def _status_payload(store_url: str | None, spool_dir: str | None) -> dict:
    spool = _spool(store_url, spool_dir)
    state = spool.state()
    processes = spool.read_statuses()
    totals = {name: sum(p.get("counters", {}).get(name, 0) for p in processes) for name in _COUNTERS}
    return {"spool": state.__dict__, "processes": processes, "totals": totals}


@click.command("status")
@store_option
@spool_dir_option
@json_option
def status(store_url: str | None, spool_dir: str | None, as_json: bool) -> None:
    """Show each writer's mode, worker and counters (written, spooled, spilled, retried, dropped) and the spool.

    Every recording process publishes its counters into the spool directory after each flush;
    this reads them from any other process. "mode" is process (the writer's own process, whose
    pid and restarts are shown) or thread; "queued" counts records handed over and not yet
    durable.

    Example:

        handoff status --store s3://traces/prod
    """
    with errors_as_click():
        _store_or_spool(store_url, spool_dir)
        payload = _status_payload(store_url, spool_dir)
    if as_json:
        print_json(payload)
        return
    spool = payload["spool"]
    click.echo(f"store {spool['store']}")
    click.echo(
        f"spool {spool['directory']}: {spool['pending_batches']} batches pending, "
        f"{human_bytes(spool['pending_bytes'])} of {human_bytes(spool['max_bytes'])}, oldest {_age(spool['oldest_age_s'])}"
    )
    if not payload["processes"]:
        click.echo("no writer has reported yet")
        return
    now = time.time()
    print_table(
        ["host", "pid", "alive", "updated", "mode", "worker", "restarts", "queued", *_COUNTERS],
        [
            [
                p.get("host"),
                p.get("pid"),
                {True: "yes", False: "no"}.get(p.get("alive"), "?"),
                _age(now - p.get("updated", now)) + " ago",
                p.get("mode", "thread"),
                p.get("worker_pid") or "-",
                p.get("worker_restarts", 0),
                p.get("queued"),
                *(p.get("counters", {}).get(name, 0) for name in _COUNTERS),
            ]
            for p in payload["processes"]
        ],
    )
    click.echo("total  " + "  ".join(f"{name} {fmt(value)}" for name, value in payload["totals"].items()))


# -- compact -----------------------------------------------------------------------------

grace_option = click.option(
    "--grace",
    default="30s",
    show_default=True,
    metavar="DURATION",
    help="Wait this long after writing merged files before deleting the small ones (lets running queries finish).",
)


@click.command("compact")
@click.option("--day", default=None, metavar="YYYY-MM-DD", help="Compact only this day's partitions.")
@click.option(
    "--older-than", default=None, metavar="DURATION", help="Compact only partitions entirely older than this (e.g. 1d)."
)
@grace_option
@store_option
@json_option
def compact_command(day: str | None, older_than: str | None, grace: str, store_url: str | None, as_json: bool) -> None:
    """Merge each day partition's small Parquet files into one file sorted by run id, without duplicate rows.

    Safe while others read and write: the merged file is written before the small ones are
    removed (after --grace, so queries already reading them can finish), and the query views
    deduplicate on the primary key. Without --day or
    --older-than every partition is compacted. Content files are left as they are.

    Example:

        handoff compact --older-than 1d
    """
    from datetime import date

    from handoff.durations import parse_duration
    from handoff.store.compact import compact

    with errors_as_click():
        only_day = date.fromisoformat(day) if day else None
        window = parse_duration(older_than) if older_than else None
        grace_s = parse_duration(grace).total_seconds()
        results = compact(open_existing(store_url), day=only_day, older_than=window, grace_s=grace_s)
    if as_json:
        print_json([r.__dict__ for r in results])
        return
    if not results:
        click.echo("nothing to compact")
        return
    print_table(
        ["table", "day", "files", "rows in", "rows out", "merged into"],
        [[r.table, r.day, r.files_in, r.rows_in, r.rows_out, r.key] for r in results],
    )


# -- fsck --------------------------------------------------------------------------------


def _upload_spool(store, spool) -> tuple[int, int]:
    """Deliver every spooled batch for ``store``; return ``(records delivered, batches left)``."""
    from handoff.exporters.spool import deliver
    from handoff.exporters.store_exporter import StoreExporter

    exporter = StoreExporter(store, "fsck")
    try:
        sent = deliver(spool, exporter.write)
    finally:
        exporter.shutdown()
    return sent, len(spool.pending())


@click.command("fsck")
@click.option(
    "--since", default=None, metavar="DURATION", help="Check only partitions this recent (e.g. 7d); default all."
)
@click.option("--repair", is_flag=True, help="Upload the spool, remove stale temp files, compact days with duplicates.")
@click.option(
    "--temp-min-age",
    default="60s",
    show_default=True,
    metavar="DURATION",
    help="Temp files younger than this belong to a writer at work and are left alone.",
)
@grace_option
@store_option
@spool_dir_option
@json_option
@click.pass_context
def fsck_command(
    ctx: click.Context,
    since: str | None,
    repair: bool,
    temp_min_age: str,
    grace: str,
    store_url: str | None,
    spool_dir: str | None,
    as_json: bool,
) -> None:
    """Check the store: refs resolve and decompress, digests match, no duplicate rows, no stray temp files.

    Prints a summary and exits 1 when anything is wrong (including data still waiting in the
    spool). --repair uploads the spool first, then removes stale temp files and compacts days
    that hold duplicates, and checks again.

    Example:

        handoff fsck --since 7d --repair
    """
    from handoff.durations import parse_duration
    from handoff.store.fsck import Problem, fsck

    with errors_as_click():
        window = parse_duration(since) if since else None
        min_age = parse_duration(temp_min_age).total_seconds()
        store = _store_or_spool(store_url, spool_dir)
        spool = _spool(store_url, spool_dir)
        uploaded = _upload_spool(store, spool)[0] if repair else 0
        grace_s = parse_duration(grace).total_seconds()
        report = fsck(store, since=window, repair=repair, temp_min_age_s=min_age, grace_s=grace_s)
    if uploaded:
        report.repaired.insert(0, f"uploaded {uploaded} spooled records")
    pending = spool.state()
    if pending.pending_batches:
        report.problems.append(
            Problem("spooled", pending.directory, f"{pending.pending_batches} batches not yet in the store")
        )
    _print_fsck(report, store.url, as_json)
    if not report.ok:
        ctx.exit(1)


def _print_fsck(report, url: str, as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "ok": report.ok,
                "files": report.files,
                "handoffs": report.handoffs,
                "refs": report.refs,
                "in_progress": report.in_progress,
                "problems": [p.__dict__ for p in report.problems],
                "counts": report.counts(),
                "repaired": report.repaired,
            }
        )
        return
    for line in report.repaired:
        click.echo(f"repaired: {line}")
    for problem in report.problems[:50]:
        click.echo(f"{problem.kind}: {problem.where}: {problem.detail}")
    if len(report.problems) > 50:
        click.echo(f"... and {len(report.problems) - 50} more")
    verdict = "clean" if report.ok else "PROBLEMS " + ", ".join(f"{k} {v}" for k, v in report.counts().items())
    click.echo(f"{url}: {report.files} files, {report.handoffs} handoffs, {report.refs} refs checked: {verdict}")
