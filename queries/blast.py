"""Blast radius: every run the same fault reached.

A fault's :class:`Signature` is derived from one handoff: the same ``from → to`` and the
constraints it lost (by :func:`~handoff.analysis.constraints.compare_constraints`). Where the loss
happened decides the scope: a ``transform`` step that dropped constraints between its own input
and output is matched on the ``handoffs`` view (scope ``step``); otherwise the loss on the edge
from its parent is matched on the ``edges`` view (scope ``edge``).

The signature is the fault, not the run: of the seed's losses it keeps those whose token occurs
upstream in some other run of the same edge or step, and sets aside as ``incidental`` the values
no other run ever carried (a contract number that differs per run), which therefore cannot
exclude a match. A run matches when every kept token was carried upstream and lost downstream
(by meaning, as the checks compare); a run that lost something else on the same edge stays out.
Options narrow it further (same template, model, prompt pack or input digest) and an SQL
predicate (``where``) gives custom signatures. Everything runs on digest rows, so the search
covers the whole digest-tier window.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta, timezone
from typing import Any

import duckdb

from handoff.errors import HandoffNotFound, RunNotFound
from handoff.queries.db import check_expression, deduped_sql, query
from handoff.queries.edges import edges_since_sql, partition_floor
from handoff.queries.runs import run_window

#: Attributes a signature can also require to be equal: option name -> handoffs column.
SAME_OPTIONS = {"template": "template", "model": "model", "prompt_pack": "prompt_pack", "input": "input_sha256"}


@dataclass(frozen=True)
class Signature:
    """What identifies a fault: where it happened, what it lost, and optional extra equalities."""

    scope: str
    from_step: str | None
    to_step: str
    lost: tuple[str, ...]
    same: tuple[tuple[str, Any], ...] = ()
    where: str | None = None
    incidental: tuple[str, ...] = ()


@dataclass(frozen=True)
class Match:
    """One run the fault reached: the handoff where it happened and when."""

    run_id: str
    handoff_id: str
    ts: datetime


def _seed(con: duckdb.DuckDBPyConnection, run_id: str, handoff_id: str) -> dict[str, Any]:
    window, window_params = run_window(run_id, None)
    rows = query(
        con,
        f"SELECT * FROM ({deduped_sql('handoffs', 'run_id = ? AND handoff_id = ? AND ' + window)})",
        [run_id, handoff_id, *window_params],
    )
    if rows:
        return rows[0]
    if not query(con, f"SELECT 1 FROM raw_handoffs WHERE run_id = ? AND {window} LIMIT 1", [run_id, *window_params]):
        raise RunNotFound(run_id)
    raise HandoffNotFound(run_id, handoff_id)


def _edge_lost(con: duckdb.DuckDBPyConnection, run_id: str, handoff_id: str) -> tuple[str | None, list[str]]:
    """The parent step and lost tokens of the edge into ``handoff_id`` that lost the most."""
    from handoff.analysis.constraints import lost_tokens

    rows = query(
        con,
        "SELECT from_step, upstream, downstream FROM edges WHERE run_id = ? AND handoff_id = ? ORDER BY parent_handoff_id",
        [run_id, handoff_id],
    )
    edges = [(row["from_step"], lost_tokens(row["upstream"], row["downstream"])) for row in rows]
    return max(edges, key=lambda edge: len(edge[1]), default=(None, []))


def derive_signature(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    handoff_id: str,
    *,
    same: tuple[str, ...] = (),
    tokens: tuple[str, ...] | None = None,
    where: str | None = None,
) -> Signature:
    """Derive the fault signature of one handoff; raise ``ValueError`` when it lost nothing to search for.

    ``where`` must be one SQL expression (``QueryError`` otherwise): it is spliced into the search.
    """
    from handoff.analysis.constraints import lost_tokens

    if where is not None:
        check_expression(where)
    seed = _seed(con, run_id, handoff_id)
    step_lost = (
        lost_tokens(seed["input_constraints"] or (), seed["output_constraints"] or ())
        if seed["kind"] == "transform"
        else []
    )
    edge_from, edge_lost = _edge_lost(con, run_id, handoff_id)
    if step_lost or (seed["kind"] == "transform" and tokens and not edge_lost):
        scope, from_step, lost = "step", seed["from_step"], step_lost
    else:
        scope, from_step, lost = "edge", edge_from, edge_lost
    lost = list(tokens) if tokens else lost
    if not lost and not where:
        raise ValueError(f"{run_id}/{handoff_id} lost no constraints: pass --token or --where to search for something")
    unknown = [name for name in same if name not in SAME_OPTIONS]
    if unknown:
        raise ValueError(f"bad --same {unknown[0]!r}: use one of {', '.join(SAME_OPTIONS)}")
    equal = tuple((SAME_OPTIONS[name], seed[SAME_OPTIONS[name]]) for name in same)
    return Signature(scope, from_step, seed["to_step"], tuple(sorted(set(lost))), equal, where)


def _match_sql(signature: Signature) -> tuple[str, str, str]:
    """``(relation, upstream column, downstream column)`` for a signature's scope (one ``?``: the first day)."""
    if signature.scope == "step":
        # Candidates are kept once per (run, handoff, ts), which copies of one row share, so the
        # raw rows can be filtered directly instead of deduplicating the whole window first.
        return "(SELECT * FROM raw_handoffs WHERE dt >= ?)", "input_constraints", "output_constraints"
    return edges_since_sql(), "upstream", "downstream"


