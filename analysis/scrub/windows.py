"""Run a slow pattern only around the places a cheap literal search points at.

Python's ``re`` scans at hundreds of MB/s for a literal but at a few MB/s for a case-insensitive
alternation or a pattern that starts with a lookbehind. Every cue pattern therefore has
keywords that any match must contain; :func:`windowed` finds them with ``str.find`` on the
lower-cased text and runs the pattern only in the merged windows around them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator


def keyword_windows(lower: str, keywords: Iterable[str], before: int, after: int) -> list[tuple[int, int]]:
    """Merged (start, end) windows around every occurrence of ``keywords`` in ``lower``."""
    spans = []
    for keyword in keywords:
        position = lower.find(keyword)
        while position >= 0:
            spans.append(
                (
                    max(0, position - before),
                    min(len(lower), position + len(keyword) + after),
                )
            )
            position = lower.find(keyword, position + 1)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def windowed(
    pattern: re.Pattern[str],
    text: str,
    lower: str,
    keywords: Iterable[str],
    before: int = 0,
    after: int = 160,
) -> Iterator[re.Match[str]]:
    """Matches of ``pattern`` in ``text`` that lie in windows around ``keywords`` (each match once)."""
    seen: set[tuple[int, int]] = set()
    for start, end in keyword_windows(lower, keywords, before, after):
        for match in pattern.finditer(text, start, end):
            if match.span() not in seen:
                seen.add(match.span())
                yield match
