"""``handoff retention show|plan|apply`` and ``handoff pin|unpin``: tiered retention from cron.

Exit codes of ``retention apply`` (the contract in ``deploy/README.md``): 0 done, 1 error,
2 lock held by another job, 3 partial (a rerun completes it).
"""

from __future__ import annotations

from datetime import datetime, timezone

import click

from handoff.cli._common import errors_as_click, open_existing
from handoff.cli._options import json_option, store_option
from handoff.cli._render import human_bytes, print_json, print_table

EXIT_LOCK_HELD = 2
EXIT_PARTIAL = 3

policy_option = click.option(
    "--policy",
    "policy_path",
    envvar="HANDOFF_RETENTION_POLICY",
    default=None,
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Policy TOML file (env HANDOFF_RETENTION_POLICY; default: 30 days full, 365 days digest).",
)
now_option = click.option(
    "--now", "now_text", default=None, metavar="ISO", help="Act as if it were this UTC time (rehearse a future date)."
)
full_scan_option = click.option(
    "--full-scan", is_flag=True, help="List every day partition instead of only the days that crossed a tier boundary."
)


class LockHeldError(click.ClickException):
    """``Error: ...`` with exit code 2: another retention job holds the lock."""

    exit_code = EXIT_LOCK_HELD


def parse_now(text: str | None) -> datetime | None:
    """Parse ``--now`` (ISO 8601; a time without a zone is UTC); raise ``ValueError`` on bad text."""
    if text is None:
        return None
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"bad --now {text!r}: use an ISO timestamp such as 2027-01-15T03:00:00Z") from None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


@click.group()
def retention() -> None:
    """Show, plan and apply the tiered retention policy.

    Example:

        handoff retention plan --now 2027-01-15T03:00:00Z
    """


@retention.command("show")
@policy_option
@json_option
def show_command(policy_path: str | None, as_json: bool) -> None:
    """Print the effective policy: tiers, what each keeps, and overrides.

    Example:

        handoff retention show --policy retention.toml
    """
    from handoff.retention.policy import load_policy

    with errors_as_click():
        policy = load_policy(policy_path)
    data = policy.to_dict()
    if as_json:
        print_json(data)
        return
    print_table(
        ["tier", "until age", "keeps"],
        [[t["name"], f"{t['max_age_days']}d", ", ".join(t["keeps"])] for t in data["tiers"]] + [["(gone)", "-", "-"]],
        title=f"retention policy ({data['source']})",
    )
    if data["overrides"]:
        print_table(
            ["when", "tier", "until age"],
            [[_match_text(o["match"]), o["tier"], f"{o['max_age_days']}d"] for o in data["overrides"]],
            title="overrides (the longest matching age wins)",
        )


def _match_text(match: dict) -> str:
    parts = []
    for name, value in sorted(match.items()):
        if isinstance(value, dict):
            parts.extend(f"run.{k}={v}" for k, v in sorted(value.items()))
        else:
            parts.append(f"{name}={value}")
    return " ".join(parts)


@retention.command("plan")
@store_option
@policy_option
@now_option
@full_scan_option
@json_option
def plan_command(
    store_url: str | None, policy_path: str | None, now_text: str | None, full_scan: bool, as_json: bool
) -> None:
    """Dry run: what `apply` would change, per tier and per day, in rows, objects and bytes.

    Example:

        handoff retention plan --now 2027-01-15T03:00:00Z --json
    """
    from handoff.retention.job import plan
    from handoff.retention.policy import load_policy

    with errors_as_click():
        policy, now = load_policy(policy_path), parse_now(now_text)
        result = plan(open_existing(store_url), policy, now=now, full_scan=full_scan)
        data = result.to_dict()
    if as_json:
        print_json(data)
        return
    _print_summary(data, "would change")


