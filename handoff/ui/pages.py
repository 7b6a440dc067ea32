"""One handler per page: read through ``handoff.queries`` (the functions the CLI calls), render a template.

Handlers are plain functions run on Starlette's thread pool; each takes the store's views for
the length of its queries. A library error becomes a page with one line (see ``app.py``):
an unknown run or handoff is a 404, a bad filter a 400, a broken store a 500.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from handoff.durations import parse_duration
from handoff.errors import ContentGone, HandoffNotFound
from handoff.ui import format as fmt
from handoff.ui.charts import daily_bars, step_rows
from handoff.ui.graph import layout_run

#: The time windows the run list offers (any other ``since`` value works too).
WINDOWS = ("1h", "24h", "7d", "30d", "365d")
STATUSES = ("ok", "error", "fallback", "running")
#: Content beyond this is cut on the page (``handoff show`` prints all of it).
MAX_SHOWN_BYTES = 1 << 20
MAX_LIMIT = 1000


def _since(text: str | None, default: str | None) -> tuple[str, timedelta | None]:
    text = (text or "").strip() or (default or "")
    return text, (parse_duration(text) if text else None)


def _limit(text: str | None) -> int:
    if not text:
        return 100
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"bad limit {text!r}: use a whole number from 1 to {MAX_LIMIT}")
    return min(int(text), MAX_LIMIT)


@dataclass
class Content:
    """One side of a handoff as the page shows it: text (maybe cut), or why there is none."""

    text: str | None
    size: int = 0
    cut: bool = False
    reason: str = ""


def _content(store: Any, con: Any, run_id: str, handoff_id: str, side: str) -> Content:
    from handoff.queries.content import fetch_content

    try:
        data = fetch_content(store, con, run_id, handoff_id, side)
    except ContentGone as exc:
        return Content(None, reason=str(exc))
    return Content(data[:MAX_SHOWN_BYTES].decode("utf-8", errors="replace"), len(data), len(data) > MAX_SHOWN_BYTES)


@dataclass
class DiffView:
    """A diff on the handoff page: what is compared, the library's result, or why it could not be made."""

    title: str
    result: Any = None
    reason: str = ""

    @property
    def lost_texts(self) -> list[str]:
        """How each lost constraint was written, to highlight in the deleted text."""
        return [item["text"] for item in self.result.lost] if self.result is not None else []


def _diff(store: Any, con: Any, run_id: str, title: str, a: Any, b: Any) -> DiffView:
    from handoff.queries.diff import diff_handoffs

    try:
        return DiffView(title, diff_handoffs(store, con, run_id, a, b))
    except ContentGone as exc:
        return DiffView(title, reason=str(exc))


