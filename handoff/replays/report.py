"""The replay report: what N replays of one handoff kept of what the original lost.

Which constraints the original lost comes from the constraint checks
(:func:`handoff.queries.checks.run_checks`: a transform's own input → output, otherwise the edge
into the step) and how each was written from :class:`handoff.queries.checks.UpstreamTexts`.
Whether a replay kept one is the library's comparison too
(:func:`handoff.analysis.constraints.lost_constraints` of the same upstream text against the
replay's output), so the report follows the checker wherever it goes.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from handoff.replays.calls import ReplayCall

#: A scrubbed value's pseudonym, as the scrubber writes it: ``<EMAIL_ADDRESS:3f2a1c>``.
PSEUDONYM = re.compile(r"<[A-Z][A-Z0-9_]*:[0-9a-f]{6}>")


@dataclass(frozen=True)
class KeptConstraint:
    """One constraint the original handoff lost, and in how many replays the output kept it."""

    token: str
    constraint_class: str
    text: str
    kept: int

    def to_dict(self) -> dict[str, Any]:
        """``{"token", "class", "text", "kept"}``."""
        return {"token": self.token, "class": self.constraint_class, "text": self.text, "kept": self.kept}


@dataclass(frozen=True)
class ReplayReport:
    """What ``handoff replay`` found: the replays' outputs scored against what the original lost.

    ``replays`` calls ran (``ok`` of them returned); ``distinct_outputs`` counts different output
    digests among those; ``original_reproduced`` how many equal the original output by digest;
    ``errors`` counts exceptions by type; ``pseudonyms`` the distinct pseudonyms in the replayed
    (stored, scrubbed) input.
    """

    run_id: str
    handoff_id: str
    step: str
    replays: int
    replay_run_id: str
    target: str
    ok: int
    distinct_outputs: int
    original_reproduced: int
    errors: dict[str, int]
    constraints: list[KeptConstraint]
    pseudonyms: int
    model: str | None = None
    replay_handoff_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The report as one JSON-able object (what ``handoff replay --json`` prints)."""
        return {
            "run_id": self.run_id,
            "handoff_id": self.handoff_id,
            "step": self.step,
            "replays": self.replays,
            "replay_run_id": self.replay_run_id,
            "target": self.target,
            "model": self.model,
            "ok": self.ok,
            "distinct_outputs": self.distinct_outputs,
            "original_reproduced": self.original_reproduced,
            "errors": dict(self.errors),
            "pseudonyms": self.pseudonyms,
            "constraints": [item.to_dict() for item in self.constraints],
            "replay_handoff_ids": list(self.replay_handoff_ids),
        }


@dataclass(frozen=True)
class LostConstraint:
    """A constraint the original lost: its token, class, how it was written, and the text it was upstream in."""

    token: str
    constraint_class: str
    text: str
    upstream: str


def count_pseudonyms(data: bytes) -> int:
    """The number of distinct pseudonyms in ``data``."""
    return len(set(PSEUDONYM.findall(data.decode("utf-8", errors="replace"))))


def kept_counts(lost: list[LostConstraint], calls: list[ReplayCall]) -> list[KeptConstraint]:
    """For each lost constraint, in how many of the calls that returned the output kept it."""
    from handoff.analysis.constraints import lost_constraints

    outputs = [call.output.decode("utf-8", errors="replace") for call in calls if call.ok and call.output is not None]
    by_upstream: dict[str, list[LostConstraint]] = {}
    for item in lost:
        by_upstream.setdefault(item.upstream, []).append(item)
    counts: Counter[str] = Counter()
    for upstream, items in by_upstream.items():
        for output in outputs:
            dropped = {finding.token for finding in lost_constraints(upstream, output)}
            counts.update(item.token for item in items if item.token not in dropped)
    return [KeptConstraint(item.token, item.constraint_class, item.text, counts[item.token]) for item in lost]


def output_figures(calls: list[ReplayCall], original_sha256: str | None) -> tuple[int, int, int, dict[str, int]]:
    """``(ok, distinct outputs, outputs equal to the original, errors by type)`` of the calls."""
    digests = [call.output_sha256 for call in calls if call.ok]
    errors = Counter(call.error_type for call in calls if not call.ok)
    reproduced = sum(1 for digest in digests if original_sha256 is not None and digest == original_sha256)
    return len(digests), len(set(digests)), reproduced, dict(sorted(errors.items()))