@retention.command("apply")
@store_option
@policy_option
@now_option
@full_scan_option
@click.option(
    "--stale-lock",
    default="2h",
    show_default=True,
    metavar="DURATION",
    help="Take over a lock whose holder is silent this long.",
)
@json_option
@click.pass_context
def apply_command(
    ctx: click.Context,
    store_url: str | None,
    policy_path: str | None,
    now_text: str | None,
    full_scan: bool,
    stale_lock: str,
    as_json: bool,
) -> None:
    """Apply the policy once: drop expired content, rewrite days to the digest tier, delete old days.

    Exits 0 when done, 1 on an error, 2 when another job holds the lock, 3 when some days
    failed (a rerun completes them). The report is also stored under `_retention/`.

    Example:

        handoff retention apply --store s3://acme-handoff-traces/traces --json
    """
    from handoff.durations import parse_duration
    from handoff.errors import LockHeld
    from handoff.retention.job import apply
    from handoff.retention.policy import load_policy

    with errors_as_click():
        policy, now = load_policy(policy_path), parse_now(now_text)
        try:
            report = apply(
                open_existing(store_url),
                policy,
                now=now,
                full_scan=full_scan,
                stale_after_s=parse_duration(stale_lock).total_seconds(),
            )
        except LockHeld as exc:
            raise LockHeldError(str(exc)) from None
        data = report.to_dict()
    if as_json:
        print_json(data)
    else:
        _print_summary(data, "changed")
        click.echo(f"report: {data['report']} ({data['status']}, {data['duration_s']:.2f}s)")
        for error in data["errors"]:
            click.echo(f"failed {error['day']}: {error['error']}", err=True)
    if data["status"] == "partial":
        ctx.exit(EXIT_PARTIAL)


def _print_summary(data: dict, verb: str) -> None:
    if not data["days"]:
        click.echo(f"nothing to do at {data['now']} ({data['scan']} scan, {data['days_listed']} days listed)")
        return
    click.echo(f"{verb} at {data['now']} ({data['scan']} scan, {data['days_listed']} days listed):")
    print_table(["to tier", "rows", "days"], [[tier, f["rows"], f["days"]] for tier, f in data["tiers"].items()])
    print_table(
        ["day", "age", "rows", "held by pins", "objects deleted", "bytes deleted", "objects written", "bytes written"],
        [
            [
                d["day"],
                f"{d['age_days']}d",
                " ".join(f"{k}={v}" for k, v in d["rows"].items()) or "-",
                d["held_by_pins"],
                d["objects_deleted"],
                human_bytes(d["bytes_deleted"]),
                d["objects_written"],
                human_bytes(d["bytes_written"]),
            ]
            for d in data["days"]
        ],
    )


@click.command("pin")
@click.argument("run_id")
@click.option("--reason", required=True, help="Why the run is kept (an incident, a legal hold).")
@click.option("--by", default=None, help="Who pins it (default: the current user).")
@store_option
@json_option
def pin_command(run_id: str, reason: str, by: str | None, store_url: str | None, as_json: bool) -> None:
    """Keep a run's content past its tier until `handoff unpin`.

    Example:

        handoff pin run_01JD5Z6K8Q --reason "INV-88214 incident"
    """
    _annotate("pin", run_id, reason, by, store_url, as_json)


@click.command("unpin")
@click.argument("run_id")
@click.option("--reason", required=True, help="Why the pin is released.")
@click.option("--by", default=None, help="Who unpins it (default: the current user).")
@store_option
@json_option
def unpin_command(run_id: str, reason: str, by: str | None, store_url: str | None, as_json: bool) -> None:
    """Release a pin: the next `retention apply` moves the run to the tier its age calls for.

    Example:

        handoff unpin run_01JD5Z6K8Q --reason "INV-88214 closed"
    """
    _annotate("unpin", run_id, reason, by, store_url, as_json)


def _annotate(kind: str, run_id: str, reason: str, by: str | None, store_url: str | None, as_json: bool) -> None:
    from handoff.retention import pins

    with errors_as_click():
        entry = getattr(pins, kind)(open_existing(store_url), run_id, reason=reason, by=by)
    if as_json:
        print_json(entry.to_dict())
    else:
        click.echo(f"{kind}ned {entry.run_id} by {entry.by}: {entry.reason}")
