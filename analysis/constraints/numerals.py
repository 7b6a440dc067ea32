"""Written numbers as values: ``"1.850,00"`` and ``"1,850.00"`` are 1850, ``1,500`` and ``1.500`` by the text's decimal mark."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from handoff.analysis.constraints.tokens import Found, make_found

_GROUP_SPACES = re.compile(r"[ \u00a0\u202f'’]")


def parse_number(raw: str, decimal_comma: bool) -> Decimal | None:
    """The value of a written number: ``"1.850,00"`` -> 1850.00, ``"2 450"`` -> 2450, ``"1.500"`` by the reading.

    A spelling that says its own decimal mark (both marks, several of one, or a mark not
    followed by three digits) is read that way whatever the reading; ``1,500`` and ``1.500`` are
    read by ``decimal_comma``.
    """
    if raw.isdigit():
        return Decimal(raw)
    digits = _GROUP_SPACES.sub("", raw) if not raw.isascii() or " " in raw or "'" in raw else raw
    comma, point = digits.rfind(","), digits.rfind(".")
    if comma != -1 and point != -1:
        mark = "," if comma > point else "."
    elif comma == -1 and point == -1:
        mark = None
    else:
        mark = "," if comma != -1 else "."
        groups = digits.split(mark)
        grouped = len(groups[0]) <= 3 and groups[0][:1] != "0" and all(len(g) == 3 for g in groups[1:])
        if len(groups) > 2 or (grouped and decimal_comma == (mark == ".")):
            digits = digits.replace(mark, "") if grouped else ""  # the mark groups thousands
            mark = None
    if mark is not None:
        group = "." if mark == "," else ","
        whole, _, fraction = digits.rpartition(mark)
        digits = whole.replace(group, "") + "." + fraction
    try:
        return Decimal(digits)
    except InvalidOperation:
        return None


# A unit price is written to the tenth of a cent ("£1.742 per m³", "$3.459/gal", "from £1.742 to £1.831 per
# m³"): its single mark before three digits is the text's decimal mark, not a thousands group. A price per
# period ("EUR 1.500 per month") is not one.
_UNIT_PRICE_AFTER = re.compile(
    r"(?:[ \t]*(?:to|–|-|and)[ \t]*(?:[A-Z]{3}[ \t]?)?[$€£¥]?[\d.,]+)?[ \t]*(?:/[ \t]?|per[ \t]+)"
    r"(?!(?:months?|mo|years?|yr|annum|weeks?|wk|days?|nights?|hours?|hr|h|quarters?|person|head)\b)[^\W\d_]"
)


def unit_price(text: str, end: int, decimal_comma: bool) -> bool:
    """Whether the amount ending at ``end`` is a unit price in a text with a decimal point."""
    return not decimal_comma and _UNIT_PRICE_AFTER.match(text, end) is not None


def plain_number(value: Decimal) -> str:
    """``Decimal("1850.00")`` -> ``"1850"``, ``Decimal("9.50")`` -> ``"9.5"``: no exponent, no trailing zeros."""
    text = f"{value:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


# Scientific notation: 2.4e-4, 3.2E-05, 2.4×10⁻⁴, 1.5 x 10^-3, 6.02·10**23 (not "10-4": a range).
_MAX_EXPONENT = 30  # beyond any quantity a handoff states (Avogadro's number is 6.02×10²³)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺−", "0123456789-+-")
# The first digit before its look-behind, so `re` skips ahead to digits.
SCIENTIFIC = re.compile(
    r"(?P<m>\d(?<![\w.,]\d)\d{0,2}(?:\.\d+)?)"
    r"(?:[eE](?P<e>[-+−]?\d{1,3})|[ \t]?[×xX·*][ \t]?10(?:(?:\^|\*\*)(?P<s>[-+−]?\d{1,3})|(?P<u>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})))"
    r"(?![\w]|[.,]\d)"
)


# What every :data:`SCIENTIFIC` match holds: an exponent's "e" between digits, or a "× 10". Each is
# looked for from its rarer mark, so a text without one (an invoice table) is not scanned at each digit.
_EXPONENT = re.compile(r"[eE](?<=\d[eE])[-+−]?\d")
_TIMES_TEN = re.compile(r"[×xX·*](?=[ \t]?10)")


def needs_scientific(text: str) -> bool:
    """Whether ``text`` holds what every :data:`SCIENTIFIC` match holds (an extractor's prefilter)."""
    return _EXPONENT.search(text) is not None or _TIMES_TEN.search(text) is not None


def scientific(m: re.Match[str], text: str, reading: object) -> list[Found]:
    """A :data:`SCIENTIFIC` match as its plain number (an extractor's builder): ``2.4e-4`` and
    ``2.4×10⁻⁴`` -> ``number:0.00024``."""
    exponent = (m["e"] or m["s"] or m["u"]).translate(_SUPERSCRIPTS)
    if abs(int(exponent)) > _MAX_EXPONENT:  # the pattern holds only a sign and digits
        return []  # "1e999" from a hostile payload would be a 1,000-digit token
    return [make_found("number", plain_number(Decimal(m["m"]).scaleb(int(exponent))), m.start(), m.end())]
