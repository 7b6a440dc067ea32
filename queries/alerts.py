"""Compression alerts: a transform, or an edge, that handed on much less than it was given.

Two alert kinds, both computed on digest rows (byte sizes and constraint tokens):

- ``compression-transform``: a ``transform`` step whose output is under ``max_ratio`` of its
  input (``agent`` steps are not alerted on: their output is naturally smaller than their input);
- ``compression-edge``: an edge whose child input is under ``max_ratio`` of the parent output.

Inputs smaller than ``min_bytes`` are ignored. ``step_ratios`` overrides ``max_ratio`` for the
steps it names (the consumer step's name). Each alert lists the constraints lost; an alert that
lost constraints is HIGH, one that only shrank is MED.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import duckdb

from handoff.queries.db import query
from handoff.queries.edges import edges_since_sql, handoffs_since_sql, partition_floor

DEFAULT_MAX_RATIO = 0.25
DEFAULT_MIN_BYTES = 1024


@dataclass(frozen=True)
class Alert:
    """One compression alert; ``ratio`` is output bytes over input bytes (child input over parent output for an edge)."""

    run_id: str
    handoff_id: str
    parent_handoff_id: str | None
    ts: datetime
    check: str
    severity: str
    ratio: float
    lost: tuple[str, ...]
    from_step: str | None
    to_step: str
    input_bytes: int
    output_bytes: int
    status: str = "fail"


def _limit_sql(column: str, max_ratio: float, step_ratios: dict[str, float]) -> tuple[str, list[Any]]:
    """``CASE <column> WHEN step THEN ratio ... ELSE max_ratio END`` with its parameters."""
    if not step_ratios:
        return "?", [max_ratio]
    whens = " ".join("WHEN ? THEN ?" for _ in step_ratios)
    params: list[Any] = []
    for step, ratio in sorted(step_ratios.items()):
        params += [step, float(ratio)]
    return f"CASE {column} {whens} ELSE ? END", params + [max_ratio]


def _validate(max_ratio: float, min_bytes: int, step_ratios: dict[str, float]) -> None:
    for ratio in (max_ratio, *step_ratios.values()):
        if not 0 < float(ratio) <= 1:
            raise ValueError(f"bad ratio {ratio!r}: use a number above 0 and at most 1")
    if min_bytes < 0:
        raise ValueError(f"bad --min-bytes {min_bytes}: use 0 or more")


def _transform_alerts(
    con, start: datetime, max_ratio: float, min_bytes: int, step_ratios: dict[str, float]
) -> list[Alert]:
    limit, limit_params = _limit_sql("to_step", max_ratio, step_ratios)
    sql = f"""
        SELECT run_id, handoff_id, ts, from_step, to_step, input_bytes, output_bytes,
               output_bytes / input_bytes AS ratio, input_constraints AS up, output_constraints AS down
        FROM {handoffs_since_sql()}
        WHERE kind = 'transform' AND status = 'ok' AND ts >= ?
          AND input_bytes >= ? AND input_bytes > 0 AND output_bytes / input_bytes < {limit}
    """
    rows = query(con, sql, [partition_floor(start), start, min_bytes, *limit_params])
    return [_alert(row, "compression-transform", None, row["input_bytes"], row["output_bytes"]) for row in rows]


def _edge_alerts(con, start: datetime, max_ratio: float, min_bytes: int, step_ratios: dict[str, float]) -> list[Alert]:
    limit, limit_params = _limit_sql("to_step", max_ratio, step_ratios)
    sql = f"""
        SELECT run_id, handoff_id, parent_handoff_id, ts, from_step, to_step, upstream AS up, downstream AS down,
               parent_output_bytes, child_input_bytes, size_ratio AS ratio
        FROM {edges_since_sql()}
        WHERE ts >= ? AND parent_output_bytes >= ? AND parent_output_bytes > 0
          AND size_ratio < {limit}
    """
    rows = query(con, sql, [partition_floor(start), start, min_bytes, *limit_params])
    return [
        _alert(row, "compression-edge", row["parent_handoff_id"], row["parent_output_bytes"], row["child_input_bytes"])
        for row in rows
    ]


def _alert(row: dict[str, Any], check: str, parent: str | None, input_bytes: int, output_bytes: int) -> Alert:
    from handoff.analysis.constraints import lost_tokens

    lost = tuple(lost_tokens(row["up"] or (), row["down"] or ()))
    return Alert(
        run_id=row["run_id"],
        handoff_id=row["handoff_id"],
        parent_handoff_id=parent,
        ts=row["ts"],
        check=check,
        severity="HIGH" if lost else "MED",
        ratio=float(row["ratio"]),
        lost=lost,
        from_step=row["from_step"],
        to_step=row["to_step"],
        input_bytes=int(input_bytes),
        output_bytes=int(output_bytes),
    )


def find_alerts(
    con: duckdb.DuckDBPyConnection,
    *,
    since: timedelta = timedelta(hours=24),
    max_ratio: float = DEFAULT_MAX_RATIO,
    min_bytes: int = DEFAULT_MIN_BYTES,
    step_ratios: dict[str, float] | None = None,
    now: datetime | None = None,
) -> list[Alert]:
    """Every compression alert in the window, oldest first; raise ``ValueError`` on bad thresholds."""
    step_ratios = dict(step_ratios or {})
    _validate(max_ratio, min_bytes, step_ratios)
    start = (now or datetime.now(timezone.utc)) - since
    alerts = _transform_alerts(con, start, max_ratio, min_bytes, step_ratios)
    alerts += _edge_alerts(con, start, max_ratio, min_bytes, step_ratios)
    alerts.sort(key=lambda a: (a.ts, a.run_id, a.handoff_id, a.check))
    return alerts


def parse_step_ratio(text: str) -> tuple[str, float]:
    """``"orchestrator.compress_v3=0.1"`` -> ``("orchestrator.compress_v3", 0.1)``; raise ``ValueError``."""
    step, sep, value = text.rpartition("=")
    try:
        ratio = float(value)
    except ValueError:
        ratio = None
    if not sep or not step or ratio is None:
        raise ValueError(f"bad --step-ratio {text!r}: use STEP=RATIO, e.g. orchestrator.compress_v3=0.1")
    return step, ratio
