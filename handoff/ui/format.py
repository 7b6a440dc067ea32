"""How values look on a page: one cell formatter for every column, and the run table's columns.

Tables are driven by the rows the queries return: a column the library adds later (a verdict,
a replay id) shows up in the run list, the run table and the handoff page without a template
change. Only columns known today and shown elsewhere on the page are kept out of the run table.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from handoff.units import human_bytes, human_ms


def cell(value: Any) -> str:
    """One value as text: ``-`` for nothing, UTC times, two decimals, lists and maps joined."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, dict):
        return " ".join(f"{k}={cell(v)}" for k, v in sorted(value.items())) or "-"
    if isinstance(value, (list, tuple)):
        return ", ".join(cell(item) for item in value) or "-"
    if isinstance(value, bytes):
        return human_bytes(len(value))
    return str(value)


def pretty_json(text: str | None) -> str:
    """A JSON document indented for reading; anything else unchanged."""
    if not text:
        return "-"
    try:
        return json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False)
    except ValueError:
        return text


def tokens(row: dict[str, Any]) -> str:
    """``~2160→~396``: token counts in and out, ``~`` where estimated from size (as the CLI prints them)."""
    mark = "~" if row.get("tokens_estimated") else ""
    return f"{mark}{cell(row.get('input_tokens'))}→{mark}{cell(row.get('output_tokens'))}"


def _short(digest: str | None) -> str:
    return digest[:8] if digest else "-"


#: The run table: the columns ``handoff runs show`` prints, as (label, row -> text).
RUN_TABLE: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
    ("from → to", lambda h: f"{h['from_step'] or '-'} → {h['to_step']}"),
    ("parent", lambda h: h["parent_handoff_id"] or "-"),
    ("att", lambda h: str(h["attempt"])),
    ("status", lambda h: h["status"]),
    ("in", lambda h: human_bytes(h["input_bytes"])),
    ("out", lambda h: human_bytes(h["output_bytes"])),
    ("tokens in→out", tokens),
    ("out/in", lambda h: cell(h.get("ratio"))),
    ("duration", lambda h: human_ms(h["duration_ms"])),
    ("sha in", lambda h: _short(h["input_sha256"])),
    ("sha out", lambda h: _short(h["output_sha256"])),
]

#: Handoff columns of today that the run table leaves to the handoff page (or shows combined above).
DETAIL_ONLY = frozenset(
    """
    run_id handoff_id seq from_step to_step kind parent_handoff_id fan_in ts duration_ms status error_type error_message
    input_ref output_ref input_sha256 output_sha256 digest_alg input_bytes output_bytes input_tokens output_tokens
    tokens_estimated model effort prompt_pack template config attempt retry_of trace_id span_id input_constraints
    output_constraints tier attributes schema_version ratio dt writer constraints_version input_content_type
    output_content_type
    """.split()
)


def extra_columns(rows: list[dict[str, Any]]) -> list[str]:
    """Columns the rows carry beyond today's known ones, in their order: shown as table columns too."""
    seen: dict[str, None] = {}
    for row in rows:
        for key in row:
            if key not in DETAIL_ONLY:
                seen.setdefault(key, None)
    return list(seen)


#: Run-list columns rendered by the template itself (a link, a joined pair) rather than as plain cells.
RUN_LIST_HIDDEN = frozenset({"end_ts"})


def run_list_columns(rows: list[dict[str, Any]]) -> list[str]:
    """Every column ``list_runs`` returned, in its order, less the hidden ones."""
    seen: dict[str, None] = {}
    for row in rows:
        for key in row:
            if key not in RUN_LIST_HIDDEN:
                seen.setdefault(key, None)
    return list(seen)


#: Headings for the run list's known columns; any other column is headed by its name.
RUN_LIST_LABELS = {"run_id": "run", "start_ts": "started (UTC)", "duration_ms": "duration"}


def run_list_label(key: str) -> str:
    """The heading of a run-list column."""
    return RUN_LIST_LABELS.get(key, key)


def run_list_cell(key: str, value: Any) -> str:
    """A run-list cell: durations in human units, everything else as :func:`cell`."""
    if key == "duration_ms":
        return human_ms(value)
    return cell(value)
