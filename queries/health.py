"""Step health, and the circuit breaker on repeated HIGH check failures.

``step_health`` groups a window of handoffs by step (or model, template, ...) and reports runs,
error and fallback rates, fallbacks by name and failing checks, and the share of runs on which
the step was degraded (it errored, fell back, or failed a check).

:class:`CircuitBreaker` watches check results: when one HIGH check fails on ``threshold_runs``
distinct runs within ``window`` it emits one alert at once (a log record, an OpenTelemetry event
and, when configured, a JSON POST to a webhook), not one per run, and stays open for a window.
Trips are recorded in the ``events`` table (``kind="circuit_breaker"``) so the next process
does not alert again on the same burst. Replay runs (``handoff replay``: a run whose attributes
carry ``replay_of``) never count towards a breaker: replaying a faulty step twenty times is an
engineer investigating, not twenty production failures.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any

import duckdb

from handoff.queries.db import query
from handoff.queries.edges import handoffs_since_sql, partition_floor
from handoff.queries.webhook import check_url, post_json, redact_url

logger = logging.getLogger("handoff.breaker")

#: ``--by`` values -> handoffs column.
GROUPS = {
    "to": "to_step",
    "from": "from_step",
    "model": "model",
    "template": "template",
    "prompt_pack": "prompt_pack",
    "kind": "kind",
}


@dataclass
class StepHealth:
    """Health of one step (or other grouping) over a window; rates are fractions of runs."""

    step: str
    runs: int
    handoffs: int
    error_runs: int
    fallback_runs: int
    degraded_runs: int
    fallbacks: dict[str, int] = field(default_factory=dict)
    failing_checks: dict[str, int] = field(default_factory=dict)

    @property
    def error_rate(self) -> float:
        """Share of runs on which this step errored."""
        return self.error_runs / self.runs if self.runs else 0.0

    @property
    def fallback_rate(self) -> float:
        """Share of runs on which this step fell back."""
        return self.fallback_runs / self.runs if self.runs else 0.0

    @property
    def degraded_rate(self) -> float:
        """Share of runs on which this step errored, fell back or failed a check."""
        return self.degraded_runs / self.runs if self.runs else 0.0

    def summary(self) -> str:
        """``the consolidator step is degraded on 12% of runs`` (or ``... is healthy``)."""
        if not self.degraded_runs:
            return f"the {self.step} step is healthy on {self.runs} runs"
        return f"the {self.step} step is degraded on {self.degraded_rate:.0%} of runs ({self.degraded_runs} of {self.runs})"


def _health_sql(column: str) -> str:
    return f"""
        WITH h AS (
            SELECT run_id, handoff_id, coalesce(CAST({column} AS VARCHAR), '-') AS step, status
            FROM {handoffs_since_sql()} WHERE ts >= ?
        ),
        failed AS (
            SELECT DISTINCT c.run_id, c.handoff_id, c."check" FROM checks c
            JOIN h ON h.run_id = c.run_id AND h.handoff_id = c.handoff_id WHERE c.status = 'fail'
        ),
        bad AS (
            SELECT h.step, h.run_id FROM h WHERE h.status IN ('error', 'fallback', 'broken')
            UNION SELECT h.step, h.run_id FROM h JOIN failed f USING (run_id, handoff_id)
        )
        SELECT step, count(DISTINCT run_id) AS runs, count(*) AS handoffs,
               count(DISTINCT run_id) FILTER (WHERE status IN ('error', 'broken')) AS error_runs,
               count(DISTINCT run_id) FILTER (WHERE status = 'fallback') AS fallback_runs,
               (SELECT count(DISTINCT b.run_id) FROM bad b WHERE b.step = h.step) AS degraded_runs
        FROM h GROUP BY step ORDER BY degraded_runs DESC, step
    """


def _named_counts(con, column: str, start: datetime, sql_from: str, name: str) -> dict[str, dict[str, int]]:
    sql = f"""
        SELECT coalesce(CAST(h.{column} AS VARCHAR), '-') AS step, {name} AS name, count(DISTINCT h.run_id) AS runs
        FROM {handoffs_since_sql()} h JOIN {sql_from} ON x.run_id = h.run_id AND x.handoff_id = h.handoff_id
        WHERE h.ts >= ? GROUP BY ALL ORDER BY runs DESC, name
    """
    out: dict[str, dict[str, int]] = {}
    for row in query(con, sql, [partition_floor(start), start]):
        out.setdefault(row["step"], {})[row["name"]] = row["runs"]
    return out


def step_health(
    con: duckdb.DuckDBPyConnection, *, since: timedelta = timedelta(days=7), by: str = "to", now: datetime | None = None
) -> list[StepHealth]:
    """Health per step (``by``: to, from, model, template, prompt_pack, kind), most degraded first."""
    if by not in GROUPS:
        raise ValueError(f"bad --by {by!r}: use one of {', '.join(GROUPS)}")
    column = GROUPS[by]
    start = (now or datetime.now(timezone.utc)) - since
    fallbacks = _named_counts(con, column, start, "(SELECT * FROM events WHERE kind = 'fallback') x", "x.name")
    checks = _named_counts(con, column, start, "(SELECT * FROM checks WHERE status = 'fail') x", 'x."check"')
    return [
        StepHealth(**row, fallbacks=fallbacks.get(row["step"], {}), failing_checks=checks.get(row["step"], {}))
        for row in query(con, _health_sql(column), [partition_floor(start), start])
    ]


@dataclass(frozen=True)
class DayHealth:
    """One step (or other grouping) on one UTC day: runs that reached it and runs on which it was degraded."""

    day: date
    step: str
    runs: int
    degraded_runs: int

    @property
    def degraded_rate(self) -> float:
        """Share of that day's runs on which the step errored, fell back or failed a check."""
        return self.degraded_runs / self.runs if self.runs else 0.0


