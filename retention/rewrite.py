"""What applying the policy to one day partition takes: which objects to write and which to delete.

:func:`plan_day` reads a day's ``handoffs`` files (and, past the policy's horizon, the other
tables' files), decides each row's tier, and returns a :class:`DayWork`: new objects with
deterministic keys (``<table>/dt=<day>/retention-<token>-<n>.parquet``, the token a hash of
the objects it replaces) and the objects they replace. Nothing is written here; the job
writes every new object before deleting any old one.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from handoff.retention.policy import GROUPS, Policy, age_days
from handoff.store.base import ObjectInfo, ObjectStore, PendingObject
from handoff.store.layout import BLOBS, content_ref, parse_ref, table_key, table_prefix
from handoff.store.tables import SCHEMAS, encode_parquet, read_file, to_table

#: Tables other than handoffs/content: kept whole until the policy's horizon, then only pinned runs' rows.
OTHER_TABLES = ("runs", "events", "checks", "annotations")
#: Delete order: digest rows go before the content they name, so no reader follows a ref to nothing.
_DELETE_ORDER = {"handoffs": 0, "content": 1, BLOBS: 2}
GONE = "gone"


@dataclass
class DayWork:
    """The changes one day partition needs: rows moving per tier, objects to write, objects to delete."""

    day: date
    age_days: int
    rows: Counter = field(default_factory=Counter)
    held_by_pins: int = 0
    writes: list[PendingObject] = field(default_factory=list)
    deletes: list[ObjectInfo] = field(default_factory=list)

    def changed(self) -> bool:
        """Tell whether applying this day changes anything."""
        return bool(self.writes or self.deletes)

    def to_dict(self) -> dict[str, Any]:
        """Return the day's figures as JSON-ready data."""
        return {
            "day": self.day.isoformat(),
            "age_days": self.age_days,
            "rows": dict(sorted(self.rows.items())),
            "held_by_pins": self.held_by_pins,
            "objects_deleted": len(self.deletes),
            "bytes_deleted": sum(info.size for info in self.deletes),
            "objects_written": len(self.writes),
            "bytes_written": sum(len(obj.data) for obj in self.writes),
        }


def list_day(store: ObjectStore, table: str, day: date) -> list[ObjectInfo]:
    """List one day partition of a table (or of the blobs), skipping temp files."""
    prefix = f"{BLOBS}/dt={day.isoformat()}/" if table == BLOBS else table_prefix(table, day.isoformat())
    suffix = ".zst" if table == BLOBS else ".parquet"
    return [info for info in store.list(prefix) if info.key.endswith(suffix) and "/.tmp-" not in info.key]


