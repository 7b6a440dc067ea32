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
    attrs: dict[str, str] | None = None,
    search: str | None = None,
    step: str | None = None,
    failing_check: str | None = None,
    limit: int = 50,
    now: datetime | None = None,
) -> list[dict[str, Any]]:
    """Return runs newest first, with handoff, error and fallback counts.

    A run is listed when it has a run row or any handoff row (a run whose end was never
    recorded shows ``status=running``). Filters combine with AND: ``attrs`` (every
    ``key=value`` equal), ``search`` (a substring of the run id or of any attribute value, case
    ignored), ``step`` (a handoff from or to that step) and ``failing_check`` (a stored check
    result of that name whose latest verdict is ``fail``; ``"*"`` for any check).
    """
    now = now or datetime.now(timezone.utc)
    clause, params = _run_filters(since, status, attrs, search, step, failing_check, now)
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
                   coalesce(runs.attributes, MAP {{}}::MAP(VARCHAR, VARCHAR)) AS attributes
            FROM runs FULL OUTER JOIN h ON runs.run_id = h.run_id
        )
        SELECT *, CASE WHEN end_ts IS NULL THEN NULL
                       ELSE epoch_ms(end_ts) - epoch_ms(start_ts) END AS duration_ms
        FROM r {clause}
        ORDER BY start_ts DESC, run_id DESC
        LIMIT {int(limit)}
    """
    return [_tidy_run(row) for row in query(con, sql, params)]


#: Latest verdict per check result key: a later pass of the same check supersedes a failure.
_FAILING_RUNS_SQL = """
    SELECT run_id FROM (
        SELECT run_id, "check", status FROM checks
        QUALIFY row_number() OVER (PARTITION BY run_id, handoff_id, parent_handoff_id, "check" ORDER BY checked_ts DESC) = 1
    ) WHERE status = 'fail' AND (? = '*' OR "check" = ?)
"""


def _run_filters(
    since: timedelta | None,
    status: str | None,
    attrs: dict[str, str] | None,
    search: str | None,
    step: str | None,
    failing_check: str | None,
    now: datetime,
) -> tuple[str, list[Any]]:
    """``("WHERE ...", params)`` for :func:`list_runs`' filters (every value bound, never spliced)."""
    where: list[str] = []
    params: list[Any] = []
    if since is not None:
        where.append("start_ts >= ?")
        params.append(now - since)
    if status:
        where.append("status = ?")
        params.append(status)
    for key, value in sorted((attrs or {}).items()):
        where.append("attributes[?] = ?")
        params += [key, value]
    if search:
        where.append(
            "(contains(lower(run_id), lower(?)) OR contains(lower(array_to_string(map_values(attributes), chr(31))), lower(?)))"
        )
        params += [search, search]
    if step:
        where.append("run_id IN (SELECT run_id FROM handoffs WHERE to_step = ? OR from_step = ?)")
        params += [step, step]
    if failing_check:
        where.append(f"run_id IN ({_FAILING_RUNS_SQL})")
        params += [failing_check, failing_check]
    return ("WHERE " + " AND ".join(where)) if where else "", params


def parse_attr_filter(text: str) -> tuple[str, str]:
    """``"invoice=INV-88214"`` -> ``("invoice", "INV-88214")``; raise ``ValueError`` on anything else."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"bad attribute filter {text!r}: use KEY=VALUE, e.g. invoice=INV-88214")
    return key, value


def check_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Names of the checks with stored results, sorted (what a failing-check filter can ask for)."""
    return [row["check"] for row in query(con, 'SELECT DISTINCT "check" FROM checks ORDER BY 1')]


def step_names(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every step name seen as a producer or a consumer, sorted."""
    sql = (
        "SELECT DISTINCT step FROM (SELECT to_step AS step FROM handoffs UNION SELECT from_step FROM handoffs) "
        "WHERE step IS NOT NULL ORDER BY 1"
    )
    return [row["step"] for row in query(con, sql)]


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


def run_handoffs_sql(run_id: str, header: dict[str, Any] | None = None) -> tuple[str, list[Any]]:
    """``(relation, params)``: one run's deduplicated handoff rows, reading only its day partitions."""
    window, window_params = run_window(run_id, header)
    return f"({deduped_sql('handoffs', 'run_id = ? AND ' + window)})", [run_id, *window_params]


def run_header(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any] | None:
    """The run's latest run row (name, start_ts, end_ts, status, attributes), or ``None`` without one.

    Reads only the day partitions around the day the run id was minted.
    """
    day = minted_day(run_id)
    run_where, run_params = (
        ("run_id = ? AND dt BETWEEN ? AND ?", [run_id, day - timedelta(days=1), day + timedelta(days=1)])
        if day
        else ("run_id = ?", [run_id])
    )
    rows = query(
        con, f"SELECT name, start_ts, end_ts, status, attributes FROM ({deduped_sql('runs', run_where)})", run_params
    )
    return rows[0] if rows else None


def get_run(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, Any]:
    """Return one run: its header and its handoffs in seq order; raise ``RunNotFound``.

    Lookups prune by day (the run id's ULID says when the run started) and by the row-group
    statistics of files sorted by run id, so reading one run does not scan the store.
    """
    header_row = run_header(con, run_id)
    headers = [header_row] if header_row else []
    window, window_params = run_window(run_id, header_row)
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


def run_events(
    con: duckdb.DuckDBPyConnection, run_id: str, header: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The named events of one run (fallbacks, contingencies), in time order; ``[]`` when it has none.

    ``header`` (a :func:`get_run` result) narrows the day partitions read to the run's own.
    """
    window, window_params = run_window(run_id, header)
    rows = query(
        con,
        f"SELECT handoff_id, ts, kind, name, error_type, error_message, attributes "
        f"FROM ({deduped_sql('events', 'run_id = ? AND ' + window)}) ORDER BY ts, handoff_id, name",
        [run_id, *window_params],
    )
    return [_tidy_run(row) for row in rows]