def _by_day_sql(column: str) -> str:
    return f"""
        WITH h AS (
            SELECT run_id, handoff_id, coalesce(CAST({column} AS VARCHAR), '-') AS step, status,
                   CAST(timezone('UTC', ts) AS DATE) AS day
            FROM {handoffs_since_sql()} WHERE ts >= ?
        ),
        failed AS (
            SELECT DISTINCT c.run_id, c.handoff_id FROM checks c
            JOIN h ON h.run_id = c.run_id AND h.handoff_id = c.handoff_id WHERE c.status = 'fail'
        ),
        flagged AS (
            SELECT h.day, h.step, h.run_id,
                   h.status IN ('error', 'fallback', 'broken') OR f.run_id IS NOT NULL AS degraded
            FROM h LEFT JOIN failed f ON f.run_id = h.run_id AND f.handoff_id = h.handoff_id
        )
        SELECT day, step, count(DISTINCT run_id) AS runs,
               count(DISTINCT run_id) FILTER (WHERE degraded) AS degraded_runs
        FROM flagged GROUP BY day, step ORDER BY day, step
    """


def health_by_day(
    con: duckdb.DuckDBPyConnection, *, since: timedelta = timedelta(days=7), by: str = "to", now: datetime | None = None
) -> list[DayHealth]:
    """Per UTC day and step (``by`` as in :func:`step_health`): runs and degraded runs, day order."""
    if by not in GROUPS:
        raise ValueError(f"bad --by {by!r}: use one of {', '.join(GROUPS)}")
    start = (now or datetime.now(timezone.utc)) - since
    return [DayHealth(**row) for row in query(con, _by_day_sql(GROUPS[by]), [partition_floor(start), start])]


def replay_run_ids(con: duckdb.DuckDBPyConnection, run_ids: Iterable[str]) -> set[str]:
    """The runs among ``run_ids`` that are replays (their attributes carry ``replay_of``)."""
    wanted = sorted(set(run_ids))
    if not wanted:
        return set()
    sql = "SELECT DISTINCT run_id FROM runs WHERE list_contains(?, run_id) AND map_contains(attributes, 'replay_of')"
    return {row["run_id"] for row in query(con, sql, [wanted])}


def not_replays(con: duckdb.DuckDBPyConnection, results: list[Any]) -> list[Any]:
    """``results`` without those of replay runs: what a circuit breaker counts."""
    replays = replay_run_ids(con, (_field(r, "run_id") for r in results))
    return [r for r in results if _field(r, "run_id") not in replays] if replays else results


def failing_results(
    con: duckdb.DuckDBPyConnection, *, since: timedelta, now: datetime | None = None
) -> list[dict[str, Any]]:
    """Stored failing check results in the window (latest verdict per check and handoff), oldest first.

    Results of replay runs are left out (see :func:`not_replays`): these rows feed a breaker.
    """
    start = (now or datetime.now(timezone.utc)) - since
    sql = """
        SELECT run_id, handoff_id, parent_handoff_id, ts, "check", severity, status FROM checks
        WHERE ts >= ? AND dt >= ?
        QUALIFY row_number() OVER (PARTITION BY run_id, handoff_id, parent_handoff_id, "check" ORDER BY checked_ts DESC) = 1
    """
    rows = [row for row in query(con, sql + " ORDER BY ts", [start, start.date()]) if row["status"] == "fail"]
    return not_replays(con, rows)