class _DayRewriter:
    """Builds one :class:`DayWork`; one instance per day."""

    def __init__(self, store: ObjectStore, policy: Policy, day: date, now: datetime, pinned: set[str]) -> None:
        self.store, self.policy, self.day, self.pinned = store, policy, day, pinned
        self.work = DayWork(day, age_days(day, now))
        self.listing = {table: list_day(store, table, day) for table in ("handoffs", "content", BLOBS)}
        self.past_horizon = self.work.age_days >= policy.horizon_days()
        if self.past_horizon:
            self.listing.update({table: list_day(store, table, day) for table in OTHER_TABLES})
        self.token = _token(info.key for infos in self.listing.values() for info in infos)
        self.writer = f"retention-{self.token}"
        self._n = 0

    def build(self) -> DayWork:
        rows = self._read_handoffs()
        kept, changed = self._apply_tiers(rows)
        refs = self._rewrite_content(kept)
        changed = self._rewrite_refs(kept, refs) or changed
        self._drop_blobs(kept)
        if changed:
            self._replace("handoffs", self.listing["handoffs"], kept)
        if self.past_horizon:
            for table in OTHER_TABLES:
                self._keep_pinned(table)
        self.work.deletes.sort(key=lambda info: (_DELETE_ORDER.get(info.key.split("/")[0], 3), info.key))
        return self.work

    # -- handoffs ------------------------------------------------------------------------

    def _read_handoffs(self) -> list[dict[str, Any]]:
        rows: dict[tuple[str, str], dict[str, Any]] = {}
        for info in self.listing["handoffs"]:
            for row in read_file(self.store, info.key).to_pylist():
                row["attributes"] = dict(row.get("attributes") or [])
                key = (row["run_id"], row["handoff_id"])
                # Duplicates (retries, an interrupted rewrite): the row further down the tiers wins.
                if key not in rows or self.policy.rank(row["tier"]) > self.policy.rank(rows[key]["tier"]):
                    rows[key] = row
        return list(rows.values())

    def _apply_tiers(self, rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
        runs = _run_fields(self.store, self.day) if self.policy.needs_runs() else {}
        kept: list[dict[str, Any]] = []
        changed = False
        for row in rows:
            row.update(runs.get(row["run_id"], {}))
            target = self.policy.tier_for(row, self.work.age_days)
            current = self.policy.rank(row["tier"])
            moves = target is None or target > current
            if moves and row["run_id"] in self.pinned:
                self.work.held_by_pins += 1
                moves = False
            for name in ("run_status", "run_attributes"):
                row.pop(name, None)
            if not moves:
                kept.append(row)
                continue
            changed = True
            if target is None:
                self.work.rows[GONE] += 1
                continue
            kept.append(self._demote(row, target))
            self.work.rows[self.policy.tiers[target].name] += 1
        return kept, changed

    def _demote(self, row: dict[str, Any], target: int) -> dict[str, Any]:
        tier = self.policy.tiers[target]
        for group, columns in GROUPS.items():
            if group not in tier.keeps:
                for column in columns:
                    row[column] = _empty(SCHEMAS["handoffs"].field(column).type)
        row["tier"] = tier.name
        return row

    # -- content and blobs ---------------------------------------------------------------

    def _rewrite_content(self, kept: list[dict[str, Any]]) -> dict[str, str]:
        """Keep only content rows a kept ref names; return ``old ref -> new ref`` for moved rows."""
        wanted: dict[str, set[str]] = {}
        for ref in _refs(kept):
            key, selector = parse_ref(ref)
            if selector is not None:
                wanted.setdefault(key, set()).add(selector)
        moved: dict[str, str] = {}
        for info in self.listing["content"]:
            selectors = wanted.get(info.key, set())
            if not selectors:
                self.work.deletes.append(info)
                continue
            moved.update(self._filter_content(info, selectors))
        return moved

    def _filter_content(self, info: ObjectInfo, selectors: set[str]) -> dict[str, str]:
        table = read_file(self.store, info.key)
        names = pc.binary_join_element_wise(table["run_id"], table["handoff_id"], table["side"], "/")
        keep = table.filter(pc.is_in(names, value_set=pa.array(sorted(selectors))))
        if keep.num_rows == table.num_rows:
            return {}
        key = self._next_key("content")
        self.work.writes.append(PendingObject(key, encode_parquet(keep)))
        self.work.deletes.append(info)
        return {f"{info.key}#{s}": content_ref(key, *s.rsplit("/", 2)) for s in selectors}

    def _rewrite_refs(self, kept: list[dict[str, Any]], moved: dict[str, str]) -> bool:
        changed = False
        for row in kept:
            for column in ("input_ref", "output_ref"):
                if row.get(column) in moved:
                    row[column] = moved[row[column]]
                    changed = True
        return changed

    def _drop_blobs(self, kept: list[dict[str, Any]]) -> None:
        named = set(_refs(kept))
        self.work.deletes.extend(info for info in self.listing[BLOBS] if info.key not in named)

    # -- writing ------------------------------------------------------------------------

    def _next_key(self, table: str) -> str:
        self._n += 1
        return table_key(table, self.day.isoformat(), self.writer, self._n)

    def _replace(self, table: str, old: list[ObjectInfo], rows: list[dict[str, Any]]) -> None:
        if rows:
            self.work.writes.append(PendingObject(self._next_key(table), encode_parquet(to_table(table, rows))))
        self.work.deletes.extend(old)

    def _keep_pinned(self, table: str) -> None:
        for info in self.listing[table]:
            data = read_file(self.store, info.key)
            keep = data.filter(pc.is_in(data["run_id"], value_set=pa.array(sorted(self.pinned), pa.string())))
            if keep.num_rows == data.num_rows:
                continue
            self.work.rows[f"{table}:{GONE}"] += data.num_rows - keep.num_rows
            if keep.num_rows:
                self.work.writes.append(PendingObject(self._next_key(table), encode_parquet(keep)))
            self.work.deletes.append(info)


def plan_day(store: ObjectStore, policy: Policy, day: date, now: datetime, pinned: set[str]) -> DayWork:
    """Return what applying ``policy`` at ``now`` to day partition ``day`` takes; read-only."""
    return _DayRewriter(store, policy, day, now, pinned).build()


def _token(keys: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()[:12]


def _refs(rows: Iterable[dict[str, Any]]) -> Iterable[str]:
    for row in rows:
        for column in ("input_ref", "output_ref"):
            if row.get(column):
                yield row[column]


def _empty(kind: pa.DataType) -> Any:
    if pa.types.is_map(kind):
        return {}
    if pa.types.is_list(kind):
        return []
    return None


def _run_fields(store: ObjectStore, day: date) -> dict[str, dict[str, Any]]:
    """Return ``run_id -> {run_status, run_attributes}`` for runs started on ``day`` or the day before."""
    from datetime import timedelta

    latest: dict[str, dict[str, Any]] = {}
    for start_day in (day - timedelta(days=1), day):
        for info in list_day(store, "runs", start_day):
            for row in read_file(
                store, info.key, columns=["run_id", "status", "attributes", "recorded_ts"]
            ).to_pylist():
                seen = latest.get(row["run_id"])
                if seen is None or _later(row["recorded_ts"], seen["recorded_ts"]):
                    latest[row["run_id"]] = row
    return {
        run_id: {"run_status": row["status"], "run_attributes": dict(row["attributes"] or [])}
        for run_id, row in latest.items()
    }


def _later(ts: datetime | None, than: datetime | None) -> bool:
    return than is None or (ts is not None and ts >= than)
