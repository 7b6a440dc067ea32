"""The run timeline: list runs, and read one run by its id."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any

import duckdb
from ulid import ULID

from handoff.errors import RunNotFound
from handoff.ids import RUN_PREFIX
from handoff.queries.db import deduped_sql, query

_HANDOFF_COLUMNS = """
    run_id, handoff_id, seq, from_step, to_step, kind, parent_handoff_id, fan_in, ts, duration_ms,
    status, error_type, error_message, input_ref, output_ref, input_sha256, output_sha256,
    digest_alg, input_bytes, output_bytes, input_tokens, output_tokens, tokens_estimated,
    model, effort, prompt_pack, template, config, attempt, retry_of, trace_id, span_id,
    input_constraints, output_constraints, tier, attributes, schema_version
"""


def list_runs(
    con: duckdb.DuckDBPyConnection,
    *,
    since: timedelta | None = None,
    status: str | None = None,
    limit: int = 50,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """Return runs newest first, with handoff, error and fallback counts.

    A run is listed when it has a run row or any handoff row (a run whose end was never
    recorded shows ``status=running``).
    """
    now = now or datetime.now(timezone.utc)
    where, params = [], []
    if since is not None:
        where.append("start_ts >= ?")
        params.append(now - since)
    if status:
        where.append("status = ?")
        params.append(status)
    clause = ("WHERE " + " AND ".join(where)) if where else ""
    sql = f"""
        WITH h AS (
            SELECT run_id, min(ts) AS first_ts, count(*) AS handoffs,
                   count(*) FILTER (WHERE status = 'error') AS errors,
                   count(*) FILTER (WHERE status = 'fallback') AS fallbacks
            FROM handoffs GROUP BY run_id
        ),
        r AS (
            SELECT coalesce(runs.run_id, h.run_id) AS run_id,
                   coalesce(runs.name, '') AS name,
                   coalesce(runs.start_ts, h.first_ts) AS start_ts,
                   runs.end_ts,
                   coalesce(runs.status, 'running') AS status,
                   coalesce(h.handoffs, 0) AS handoffs,
                   coalesce(h.errors, 0) AS errors,
                   coalesce(h.fallbacks, 0) AS fallbacks,
                   runs.attributes
            FROM runs FULL OUTER JOIN h ON runs.run_id = h.run_id
        )
        SELECT *, CASE WHEN end_ts IS NULL THEN NULL
                       ELSE epoch_ms(end_ts) - epoch_ms(start_ts) END AS duration_ms
        FROM r {clause}
        ORDER BY start_ts DESC, run_id DESC
        LIMIT {int(limit)}
    """
    return [_tidy_run(row) for row in query(con, sql, params)]


def _tidy_run(row: dict[str, Any]) -> dict[str, Any]:
    row["attributes"] = dict(row.get("attributes") or {})
    return row


def minted_day(run_id: str) -> date | None:
    """Return the UTC day a run id was minted (its ULID timestamp), or ``None`` if it is not a ULID."""
    try:
        return ULID.from_str(run_id.removeprefix(RUN_PREFIX)).datetime.date()
    except (ValueError, TypeError):
        return None


def run_window(run_id: str, header: dict[str, Any] | None) -> tuple[str, list[Any]]:
    """Return the partition filter for a run's handoffs: from the day it started to the day it ended.

    A day of slack on each side covers clock skew between processes that joined the run; a run
    with no recorded end (still running, or crashed) is searched from its start onwards.
    """
    start = minted_day(run_id) or (header["start_ts"].date() if header else None)
    if start is None:
        return "TRUE", []
    if header and header.get("end_ts") is not None:
        return "dt BETWEEN ? AND ?", [start - timedelta(days=1), header["end_ts"].date() + timedelta(days=1)]
    return "dt >= ?", [start - timedelta(days=1)]


def get_run(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any]:
    """Return one run: its header and its handoffs in seq order; raise ``RunNotFound``.

    Lookups prune by day (the run id's ULID says when the run started) and by the row-group
    statistics of files sorted by run id, so reading one run does not scan the store.
    """
    day = minted_day(run_id)
    run_where, run_params = (
        ("run_id = ? AND dt BETWEEN ? AND ?", [run_id, day - timedelta(days=1), day + timedelta(days=1)])
        if day
        else ("run_id = ?", [run_id])
    )
    headers = query(
        con, f"SELECT name, start_ts, end_ts, status, attributes FROM ({deduped_sql('runs', run_where)})", run_params
    )
    window, window_params = run_window(run_id, headers[0] if headers else None)
    handoffs = query(
        con,
        f"SELECT {_HANDOFF_COLUMNS} FROM ({deduped_sql('handoffs', 'run_id = ? AND ' + window)}) ORDER BY seq, handoff_id",
        [run_id, *window_params],
    )
    if not handoffs and not headers:
        raise RunNotFound(run_id)
    header = (
        headers[0]
        if headers
        else {"name": "", "start_ts": handoffs[0]["ts"], "end_ts": None, "status": "running", "attributes": {}}
    )
    header["attributes"] = dict(header.get("attributes") or {})
    end = header.get("end_ts")
    header["duration_ms"] = (end - header["start_ts"]).total_seconds() * 1000 if end else None
    for row in handoffs:
        row["attributes"] = dict(row.get("attributes") or {})
        row["ratio"] = (
            (row["output_bytes"] / row["input_bytes"])
            if row.get("input_bytes") and row.get("output_bytes") is not None
            else None
        )
    return {"run_id": run_id, **header, "handoffs": handoffs}


def public_record(row: dict[str, Any]) -> dict[str, Any]:
    """Return a handoff row with the reference record's keys (``from``/``to``), for JSON output."""
    out = dict(row)
    out["from"] = out.pop("from_step", None)
    out["to"] = out.pop("to_step", None)
    return out
