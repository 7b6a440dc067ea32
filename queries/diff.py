"""Diffs: one handoff side against another, and one run against another, edge by edge.

``diff_handoffs`` compares two sides of handoffs in one run (by default A's output against
B's input, the bytes one step handed to the next): a word-level diff (difflib) for text, a
structural diff (deepdiff) when both sides are JSON, and the constraint delta. When the content
is gone the digests still say whether the two sides are identical, and the constraint delta
falls back to the tokens kept on the digest rows.

``diff_runs`` matches two runs' handoffs on ``from → to`` and order and compares their digests,
so "did handoff 5 change between these two runs" is one call that needs no content.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import duckdb

from handoff.errors import ContentGone, HandoffNotFound, RunNotFound
from handoff.queries.db import query
from handoff.store.base import ObjectStore

_SIDES = {"in": "in", "input": "in", "out": "out", "output": "out"}
_WORDS = re.compile(r"\s+|[^\s]+")


@dataclass(frozen=True)
class SideRef:
    """One side of one handoff: ``hf-3:out``."""

    handoff_id: str
    side: str

    def __str__(self) -> str:
        return f"{self.handoff_id}:{self.side}"


@dataclass
class HandoffDiff:
    """The comparison of two handoff sides.

    ``format`` is ``"text"`` (``ops`` holds ``(tag, text)`` pairs, tag ``equal``/``delete``/
    ``insert``), ``"json"`` (``changes`` holds deepdiff's report) or ``"digest"`` when only the
    digests could be compared. ``lost`` and ``gained`` are ``{"class", "token", "text", "status"}``
    dicts, compared by meaning (:func:`~handoff.analysis.constraints.compare_constraints`); a
    ``changed`` one also has ``now``, the other side's token.
    """

    run_id: str
    a: SideRef
    b: SideRef
    a_sha256: str | None
    b_sha256: str | None
    format: str
    ops: list[tuple[str, str]] = field(default_factory=list)
    changes: dict[str, Any] = field(default_factory=dict)
    lost: list[dict[str, str]] = field(default_factory=list)
    gained: list[dict[str, str]] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        """Whether the two sides are byte-for-byte the same (by digest)."""
        return self.a_sha256 is not None and self.a_sha256 == self.b_sha256


def parse_side(spec: str, default: str) -> SideRef:
    """``"hf-3"`` -> ``SideRef("hf-3", default)``; ``"hf-3:in"`` -> ``SideRef("hf-3", "in")``."""
    handoff_id, sep, side = spec.partition(":")
    if not sep:
        return SideRef(handoff_id, default)
    if side not in _SIDES or not handoff_id:
        raise ValueError(f"bad handoff side {spec!r}: use HANDOFF_ID, HANDOFF_ID:in or HANDOFF_ID:out")
    return SideRef(handoff_id, _SIDES[side])


def word_diff(a: str, b: str) -> list[tuple[str, str]]:
    """Word-level diff of two texts as ``(tag, text)`` pairs; joining every non-insert text gives ``a``."""
    a_words, b_words = _WORDS.findall(a), _WORDS.findall(b)
    matcher = difflib.SequenceMatcher(None, a_words, b_words, autojunk=False)
    ops: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "delete", "replace"):
            ops.append(("equal" if tag == "equal" else "delete", "".join(a_words[i1:i2])))
        if tag in ("insert", "replace"):
            ops.append(("insert", "".join(b_words[j1:j2])))
    return [op for op in ops if op[1]]


def json_diff(a: Any, b: Any) -> dict[str, Any]:
    """deepdiff's structural report of ``a`` → ``b`` as plain JSON-able data (empty when equal)."""
    from deepdiff import DeepDiff

    return json.loads(DeepDiff(a, b, verbose_level=2).to_json())


def _as_json(data: bytes) -> tuple[bool, Any]:
    try:
        return True, json.loads(data)
    except ValueError:
        return False, None


def _digest_row(con: duckdb.DuckDBPyConnection, run_id: str, ref: SideRef) -> dict[str, Any]:
    from handoff.queries.runs import run_handoffs_sql, run_header

    side = "input" if ref.side == "in" else "output"
    source, params = run_handoffs_sql(run_id, run_header(con, run_id))
    rows = query(
        con,
        f"SELECT handoff_id, {side}_sha256 AS sha256, {side}_constraints AS tokens FROM {source}",
        params,
    )
    for row in rows:
        if row["handoff_id"] == ref.handoff_id:
            return row
    if not rows:
        raise RunNotFound(run_id)
    raise HandoffNotFound(run_id, ref.handoff_id)


def _delta(
    a_tokens: list[str], b_tokens: list[str], a_written: dict[str, str], b_written: dict[str, str]
) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """``(lost, gained)`` by :func:`~handoff.analysis.constraints.compare_constraints`, each way."""
    from handoff.analysis.constraints import compare_constraints

    def as_dicts(findings: list[Any], written: dict[str, str]) -> list[dict[str, str]]:
        order = {token: i for i, token in enumerate(written)}  # as written, first occurrence first
        findings = sorted(findings, key=lambda f: order.get(f.token, len(order)))
        return [
            {
                "class": f.token.split(":", 1)[0],
                "token": f.token,
                "text": written.get(f.token, f.token.split(":", 1)[1]),
            }
            | ({"status": "changed", "now": f.downstream} if f.status == "changed" else {"status": "lost"})
            for f in findings
        ]

    return (
        as_dicts(compare_constraints(a_tokens, b_tokens), a_written),
        as_dicts(compare_constraints(b_tokens, a_tokens), b_written),
    )


def constraint_delta(a_text: str, b_text: str) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """``(lost, gained)`` between two texts, compared by meaning, each constraint as written on its own side.

    ``status`` is ``lost``, or ``changed`` with ``now`` the other side's token for the fact.
    """
    from handoff.analysis.constraints import find_written, stored_tokens

    def written(text: str) -> dict[str, str]:
        found: dict[str, str] = {}
        for c in find_written(text):
            found.setdefault(c.token, c.text)
        return found

    return _delta(stored_tokens(a_text), stored_tokens(b_text), written(a_text), written(b_text))


def token_delta(a_tokens: list[str], b_tokens: list[str]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """``(lost, gained)`` from stored tokens alone (content gone): ``text`` is the normalized value."""
    return _delta(list(a_tokens or ()), list(b_tokens or ()), {}, {})


def diff_handoffs(
    store: ObjectStore, con: duckdb.DuckDBPyConnection, run_id: str, a: SideRef, b: SideRef
) -> HandoffDiff:
    """Compare side ``a`` with side ``b`` in one run; raise ``ContentGone`` only when nothing can be said."""
    from handoff.queries.content import fetch_content

    a_row, b_row = _digest_row(con, run_id, a), _digest_row(con, run_id, b)
    result = HandoffDiff(run_id, a, b, a_row["sha256"], b_row["sha256"], "digest")
    try:
        a_data = fetch_content(store, con, run_id, a.handoff_id, a.side)
        b_data = fetch_content(store, con, run_id, b.handoff_id, b.side)
    except ContentGone:
        result.lost, result.gained = token_delta(a_row["tokens"], b_row["tokens"])
        return result
    a_text, b_text = a_data.decode("utf-8", errors="replace"), b_data.decode("utf-8", errors="replace")
    result.lost, result.gained = constraint_delta(a_text, b_text)
    (a_is_json, a_value), (b_is_json, b_value) = _as_json(a_data), _as_json(b_data)
    if a_is_json and b_is_json:
        result.format, result.changes = "json", json_diff(a_value, b_value)
    else:
        result.format, result.ops = "text", word_diff(a_text, b_text)
    return result


@dataclass(frozen=True)
class EdgeComparison:
    """One handoff position matched across two runs (``from → to`` and its occurrence number)."""

    from_step: str | None
    to_step: str
    occurrence: int
    a_handoff_id: str | None
    b_handoff_id: str | None
    input: str
    output: str

    @property
    def status(self) -> str:
        """``same``, ``changed``, ``only in A`` or ``only in B``."""
        if self.a_handoff_id is None:
            return "only in B"
        if self.b_handoff_id is None:
            return "only in A"
        return "same" if self.input == self.output == "same" else "changed"


def _keyed(rows: list[dict[str, Any]]) -> dict[tuple, dict[str, Any]]:
    seen: Counter = Counter()
    keyed = {}
    for row in rows:
        pair = (row["from_step"], row["to_step"])
        seen[pair] += 1
        keyed[(*pair, seen[pair])] = row
    return keyed


def _run_rows(con: duckdb.DuckDBPyConnection, run_id: str) -> list[dict[str, Any]]:
    rows = query(
        con,
        "SELECT handoff_id, seq, from_step, to_step, input_sha256, output_sha256 FROM handoffs "
        "WHERE run_id = ? ORDER BY seq, handoff_id",
        [run_id],
    )
    if not rows:
        raise RunNotFound(run_id)
    return rows


def _same(a: dict[str, Any] | None, b: dict[str, Any] | None, column: str) -> str:
    if a is None or b is None:
        return "-"
    return "same" if a[column] == b[column] else "changed"


def diff_runs(con: duckdb.DuckDBPyConnection, run_a: str, run_b: str) -> list[EdgeComparison]:
    """Compare two runs handoff by handoff on digests: A's order first, then what only B has."""
    a_rows, b_rows = _keyed(_run_rows(con, run_a)), _keyed(_run_rows(con, run_b))
    keys = list(a_rows) + [key for key in b_rows if key not in a_rows]
    out = []
    for key in keys:
        a, b = a_rows.get(key), b_rows.get(key)
        out.append(
            EdgeComparison(
                key[0],
                key[1],
                key[2],
                a and a["handoff_id"],
                b and b["handoff_id"],
                _same(a, b, "input_sha256"),
                _same(a, b, "output_sha256"),
            )
        )
    return out
