"""The ``output-collapse`` alert: a step whose outputs got much shorter across the fleet.

When quota pressure moves traffic onto weaker models, reasoning shrinks (a median of ~130
characters fell to ~48) while the format stays perfect, so format checks keep passing. This
alert compares, per step, the window's output sizes with the step's own baseline.

It runs on digest rows (``to_step``, ``ts``, ``status``, ``output_tokens``, ``output_bytes``),
so it needs no content. What it assumes of its input: outputs of ``status=ok`` handoffs (errors,
fallbacks and broken handoffs say nothing about depth); size is ``output_tokens`` when every
row of the step in the window and baseline has it (reported or estimated by the writer), else
``output_bytes``; the baseline is the ``baseline_days`` before the window (default 7) and is
normal traffic. It fires for a step when the window has at least ``min_outputs`` outputs (and
so does the baseline) and either

- the window's median is under ``max_ratio`` (default 0.5) of the baseline median, or
- more than half of the window's outputs are under the baseline's ``low_quantile`` (default the
  10th percentile): most outputs are shorter than nearly all normal ones.

The minimum count is what keeps one naturally terse answer (or a quiet hour) from firing: it
is a fleet-wide signal, and the circuit breaker treats it as systemic (one alert opens it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import duckdb

from handoff.queries.db import query
from handoff.queries.edges import handoffs_since_sql, partition_floor

CHECK = "output-collapse"
DEFAULT_BASELINE_DAYS = 7
DEFAULT_MAX_RATIO = 0.5
DEFAULT_LOW_QUANTILE = 0.1
DEFAULT_MIN_OUTPUTS = 20


@dataclass(frozen=True)
class CollapseAlert:
    """One step whose outputs collapsed in the window; sizes are in ``unit`` (tokens or bytes)."""

    step: str
    unit: str
    outputs: int
    median: float
    baseline_outputs: int
    baseline_median: float
    baseline_low: float
    below_low: int
    first_ts: datetime
    last_ts: datetime
    run_ids: tuple[str, ...]
    check: str = CHECK
    severity: str = "HIGH"

    @property
    def ratio(self) -> float:
        """The window's median over the baseline median."""
        return self.median / self.baseline_median if self.baseline_median else 0.0

    @property
    def below_share(self) -> float:
        """Share of the window's outputs under the baseline's low percentile."""
        return self.below_low / self.outputs if self.outputs else 0.0

    def message(self) -> str:
        """One line: ``output-collapse on price: median 12 tokens vs 130 baseline (0.09) ...``."""
        return (
            f"{self.check} on {self.step}: median {self.median:g} {self.unit} vs {self.baseline_median:g} baseline "
            f"({self.ratio:.2f}); {self.below_low} of {self.outputs} outputs under the baseline's "
            f"low percentile ({self.baseline_low:g} {self.unit})"
        )

    def as_dict(self) -> dict[str, Any]:
        """The ``--json`` form."""
        return {
            "check": self.check,
            "severity": self.severity,
            "step": self.step,
            "unit": self.unit,
            "outputs": self.outputs,
            "median": self.median,
            "baseline_outputs": self.baseline_outputs,
            "baseline_median": self.baseline_median,
            "baseline_low": self.baseline_low,
            "below_low": self.below_low,
            "ratio": round(self.ratio, 4),
            "first_ts": self.first_ts.isoformat(),
            "last_ts": self.last_ts.isoformat(),
            "runs": len(self.run_ids),
        }


_COLLAPSE_SQL = """
    WITH h AS (
        SELECT run_id, to_step, ts, output_tokens, output_bytes, ts >= ? AS in_window
        FROM {source} WHERE ts >= ? AND ts < ? AND status = 'ok' AND output_bytes IS NOT NULL
    ),
    unit AS (SELECT to_step, bool_and(output_tokens IS NOT NULL) AS tokens FROM h GROUP BY to_step),
    s AS (
        SELECT h.*, unit.tokens, CASE WHEN unit.tokens THEN output_tokens ELSE output_bytes END AS size
        FROM h JOIN unit USING (to_step)
    ),
    base AS (
        SELECT to_step, count(*) AS n, median(size) AS med, quantile_cont(size, ?) AS low
        FROM s WHERE NOT in_window GROUP BY to_step HAVING count(*) >= ?
    ),
    win AS (
        SELECT s.to_step, any_value(s.tokens) AS tokens, count(*) AS n, median(s.size) AS med,
               count(*) FILTER (WHERE s.size < base.low) AS below, min(s.ts) AS first_ts, max(s.ts) AS last_ts,
               list(DISTINCT s.run_id ORDER BY s.run_id) AS run_ids
        FROM s JOIN base USING (to_step) WHERE s.in_window GROUP BY s.to_step HAVING count(*) >= ?
    )
    SELECT win.*, base.n AS base_n, base.med AS base_med, base.low AS base_low
    FROM win JOIN base USING (to_step)
    WHERE win.med < ? * base.med OR win.below * 2 > win.n
    ORDER BY to_step
"""


def _validate(baseline_days: float, max_ratio: float, low_quantile: float, min_outputs: int) -> None:
    if not 0 < max_ratio <= 1:
        raise ValueError(f"bad collapse ratio {max_ratio!r}: use a number above 0 and at most 1")
    if not 0 < low_quantile < 0.5:
        raise ValueError(f"bad low percentile {low_quantile!r}: use a fraction above 0 and under 0.5")
    if baseline_days <= 0:
        raise ValueError(f"bad baseline of {baseline_days!r} days: use a positive number")
    if min_outputs < 1:
        raise ValueError(f"bad minimum count {min_outputs!r}: use 1 or more")


def find_collapses(
    con: duckdb.DuckDBPyConnection,
    *,
    since: timedelta = timedelta(hours=24),
    baseline_days: float = DEFAULT_BASELINE_DAYS,
    max_ratio: float = DEFAULT_MAX_RATIO,
    low_quantile: float = DEFAULT_LOW_QUANTILE,
    min_outputs: int = DEFAULT_MIN_OUTPUTS,
    now: datetime | None = None,
) -> list[CollapseAlert]:
    """Every step whose outputs collapsed in the window ``since`` before ``now``; raise ``ValueError`` on bad thresholds."""
    _validate(baseline_days, max_ratio, low_quantile, min_outputs)
    end = now or datetime.now(timezone.utc)
    start = end - since
    base_start = start - timedelta(days=baseline_days)
    params = [start, partition_floor(base_start), base_start, end, low_quantile, min_outputs, min_outputs, max_ratio]
    return [_alert(row) for row in query(con, _COLLAPSE_SQL.format(source=handoffs_since_sql()), params)]


def _alert(row: dict[str, Any]) -> CollapseAlert:
    return CollapseAlert(
        step=row["to_step"],
        unit="tokens" if row["tokens"] else "bytes",
        outputs=int(row["n"]),
        median=float(row["med"]),
        baseline_outputs=int(row["base_n"]),
        baseline_median=float(row["base_med"]),
        baseline_low=float(row["base_low"]),
        below_low=int(row["below"]),
        first_ts=row["first_ts"],
        last_ts=row["last_ts"],
        run_ids=tuple(row["run_ids"]),
    )