@dataclass(frozen=True)
class BreakerTrip:
    """One circuit-breaker alert: a HIGH check failed on ``len(run_ids)`` runs between two times."""

    check: str
    severity: str
    run_ids: tuple[str, ...]
    first_ts: datetime
    last_ts: datetime
    window_minutes: float
    #: Set for a systemic alert (output-collapse), which opens the breaker on its own: what it saw.
    detail: str = ""

    def message(self) -> str:
        """One line for logs and tickets."""
        if self.detail:
            return f"circuit breaker open: {self.severity} {self.detail}"
        return (
            f"circuit breaker open: {self.severity} check {self.check} failed on {len(self.run_ids)} runs "
            f"within {self.window_minutes:g} minutes ({self.first_ts:%Y-%m-%d %H:%M:%S} to {self.last_ts:%H:%M:%S} UTC)"
        )

    def as_dict(self) -> dict[str, Any]:
        """The webhook payload."""
        return {
            "event": "handoff.circuit_breaker.open",
            "check": self.check,
            "severity": self.severity,
            "runs": len(self.run_ids),
            "run_ids": list(self.run_ids),
            "first_ts": self.first_ts.isoformat(),
            "last_ts": self.last_ts.isoformat(),
            "window_minutes": self.window_minutes,
            "message": self.message(),
        }


#: ``events.kind`` of a recorded circuit-breaker trip (``name`` is the check).
TRIP_EVENT = "circuit_breaker"
#: A systemic trip keeps this many of its latest run ids (its message gives the full count).
_MAX_TRIP_RUNS = 100


def record_trips(store: Any, trips: list[BreakerTrip]) -> list[str]:
    """Append trips to the ``events`` table (one row each, at the trip's last failure); return the keys."""
    from handoff.ids import writer_name
    from handoff.store.tables import to_table, write_table

    by_day: dict[str, list[dict[str, Any]]] = {}
    for trip in trips:
        row = {
            "run_id": trip.run_ids[-1],
            "handoff_id": None,
            "ts": trip.last_ts,
            "kind": TRIP_EVENT,
            "name": trip.check,
            "error_message": trip.message(),
            "attributes": {"run_ids": ",".join(trip.run_ids), "severity": trip.severity},
        }
        by_day.setdefault(trip.last_ts.astimezone(timezone.utc).strftime("%Y-%m-%d"), []).append(row)
    writer = writer_name()
    return [
        write_table(store, "events", day, writer, n, to_table("events", rows))
        for n, (day, rows) in enumerate(sorted(by_day.items()))
    ]


def _field(result: Any, name: str) -> Any:
    return result[name] if isinstance(result, dict) else getattr(result, name)


