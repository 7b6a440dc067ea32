"""Run a slow pattern only around the places a cheap literal search points at.

Python's ``re`` scans at hundreds of MB/s for a literal but at a few MB/s for a case-insensitive
alternation or a pattern that starts with a lookbehind. Every cue pattern therefore has
keywords that any match must contain; :func:`windowed` finds them with ``str.find`` on the
lower-cased text and runs the pattern only in the merged windows around them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator


def aligned_lower(text: str) -> str:
    """``text`` in lower case, one character for one ("İ" lowers to two), so offsets line up with ``text``."""
    return text.lower() if "\u0130" not in text else text.replace("\u0130", "I").lower()  # the one such letter


def keyword_windows(
    lower: str,
    keywords: Iterable[str],
    before: int,
    after: int,
    text: str | None = None,
    line_bound: bool = False,
) -> list[tuple[int, int]]:
    """Merged (start, end) windows around every occurrence of ``keywords`` in ``lower``; given ``text``,
    only occurrences that begin a word there ("tel" in "tel:" and "homeTel", not in "hotel");
    ``line_bound``: each window ends at its keyword's line end, so a window never runs into the next
    line (which a caller cutting a window at its first line end would otherwise lose)."""
    spans = []
    for keyword in keywords:
        position = lower.find(keyword)
        while position >= 0:
            if text is not None and position and text[position - 1].isalpha() and not text[position].isupper():
                position = lower.find(keyword, position + 1)
                continue
            end = min(len(lower), position + len(keyword) + after)
            if line_bound:
                line_end = lower.find("\n", position + len(keyword), end)
                end = end if line_end < 0 else line_end
            spans.append((max(0, position - before), end))
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
    word_start: bool = False,
) -> Iterator[re.Match[str]]:
    """Matches of ``pattern`` in ``text`` that lie in windows around ``keywords`` (each match once);
    ``word_start``: only keywords that begin a word (for patterns that need a word boundary there)."""
    seen: set[tuple[int, int]] = set()
    for start, end in keyword_windows(lower, keywords, before, after, text if word_start else None):
        for match in pattern.finditer(text, start, end):
            if match.span() not in seen:
                seen.add(match.span())
                yield match
