"""What the scrubber reports: :class:`Finding` (one detected value) and :class:`ScrubError`."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any, NamedTuple


class ScrubError(Exception):
    """Scrubbing failed for a payload: the caller must withhold the content, never store it raw."""


class Finding(NamedTuple):
    """One detected value: its entity type, character span, score, the recognizer that found it and the text."""

    entity: str
    start: int
    end: int
    score: float
    recognizer: str
    text: str


def shifted(findings: Iterable[Finding], offset: int) -> list[Finding]:
    return [Finding(f.entity, f.start + offset, f.end + offset, f.score, f.recognizer, f.text) for f in findings]


def without_overlaps(findings: list[Finding]) -> list[Finding]:
    """Keep the strongest of overlapping findings (score, then length), in text order."""
    ranked = sorted(findings, key=lambda f: (-f.score, -(f.end - f.start), f.start))
    starts: list[int] = []
    kept: list[Finding] = []
    for finding in ranked:
        index = bisect.bisect_left(starts, finding.start)
        clashes_before = index > 0 and kept[index - 1].end > finding.start
        clashes_after = index < len(kept) and kept[index].start < finding.end
        if not (clashes_before or clashes_after):
            starts.insert(index, finding.start)
            kept.insert(index, finding)
    return kept


def to_finding(result: Any, text: str) -> Finding:
    metadata = result.recognition_metadata or {}
    recognizer = metadata.get("recognizer_name") or type(result).__name__
    return Finding(
        result.entity_type,
        result.start,
        result.end,
        round(result.score, 2),
        recognizer,
        text[result.start : result.end],
    )
