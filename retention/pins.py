"""Pins: keep a run's content past its tier, for an incident or a legal hold, until unpinned.

A pin is an annotation (kind ``pin``; ``unpin`` releases it) with who and why, appended to the
``annotations`` table and never edited. A run is pinned while its latest pin annotation is a
``pin``. The retention job leaves every row of a pinned run as it is.
"""

from __future__ import annotations

import getpass
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

import pyarrow.compute as pc

from handoff.errors import CorruptFile, RunNotFound
from handoff.store.base import ObjectStore
from handoff.store.layout import day_of_key
from handoff.store.tables import read_file, to_table, write_table

PIN, UNPIN = "pin", "unpin"
_COLUMNS = ["run_id", "ts", "kind", "text", "author"]


@dataclass(frozen=True)
class Pin:
    """One pin or unpin annotation: the run, when, which kind, why and who."""

    run_id: str
    ts: datetime
    kind: str
    reason: str
    by: str

    def to_dict(self) -> dict[str, str]:
        """Return the annotation as JSON-ready data."""
        return {
            "run_id": self.run_id,
            "ts": self.ts.isoformat(),
            "kind": self.kind,
            "reason": self.reason,
            "by": self.by,
        }


def pin(
    store: ObjectStore,
    run_id: str,
    *,
    reason: str,
    by: str | None = None,
    now: datetime | None = None,
    check: bool = True,
) -> Pin:
    """Pin ``run_id`` so retention keeps its content; raise ``RunNotFound`` for an unknown run when ``check``."""
    return _annotate(store, run_id, PIN, reason, by, now, check)


def unpin(
    store: ObjectStore,
    run_id: str,
    *,
    reason: str,
    by: str | None = None,
    now: datetime | None = None,
    check: bool = True,
) -> Pin:
    """Release a pin: the next retention run moves the run to the tier its age calls for."""
    return _annotate(store, run_id, UNPIN, reason, by, now, check)


def _annotate(
    store: ObjectStore, run_id: str, kind: str, reason: str, by: str | None, now: datetime | None, check: bool
) -> Pin:
    if not reason or not reason.strip():
        raise ValueError(f"a {kind} needs a reason (--reason)")
    if check:
        _check_run(store, run_id)
    now = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    entry = Pin(run_id, now, kind, reason.strip(), by or getpass.getuser())
    row = {
        "run_id": run_id,
        "handoff_id": None,
        "ts": now,
        "kind": kind,
        "text": entry.reason,
        "author": entry.by,
        "attributes": {},
    }
    write_table(
        store, "annotations", now.strftime("%Y-%m-%d"), f"pin-{secrets.token_hex(6)}", 1, to_table("annotations", [row])
    )
    return entry


def _check_run(store: ObjectStore, run_id: str) -> None:
    if not _recorded(store, run_id):
        raise RunNotFound(run_id)


def _recorded(store: ObjectStore, run_id: str) -> bool:
    """Whether a handoff or run row names ``run_id``, reading the days its id points at first.

    Read straight from the store (retention does not depend on the query layer): only the
    ``run_id`` column of each file, stopping at the first file that has the run.
    """
    likely = set(run_days(run_id))
    keys = [
        info.key
        for table in ("handoffs", "runs")
        for info in store.list(f"{table}/dt=")
        if info.key.endswith(".parquet")
    ]
    for key in sorted(keys, key=lambda key: day_of_key(key) not in likely):
        try:
            column = read_file(store, key, columns=["run_id"])["run_id"]
        except CorruptFile:
            continue  # one unreadable file (fsck names it) must not stop a pin
        if pc.any(pc.equal(column, run_id)).as_py():
            return True
    return False


def pin_history(store: ObjectStore) -> list[Pin]:
    """Return every pin and unpin annotation in the store, oldest first."""
    entries: list[Pin] = []
    for info in store.list("annotations/dt="):
        if info.key.endswith(".parquet"):
            # A corrupt annotations file fails the caller: skipping it could drop a pin, and retention its content.
            entries.extend(_read_pins(store, info.key))
    return sorted(set(entries), key=lambda e: (e.ts, e.kind == UNPIN, e.run_id))


def _read_pins(store: ObjectStore, key: str) -> Iterable[Pin]:
    table = read_file(store, key, columns=_COLUMNS)
    table = table.filter(pc.is_in(table["kind"], value_set=_kinds()))
    for row in table.to_pylist():
        yield Pin(row["run_id"], row["ts"], row["kind"], row["text"] or "", row["author"] or "")


def _kinds():
    import pyarrow as pa

    return pa.array([PIN, UNPIN])


def pinned_runs(store: ObjectStore, history: list[Pin] | None = None) -> dict[str, Pin]:
    """Return the runs pinned now, each with the pin annotation that holds it."""
    latest: dict[str, Pin] = {}
    for entry in history if history is not None else pin_history(store):
        latest[entry.run_id] = entry
    return {run_id: entry for run_id, entry in latest.items() if entry.kind == PIN}


def run_days(run_id: str) -> list[date]:
    """Return the days a run's rows most likely live in: the day its id was minted and the next.

    Run ids are ULIDs (``run_`` + ULID), so their creation time is in the id; an id that is not
    a ULID yields no days (the job then finds the run on its next full scan).
    """
    from ulid import ULID

    try:
        start = ULID.from_str(run_id.removeprefix("run_")).datetime.date()
    except ValueError:
        return []
    return [start, start + timedelta(days=1)]