class Site:
    """The pages over one store: ``views`` (the DuckDB connection), ``renderer`` and the trace-link maker."""

    def __init__(self, views: Any, renderer: Any, trace_link: Callable[[dict[str, Any]], str | None]) -> None:
        self.views = views
        self.renderer = renderer
        self.trace_link = trace_link

    def runs_page(self, request: Request) -> Response:
        """``/``: runs newest first, filtered by status, step, failing check, window and ``q``."""
        from handoff.queries.checks import registered_checks
        from handoff.queries.runs import check_names, list_runs, parse_attr_filter, step_names

        q = request.query_params
        since_text, since = _since(q.get("since"), None)
        attrs = dict(parse_attr_filter(text) for text in q.getlist("attr"))
        limit = _limit(q.get("limit"))
        filters = {
            "q": q.get("q", ""),
            "status": q.get("status", ""),
            "step": q.get("step", ""),
            "check": q.get("check", ""),
            "since": since_text,
            "attrs": attrs,
        }
        with self.views.connection() as (_store, con):
            rows = list_runs(
                con,
                since=since,
                status=filters["status"] or None,
                attrs=attrs,
                search=filters["q"] or None,
                step=filters["step"] or None,
                failing_check=filters["check"] or None,
                limit=limit,
            )
            steps = step_names(con)
            checks = sorted(set(check_names(con)) | {check.name for check in registered_checks()})
        return self.renderer.page(
            "runs.html",
            rows=rows,
            columns=fmt.run_list_columns(rows),
            filters=filters,
            steps=steps,
            checks=checks,
            statuses=STATUSES,
            windows=WINDOWS,
            limit=limit,
        )

    def run_page(self, request: Request) -> Response:
        """``/runs/{run_id}``: header, handoff graph, the CLI's table, failed checks and events."""
        from handoff.queries.checks import run_checks, token_texts
        from handoff.queries.runs import get_run, run_events

        run_id = request.path_params["run_id"]
        with self.views.connection() as (_store, con):
            run = get_run(con, run_id)
            # A run that crashed before its first step has a run row and nothing to check.
            results = run_checks(con, run=run) if run["handoffs"] else []
            events = run_events(con, run_id, run)
        failed = [(r, token_texts(r.lost)) for r in results if r.status == "fail"]
        return self.renderer.page(
            "run.html",
            run=run,
            graph=layout_run(run["handoffs"], results),
            failed=failed,
            events=events,
            results=results,
            extra=fmt.extra_columns(run["handoffs"]),
            failing={r.handoff_id for r in results if r.status == "fail"},
        )

    def handoff_page(self, request: Request) -> Response:
        """``/runs/{run_id}/handoffs/{handoff_id}``: content, digests, config, events, checks and the diffs."""
        from handoff.queries.checks import run_checks, token_texts
        from handoff.queries.diff import SideRef
        from handoff.queries.runs import get_run, run_events

        run_id, handoff_id = request.path_params["run_id"], request.path_params["handoff_id"]
        with self.views.connection() as (store, con):
            run = get_run(con, run_id)
            h = next((row for row in run["handoffs"] if row["handoff_id"] == handoff_id), None)
            if h is None:
                raise HandoffNotFound(run_id, handoff_id)
            results = [r for r in run_checks(con, run=run) if r.handoff_id == handoff_id]
            events = [e for e in run_events(con, run_id, run) if e["handoff_id"] == handoff_id]
            sides = {side: _content(store, con, run_id, handoff_id, side) for side in ("in", "out")}
            diffs = []
            if h["parent_handoff_id"]:
                diffs.append(
                    _diff(
                        store,
                        con,
                        run_id,
                        f"{h['parent_handoff_id']} output → {handoff_id} input",
                        SideRef(h["parent_handoff_id"], "out"),
                        SideRef(handoff_id, "in"),
                    )
                )
            if h["kind"] == "transform":
                diffs.append(
                    _diff(
                        store,
                        con,
                        run_id,
                        f"{handoff_id} input → output (inside the transform)",
                        SideRef(handoff_id, "in"),
                        SideRef(handoff_id, "out"),
                    )
                )
        return self.renderer.page(
            "handoff.html",
            run=run,
            h=h,
            results=[(r, token_texts(r.lost)) for r in results],
            events=events,
            sides=sides,
            diffs=diffs,
            trace_url=self.trace_link(h),
            extra=fmt.extra_columns([h]),
        )

    def compare_page(self, request: Request) -> Response:
        """``/runs/{a}/compare/{b}``: the two runs matched handoff by handoff on digests (``diff --runs``)."""
        from handoff.queries.diff import diff_runs

        run_a, run_b = request.path_params["run_a"], request.path_params["run_b"]
        with self.views.connection() as (_store, con):
            rows = diff_runs(con, run_a, run_b)
        changed = sum(1 for row in rows if row.status != "same")
        return self.renderer.page("compare.html", run_a=run_a, run_b=run_b, rows=rows, changed=changed)

    def compare_form(self, request: Request) -> Response:
        """``/runs/{run_id}/compare?b=…`` (the run page's form): redirect to ``/runs/{a}/compare/{b}``."""
        from urllib.parse import quote

        from starlette.responses import RedirectResponse

        other = (request.query_params.get("b") or "").strip()
        if not other:
            raise ValueError("compare needs the other run's id (?b=run_…)")
        run_id = request.path_params["run_id"]
        return RedirectResponse(f"/runs/{quote(run_id, safe='')}/compare/{quote(other, safe='')}", status_code=303)

    def blast_page(self, request: Request) -> Response:
        """``/blast/{run_id}/{handoff_id}``: every run with the same fault, runs per day as a chart."""
        from handoff.queries.blast import blast_radius, counts_per_day

        run_id, handoff_id = request.path_params["run_id"], request.path_params["handoff_id"]
        since_text, since = _since(request.query_params.get("since"), "365d")
        with self.views.connection() as (_store, con):
            signature, matches = blast_radius(con, run_id, handoff_id, since=since)
        per_day = counts_per_day(matches)
        runs = list(dict.fromkeys(m.run_id for m in matches))
        return self.renderer.page(
            "blast.html",
            run_id=run_id,
            handoff_id=handoff_id,
            since=since_text,
            signature=signature,
            matches=matches[:MAX_LIMIT],
            total=len(matches),
            runs=len(runs),
            chart=daily_bars(per_day),
            per_day=per_day,
        )

    def health_page(self, request: Request) -> Response:
        """``/health``: per-step rates over the window, and the degraded share per day as a chart."""
        from handoff.queries.health import GROUPS, health_by_day, step_health

        since_text, since = _since(request.query_params.get("since"), "7d")
        by = request.query_params.get("by") or "to"
        with self.views.connection() as (_store, con):
            steps = step_health(con, since=since, by=by)
            days = health_by_day(con, since=since, by=by)
        chart = step_rows((d.day, d.step, d.runs, d.degraded_runs) for d in days)
        return self.renderer.page(
            "health.html", steps=steps, chart=chart, since=since_text, by=by, groups=list(GROUPS), windows=WINDOWS
        )
