"""Named checks over handoffs and edges, with severities, and their results in the ``checks`` table.

Four checks are built in. Each runs on digest rows (never content), so each keeps working after
retention has dropped the content:

- ``edge-constraints`` (HIGH): on every edge, no constraint of the parent's output is missing
  from the child's input (constraint tokens);
- ``transform-constraints`` (HIGH): inside every ``transform`` step, no constraint of its input is
  missing from its output. An ``agent`` step's own input → output is not checked: reasoning
  over an input is expected to drop most of it;
- ``verifier-broken`` (HIGH): a verifier did verify (see :func:`verifier_broken`);
- ``empty-output`` (MED): an ok handoff returned something (see :func:`empty_output`).

Users add their own with :func:`register_check`; a check is a callable over one row of the
``edges`` view (``on="edge"``) or of the ``handoffs`` view (``on="handoff"``). Every result is
kept, passes included: a check that records only failures cannot be told from one that never ran.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import duckdb

from handoff.errors import RunNotFound
from handoff.queries.content import ContentReader
from handoff.queries.db import query, query_arrow
from handoff.queries.edges import edges_over_sql, edges_since_sql, handoffs_since_sql, partition_floor
from handoff.queries.runs import run_handoffs_sql, run_header
from handoff.store.base import ObjectStore

SEVERITIES = ("HIGH", "MED", "LOW")
TARGETS = ("edge", "handoff")


@dataclass(frozen=True)
class Outcome:
    """What a check callable may return instead of a bool: pass/fail, lost tokens, a note.

    ``changed`` pairs each of the ``lost`` tokens that is stated downstream with another value
    with the downstream token that now states it (``comparison:>= number:3`` ->
    ``comparison:> number:3``); the others are lost outright.
    """

    passed: bool
    lost: tuple[str, ...] = ()
    detail: str = ""
    changed: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Check:
    """A registered check: its name, severity, target (``edge`` or ``handoff``) and callable.

    The callable gets one view row as a dict and returns ``True``/``False``, an
    :class:`Outcome`, or ``None`` when the check does not apply to that row (no result kept).
    """

    name: str
    severity: str
    fn: Callable[[dict[str, Any]], Any]
    on: str = "edge"


@dataclass(frozen=True)
class CheckResult:
    """One check applied to one handoff or edge; ``lost`` holds constraint tokens."""

    run_id: str
    handoff_id: str
    parent_handoff_id: str | None
    ts: datetime
    check: str
    severity: str
    status: str
    lost: tuple[str, ...] = ()
    detail: str = ""
    from_step: str | None = None
    to_step: str | None = None
    seq: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)


_REGISTRY: dict[str, Check] = {}


def register_check(name: str, severity: str, fn: Callable[[dict[str, Any]], Any], *, on: str = "edge") -> Check:
    """Register (or replace) a named check; raise ``ValueError`` on a bad severity or target."""
    if severity not in SEVERITIES:
        raise ValueError(f"bad severity {severity!r}: use one of {', '.join(SEVERITIES)}")
    if on not in TARGETS:
        raise ValueError(f"bad check target {on!r}: use 'edge' or 'handoff'")
    if not name or not callable(fn):
        raise ValueError("a check needs a name and a callable")
    check = Check(name, severity, fn, on)
    _REGISTRY[name] = check
    return check


def unregister_check(name: str) -> None:
    """Remove a user check (built-in checks can be removed too); unknown names are ignored."""
    _REGISTRY.pop(name, None)


def registered_checks() -> list[Check]:
    """Every registered check, in registration order."""
    return list(_REGISTRY.values())


def _constraint_outcome(upstream: list[str] | None, downstream: list[str] | None) -> Outcome:
    """Pass, or fail with what :func:`~handoff.analysis.constraints.compare_constraints` found lost or changed.

    Tokens of another constraints version than this one (none before version 2; whole-stem
    hashes in version 2): the detail names the versions, since their negations and qualifiers
    were compared by identical token only.
    """
    from handoff.analysis.constraints import CONSTRAINTS_VERSION, TERMS_CLASS, compare_constraints, tokens_version

    upstream, downstream = list(upstream or ()), list(downstream or ())
    findings = compare_constraints(upstream, downstream)
    if not findings:
        return Outcome(True)
    changed = tuple((f.token, f.downstream) for f in findings if f.status == "changed")
    total = len({token for token in upstream if not token.startswith(TERMS_CLASS + ":")})
    detail = f"lost {len(findings) - len(changed)}, changed {len(changed)} of {total} constraints"
    versions = sorted({tokens_version(side) for side in (upstream, downstream)})
    if versions != [CONSTRAINTS_VERSION]:
        older = " and ".join(str(v) for v in versions)
        detail += f" (constraints version {older} tokens: phrases compared by identical token)"
    return Outcome(False, tuple(f.token for f in findings), detail, changed)


def _edge_constraints(edge: dict[str, Any]) -> Outcome:
    return _constraint_outcome(edge["upstream"], edge["downstream"])


def _transform_constraints(handoff: dict[str, Any]) -> Outcome | None:
    if handoff["kind"] != "transform" or handoff["status"] != "ok":
        return None
    return _constraint_outcome(handoff["input_constraints"], handoff["output_constraints"])


def verifier_broken(handoff: dict[str, Any]) -> Outcome | None:
    """``verifier-broken``: fails when a verifier step (or any step that gave a verdict) did not verify.

    Runs on a ``handoffs`` row: ``kind``, ``status``, ``verdict``, ``verdict_reason``,
    ``error_type``. It assumes the verdict was given with ``handoff.verdict`` (or
    ``classify_verdict`` of the verifier's reply); it does not read the output. Fails on a verdict
    of ``broken``, ``status=broken`` or a verifier that raised (``status=error``); passes on
    ``pass`` and ``fail`` (a FAIL is a verification that happened). A verifier that gave no
    verdict, and a non-verifier step that gave none, is not checked (no result).
    """
    verdict = handoff.get("verdict")
    status = handoff["status"]
    if handoff["kind"] != "verifier" and verdict is None and status != "broken":
        return None
    if status == "error":
        return Outcome(False, (), f"verifier raised {handoff.get('error_type') or 'an error'}: nothing was verified")
    if verdict == "broken" or status == "broken":
        return Outcome(False, (), f"broken: {handoff.get('verdict_reason') or 'no reason given'}")
    if verdict is None:
        return None
    return Outcome(True, (), verdict)


def empty_output(handoff: dict[str, Any]) -> Outcome | None:
    """``empty-output``: fails when a handoff with ``status=ok`` returned nothing.

    Runs on a ``handoffs`` row: ``status``, ``output_empty`` (decided by the writer on the raw
    output, see :mod:`handoff.analysis.empty`: empty, whitespace, or an empty JSON list, object
    or string), ``allow_empty`` (``@handoff.step(allow_empty=True)``: not checked) and
    ``output_bytes``. Rows written before schema version 2 have no ``output_empty``: only a
    zero-byte output counts as empty there. Handoffs that errored, fell back or broke, and those
    with no recorded output, are not checked.
    """
    if handoff["status"] != "ok" or handoff.get("allow_empty"):
        return None
    empty = handoff.get("output_empty")
    if empty is None:
        if handoff.get("output_bytes") is None:
            return None
        empty = handoff["output_bytes"] == 0
    return Outcome(not empty, (), f"empty output ({handoff.get('output_bytes') or 0} bytes)" if empty else "")


register_check("edge-constraints", "HIGH", _edge_constraints, on="edge")
register_check("transform-constraints", "HIGH", _transform_constraints, on="handoff")
register_check("verifier-broken", "HIGH", verifier_broken, on="handoff")
register_check("empty-output", "MED", empty_output, on="handoff")


def _window_sources(since: timedelta | None, now: datetime | None) -> tuple[str, str, str, list[Any]]:
    """``(handoffs relation, edges relation, where, params)`` for every run in a window."""
    start = (now or datetime.now(timezone.utc)) - (since or timedelta(hours=24))
    return handoffs_since_sql(), edges_since_sql(), "ts >= ?", [partition_floor(start), start]


def _pair_in_memory(con: duckdb.DuckDBPyConnection, table: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(edges, handoffs)`` of one run's handoff rows already in memory (the edges view's SQL over them)."""
    name = f"_run_targets_{uuid.uuid4().hex}"
    con.register(name, table)
    try:
        edges = query(con, f"SELECT * FROM {edges_over_sql(name)} ORDER BY run_id, seq, parent_handoff_id")
    finally:
        con.unregister(name)
    return edges, table.to_pylist()


def _run_targets(con: duckdb.DuckDBPyConnection, run_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One run's ``(edges, handoffs)``: its rows are read once (its own day partitions), then paired in memory."""
    # The run's own days only (from its header's start and end), as get_run reads them.
    source, params = run_handoffs_sql(run_id, run_header(con, run_id))
    sql = f"SELECT * EXCLUDE (config, attributes) FROM {source} WHERE run_id = ? ORDER BY seq"
    table = query_arrow(con, sql, [*params, run_id])
    if table.num_rows == 0:
        raise RunNotFound(run_id)
    return _pair_in_memory(con, table)


def _targets_of_run(
    con: duckdb.DuckDBPyConnection, run: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(edges, handoffs)`` of a :func:`~handoff.queries.runs.get_run` result, without reading the store again."""
    import pyarrow as pa

    from handoff.store.tables import SCHEMAS

    if not run["handoffs"]:
        raise RunNotFound(run["run_id"])
    fields = [field for field in SCHEMAS["handoffs"] if field.name not in ("config", "attributes")]
    schema = pa.schema([*fields, pa.field("dt", pa.date32())])
    rows = [
        {**{field.name: h.get(field.name) for field in fields}, "dt": h["ts"].astimezone(timezone.utc).date()}
        for h in run["handoffs"]
    ]
    return _pair_in_memory(con, pa.Table.from_pylist(rows, schema=schema))


def load_targets(
    con: duckdb.DuckDBPyConnection,
    *,
    run_id: str | None = None,
    since: timedelta | None = None,
    now: datetime | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Return ``(edges, handoffs)`` rows of one run, or of every run in the window; raise ``RunNotFound``."""
    if run_id is not None:
        return _run_targets(con, run_id)
    handoffs_from, edges_from, where, params = _window_sources(since, now)
    handoffs = query(
        con, f"SELECT * EXCLUDE (config, attributes) FROM {handoffs_from} WHERE {where} ORDER BY run_id, seq", params
    )
    edges = query(con, f"SELECT * FROM {edges_from} WHERE {where} ORDER BY run_id, seq, parent_handoff_id", params)
    return edges, handoffs


def _as_outcome(value: Any) -> Outcome | None:
    if value is None or isinstance(value, Outcome):
        return value
    return Outcome(bool(value))


def _result(check: Check, row: dict[str, Any], outcome: Outcome) -> CheckResult:
    edge = check.on == "edge"
    return CheckResult(
        run_id=row["run_id"],
        handoff_id=row["handoff_id"],
        parent_handoff_id=row["parent_handoff_id"] if edge else None,
        ts=row["ts"],
        check=check.name,
        severity=check.severity,
        status="pass" if outcome.passed else "fail",
        lost=tuple(outcome.lost),
        detail=outcome.detail,
        from_step=row["from_step"],
        to_step=row["to_step"],
        seq=row["seq"] or 0,
        extra={"changed": dict(outcome.changed)} if outcome.changed else {},
    )


def apply_checks(
    rows: Iterable[tuple[str, dict[str, Any]]], checks: list[Check] | None = None
) -> Iterator[CheckResult]:
    """Apply every check whose target matches to ``(target, row)`` pairs; yield one result per applicable check."""
    checks = registered_checks() if checks is None else checks
    for target, row in rows:
        for check in checks:
            if check.on != target:
                continue
            outcome = _as_outcome(check.fn(row))
            if outcome is not None:
                yield _result(check, row, outcome)


def run_checks(
    con: duckdb.DuckDBPyConnection,
    *,
    run_id: str | None = None,
    since: timedelta | None = None,
    now: datetime | None = None,
    checks: list[Check] | None = None,
    progress: Callable[[list], Iterable] | None = None,
    run: dict[str, Any] | None = None,
) -> list[CheckResult]:
    """Run the checks over one run (or every run in ``since``); results sorted by run, step order, check.

    ``run``, a :func:`~handoff.queries.runs.get_run` result the caller already has, is checked
    from those rows instead of reading the run again (the viewer's run page does this).
    """
    if run is not None:
        edges, handoffs = _targets_of_run(con, run)
    else:
        edges, handoffs = load_targets(con, run_id=run_id, since=since, now=now)
    rows = [("edge", row) for row in edges] + [("handoff", row) for row in handoffs]
    iterable = progress(rows) if progress is not None else rows
    results = list(apply_checks(iterable, checks))
    # An edge into a step comes before the check inside it: the order data flows.
    results.sort(key=lambda r: (r.run_id, r.seq, r.parent_handoff_id is None, r.parent_handoff_id or "", r.check))
    return results


def result_rows(results: Iterable[CheckResult], checked_ts: datetime) -> list[dict[str, Any]]:
    """Rows of the ``checks`` table for ``results``."""
    return [
        {
            "run_id": r.run_id,
            "handoff_id": r.handoff_id,
            "parent_handoff_id": r.parent_handoff_id,
            "ts": r.ts,
            "check": r.check,
            "severity": r.severity,
            "status": r.status,
            "lost": list(r.lost),
            "detail": r.detail,
            "checked_ts": checked_ts,
        }
        for r in results
    ]


def write_results(store: ObjectStore, results: list[CheckResult], *, checked_ts: datetime | None = None) -> list[str]:
    """Append results to the ``checks`` table, one file per day partition; return the keys written."""
    from handoff.ids import writer_name
    from handoff.store.tables import to_table, write_table

    checked_ts = checked_ts or datetime.now(timezone.utc)
    by_day: dict[str, list[dict[str, Any]]] = {}
    for row in result_rows(results, checked_ts):
        by_day.setdefault(row["ts"].astimezone(timezone.utc).strftime("%Y-%m-%d"), []).append(row)
    writer = writer_name()
    return [
        write_table(store, "checks", day, writer, n, to_table("checks", rows))
        for n, (day, rows) in enumerate(sorted(by_day.items()))
    ]


def token_texts(tokens: Iterable[str]) -> list[dict[str, str]]:
    """``[{"class", "text"}]`` for constraint tokens from the tokens alone (``clause:7.2(b)`` -> ``7.2(b)``).

    Needs no content: what a digest-tier row, or a page that must not fetch content, can say.
    """
    return [
        {"class": token.split(":", 1)[0], "text": token.split(":", 1)[1] if ":" in token else token} for token in tokens
    ]


def lost_details(store: ObjectStore, con: duckdb.DuckDBPyConnection, result: Any) -> list[dict[str, str]]:
    """The lost constraints of a :class:`CheckResult` (or an alert) as :meth:`UpstreamTexts.details` gives them.

    Upstream is the parent's output for an edge, the step's own input for a step check. When
    that content is gone (digest tier), ``text`` is the normalized value from the token.
    """
    return UpstreamTexts(store, con).details(result)


class UpstreamTexts:
    """Looks up how lost constraints were written upstream, reading each packed content file once."""

    def __init__(self, store: ObjectStore, con: duckdb.DuckDBPyConnection) -> None:
        self.store = store
        self.con = con
        self._content = ContentReader(store, remember_files=True)

    def details(self, result: Any) -> list[dict[str, str]]:
        """``[{"token", "class", "status", "text", "downstream_text"}]`` for ``result.lost``, in token order.

        ``status`` is ``changed`` for a fact stated downstream with another value (its
        ``downstream_text`` says how), else ``lost`` (``downstream_text`` empty).
        """
        return self.details_all([result])[0]

    def details_all(self, results: list[Any]) -> list[list[dict[str, str]]]:
        """:meth:`details` for many results, looking their content refs up in one query."""
        refs = self._refs([r for r in results if r.lost])
        return [
            self._describe(r, refs.get(self._upstream_key(r)), refs.get(self._downstream_key(r))) if r.lost else []
            for r in results
        ]

    @staticmethod
    def _downstream_key(result: Any) -> tuple[str, str, str]:
        return result.run_id, result.handoff_id, "in" if result.parent_handoff_id else "out"

    @staticmethod
    def _upstream_key(result: Any) -> tuple[str, str, str]:
        if result.parent_handoff_id:
            return result.run_id, result.parent_handoff_id, "out"
        return result.run_id, result.handoff_id, "in"

    def _refs(self, results: list[Any]) -> dict[tuple[str, str, str], str]:
        if not results:
            return {}
        run_ids = sorted({r.run_id for r in results})
        rows = query(
            self.con,
            "SELECT run_id, handoff_id, input_ref, output_ref FROM handoffs WHERE list_contains(?, run_id)",
            [run_ids],
        )
        refs = {}
        for row in rows:
            refs[(row["run_id"], row["handoff_id"], "in")] = row["input_ref"]
            refs[(row["run_id"], row["handoff_id"], "out")] = row["output_ref"]
        return refs

    def _written(self, ref: str | None) -> dict[str, str]:
        """Token -> how it was first written in the content at ``ref`` (empty when the content is gone)."""
        from handoff.analysis.constraints import find_written
        from handoff.errors import HandoffError

        try:
            data = self._content.read(ref) if ref else None
        except HandoffError:  # gone (digest tier) or unreadable: the token's own value stands in
            data = None
        written: dict[str, str] = {}
        for constraint in find_written(data.decode("utf-8", errors="replace")) if data else ():
            written.setdefault(constraint.token, constraint.text)
        return written

    def _describe(self, result: Any, ref: str | None, downstream_ref: str | None) -> list[dict[str, str]]:
        changed: dict[str, str] = (getattr(result, "extra", None) or {}).get("changed", {})
        written = self._written(ref)
        written_down = self._written(downstream_ref) if changed else {}
        return [
            {
                "token": token,
                "class": item["class"],
                "status": "changed" if token in changed else "lost",
                "text": written.get(token, item["text"]),
                "downstream_text": written_down.get(changed[token], token_texts([changed[token]])[0]["text"])
                if token in changed
                else "",
            }
            for token, item in zip(result.lost, token_texts(result.lost))
        ]
