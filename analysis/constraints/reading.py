"""How a text writes its numbers and dates: the conventions ambiguous spellings are read by.

``1.500`` is fifteen hundred in a German text and one and a half in an English one; ``01/04/2026``
is the 1st of April in a French text and January 4th in an American one. :func:`read_text` looks
at the unambiguous spellings of the whole text once (``612,5`` or ``1.850,00`` vote for a decimal
comma, ``2,450.00`` or ``2.40`` for a decimal point; ``31/03/2026`` for day first, ``03/31/2026``
for month first, then the order of named dates, then euro or pound amounts) and returns a
:class:`Reading` that every extractor then applies to the ambiguous ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from handoff.analysis.constraints.vocabulary import MONTH


@dataclass(frozen=True)
class Reading:
    """The conventions a text's ambiguous numbers and dates are read by."""

    decimal_comma: bool = False
    day_first: bool = False
    #: Nothing in the text fixes the order (no slashed date has a part above 12, none is dotted,
    #: named dates are not written more one way): a slashed ``12/03/2026`` states either reading.
    either_order: bool = False

    @property
    def key(self) -> str:
        """A short string naming this reading, unique per reading (the piece cache keys on it)."""
        order = "e" if self.either_order else "d" if self.day_first else "m"
        return f"{'c' if self.decimal_comma else 'p'}{order}\x00"


ENGLISH = Reading()

# A decimal comma: "612,5", "0,35 %", "1.850,00", "2 450,00"; not "3,4" in a list or a CSV row.
# A digit first, its look-behind after it, so `re` skips ahead to digits.
_COMMA_VOTES = re.compile(r"\d(?<![\w.,/:-]\d)(?:\d{0,2}(?:[. \u00a0\u202f]\d{3})+,\d+|\d*,\d{1,2})(?![\d,]|\.\d)")
# A decimal point: "2,450.00", "2.40", "0.35%"; not a version "3.18.2" or a dotted date.
_POINT_VOTES = re.compile(r"\d(?<![\w.,/:-]\d)(?:\d{0,2}(?:,\d{3})+\.\d+|\d*\.\d{1,2})(?![\d.,]|-\d)")
# A section number opening a line ("4.2 Planned maintenance") is layout, not a decimal.
_HEADING_NUMBERS = re.compile(r"^[ \t]*\d{1,2}\.\d{1,2}[ \t]+(?=[^\W\d_])", re.MULTILINE)
_SLASH_DATE = re.compile(r"(\d(?<![\w/.]\d)\d?)/(\d{1,2})/(?:\d{4}|\d{2})(?![\w/])")
_DOTTED_DATE = re.compile(r"\d(?<![\w.]\d)\d?\.\d{1,2}\.\d{4}(?![\w.])")
# Signs of a text written outside the US, where an undecided slashed date is read day first.
_DAY_FIRST_HINTS = ("€", "£", "EUR", "GBP")


@cache
def _named_orders() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """``(day month, month day)``: dates with a month name written day first ("11 March") and month first ("March 11")."""

    return (
        re.compile(rf"\d(?<![\w.]\d)\d?(?:st|nd|rd|th|\.)? (?:of |de )?{MONTH}"),
        re.compile(rf"{MONTH} \d{{1,2}}(?!\d)"),
    )


def _order_fixed(text: str, slashed: list[tuple[str, str]]) -> bool:
    """Whether ``text`` fixes the order of its slashed dates: a dotted date, more slashed dates with
    a part above 12 in one position than in the other, or more named dates in one order."""
    day_votes = sum(int(first) > 12 >= int(second) for first, second in slashed)
    month_votes = sum(int(second) > 12 >= int(first) for first, second in slashed)
    if day_votes != month_votes or _DOTTED_DATE.search(text):
        return True
    day_named, month_named = _named_orders()
    return len(day_named.findall(text)) != len(month_named.findall(text))


def _day_first(text: str, slashed: list[tuple[str, str]], decimal_comma: bool) -> bool:
    """Whether the slashed dates of ``text`` are day first: by their own values, then by the order of
    its named dates, then by where the text is from."""
    day_votes = sum(int(first) > 12 >= int(second) for first, second in slashed)
    month_votes = sum(int(second) > 12 >= int(first) for first, second in slashed)
    if day_votes == month_votes:
        day_named, month_named = _named_orders()
        day_votes, month_votes = len(day_named.findall(text)), len(month_named.findall(text))
    if day_votes != month_votes:
        return day_votes > month_votes
    return decimal_comma or bool(_DOTTED_DATE.search(text)) or any(hint in text for hint in _DAY_FIRST_HINTS)


# A number whose one mark is a dot before three digits ("1.200 kg", "100.000 m"): a thousands group in
# a text written in Spanish, French or German when none of its spellings decides the mark.
_DOT_GROUP = re.compile(r"\d(?<![\w.,]\d)\d{0,2}\.\d{3}(?![\d.,]|-\d)")
_WORD = re.compile(r"[^\W\d_]+")
_GROUPING_LANGUAGES = frozenset(("es", "fr", "de"))


# A clause number ("article 21.3", "§ 7.2") is no decimal either.
_CLAUSE_NUMBERS = re.compile(
    r"(?i:§|\b(?:art(?:icle|ículo|ikel)?s?\.?|clauses?|cláusulas?|sections?|sección|paragraphs?|abschnitt|ziffer))"
    r"[ \t]*\d{1,3}\.\d{1,2}(?![\d.,]|-\d)"
)


def _groups_with_dots(text: str) -> bool:
    """Whether ``text``, whose spellings leave the decimal mark open, is in a language that groups thousands with dots."""
    from handoff.analysis.constraints.meaning import detect_language

    return detect_language(_WORD.findall(text.lower())) in _GROUPING_LANGUAGES


def read_text(text: str) -> Reading:
    """The :class:`Reading` of ``text``: its decimal mark and its date order."""
    if not text:
        return ENGLISH
    comma_votes = len(_COMMA_VOTES.findall(text))
    point_votes = len(_POINT_VOTES.findall(text)) - len(_HEADING_NUMBERS.findall(text))
    if point_votes > 0 and ("§" in text or "." in text):
        point_votes = max(0, point_votes - len(_CLAUSE_NUMBERS.findall(text)))
    decimal_comma = bool(comma_votes) and comma_votes > point_votes
    if comma_votes == max(0, point_votes) and (comma_votes or _DOT_GROUP.search(text)):
        decimal_comma = _groups_with_dots(text)  # a tie, or nothing to go by: the text's language decides
    # without a slashed date the date order decides nothing
    slashed = _SLASH_DATE.findall(text) if "/" in text else []
    day_first = bool(slashed) and _day_first(text, slashed, decimal_comma)
    return Reading(decimal_comma, day_first, bool(slashed) and not _order_fixed(text, slashed))