class CircuitBreaker:
    """Turns a burst of HIGH check failures into one alert per check per window.

    ``evaluate`` takes check results (``CheckResult`` objects or ``checks`` rows) and returns the
    trips it emitted. A breaker remembers what it emitted: while a check's breaker is open (one
    window after its trip), further failures of that check do not alert again. Emitting never
    raises: a webhook that fails, or does not answer within ``timeout_s`` in total, is logged
    (credentials and query string redacted). Only http(s) webhook URLs are accepted (``ValueError``).
    """

    def __init__(
        self,
        *,
        threshold_runs: int = 3,
        window: timedelta = timedelta(minutes=15),
        webhook_url: str | None = None,
        tracer_provider: Any = None,
        timeout_s: float = 5.0,
    ) -> None:
        if threshold_runs < 1 or window <= timedelta(0):
            raise ValueError("the circuit breaker needs threshold_runs >= 1 and a positive window")
        if not timeout_s > 0:
            raise ValueError(f"the webhook timeout_s must be > 0, not {timeout_s!r}")
        if webhook_url is not None:
            check_url(webhook_url)
        self.threshold_runs = threshold_runs
        self.window = window
        self.webhook_url = webhook_url
        self.timeout_s = timeout_s
        self._tracer_provider = tracer_provider
        self._open_until: dict[str, datetime] = {}

    def evaluate(self, results: Iterable[Any], *, emit: bool = True) -> list[BreakerTrip]:
        """Find (and, when ``emit``, announce) trips among failing HIGH results, in time order."""
        failures: dict[str, list[Any]] = {}
        for result in results:
            if _field(result, "status") == "fail" and _field(result, "severity") == "HIGH":
                failures.setdefault(_field(result, "check"), []).append(result)
        trips = [trip for check, rows in sorted(failures.items()) for trip in self._scan(check, rows)]
        trips.sort(key=lambda trip: trip.last_ts)
        if emit:
            for trip in trips:
                self.emit(trip)
        return trips

    def _scan(self, check: str, rows: list[Any]) -> list[BreakerTrip]:
        rows = sorted(rows, key=lambda row: _field(row, "ts"))
        trips, start = [], 0
        for end, row in enumerate(rows):
            ts = _field(row, "ts")
            if check in self._open_until and ts <= self._open_until[check]:
                continue  # already open: this failure belongs to the alert already sent
            while _field(rows[start], "ts") < ts - self.window:
                start += 1
            runs = tuple(dict.fromkeys(_field(r, "run_id") for r in rows[start : end + 1]))
            if len(runs) >= self.threshold_runs:
                first = _field(rows[start], "ts")
                trips.append(BreakerTrip(check, "HIGH", runs, first, ts, self.window.total_seconds() / 60))
                self._open_until[check] = ts + self.window
        return trips

    def systemic(self, alerts: Iterable[Any], *, emit: bool = True) -> list[BreakerTrip]:
        """Open a breaker at once for each systemic alert (``output-collapse``): one alert is already fleet-wide.

        An alert has ``check``, ``step``, ``severity``, ``run_ids``, ``first_ts``, ``last_ts`` and
        ``message()``; its breaker is keyed ``<check>:<step>`` and stays open for a window.
        """
        trips = []
        for alert in alerts:
            key = f"{alert.check}:{alert.step}"
            if key in self._open_until and alert.last_ts <= self._open_until[key]:
                continue
            runs = tuple(alert.run_ids[-_MAX_TRIP_RUNS:])
            minutes = self.window.total_seconds() / 60
            trip = BreakerTrip(key, alert.severity, runs, alert.first_ts, alert.last_ts, minutes, alert.message())
            self._open_until[key] = alert.last_ts + self.window
            trips.append(trip)
            if emit:
                self.emit(trip)
        return trips

    def restore(self, con: duckdb.DuckDBPyConnection) -> None:
        """Reopen the breakers recorded by :func:`record_trips` whose window has not passed.

        Each ``handoff check`` is a new process: without this, a cron job checking every few
        minutes would alert again on the same burst.
        """
        sql = f"SELECT name, max(ts) AS ts FROM events WHERE kind = '{TRIP_EVENT}' GROUP BY name"
        for row in query(con, sql):
            until = row["ts"] + self.window
            self._open_until[row["name"]] = max(until, self._open_until.get(row["name"], until))

    def emit(self, trip: BreakerTrip) -> None:
        """Announce one trip: log record, OpenTelemetry event, webhook POST (when configured)."""
        logger.warning(trip.message(), extra={"handoff_breaker": trip.as_dict()})
        self._otel_event(trip)
        if self.webhook_url:
            self._post(trip)

    def _otel_event(self, trip: BreakerTrip) -> None:
        from opentelemetry import trace

        provider = self._tracer_provider or trace.get_tracer_provider()
        tracer = provider.get_tracer("handoff.breaker")
        attributes = {
            "handoff.check": trip.check,
            "handoff.severity": trip.severity,
            "handoff.runs": len(trip.run_ids),
            "handoff.run_ids": list(trip.run_ids),
            "handoff.window_minutes": trip.window_minutes,
        }
        with tracer.start_as_current_span("handoff.circuit_breaker") as span:
            span.add_event("handoff.circuit_breaker.open", attributes)

    def _post(self, trip: BreakerTrip) -> None:
        """POST the trip within ``timeout_s`` in total; a failure is logged with the URL's secrets redacted."""
        body = json.dumps(trip.as_dict()).encode()
        try:
            post_json(self.webhook_url, body, deadline_s=self.timeout_s)
        except Exception as exc:  # noqa: BLE001 - an alert channel that is down must not stop the check
            logger.error("circuit breaker webhook %s failed: %s", redact_url(self.webhook_url), exc)


@dataclass
class CheckRun:
    """What one ``handoff check`` did: every result, how each loss was written upstream, breaker trips."""

    results: list[Any]
    details: list[list[dict[str, str]]]
    trips: list[BreakerTrip]


def check_and_record(
    store: Any,
    con: duckdb.DuckDBPyConnection,
    breaker: CircuitBreaker,
    *,
    run_id: str | None = None,
    since: timedelta | None = None,
    record: bool = True,
    progress: Any = None,
) -> CheckRun:
    """Run the registered checks on one run (or every run in ``since``) and evaluate the breakers.

    Over a window, an ``output-collapse`` alert in it opens its breaker at once (systemic).

    With ``record`` the results (passes included) go to the ``checks`` table and trips to the
    ``events`` table, and the breakers first learn the trips already recorded, so an open
    breaker does not alert again.
    """
    from handoff.queries.checks import UpstreamTexts, run_checks, write_results

    results = run_checks(con, run_id=run_id, since=since, progress=progress)
    if record and results:
        write_results(store, results)
    if record:
        breaker.restore(con)
    trips = breaker.evaluate(not_replays(con, results))
    if run_id is None:
        from handoff.queries.collapse import find_collapses

        trips += breaker.systemic(find_collapses(con, since=since or timedelta(hours=24)))
    if trips and record:
        record_trips(store, trips)
    return CheckRun(results, UpstreamTexts(store, con).details_all(results), trips)
