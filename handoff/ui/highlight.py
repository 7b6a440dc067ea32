"""Pieces of text with the lost constraints marked, for templates that escape every piece."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Equal stretches of a diff longer than this are folded (shown on demand) around their edges.
FOLD_CHARS = 600
FOLD_KEEP = 200


def mark_texts(text: str, needles: Iterable[str]) -> list[tuple[bool, str]]:
    """Split ``text`` into ``(marked, piece)`` pairs, ``marked`` where a needle occurs (longest needle first).

    Joining every piece gives ``text`` back; empty needles are ignored and matching is exact.
    """
    wanted = sorted({n for n in needles if n}, key=len, reverse=True)
    if not wanted or not text:
        return [(False, text)] if text else []
    pattern = re.compile("|".join(re.escape(n) for n in wanted))
    pieces: list[tuple[bool, str]] = []
    last = 0
    for match in pattern.finditer(text):
        if match.start() > last:
            pieces.append((False, text[last : match.start()]))
        pieces.append((True, match.group(0)))
        last = match.end()
    if last < len(text):
        pieces.append((False, text[last:]))
    return pieces


def fold(text: str, *, limit: int = FOLD_CHARS, keep: int = FOLD_KEEP) -> tuple[str, str, str]:
    """``(head, hidden, tail)`` of an unchanged stretch: ``hidden`` is empty when the text is short."""
    if len(text) <= limit:
        return text, "", ""
    return text[:keep], text[keep:-keep], text[-keep:]
