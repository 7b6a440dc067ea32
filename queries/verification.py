"""Verification coverage: per verifier step, how many runs were really verified, and how many broke.

A verifier that errored and was counted as a pass makes "verified" meaningless; this counts what
happened instead. It runs on digest rows (``kind``, ``status``, ``verdict``), so it covers the
whole digest retention window. For each run, the step's latest handoff (highest ``seq``: a retry
that verified counts as verified) is one of:

- ``pass`` / ``fail``: a verdict was given (``handoff.verdict``); both are verifications;
- ``broken``: the verdict was ``broken``, the status is ``broken``, or the verifier raised;
- ``no verdict``: a ``kind="verifier"`` step that never said its verdict.

A step is listed when it is a ``verifier`` or gave a verdict at least once in the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import duckdb

from handoff.queries.db import query
from handoff.queries.edges import handoffs_since_sql, partition_floor


@dataclass(frozen=True)
class VerifierCoverage:
    """One verifier step's runs in a window, by outcome."""

    step: str
    runs: int
    passed: int
    failed: int
    broken: int
    unverdicted: int

    @property
    def verified(self) -> int:
        """Runs on which verification happened (a pass or a fail)."""
        return self.passed + self.failed

    @property
    def coverage(self) -> float:
        """Share of runs that were verified."""
        return self.verified / self.runs if self.runs else 0.0

    def summary(self) -> str:
        """``the verify step verified 4 of 5 runs (80.0%); 1 broken``."""
        text = f"the {self.step} step verified {self.verified} of {self.runs} runs ({self.coverage:.1%})"
        extras = [f"{self.broken} broken"] if self.broken else []
        extras += [f"{self.unverdicted} without a verdict"] if self.unverdicted else []
        return text + ("; " + ", ".join(extras) if extras else "")


_COVERAGE_SQL = """
    WITH h AS (
        SELECT run_id, to_step, seq, kind, status, verdict FROM {source} WHERE ts >= ?
    ),
    steps AS (SELECT DISTINCT to_step FROM h WHERE kind = 'verifier' OR verdict IS NOT NULL),
    latest AS (
        SELECT h.run_id, h.to_step,
               CASE WHEN h.status IN ('broken', 'error') OR h.verdict = 'broken' THEN 'broken'
                    WHEN h.verdict IN ('pass', 'fail') THEN h.verdict
                    ELSE 'none' END AS outcome
        FROM h JOIN steps USING (to_step)
        QUALIFY row_number() OVER (PARTITION BY h.run_id, h.to_step ORDER BY h.seq DESC) = 1
    )
    SELECT to_step AS step, count(*) AS runs,
           count(*) FILTER (WHERE outcome = 'pass') AS passed,
           count(*) FILTER (WHERE outcome = 'fail') AS failed,
           count(*) FILTER (WHERE outcome = 'broken') AS broken,
           count(*) FILTER (WHERE outcome = 'none') AS unverdicted
    FROM latest GROUP BY to_step ORDER BY step
"""


def verification_coverage(
    con: duckdb.DuckDBPyConnection, *, since: timedelta = timedelta(days=7), now: datetime | None = None
) -> list[VerifierCoverage]:
    """Per verifier step in the window: runs verified (pass, fail), broken, and without a verdict."""
    start = (now or datetime.now(timezone.utc)) - since
    sql = _COVERAGE_SQL.format(source=handoffs_since_sql())
    return [VerifierCoverage(**row) for row in query(con, sql, [partition_floor(start), start])]
