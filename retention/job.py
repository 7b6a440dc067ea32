"""The retention job: plan what the policy changes, and apply it safely from cron.

Safety, in the order the job relies on it:

- **One job at a time**: :class:`~handoff.retention.lock.RetentionLock` on ``_locks/retention``.
- **Crash-safe per day**: a journal ``_retention/journal/<day>.json`` names the objects a day's
  rewrite writes and the ones it deletes; every new object is written before any old one is
  deleted. A rerun that finds a journal whose deletes have not started removes the new objects
  and redoes the day (nothing was lost); one whose deletes had started finishes them (every new
  object was written). Views prefer the digest row over the full row, so a reader never sees a
  row move back to ``full`` while both copies exist.
- **Writers keep writing**: the job deletes only objects it listed, never the day it is in, and
  a file that appears in a day during its rewrite is left alone.
- **Cost grows with what expires**: ``_retention/state.json`` remembers the last ``now`` it
  applied; the next run lists only the days that crossed a tier boundary since then, the days
  of runs unpinned since then, and days left over from a failed or interrupted run. Without a
  state (first run) or after the policy changed, it lists every day partition once.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any

from handoff.errors import CorruptFile, HandoffError, StoreError
from handoff.retention.lock import DEFAULT_STALE_AFTER_S, RetentionLock
from handoff.retention.pins import pin_history, pinned_runs, run_days
from handoff.retention.policy import Policy, age_days, default_policy
from handoff.retention.rewrite import GONE, OTHER_TABLES, DayWork, plan_day
from handoff.store.base import ObjectStore
from handoff.store.layout import BLOBS, day_of_key
from handoff.store.local import TEMP_MARK

STATE_KEY = "_retention/state.json"
JOURNAL_PREFIX = "_retention/journal/"
REPORT_PREFIX = "_retention/reports/"
#: Past this many days since the last applied ``now``, listing the store beats walking the days.
MAX_INCREMENTAL_DAYS = 400
#: ``now`` must lie in this range: before it nothing was recorded, after it dates overflow.
EARLIEST_NOW = datetime(1970, 1, 1, tzinfo=timezone.utc)

#: ``on_phase(phase, day)`` is called after each phase of a day: ``"journaled"``, ``"written"``, ``"deleted"``.
PhaseHook = Callable[[str, date], None]


@dataclass
class Plan:
    """What applying the policy at ``now`` changes: the days that need work and their figures."""

    now: datetime
    policy: Policy
    scan: str
    days_listed: int
    pinned: list[str]
    days: list[DayWork] = field(default_factory=list)
    in_flight: list[str] = field(default_factory=list)

    def totals(self) -> dict[str, dict[str, int]]:
        """Return rows, days and bytes per destination tier (``gone`` for deleted rows)."""
        out: dict[str, dict[str, int]] = {}
        for work in self.days:
            for tier, rows in work.rows.items():
                entry = out.setdefault(tier, {"rows": 0, "days": 0})
                entry["rows"] += rows
                entry["days"] += 1
        return dict(sorted(out.items()))

    def to_dict(self) -> dict[str, Any]:
        """Return the plan as JSON-ready data."""
        days = [work.to_dict() for work in self.days]
        return {
            "now": self.now.isoformat(),
            "policy": self.policy.to_dict(),
            "policy_digest": self.policy.digest(),
            "scan": self.scan,
            "days_listed": self.days_listed,
            "pinned_runs": self.pinned,
            "in_flight": self.in_flight,
            "tiers": self.totals(),
            "objects_deleted": sum(d["objects_deleted"] for d in days),
            "bytes_deleted": sum(d["bytes_deleted"] for d in days),
            "objects_written": sum(d["objects_written"] for d in days),
            "bytes_written": sum(d["bytes_written"] for d in days),
            "days": days,
        }


@dataclass
class Report(Plan):
    """What one ``apply`` did: the plan's figures for the days applied, plus errors and timings."""

    status: str = "done"
    started: str = ""
    duration_s: float = 0.0
    recovered: list[dict[str, str]] = field(default_factory=list)
    cleaned: list[str] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)
    lock_taken_over: dict | None = None
    report_key: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return the report as JSON-ready data (the same object is stored under ``_retention/reports/``)."""
        return {
            "status": self.status,
            "started": self.started,
            "duration_s": round(self.duration_s, 3),
            **super().to_dict(),
            "recovered": self.recovered,
            "cleaned": self.cleaned,
            "errors": self.errors,
            "lock_taken_over": self.lock_taken_over,
            "report": self.report_key,
        }


# -- public entry points -----------------------------------------------------------------


def plan(
    store: ObjectStore, policy: Policy | None = None, *, now: datetime | None = None, full_scan: bool = False
) -> Plan:
    """Return what :func:`apply` would change at ``now``, without changing anything."""
    policy, now = policy or default_policy(), _utc(now)
    pinned = pinned_runs(store, pin_history(store))
    state = read_state(store)
    days, scan, listed = candidate_days(store, policy, now, state, set(pinned), full_scan)
    in_flight = journal_keys(store)
    result = Plan(now, policy, scan, listed, sorted(pinned), in_flight=in_flight)
    for day in sorted(days):
        work = plan_day(store, policy, day, now, set(pinned))
        if work.changed():
            result.days.append(work)
    return result


def apply(
    store: ObjectStore,
    policy: Policy | None = None,
    *,
    now: datetime | None = None,
    full_scan: bool = False,
    stale_after_s: float = DEFAULT_STALE_AFTER_S,
    on_phase: PhaseHook | None = None,
) -> Report:
    """Apply the policy at ``now`` once; return (and store under ``_retention/reports/``) the report.

    Raise ``LockHeld`` when another job runs. A day that fails (a corrupt file, a store error)
    is recorded in ``errors``, the other days still run, and the status is ``partial``; the next
    run retries it.
    """
    policy, now = policy or default_policy(), _utc(now)
    started = time.monotonic()
    with RetentionLock(store, stale_after_s=stale_after_s) as lock:
        report = _run(store, policy, now, full_scan, lock, on_phase or _no_hook)
        report.lock_taken_over = lock.took_over
        report.duration_s = time.monotonic() - started
        report.report_key = _write_report(store, report)
    return report


def _run(
    store: ObjectStore, policy: Policy, now: datetime, full_scan: bool, lock: RetentionLock, hook: PhaseHook
) -> Report:
    state = read_state(store)
    pinned = pinned_runs(store, pin_history(store))
    report = Report(now, policy, "", 0, sorted(pinned), started=datetime.now(timezone.utc).isoformat())
    recovered = _recover_all(store, report)
    days, report.scan, report.days_listed = candidate_days(store, policy, now, state, set(pinned), full_scan)
    failed: list[date] = []
    for day in sorted(days | recovered):
        try:
            work = plan_day(store, policy, day, now, set(pinned))
            if work.changed():
                _execute(store, work, hook)
                report.days.append(work)
        except HandoffError as exc:
            failed.append(day)
            report.errors.append({"day": day.isoformat(), "error": str(exc).splitlines()[0]})
        lock.refresh()
    report.status = "partial" if failed else "done"
    write_state(store, _next_state(state, policy, now, pinned, failed))
    return report


# -- choosing days -----------------------------------------------------------------------


def candidate_days(
    store: ObjectStore, policy: Policy, now: datetime, state: dict | None, pinned: set[str], full_scan: bool
) -> tuple[set[date], str, int]:
    """Return ``(days to look at, "incremental" | "full", day partitions listed)``.

    Incremental: the days that crossed one of the policy's boundaries between the last applied
    ``now`` and this one, plus days the last run could not finish and days of runs unpinned since.
    """
    last = _state_now(state)
    # A long gap (or a ``now`` before the last one) would mean enumerating more days than one
    # listing of the store costs: ``--now 9999-12-31`` must answer in seconds, not walk 2.9M days.
    stale = last is None or not timedelta(0) <= now - last <= timedelta(days=MAX_INCREMENTAL_DAYS)
    if full_scan or state is None or state.get("policy") != policy.digest() or stale:
        days = {day for day in all_days(store) if age_days(day, now) >= min(policy.boundaries_days())}
        return days, "full", len(days)
    days: set[date] = set()
    for boundary in policy.boundaries_days():
        days |= _crossed(last, now, boundary)
    days |= {date.fromisoformat(day) for day in state.get("retry_days", [])}
    for run_id in set(state.get("pinned", [])) - pinned:
        days |= set(run_days(run_id))
    days = {day for day in days if age_days(day, now) >= min(policy.boundaries_days())}
    return days, "incremental", len(days)


def _state_now(state: dict | None) -> datetime | None:
    try:
        return _utc(datetime.fromisoformat(state["now"])) if state else None
    except (KeyError, TypeError, ValueError):
        return None


def _crossed(last: datetime, now: datetime, boundary_days: int) -> set[date]:
    """Days whose age reached ``boundary_days`` after ``last`` and by ``now``."""
    newest = now.date() - timedelta(days=boundary_days + 1)
    oldest = last.date() - timedelta(days=boundary_days)
    return {oldest + timedelta(days=n) for n in range((newest - oldest).days + 1)}


def all_days(store: ObjectStore) -> set[date]:
    """List every day partition of every table and the blobs (the first run's one full listing)."""
    days: set[date] = set()
    for table in ("handoffs", "content", BLOBS, *OTHER_TABLES):
        for info in store.list(f"{table}/dt="):
            day = day_of_key(info.key)
            if day is not None:
                days.add(day)
    return days


# -- executing one day -------------------------------------------------------------------


def _journal_key(day: date) -> str:
    return f"{JOURNAL_PREFIX}{day.isoformat()}.json"


def _execute(store: ObjectStore, work: DayWork, hook: PhaseHook) -> None:
    """Write every new object, then delete the old ones, with a journal around both phases."""
    journal = {
        "day": work.day.isoformat(),
        "writes": [o.key for o in work.writes],
        "deletes": [i.key for i in work.deletes],
    }
    store.put(_journal_key(work.day), json.dumps(journal, indent=1).encode())
    hook("journaled", work.day)
    for obj in work.writes:
        store.put(obj.key, obj.data)
    hook("written", work.day)
    written = set(journal["writes"])
    for info in work.deletes:
        if info.key not in written:
            store.delete(info.key)
    hook("deleted", work.day)
    store.delete(_journal_key(work.day))


def journal_keys(store: ObjectStore) -> list[str]:
    """Return the journals of days left in flight, without the temp files a killed write can leave."""
    return [info.key for info in store.list(JOURNAL_PREFIX) if not _is_temp(info.key)]


def _is_temp(key: str) -> bool:
    return key.rsplit("/", 1)[-1].startswith(TEMP_MARK)


def _clean_journal_temps(store: ObjectStore) -> list[str]:
    """Delete temp files under ``_retention/``: only a job holding the lock writes there, so any found were left by a killed one."""
    keys = [info.key for info in store.list("_retention/") if _is_temp(info.key)]
    for key in keys:
        store.delete(key)
    return keys


def _read_journal(store: ObjectStore, key: str) -> dict:
    try:
        journal = json.loads(store.get(key))
        date.fromisoformat(journal["day"])
        if not all(isinstance(journal[name], list) for name in ("writes", "deletes")):
            raise TypeError("writes and deletes must be lists")
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptFile(
            f"unreadable retention journal {store.uri(key)}: {exc}; move it away to let retention run",
            uri=store.uri(key),
        ) from exc
    return journal


def _recover_all(store: ObjectStore, report: Report) -> set[date]:
    """Finish or roll back every day an earlier run left in flight; return those days."""
    days: set[date] = set()
    report.cleaned = _clean_journal_temps(store)
    for key in journal_keys(store):
        journal = _read_journal(store, key)
        action = _recover(store, journal)
        store.delete(key)
        report.recovered.append({"day": journal["day"], "action": action})
        days.add(date.fromisoformat(journal["day"]))
    return days


def _recover(store: ObjectStore, journal: dict) -> str:
    written = set(journal["writes"])
    old = [key for key in journal["deletes"] if key not in written]
    if all(store.exists(key) for key in old):
        # The delete phase never started: the old objects are whole; drop the new ones and redo the day.
        for key in journal["writes"]:
            store.delete(key)
        return "rolled back"
    # The delete phase had started, so every new object was written: finish the deletes.
    for key in old:
        store.delete(key)
    return "completed"


# -- state and reports -------------------------------------------------------------------


def read_state(store: ObjectStore) -> dict | None:
    """Return what the last apply recorded (``now``, policy digest, pinned runs, days to retry), or ``None``."""
    if not store.exists(STATE_KEY):
        return None
    try:
        return json.loads(store.get(STATE_KEY))
    except (StoreError, ValueError):
        return None


def write_state(store: ObjectStore, state: dict) -> None:
    """Store the state the next run starts from."""
    store.put(STATE_KEY, json.dumps(state, indent=1, sort_keys=True).encode())


def _next_state(state: dict | None, policy: Policy, now: datetime, pinned: dict, failed: list[date]) -> dict:
    # ``now`` even when an earlier run used a later one (a rehearsal): the next run then sees a
    # gap that is not a forward step of at most MAX_INCREMENTAL_DAYS and lists every day once.
    return {
        "now": now.isoformat(),
        "policy": policy.digest(),
        "pinned": sorted(pinned),
        "retry_days": sorted(day.isoformat() for day in failed),
    }


def _write_report(store: ObjectStore, report: Report) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H%M%S.%fZ")
    key = f"{REPORT_PREFIX}{stamp}-{secrets.token_hex(3)}.json"
    report.report_key = key
    store.put(key, json.dumps(report.to_dict(), indent=1, default=str).encode())
    return key


def _utc(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(timezone.utc)
    try:
        now = now.replace(tzinfo=timezone.utc) if now.tzinfo is None else now.astimezone(timezone.utc)
    except OverflowError:
        raise ValueError(f"bad now {now!r}: out of range") from None
    if now < EARLIEST_NOW:
        raise ValueError(f"bad now {now.isoformat()}: retention runs at times after {EARLIEST_NOW.date().isoformat()}")
    return now


def _no_hook(phase: str, day: date) -> None:
    return None


__all__ = ["GONE", "Plan", "Report", "all_days", "apply", "candidate_days", "plan", "read_state"]
