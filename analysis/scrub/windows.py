"""Run a slow pattern only around the places a cheap literal search points at.

Python's ``re`` scans at hundreds of MB/s for a literal but at a few MB/s for a case-insensitive
alternation or a pattern that starts with a lookbehind. Every cue pattern therefore has
keywords that any match must contain; :func:`windowed` finds them all in one Aho-Corasick pass over
the lower-cased text and runs the pattern only in the merged windows around them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

import ahocorasick_rs


def aligned_lower(text: str) -> str:
    """``text`` in lower case, one character for one ("İ" lowers to two), so offsets line up with ``text``."""
    return text.lower() if "\u0130" not in text else text.replace("\u0130", "I").lower()  # the one such letter


# The only characters that a case-insensitive ``re`` pattern of ASCII letters matches and that are no
# ASCII letter themselves ("ſ" matches "s", the Kelvin sign "k", dotted and dotless i "i"), or whose
# lower case is ASCII or longer than one character; every other character lowers to an ASCII letter
# exactly when it is one. Text without them can be searched for ASCII words with ``str.find`` on its
# lower case, with the result ``(?i:word)`` gives.
_ASCII_FOLDS = re.compile("[\u0130\u0131\u017f\u212a]")


def ascii_folded(text: str) -> str | None:
    """``text`` in lower case when that finds exactly what a case-insensitive ASCII pattern finds (see
    ``_ASCII_FOLDS``), offsets unchanged; else None."""
    return text.lower() if text.isascii() or _ASCII_FOLDS.search(text) is None else None


def line_starts_with(lower: str, words: Iterable[str]) -> list[int]:
    """The sorted start offsets of the lines of ``lower`` (split on ``\\n``) that hold any of ``words``."""
    found: set[int] = set()
    for word in words:
        position = lower.find(word)
        while position >= 0:
            found.add(lower.rfind("\n", 0, position) + 1)
            line_end = lower.find("\n", position)
            if line_end < 0:
                break
            position = lower.find(word, line_end + 1)
    return sorted(found)


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
    for position, keyword_end in occurrences(lower, tuple(keywords)):
        if text is not None and position and text[position - 1].isalpha() and not text[position].isupper():
            continue
        end = min(len(lower), keyword_end + after)
        if line_bound:
            line_end = lower.find("\n", keyword_end, end)
            end = end if line_end < 0 else line_end
        spans.append((max(0, position - before), end))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def occurrences(lower: str, keywords: tuple[str, ...]) -> list[tuple[int, int]]:
    """(start, end) of every occurrence of every keyword in ``lower``, overlapping ones too, in no order.

    One Aho-Corasick pass over the text: a ``str.find`` loop per keyword scans the text once per
    keyword, and the cue lists hold hundreds (about 2 ms per 20 KB batch for one list, 0.15 here).
    """
    if not keywords:
        return []
    if not all(keywords):  # the automaton refuses an empty keyword (which occurs everywhere, as str.find has it)
        return _found_by_find(lower, keywords)
    try:
        matches = _automaton(keywords).find_matches_as_indexes(lower, overlapping=True)
    except UnicodeEncodeError:  # a lone surrogate (bytes decoded with surrogateescape): the same, by find loops
        return _found_by_find(lower, keywords)
    return [(start, end) for _index, start, end in matches]


def _found_by_find(lower: str, keywords: tuple[str, ...]) -> list[tuple[int, int]]:
    """:func:`occurrences` by a ``str.find`` loop per keyword."""
    found = []
    for keyword in keywords:
        position = lower.find(keyword)
        while position >= 0:
            found.append((position, position + len(keyword)))
            position = lower.find(keyword, position + 1)
    return found


def holds_any(lower: str, keywords: tuple[str, ...]) -> bool:
    """Whether any of ``keywords`` (none empty) occurs in ``lower``, in one Aho-Corasick pass."""
    try:
        return bool(_automaton(keywords).find_matches_as_indexes(lower))
    except UnicodeEncodeError:  # a lone surrogate: the automaton cannot encode it
        return any(keyword in lower for keyword in keywords)


@functools.lru_cache(maxsize=256)
def _automaton(keywords: tuple[str, ...]) -> ahocorasick_rs.AhoCorasick:
    # Standard match kind with overlapping matches: every occurrence of every keyword, like find loops.
    return ahocorasick_rs.AhoCorasick(list(dict.fromkeys(keywords)), matchkind=ahocorasick_rs.MatchKind.Standard)


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