def _candidates(
    con: duckdb.DuckDBPyConnection, signature: Signature, since: timedelta, now: datetime | None
) -> list[dict[str, Any]]:
    """Rows of the signature's edge or step in the window that carried any of its tokens upstream."""
    view, upstream, downstream = _match_sql(signature)
    start = (now or datetime.now(timezone.utc)) - since
    where = ["ts >= ?", "to_step = ?", "from_step IS NOT DISTINCT FROM ?"]
    params: list[Any] = [partition_floor(start), start, signature.to_step, signature.from_step]
    if signature.lost:
        where.append(f"list_has_any({upstream}, ?::VARCHAR[])")
        params.append(list(signature.lost))
    for column, value in signature.same:
        where.append(f"{column} IS NOT DISTINCT FROM ?")
        params.append(value)
    if signature.where:
        where.append(f"({signature.where})")
    sql = (
        f"SELECT DISTINCT run_id, handoff_id, ts, {upstream} AS up, {downstream} AS down FROM {view} "
        f"WHERE {' AND '.join(where)} ORDER BY ts, run_id, handoff_id"
    )
    return query(con, sql, params)


def by_fault(signature: Signature, seed_run: str, rows: list[dict[str, Any]]) -> Signature:
    """``signature`` without the seed's incidental losses: tokens no other run carried upstream."""
    others = {token for row in rows if row["run_id"] != seed_run for token in row["up"] or ()}
    recurring = tuple(token for token in signature.lost if token in others)
    if not recurring or len(recurring) == len(signature.lost):
        return signature
    incidental = tuple(token for token in signature.lost if token not in others)
    return replace(signature, lost=recurring, incidental=incidental)


def _matches(signature: Signature, rows: list[dict[str, Any]]) -> list[Match]:
    from handoff.analysis.constraints import lost_tokens

    wanted = set(signature.lost)
    found = []
    for row in rows:
        if wanted and not (wanted <= set(row["up"] or ()) and wanted <= set(lost_tokens(row["up"], row["down"]))):
            continue
        found.append(Match(row["run_id"], row["handoff_id"], row["ts"]))
    return list(dict.fromkeys(found))


def find_matches(
    con: duckdb.DuckDBPyConnection,
    signature: Signature,
    *,
    since: timedelta = timedelta(days=365),
    now: datetime | None = None,
) -> list[Match]:
    """Every handoff in the window that carries the signature, oldest first (one per run and handoff)."""
    return _matches(signature, _candidates(con, signature, since, now))


def counts_per_day(matches: list[Match]) -> list[tuple[date, int]]:
    """``[(day, matching runs)]`` in day order."""
    runs_by_day = {(m.ts.astimezone(timezone.utc).date(), m.run_id) for m in matches}
    per_day = Counter(day for day, _run in runs_by_day)
    return sorted(per_day.items())


def blast_radius(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    handoff_id: str,
    *,
    since: timedelta = timedelta(days=365),
    same: tuple[str, ...] = (),
    tokens: tuple[str, ...] | None = None,
    where: str | None = None,
    now: datetime | None = None,
) -> tuple[Signature, list[Match]]:
    """Derive the signature of ``run_id``/``handoff_id`` and find every run it reached (the seed included).

    Without ``tokens``, the seed's incidental losses are set aside first (:func:`by_fault`).
    """
    signature = derive_signature(con, run_id, handoff_id, same=same, tokens=tokens, where=where)
    rows = _candidates(con, signature, since, now)
    if not tokens:
        signature = by_fault(signature, run_id, rows)
    return signature, _matches(signature, rows)
