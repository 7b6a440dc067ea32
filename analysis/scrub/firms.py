"""Firms named after people: what follows a name that makes the phrase a company ("Ncube & Partners",
"Hartmann & Söhne GmbH", "Weiß Hausverwaltung e.K.")."""

from __future__ import annotations

import re

from handoff.analysis.scrub.gazetteer import fold
from handoff.analysis.scrub.vocabulary import BUSINESS_WORDS

_FIRM_AFTER = re.compile(r"[ \t,]*(?:&|\+|e\.\s?[KV]\.|(?P<word>[\w.]+))")


def firm_after(text: str, end: int) -> bool:
    """Whether a company form or an ampersand follows ``end`` ("Weiß Hausverwaltung e.K.", "Ncube & Partners")."""
    match = _FIRM_AFTER.match(text, end, end + 24)
    if match is None:
        return False
    word = match.group("word")
    return word is None or fold(word.rstrip(".")) in BUSINESS_WORDS


# What a firm's name goes on with after its founder's: "& Söhne GmbH", "and Sons Ltd", "& Partners".
_FIRM_TAIL = re.compile(r"[ \t]*(?:&|\+|and|und|e|y)[ \t]+(?P<words>(?:[\w.']+[ \t]*){1,3})", re.IGNORECASE)
_KIN_FIRMS = frozenset(
    "sons söhne sohne sohn fils figli figlio hijos filhos zonen brothers bros gebrüder frères".split()
)


def firm_named_after(text: str, end: int) -> bool:
    """Whether a company form follows ``end`` at once, or after an ampersand within three words
    ("Hartmann & Söhne GmbH", "Ncube & Partners"), unlike "Ana & Luis Ruiz"."""
    match = _FIRM_AFTER.match(text, end, end + 24)
    if match is None:
        return False
    word = match.group("word")
    if word is not None:
        return fold(word.rstrip(".")) in BUSINESS_WORDS and not word[:1].islower()
    tail = _FIRM_TAIL.match(text, end, end + 48)
    words = [fold(w.rstrip(".,")) for w in tail.group("words").split()] if tail else []
    return any(w in BUSINESS_WORDS or w in _KIN_FIRMS for w in words)
