"""Firms named after people: what follows a name that makes the phrase a company ("Ncube & Partners",
"Hartmann & Söhne GmbH", "Weiß Hausverwaltung e.K.")."""

from __future__ import annotations

import re

from handoff.analysis.scrub.cues import PLACE_PREFIXES
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


_CAMEL = re.compile(r"[A-Z][a-zà-ÿ]{3,}[A-Z]")
_TICKER_AFTER = re.compile(r"[ \t]*\([A-Z][A-Z.]{0,6}\)")
# "Spencer Wells forceps", "Asperger syndrome", "Glasgow Coma Scale": a name before such a noun names a thing
_EPONYM_AFTER = re.compile(
    r"[ \t]+(?:forceps|retractor|clamp|syndrome|disease|test|method|scale|index|effect|law|principle|equation|"
    r"algorithm|curve|procedure|manoeuvre|maneuver|sign|reflex|classification|criteria|score)\b"
)
_VINTAGE_AFTER = re.compile(r"[ \t]+(?:19|20)\d\d\b(?![\-/.:]\d)")  # "Dom Pérignon 2013": a vintage or model year


def thing_shaped(text: str, start: int, end: int) -> bool:
    """Whether a gazetteer-only name is rather a place ("Santa Clara"), a product ("Abbott FreeStyle
    Libre", "Dom Pérignon 2013"), a listed company ("Eli Lilly (LLY)") or an eponym ("Spencer Wells forceps")."""
    phrase = text[start:end]
    if any(fold(w) in PLACE_PREFIXES for w in re.split(r"[\s\-.]+", phrase)):
        return True
    if any(_CAMEL.search(w) for w in phrase.split()):
        return True
    return any(after.match(text, end) is not None for after in (_TICKER_AFTER, _VINTAGE_AFTER, _EPONYM_AFTER))
