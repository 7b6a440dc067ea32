"""The handoff being replayed, read from the store: its row, stored input and the constraints it lost."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from handoff.errors import HandoffError, HandoffNotFound
from handoff.queries.checks import UpstreamTexts, run_checks
from handoff.queries.content import fetch_content
from handoff.queries.db import query
from handoff.queries.runs import get_run, run_handoffs_sql
from handoff.replays.report import LostConstraint
from handoff.store.base import ObjectStore


@dataclass(frozen=True)
class Original:
    """One recorded handoff: its row (``handoffs`` view), config, stored input and what it lost."""

    row: dict[str, Any]
    config: dict[str, Any]
    input: bytes
    input_content_type: str | None
    lost: list[LostConstraint]

    @property
    def ref(self) -> str:
        """``<run_id>/<handoff_id>``: what a replay's ``replay_of`` says."""
        return f"{self.row['run_id']}/{self.row['handoff_id']}"


def load_original(store: ObjectStore, con: Any, run_id: str, handoff_id: str) -> Original:
    """Read handoff ``handoff_id`` of run ``run_id``; raise ``RunNotFound``, ``HandoffNotFound`` or ``ContentGone``."""
    run = get_run(con, run_id)
    row = next((h for h in run["handoffs"] if h["handoff_id"] == handoff_id), None)
    if row is None:
        raise HandoffNotFound(run_id, handoff_id)
    data = fetch_content(store, con, run_id, handoff_id, "in")
    return Original(row, _config(row), data, _input_type(con, run_id, handoff_id), _lost(store, con, run, row))


def _config(row: dict[str, Any]) -> dict[str, Any]:
    try:
        config = json.loads(row.get("config") or "{}")
    except ValueError:
        return {}
    return config if isinstance(config, dict) else {}


def _input_type(con: Any, run_id: str, handoff_id: str) -> str | None:
    source, params = run_handoffs_sql(run_id)
    rows = query(con, f"SELECT input_content_type FROM {source} WHERE handoff_id = ?", [*params, handoff_id])
    return rows[0]["input_content_type"] if rows else None


def _lost(store: ObjectStore, con: Any, run: dict[str, Any], row: dict[str, Any]) -> list[LostConstraint]:
    """What the checks found lost: inside a transform (its input → output), else on the edges into it."""
    transform = row["kind"] == "transform"
    results = [
        result
        for result in run_checks(con, run=run)
        if result.handoff_id == row["handoff_id"]
        and result.status == "fail"
        and result.lost
        and (result.parent_handoff_id is None) == transform
    ]
    texts = UpstreamTexts(store, con).details_all(results)
    lost: dict[str, LostConstraint] = {}
    for result, items in zip(results, texts):
        upstream = _upstream_text(store, con, result)
        if upstream is None:
            continue
        for token, item in zip(result.lost, items):
            lost.setdefault(token, LostConstraint(token, item["class"], item["text"], upstream))
    return list(lost.values())


def _upstream_text(store: ObjectStore, con: Any, result: Any) -> str | None:
    """The text the lost constraints were in: the parent's output for an edge, the step's input for a transform."""
    handoff_id, side = (result.parent_handoff_id, "out") if result.parent_handoff_id else (result.handoff_id, "in")
    try:
        return fetch_content(store, con, result.run_id, handoff_id, side).decode("utf-8", errors="replace")
    except HandoffError:  # gone (digest tier): nothing to score the replays against
        return None
