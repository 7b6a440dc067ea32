"""List items: each item of an enumeration the consumer must carry in full is one constraint.

An enumeration is a run of items marked ``(1) … (2) …`` / ``(a) … (b) …`` inside a sentence, or
of short lines starting with a bullet or a number (``- ``, ``* ``, ``• ``, ``1.``, ``2)``,
``(c)``) under a line ending in ``:``. Each item becomes ``list_item:<its first content words>``
(lower-cased, at most :data:`ITEM_WORDS`), compared by meaning: an item is carried when most of
its content words reach the downstream text (see :mod:`~handoff.analysis.constraints.compare`),
so renumbering, reordering and bullets turned into prose lose nothing, and dropping one
exception of five loses that one.

Items are found on the whole text, not through the piece cache: a bullet list spans lines.
"""

from __future__ import annotations

import re

from handoff.analysis.constraints.tokens import Constraint

ITEM_WORDS = 6
# Lines longer than this are statements in a list's clothing, not items a consumer must carry.
_ITEM_MAX_WORDS = 14
# "(" at the text's start or after a blank; matched first, so `re` skips ahead to parentheses.
_INLINE_MARK = re.compile(r"\((?<!\S\()(?:\d{1,2}|[a-z]|[ivx]{1,4})\)\s+")
_LINE_MARK = re.compile(r"^[ \t]*(?:[-*•–]|\d{1,2}[.)]|\((?:\d{1,2}|[a-z]|[ivx]{1,4})\))[ \t]+(?=\S)", re.MULTILINE)
_ITEM_END = re.compile(r"[;.](?=\s|$)|,?\s+(?:and|or)\s+(?=\()|\n")
_SEGMENT = r"[^,;:.\n\[\]\"(){}]{2,60}"
_SERIES = re.compile(
    rf"\[\s*\"?{_SEGMENT}\"?(?:\s*,\s*\"?{_SEGMENT}\"?)+\s*\]"  # ["a", "b"] or [a, b]
    # The first comma written out (not as the first of "(?:,\s*seg)+"): a literal right after a
    # segment lets `re` step back to commas only when a segment falls short. After it, a look-ahead
    # for the "and"/"or" to come (no mark a series cannot hold before it) spares trying every
    # length of the next segments where none comes, as after each comma of a JSON schema.
    rf"|(?<=[:\s]){_SEGMENT},(?=[^;:.\[\]\"(){{}}]*?\s(?:and|or)\s)\s*{_SEGMENT}(?:,\s*{_SEGMENT})*"
    rf",?\s+(?:and|or)\s+{_SEGMENT}"
)
# What every match of :data:`_SERIES` holds: a "[" or an "and"/"or" between blanks. A text without
# either (an invoice table) skips the series scan, which tries every word start.
_SERIES_CUE = re.compile(r"\s(?:and|or)\s")
_SERIES_SPLIT = re.compile(r'\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or)\s+)\s*|["\[\]]')
# A part that opens with one of these is a clause of a sentence, not an item of a list.
_CLAUSE_OPENERS = frozenset(
    "if because when while which that then until unless and but so we it is are was were as since".split()
)
_SERIES_ITEM_WORDS = 8
_LABELLED = re.compile(r"[^:\n]{1,40}:\s")
_WORD = re.compile(r"[^\W_][\w’'./-]*")


def _item(text: str, start: int, end: int, max_words: int = _ITEM_MAX_WORDS) -> Constraint | None:
    """The item written in ``text[start:end]``, trimmed of a trailing ``, and`` and punctuation."""
    raw = text[start:end]
    start += len(raw) - len(raw.lstrip())
    body = raw.strip().rstrip(" \t,;.:")
    body = re.sub(r"[,;]?\s+(?:and|or)$", "", body)
    words = [w.lower().rstrip(".") for w in _WORD.findall(body)]
    if not words or len(words) > max_words or words[0] in _CLAUSE_OPENERS:
        return None
    if not any(w.isalpha() and len(w) > 2 for w in words):  # a value or an id alone is its own constraint
        return None
    value = " ".join(words[:ITEM_WORDS])
    return Constraint("list_item", f"list_item:{value}", body, start, start + len(body))


def _inline_items(text: str) -> list[Constraint]:
    """Items of ``(1) … (2) …`` enumerations inside sentences (two markers at least)."""
    found: list[Constraint] = []
    marks = list(_INLINE_MARK.finditer(text))
    for i, mark in enumerate(marks):
        following = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        previous_near = i > 0 and "\n" not in text[marks[i - 1].end() : mark.start()]
        next_near = i + 1 < len(marks) and "\n" not in text[mark.end() : following]
        if not (previous_near or next_near) or text[mark.start() - 1 : mark.start()] == "\n":
            continue
        stop = _ITEM_END.search(text, mark.end(), following)
        item = _item(text, mark.end(), stop.start() if stop else following)
        if item is not None:
            found.append(item)
    return found


def _line_items(text: str) -> list[Constraint]:
    """Items of runs of two or more bullet or numbered lines."""
    found: list[Constraint] = []
    run: list[Constraint] = []
    pos = 0
    for line in [*text.splitlines(keepends=True), ""]:
        mark = _LINE_MARK.match(line)
        if mark and _LABELLED.match(line, mark.end()):  # "- Subtotal: $172,000" states a fact, not an item
            mark = None
        item = _item(text, pos + mark.end(), pos + len(line.rstrip("\r\n"))) if mark else None
        if item is not None:
            run.append(item)
        elif mark is None and line.strip() or not line:
            found += run if len(run) > 1 else []
            run = []
        pos += len(line)
    return found


def _series_items(text: str) -> list[Constraint]:
    """Items of ``a, b, and c`` series (three or more) and of ``[a, b]`` lists (two or more)."""
    found: list[Constraint] = []
    if "[" not in text and not _SERIES_CUE.search(text):
        return found
    for m in _SERIES.finditer(text):
        cuts = [m.start(), *(i for c in _SERIES_SPLIT.finditer(text, m.start(), m.end()) for i in c.span()), m.end()]
        parts = [(start, end) for start, end in zip(cuts[::2], cuts[1::2]) if text[start:end].strip()]
        if len(parts) > 1 and not m.group().startswith("["):
            parts[0] = _trim_lead_in(text, *parts[0], max(len(_WORD.findall(text[a:b])) for a, b in parts[1:]))
        items = [_item(text, start, end, _SERIES_ITEM_WORDS) for start, end in parts]
        if len(items) >= (2 if m.group().startswith("[") else 3) and all(items):
            found += items
    return found


def _trim_lead_in(text: str, start: int, end: int, words: int) -> tuple[int, int]:
    """The first part of a series without the sentence that leads into it: its last ``words`` words."""
    found = list(_WORD.finditer(text, start, end))
    return (found[-words].start(), end) if len(found) > words else (start, end)


def find_items(text: str) -> list[Constraint]:
    """Every list item of ``text``, in text order."""
    found = {c.start: c for c in _line_items(text)}
    for item in [*_inline_items(text), *_series_items(text)]:
        found.setdefault(item.start, item)
    return [found[start] for start in sorted(found)]
