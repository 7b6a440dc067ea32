"""The atomic extractors: one regex and one builder per way a constraint can be written.

:data:`EXTRACTORS` lists them in priority order: a span taken by an earlier extractor is not
matched again by a later one, so the digits of a date, an amount or an identifier never also
count as a bare number. Each builder turns a match into ``(class, token, start, end)`` tuples
(:data:`~handoff.analysis.constraints.tokens.Found`), normalizing the value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal, InvalidOperation

from handoff.analysis.constraints.tokens import Found, make_found, norm_number
from handoff.analysis.constraints.vocabulary import (
    ARTICLES,
    CLAUSE_KINDS,
    CLAUSE_REF,
    CURRENCY_CODES,
    CURRENCY_SYMBOLS,
    CURRENCY_WORDS,
    EU_AMOUNT,
    FILLER_WORDS,
    MONTH,
    MONTHS,
    MULT,
    MULT_BODY,
    MULTIPLIERS,
    NUM,
    STOP_WORDS,
    TIME_ZONES,
    UNIT_ALT,
    UNIT_FORMS,
    US_AMOUNT,
)
from handoff.analysis.constraints.windows import Gate


def _money_value(raw: str, code: str, multiplier: int) -> str | None:
    """Parse an amount written US style (or EU style for euros) into ``"<CODE><amount .2f>"``."""
    if code == "EUR" and EU_AMOUNT.fullmatch(raw) and not US_AMOUNT.fullmatch(raw):
        raw = raw.replace(".", "").replace(",", ".")
    elif code == "EUR" and re.fullmatch(r"\d{1,3}(?:\.\d{3})+", raw):
        raw = raw.replace(".", "")
    elif not US_AMOUNT.fullmatch(raw):
        return None
    try:
        return f"{code}{Decimal(raw.replace(',', '')) * multiplier:.2f}"
    except InvalidOperation:
        return None


def _multiplier(m: re.Match[str]) -> int:
    word = m["mult"] or m["multw"]
    return MULTIPLIERS[word] if word else 1


def _money_symbol(m: re.Match[str], text: str) -> list[Found]:
    start = m.start() - 2 if text[max(m.start() - 2, 0) : m.start()] == "US" else m.start()
    value = _money_value(m["num"], CURRENCY_SYMBOLS[m["sym"]], _multiplier(m))
    return [make_found("money", value, start, m.end())] if value else []


def _money_code(m: re.Match[str], text: str) -> list[Found]:
    if m.start() and text[m.start() - 1].isalnum():
        return []
    value = _money_value(m["num"], m["code"], _multiplier(m))
    return [make_found("money", value, m.start(), m.end())] if value else []


def _money_suffix(m: re.Match[str], text: str) -> list[Found]:
    code = CURRENCY_WORDS.get(m["code"].lower(), m["code"])
    value = _money_value(m["num"], code, _multiplier(m))
    return [make_found("money", value, m.start(), m.end())] if value else []


def _percent(m: re.Match[str], text: str) -> list[Found]:
    return [make_found("percent", norm_number(m["num"]), m.start(), m.end())]


def _date_value(year: int | None, month: int, day: int | None) -> str | None:
    """ISO form of a full date, ``YYYY-MM`` without a day, ``--MM-DD`` without a year."""
    try:
        date(year or 2000, month, day or 1)
    except ValueError:
        return None
    if year is None:
        return f"--{month:02d}-{day:02d}"
    return f"{year:04d}-{month:02d}" if day is None else f"{year:04d}-{month:02d}-{day:02d}"


def _date_emit(m: re.Match[str], text: str, year: str | None, month: int, day: str | None) -> list[Found]:
    value = _date_value(int(year) if year else None, month, int(day) if day else None)
    return [make_found("date", value, m.start(), m.end())] if value else []


def _date_numeric(m: re.Match[str], text: str) -> list[Found]:
    if len(m["a"]) == 4 and len(m["c"]) <= 2:
        return _date_emit(m, text, m["a"], int(m["b"]), m["c"])
    if len(m["a"]) <= 2 and len(m["c"]) == 4:
        return _date_emit(m, text, m["c"], int(m["a"]), m["b"])
    return []


def _date_named(m: re.Match[str], text: str) -> list[Found]:
    month = MONTHS.get(m["mon"][:3].lower())  # the pattern pairs letters loosely: "Man" is no month
    return _date_emit(m, text, m["y"] or m["y2"], month, m["d"]) if month else []


def _time(m: re.Match[str], text: str) -> list[Found]:
    hour, minute, second = int(m["h"]), int(m["mi"] or 0), int(m["s"] or 0)
    half = (m["ap"] or m["ap2"] or "").lower()
    if (half and not 1 <= hour <= 12) or hour > 23:
        return []
    if half:
        hour = hour % 12 + (12 if half == "p" else 0)
    value = f"{hour:02d}:{minute:02d}" + (f":{second:02d}" if second else "") + _zone(m["tz"])
    return [make_found("time", value, m.start(), m.end())]


def _zone(raw: str | None) -> str:
    """``UTC``/``GMT``/``Z``/``+00:00`` -> ``Z``; ``+0100`` -> ``+01:00``; names kept upper-case."""
    if not raw:
        return ""
    if raw[0] in "+-":
        digits = raw[1:].replace(":", "")
        offset = f"{raw[0]}{digits[:2]}:{digits[2:]}"
        return "Z" if offset in ("+00:00", "-00:00") else offset
    return "Z" if raw in ("UTC", "GMT", "Z") else raw


def _clause_keyword(m: re.Match[str], text: str) -> list[Found]:
    keyword = m["kw"].lower().rstrip(".")
    prefix = CLAUSE_KINDS.get(keyword.rstrip("s"), "")
    if not prefix and not m["ref"][0].isdigit():
        return []  # "Section IV" is only found near digits: leave it out rather than find it by chance
    found = [make_found("clause", prefix + m["ref"].lower(), m.start(), m.end())]
    if keyword.endswith("s") or keyword in ("§§", "¶¶"):
        found += _clause_list(text, m.end(), prefix)
    return found


def _clause_list(text: str, pos: int, prefix: str) -> list[Found]:
    """Further references after a plural keyword: ``sections 4.1, 4.2 and 4.3``."""
    found = []
    while more := _CLAUSE_MORE.match(text, pos):
        found.append(make_found("clause", prefix + more["ref"].lower(), more.start("ref"), more.end()))
        pos = more.end()
    return found


def _clause_bare(m: re.Match[str], text: str) -> list[Found]:
    return [make_found("clause", m.group().lower(), m.start(), m.end())]


def _unit(m: re.Match[str], text: str) -> list[Found]:
    value = norm_number(m["num"])
    singular, plural = UNIT_FORMS[m["unit"]]
    return [make_found("unit", f"{value} {singular if value == '1' else plural}", m.start(), m.end())]


def _id_hex(m: re.Match[str], text: str) -> list[Found]:
    raw = m.group()
    if "-" not in raw and (raw.isdigit() or raw.isalpha()):
        return []
    return [make_found("id", raw.lower(), m.start(), m.end())]


def _id_hyphenated(m: re.Match[str], text: str) -> list[Found]:
    start = m.start()
    while start and text[start - 1] in _ID_CHARS:
        start -= 1
    word = _HYPHENATED_ID.match(text, start)
    if word is None or word.end() <= m.start():
        return []
    return [make_found("id", word.group(), start, word.end())]


def _id_plain(m: re.Match[str], text: str) -> list[Found]:
    return [make_found("id", m.group(), m.start(), m.end())] if len(m.group()) > 1 else []


def _quantity(m: re.Match[str], text: str) -> list[Found]:
    """A number, alone or as a percentage or a count of some unit."""
    if m["pct"]:
        return _percent(m, text)
    if m["unit"]:
        return _unit(m, text)
    start, end = m.start(), m.end()
    if text[end : end + 1].isalnum() or text[end : end + 1] == "_" or _is_list_marker(text, start, end):
        return []
    return [make_found("number", norm_number(m["num"]), start, end)]


def _is_list_marker(text: str, start: int, end: int) -> bool:
    """``1.`` or ``2)`` opening a line is list numbering, not a constraint."""
    if text[end : end + 2] not in (". ", ") ", ".\n", ")\n"):
        return False
    line_start = text.rfind("\n", max(0, start - 16), start) + 1
    return (line_start > 0 or start <= 16) and not text[line_start:start].strip(" \t#*-")


_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_HYPHENATED_ID = re.compile(r"(?<![\w-])(?=[a-z0-9-]*\d)[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])")
_CLAUSE_MORE = re.compile(rf"\s*(?:,|and|or|to|through|&|–|-)\s*(?P<ref>{CLAUSE_REF})")

_Builder = Callable[[re.Match[str], str], list[Found]]


_WHOLE_TEXT = None  # patterns with a literal first character: `re` finds them fast anywhere
_DIGITS = Gate(tuple("0123456789"), before=16, after=32)
_UNDERSCORE = Gate(("_",), before=0, after=0)
# Clause references by letter or roman numeral (``Schedule B``, ``Article IV``); numbered ones
# are found near their digits.
_CLAUSE_WORDS = Gate(("article", "art.", "schedule", "annex", "appendi", "exhibit"), before=0, after=64, folded=True)
# The keyword's first letter is matched on its own so `re` can skip ahead to candidates;
# the rest is matched case-insensitively.
_CLAUSE_KEYWORD = re.compile(
    r"(?P<kw>[§¶][§¶]?|[CcSsPpAaEe](?<![\w][CcSsPpAaEe])(?i:lauses?|ections?|ecs?\.|aragraphs?|aras?\.?"
    r"|rticles?|rts?\.|chedules?|nnex(?:es)?|ppendix|ppendices|xhibits?)(?![A-Za-z]))"
    rf"\s*(?P<ref>{CLAUSE_REF})"
)
# A number, then what it counts: a percent sign or word, or a unit (maybe after one adjective).
_QUANTITY = re.compile(
    rf"(?P<num>{NUM})(?:\s?(?P<pct>%|(?i:percent|per\s?cent|pct)\b)"
    rf"|(?:[\s-](?!(?:{'|'.join(sorted(STOP_WORDS | FILLER_WORDS | ARTICLES))})\b)[a-z]+[\s-]|[\s-]?)"
    rf"(?P<unit>{UNIT_ALT})(?![\w]))?"
)
_DATE_NAMED_TAIL = r"(?:,?\s+(?P<y>\d{4})(?!\d))?"

# In priority order: a span taken by an earlier extractor is not matched again by a later one.
EXTRACTORS: tuple[tuple[re.Pattern[str], _Builder, Gate | None], ...] = (
    # The scrubber's keyed pseudonyms, ``<EMAIL_ADDRESS:3f2a1c>``: the same value everywhere.
    (re.compile(r"<[A-Z][A-Z_]*:[0-9a-f]{6}>"), _id_plain, _WHOLE_TEXT),
    (
        re.compile(
            r"[0-9a-fA-F](?<![\w-][0-9a-fA-F])(?:[0-9a-fA-F]{7}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
            r"-[0-9a-fA-F]{12}|[0-9a-fA-F]{6,})(?![\w-])"
        ),
        _id_hex,
        _DIGITS,
    ),
    (re.compile(r"[A-Z](?<![\w-][A-Z])(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![\w-])"), _id_plain, _DIGITS),
    # us-east-1, gpt-4o: found from their hyphens, rarer than the letters they start with.
    (re.compile(r"-(?<=[a-z0-9]-)[a-z0-9]"), _id_hyphenated, _DIGITS),
    (
        re.compile(r"[A-Za-z](?<![\w.][A-Za-z])(?:[A-Za-z0-9]*\.[A-Za-z])*[A-Za-z0-9]*_\w*(?:\.[A-Za-z_]\w*)*"),
        _id_plain,
        _UNDERSCORE,
    ),
    # 2026-03-11 and 2026/03/11, or 03/11/2026 read US style.
    (
        re.compile(r"(?P<a>\d(?<![\w.]\d)\d{0,3})(?P<sep>[-/])(?P<b>\d{1,2})(?P=sep)(?P<c>\d{1,4})(?!\d)"),
        _date_numeric,
        _DIGITS,
    ),
    (
        re.compile(rf"(?P<d>\d(?<![\w.]\d)\d?)(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{MONTH}){_DATE_NAMED_TAIL}(?P<y2>)"),
        _date_named,
        _DIGITS,
    ),
    (
        re.compile(
            rf"(?P<mon>{MONTH})\s+(?:(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?![\d:]){_DATE_NAMED_TAIL}|(?P<y2>\d{{4}})(?!\d))"
        ),
        _date_named,
        _DIGITS,
    ),
    (
        re.compile(
            r"(?P<h>\d(?<![A-SU-Za-z0-9_:.]\d)\d?)(?::(?P<mi>[0-5]\d)(?::(?P<s>[0-5]\d)(?:\.\d+)?)?"
            r"(?:\s?(?P<ap>[AaPp])\.?[Mm]\.?(?![\w]))?|\s?(?P<ap2>[AaPp])\.?[Mm]\.?(?![\w]))"
            rf"(?:\s?(?P<tz>{TIME_ZONES})(?![\w]))?(?![\w:])"
        ),
        _time,
        _DIGITS,
    ),
    (re.compile(rf"(?P<sym>[$€£¥])\s?(?P<num>\d[\d,.]*\d|\d){MULT}"), _money_symbol, _DIGITS),
    (re.compile(rf"(?P<code>{CURRENCY_CODES})\s?(?P<num>\d[\d,.]*\d|\d){MULT}"), _money_code, _DIGITS),
    (
        re.compile(
            rf"(?P<num>\d(?<![\w.,]\d)(?:[\d,.]*\d)?){MULT_BODY}\s?(?P<code>{CURRENCY_CODES}|[Dd]ollars?|[Ee]uros?)"
            r"(?![A-Za-z])"
        ),
        _money_suffix,
        _DIGITS,
    ),
    (_CLAUSE_KEYWORD, _clause_keyword, _DIGITS),
    (_CLAUSE_KEYWORD, _clause_keyword, _CLAUSE_WORDS),
    (re.compile(r"\d(?<![\w.§]\d)\d*(?:\.\d+)*(?:\((?:[A-Za-z]{1,2}|[ivx]{1,5}|\d{1,2})\))+"), _clause_bare, _DIGITS),
    (re.compile(r"\d(?<![\w.]\d)\d*(?:\.\d+){2,}(?![\w]|\.\d)"), _id_plain, _DIGITS),
    (_QUANTITY, _quantity, _DIGITS),
)
