"""The atomic extractors: one regex and one builder per way a constraint can be written.

:data:`EXTRACTORS` lists them in priority order: a span taken by an earlier extractor is not
matched again by a later one, so the digits of a date, an amount or an identifier never also
count as a bare number. Each builder turns a match into ``(class, token, start, end)`` tuples
(:data:`~handoff.analysis.constraints.tokens.Found`), normalizing the value.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from datetime import date
from decimal import Decimal

from handoff.analysis.constraints import worded
from handoff.analysis.constraints.numerals import (
    SCIENTIFIC,
    needs_scientific,
    parse_number,
    plain_number,
    scientific,
    unit_price,
)
from handoff.analysis.constraints.quantities import PINT_UNITS, canonical_quantity, minutes_key, percent_key
from handoff.analysis.constraints.reading import Reading
from handoff.analysis.constraints.tokens import Found, make_found
from handoff.analysis.constraints.vocabulary import (
    BASIS_POINTS,
    CLAUSE_KINDS,
    CLAUSE_REF,
    CURRENCY_CODE_LIST,
    CURRENCY_CODES,
    CURRENCY_SYMBOLS,
    CURRENCY_WORDS,
    DOLLAR_PREFIX,
    DOLLAR_PREFIXES,
    MONTH,
    MONTHS,
    MULT,
    MULT_BODY,
    MULTIPLIERS,
    NUM,
    NUM_COMMA,
    NUMBER_JOINERS,
    TIME_ZONES,
    UNCOUNTED_WORDS,
    UNIT_ALT,
    UNIT_FORMS,
    ZONE_OFFSETS,
)
from handoff.analysis.constraints.windows import Gate


def _money_value(raw: str, code: str, multiplier: int, per_unit: bool = False) -> str | None:
    """An amount in any grouping (``1,500.00``, ``1.500,00``, ``1 500``) as ``"<CODE><amount .2f>"``.

    A single mark followed by three digits groups thousands (amounts are not written to the tenth of a cent) but in a unit price.
    """
    value = parse_number(raw, decimal_comma="," not in raw and not per_unit)
    if value is None:
        return None
    amount = value * multiplier
    cents = amount.quantize(Decimal("0.01"))
    return f"{code}{cents:.2f}" if amount == cents else f"{code}{plain_number(amount)}"  # £0.0042 keeps its digits


def _multiplier(m: re.Match[str]) -> int:
    word = m["mult"] or m["multw"]
    return MULTIPLIERS[word] if word else 1


def _money_symbol(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    start, code = m.start(), CURRENCY_SYMBOLS[m["sym"]]
    prefix = DOLLAR_PREFIX.search(text, max(start - 2, 0), start) if m["sym"] == "$" else None
    if prefix:
        start, code = prefix.start(), DOLLAR_PREFIXES[prefix.group()]
    value = _money_value(m["num"], code, _multiplier(m), unit_price(text, m.end(), reading.decimal_comma))
    return [make_found("money", value, start, m.end())] if value else []


def _money_code(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    if (m.start() and text[m.start() - 1].isalnum()) or _UNIT_AFTER.match(text, m.end()):
        return []  # "INR 6 h later" is a ratio measured (a duration or dose follows), not rupees
    value = _money_value(m["num"], m["code"], _multiplier(m), unit_price(text, m.end(), reading.decimal_comma))
    return [make_found("money", value, m.start(), m.end())] if value else []


def _money_suffix(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    code = CURRENCY_SYMBOLS[m["sym"]] if m["sym"] else CURRENCY_WORDS.get(m["code"].lower(), m["code"])
    value = _money_value(m["num"], code, _multiplier(m))
    return [make_found("money", value, m.start(), m.end())] if value else []


def _number(raw: str, reading: Reading) -> str | None:
    value = parse_number(raw, reading.decimal_comma)
    return None if value is None else plain_number(value)


def _percent(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    value = _number(m["num"], reading)
    return [make_found("percent", value, m.start(), m.end())] if value else []


def _date_value(year: int | None, month: int, day: int | None) -> str | None:
    """ISO form of a full date, ``YYYY-MM`` without a day, ``--MM-DD`` without a year."""
    try:
        date(year or 2000, month, day or 1)
    except ValueError:
        return None
    if year is None:
        return f"--{month:02d}-{day:02d}"
    return f"{year:04d}-{month:02d}" if day is None else f"{year:04d}-{month:02d}-{day:02d}"


def _date_emit(m: re.Match[str], reading: Reading, year: str | None, month: int, day: str | None) -> list[Found]:
    """A date; one written without its year stays without it (``--03-18``), and the comparison
    takes it for the same day of any year (:func:`~handoff.analysis.constraints.values.atom_carried`)."""
    value = _date_value(int(year) if year else None, month, int(day) if day else None)
    return [make_found("date", value, m.start(), m.end())] if value else []


def _date_numeric(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    a, b, c = m["a"], m["b"], m["c"]
    if len(a) == 4 and len(c) <= 2 and m["sep"] != ".":
        return _date_emit(m, reading, a, int(b), c)
    if len(a) > 2 or len(c) != 4:
        return []
    day_first = m["sep"] == "." or (reading.day_first and int(b) <= 12) or int(a) > 12
    day, month = (a, b) if day_first else (b, a)
    if reading.either_order and m["sep"] == "/" and int(a) != int(b) and max(int(a), int(b)) <= 12:
        readings = sorted(filter(None, (_date_value(int(c), int(b), int(a)), _date_value(int(c), int(a), int(b)))))
        return [make_found("date", "|".join(readings), m.start(), m.end())]  # 12/03/2026: either reading
    return _date_emit(m, reading, c, int(month), day)


def _year_month(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    return _date_emit(m, reading, m["y"], int(m["mo"]), None)


def _date_named(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    month = MONTHS.get(m["mon"].lower().rstrip(".")) if m["mon"] != "may" or m["y"] or m["y2"] else None  # "5 may be"
    return _date_emit(m, reading, m["y"] or m["y2"], month, m["d"]) if month else []


def _time(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    hour, minute, second = int(m["h"]), int(m["mi"] or 0), int(m["s"] or 0)
    half = (m["ap"] or m["ap2"] or "").lower()
    if (half and not 1 <= hour <= 12) or hour > 23 or ((m["hsep"] or "").strip() == "h" and m["tz"]):
        return []
    if half:
        hour = hour % 12 + (12 if half == "p" else 0)
    return [
        make_found("time", _zoned(hour, minute, second, m["tz"] or _shared_zone(text, m.end())), m.start(), m.end())
    ]


def _zoned(hour: int, minute: int, second: int, tz: str | None) -> str:
    """A clock's token value: in UTC (``Z``) when its zone is one we know the offset of."""
    offset = _offset_minutes(tz)
    zone = "Z" if offset is not None else (tz or "")
    if offset is not None:
        hour, minute = divmod((hour * 60 + minute - offset) % 1440, 60)
    return f"{hour:02d}:{minute:02d}" + (f":{second:02d}" if second else "") + zone


def _shared_zone(text: str, end: int) -> str | None:
    """The zone a time shares with the times after it on its line: ``08:00-18:00 CET``, ``00:00, 06:00 and 12:00 UTC``, ``21:45 (CET)``."""
    shared = _SHARED_ZONE.match(text, end)
    return shared["tz"] if shared else None


def _offset_minutes(raw: str | None) -> int | None:
    """Minutes east of UTC of a zone: ``+0100`` -> 60, ``CET`` -> 60, ``UTC-5`` -> -300; None without one we know."""
    if not raw:
        return None
    name, sign, digits = raw.partition("+") if "+" in raw else raw.partition("-")
    if not sign:
        return ZONE_OFFSETS.get(raw)
    digits = digits.replace(":", "")
    hours, minutes = (digits[:-2], digits[-2:]) if len(digits) > 2 else (digits, "0")
    offset = int(hours) * 60 + int(minutes)
    return ZONE_OFFSETS.get(name, 0) + (offset if sign == "+" else -offset)


def _clause_keyword(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    keyword = m["kw"].lower().rstrip(".")
    prefix = CLAUSE_KINDS.get(keyword.rstrip("s"), "")
    if not prefix and not m["ref"][0].isdigit():
        return []  # "Section IV" is only found near digits: leave it out rather than find it by chance
    found = [make_found("clause", prefix + m["ref"].lower().replace(" ", ""), m.start(), m.end())]
    if keyword.endswith("s") or keyword in ("§§", "¶¶"):
        found += _clause_list(text, m.end(), prefix)
    return found


def _clause_list(text: str, pos: int, prefix: str) -> list[Found]:
    """Further references after a plural keyword: ``sections 4.1, 4.2 and 4.3``."""
    found = []
    while more := _CLAUSE_MORE.match(text, pos):
        found.append(make_found("clause", prefix + more["ref"].lower().replace(" ", ""), more.start("ref"), more.end()))
        pos = more.end()
    return found


def _clause_bare(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    return [make_found("clause", m.group().lower(), m.start(), m.end())]


def _unit(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    """A quantity: converted to its dimension's base unit where pint knows the unit, else counted in its noun."""
    amount = parse_number(m["num"], reading.decimal_comma)
    if amount is None:
        return []
    spelling = m["unit"]
    if spelling == "h" and (clock := worded.hour_clock(text, m.start(), m.end(), amount)):
        return [make_found("time", _zoned(clock[0], 0, 0, clock[1] or _shared_zone(text, m.end())), m.start(), m.end())]
    if spelling == "in" and not _INCHES_END.match(text, m.end()):
        return _bare_number(m["num"], m.start(), m.end("num"), text, reading)  # "5 in the box"
    if spelling in _ATTACHED_DURATIONS and m.end("num") == m.start("unit"):
        spelling = _ATTACHED_DURATIONS[spelling]  # "for: 10m", "[5m]", "2d": durations as ops write them
    between = text[m.end("num") : m.start("unit")].strip(" -").lower()
    if between and PINT_UNITS.get(spelling) == "year" and 1900 <= amount <= 2100 and amount % 1 == 0:
        return _bare_number(m["num"], m.start(), m.end("num"), text, reading)  # "the 2027 quota year"
    amount *= MULTIPLIERS.get(between, 1)  # "410 million rows"
    start = m.start()
    if spelling in _SIGNED_UNITS and _MINUS_BEFORE.search(text, max(0, start - 2), start):
        amount, start = -amount, start - 1  # "-18 °C" is below zero; "2-8 °C" is a range
    return [_quantity_found(amount, spelling, start, m.end())]


def _quantity_found(amount: Decimal, spelling: str, start: int, end: int) -> Found:
    """``amount`` of the unit written ``spelling``: a unit token, or a percent for percentage points."""
    if UNIT_FORMS.get(spelling, ("",))[0] == "percentage point":  # 25 bp = 0.25 pp = a 0.25% margin
        points = plain_number(amount / 100 if spelling in BASIS_POINTS else amount)
        return make_found("percent", points, start, end)
    value = canonical_quantity(amount, spelling)
    if value is None:
        number = plain_number(amount)
        singular, plural = UNIT_FORMS[spelling]
        value = f"{number} {singular if number == '1' else plural}"
    return make_found("unit", value, start, end)


def _id_hex(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    raw = m.group()
    if "-" not in raw and (raw.isdigit() or raw.isalpha()):
        return []
    return [make_found("id", raw.lower(), m.start(), m.end())]


def _id_hyphenated(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    start = m.start()
    while start and text[start - 1] in _ID_CHARS:
        start -= 1
    word = _HYPHENATED_ID.match(text, start)
    if word is None or word.end() <= m.start() or word.group()[:3] in ("am-", "pm-"):
        return []  # "9:00 am-11:30 am" is a range of times
    return [make_found("id", word.group(), start, word.end())]


def _id_plain(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    if len(m.group()) < 2 or _ZONE_NAME.fullmatch(m.group()):  # "UTC-5" names a zone
        return []
    return [make_found("id", m.group(), m.start(), m.end())]


def _id_underscored(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    """``build_2291_eu``: an identifier. Without a digit (``payment_date``, ``in_transit``,
    ``analytics_db.run_sql``) it is a field name, an enum value or a tool's name, which a faithful
    rewrite spells as words ("arrives in transit"): not a constraint (docs/constraints.md, Structure)."""
    return _id_plain(m, text, reading) if any(ch.isdigit() for ch in m.group()) else []


def _id_dotted(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    """``v3.18.2``, ``10.4.0.1``: an identifier; ``4.812.350`` in a text with a decimal comma is a number."""
    if reading.decimal_comma and _DOT_GROUPED.fullmatch(m.group()):
        return []
    return _id_plain(m, text, reading)


def _quantity(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    """A number, alone or as a percentage or a count of some unit."""
    if m["pct"]:
        return _percent(m, text, reading)
    if m["unit"]:
        return _unit(m, text, reading)
    return _bare_number(m["num"], m.start(), m.end(), text, reading)


def _bare_number(num: str, start: int, end: int, text: str, reading: Reading) -> list[Found]:
    """A number without a unit at ``text[start:end]``: none when a word goes on from it or it numbers a list."""
    multiple = text[end : end + 1] in ("x", "×") and not text[end + 1 : end + 2].isalnum()  # "4.25x EBITDA"
    if (
        (text[end : end + 1].isalnum() and not multiple)
        or text[end : end + 1] == "_"
        or _is_list_marker(text, start, end)
        or _ZONE_OFFSET_BEFORE.search(text, max(0, start - 4), start)  # "UTC+8" names a zone
    ):
        return []
    value = _number(num, reading)
    return [make_found("number", value, start, end)] if value else []


def _keyed_quantity(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    """``"timeout_minutes": 30``, ``terminationGracePeriodSeconds: 45``: a value whose key names its unit."""
    amount = parse_number(m["num"], reading.decimal_comma)
    if amount is None or (m["kunit"].lower() == "min" and not minutes_key(text, m.start())):
        return []  # "replicas_min": a minimum, read by the bounds
    unit = m["kunit"].lower()
    if unit in ("pct", "percent") or percent_key(text, m.start()):
        return [make_found("percent", plain_number(amount), m.start(), m.end())]
    spelling = _KEY_UNITS.get(unit, unit)
    if spelling in UNIT_FORMS:  # "sla_business_days: 15": business days, never days
        return [_quantity_found(amount, spelling, m.start(), m.end())]
    value = canonical_quantity(amount, spelling)
    return [make_found("unit", value, m.start(), m.end())] if value else []  # from the key's unit on


def _written_number(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    """``two``, ``twenty-five``, ``dreißig``, ``treinta``: a number written in words (text2num)."""
    phrase = m.group().lower()
    # "three and" ends at "three"; "twenty-one" and "vingt et un" are whole numbers
    while (value := _words_value(phrase)) is None and (cut := max(phrase.rfind(" "), phrase.rfind("-"))) != -1:
        if phrase[cut + 1 :] not in NUMBER_JOINERS:
            break
        phrase = phrase[:cut]
    if value is None:
        return []
    end = m.start() + len(phrase)
    counted = _WORDS_UNIT.match(text, end)  # "eight hours", "fünf Arbeitstage", "ten per cent"
    if counted is None or (counted["unit"] and len(counted["unit"]) < 3):  # "two m" is no "2 m"
        return [make_found("number", str(value), m.start(), end)]
    if counted["pct"]:
        return [make_found("percent", str(value), m.start(), counted.end())]
    return [_quantity_found(Decimal(value), counted["unit"], m.start(), counted.end())]


@functools.lru_cache(maxsize=4096)
def _words_value(phrase: str) -> int | None:
    from text_to_num import text2num

    for lang in ("en", "de", "fr", "es"):
        try:
            return text2num(phrase, lang)
        except ValueError:
            continue
    return None


def _is_list_marker(text: str, start: int, end: int) -> bool:
    """``1.`` or ``2)`` opening a line, or ``(2)``/``2)`` before a word after a colon, comma or
    sentence (``options: (1) raise it, (2) wait``, ``1) Jonas, 2) Mei``), is list numbering, not a constraint."""
    if _INLINE_LABEL.match(text, end) and (
        text[start - 1 : start] == "(" or _LABEL_BEFORE.search(text[max(0, start - 2) : start])
    ):
        return end - start <= 2
    heading = _HEADING_NUMBER.fullmatch(text, start, end) is not None and _HEADING_TITLE.match(text, end) is not None
    if text[end : end + 2] not in (". ", ") ", ".\n", ")\n") and not heading:
        return False
    line_start = text.rfind("\n", max(0, start - 16), start) + 1
    return (line_start > 0 or start <= 16) and not text[line_start:start].strip(" \t#*-")


_SHARED_ZONE = re.compile(
    r"(?:[ \t]*(?:[-–—,/]|to|and|or|until|bis|und|et|y|a|à)[ \t]*\d{1,2}(?:[:h]\d{2})?(?:[ \t]?[AaPp]\.?[Mm]\.?)?)*"
    rf"[ \t]?(?:Uhr[ \t])?\(?(?P<tz>{TIME_ZONES})(?![\w])"
)
_ATTACHED_DURATIONS = {"m": "min", "d": "day"}
_UNIT_AFTER = re.compile(r"[ \t]?(?:h|hrs?|hours?|min|minutes?|days?|weeks?|mg|mL|ml|kg|g)(?![\w])")
_SIGNED_UNITS = frozenset(("°C", "ºC", "degC", "°F", "ºF", "degF"))
_MINUS_BEFORE = re.compile(r"(?:^|(?<=[^\w.,]))[-−]\Z")
_ZONE_OFFSET_BEFORE = re.compile(r"(?:UTC|GMT)[ \t]?[+−-]\Z")
_ZONE_NAME = re.compile(r"(?:UTC|GMT)[+−-]\d{1,2}(?::?\d\d)?")
# "in" is inches only where a dimension ends: "24 in × 16 in", "48 in)", "12 in." — not "5 in the box".
_INCHES_END = re.compile(r"[ \t]*(?:[x×*,;()\]\"/|]|\.(?!\w)|(?:and|or)\b|$)", re.MULTILINE)
# What a number written in words counts: a unit written out after it (maybe after one adjective,
# "three consecutive days"), or per cent. Symbols ("m", "g") are not read after a word.
_WORDS_UNIT = re.compile(
    r"[ \t\u00a0-](?:(?P<pct>(?i:percent|per\s?cent|prozent|pour\s?cent|por\s?ciento)\b)"
    rf"|(?:(?!(?:{UNCOUNTED_WORDS})\b)[a-z]+[ -])??(?P<unit>{UNIT_ALT})(?![\w]))"
)
_KEY_UNITS = {
    "secs": "sec", "mins": "min", "hrs": "hr", "mb": "MB", "gb": "GB", "kmh": "km/h", "kpa": "kPa",
    "business_days": "business days", "working_days": "business days",
}  # fmt: skip
_INLINE_LABEL = re.compile(r"\) (?=[A-Za-z])")
# A section number opening a line before its title or text ("4.2 Planned maintenance"): layout.
_HEADING_NUMBER = re.compile(r"\d{1,2}(?:\.\d{1,2}){1,2}")
_HEADING_TITLE = re.compile(r"[ \t]+[^\W\d_]")
_LABEL_BEFORE = re.compile(r"(?:^|[:;,.] |\n)$")
_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_HYPHENATED_ID = re.compile(r"(?<![\w-])(?=[a-z0-9-]*\d)[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])")
_CLAUSE_MORE = re.compile(rf"\s*(?:,|and|or|to|through|y|et|und|&|–|-)\s*(?P<ref>{CLAUSE_REF})")

_DOT_GROUPED = re.compile(r"\d{1,3}(?:\.\d{3})+")

_Builder = Callable[[re.Match[str], str, Reading], list[Found]]
#: ``(pattern, builder, gate, needs)``: ``needs`` is None or a test, true where the text holds
#: what every match of ``pattern`` contains (in the same context); a view it is false on is not
#: scanned with ``pattern`` at all. The scanner runs it once per view.
Extractor = tuple[re.Pattern[str], _Builder, Gate | None, Callable[[str], object] | None]


_WHOLE_TEXT = None  # patterns with a literal first character: `re` finds them fast anywhere
_DIGITS = Gate(tuple("0123456789"), before=16, after=32)
_UNDERSCORE = Gate(("_",), before=0, after=0)
# Keys that name a unit: ``retry_window_minutes``, ``shutdownDelaySeconds`` (the value follows).
_UNIT_KEYS = Gate(
    ("_", "seconds", "minutes", "hours", "days", "weeks", "months", "years"), before=1, after=48, folded=True
)
# Clause references by letter or roman numeral (``Schedule B``, ``Article IV``); numbered ones
# are found near their digits.
_CLAUSE_WORDS = Gate(("article", "art.", "schedule", "annex", "appendi", "exhibit"), before=0, after=64, folded=True)
# The keyword's first character is matched on its own (one class for both kinds) so `re` can
# skip ahead to candidates; the rest of a word is matched case-insensitively.
_CLAUSE_KEYWORD = re.compile(
    r"(?P<kw>[§¶CcSsPpAaEeKk](?:(?<=[§¶])[§¶]?|(?<=[CcSsPpAaEeKk])(?<![\w][CcSsPpAaEeKk])(?i:lauses?|ls?\.|ections?"
    r"|ecs?\.|aragraphs?|aras?\.?|lausel|láusulas?|rticles?|rts?\.|rtículos?|rtikel|chedules?|nnexe?s?|nexos?|nhang"
    r"|ppendix|ppendices|xhibits?)(?![A-Za-z])))"
    rf"\s*(?P<ref>{CLAUSE_REF})"
)


def _quantity_pattern(num: str) -> re.Pattern[str]:
    """A number, then what it counts: a percent sign or word, or a unit (maybe after one adjective)."""
    return re.compile(
        rf"(?P<num>{num})(?:\s?(?P<pct>%|(?i:percent|per\s?cent|pct|prozent|pour\s?cent|por\s?ciento)\b)"
        rf"|(?:(?:[ \t\u00a0-]|\r?\n(?![°ºµLW]))?|[\s-](?!(?:{UNCOUNTED_WORDS})\b)[a-z]+[\s-])"
        rf"(?P<unit>{UNIT_ALT})(?![\w]))?"
    )


_DATE_NAMED_TAIL = r"(?:(?:,?\s+|-)(?:de\s+)?(?P<y>\d{4})(?!\d))?"
_AMOUNT = r"\d(?<![\w.,]\d)\d{0,2}(?:[ \u00a0\u202f]\d{3})+(?![\d,]|\.\d)|\d[\d,.]*\d|\d"  # and "2 400 000 EUR"
_AMOUNT_COMMA = r"\d(?<![\w.,]\d)\d{0,2}(?:[ \u00a0\u202f]\d{3})+(?:,\d+)?|\d[\d,.]*\d|\d"  # and "2 450,00", "1 180 €"


# What every match of some extractors contains: a view without it is not scanned by them.
_NEEDS_MONTH = re.compile(MONTH).search
_NEEDS_CLOCK = re.compile(
    r"\d(?:[:h][0-5]\d|[ \t]h[ \t][0-5]\d|\s?[AaPp]\.?[Mm]\.?(?![\w]))"
).search  # 9:30, 9h30, 9 h 30, 9 am
_NEEDS_DOTS = re.compile(r"\.(?<=\d\.)\d+\.\d").search  # v3.18.2 (a dot first: `re` skips to dots)
_SUFFIX_SYMBOL = re.compile(r"[€£$¥](?![ \u00a0]?\d)")
_SUFFIX_WORD = re.compile(r"(?:[Dd]ollars?|[Ee]uros?)(?![A-Za-z])")
_UPPER_TRIPLE = re.compile(r"[A-Z]{3}(?![A-Za-z])")  # every currency code is one
_CODES = frozenset(CURRENCY_CODE_LIST)


def _needs_suffix_currency(text: str) -> bool:
    """Whether a code, currency word or symbol that can follow an amount is in ``text``."""
    return bool(
        _SUFFIX_SYMBOL.search(text)
        or (("ollar" in text or "uro" in text) and _SUFFIX_WORD.search(text))
        or not _CODES.isdisjoint(_UPPER_TRIPLE.findall(text))
    )


def _money_extractors(amount: str) -> tuple[Extractor, ...]:
    """Amounts after a symbol or a code, and before a code, a currency word or a symbol."""
    suffix_amount = amount.replace(r"\d[\d,.]*\d|\d", r"\d(?<![\w.,]\d)(?:[\d,.]*\d)?")
    return (
        (re.compile(rf"(?P<sym>[$€£¥])\s?(?P<num>{amount}){MULT}"), _money_symbol, _DIGITS, None),
        (re.compile(rf"(?P<code>{CURRENCY_CODES})\s?(?P<num>{amount}){MULT}"), _money_code, _DIGITS, None),
        (
            re.compile(
                rf"(?P<num>{suffix_amount}){MULT_BODY}(?:\s?(?P<code>{CURRENCY_CODES}|[Dd]ollars?|[Ee]uros?)(?![A-Za-z])"
                r"|[ \u00a0]?(?P<sym>[€£$¥])(?![ \u00a0]?\d))"
            ),
            _money_suffix,
            _DIGITS,
            _needs_suffix_currency,
        ),
    )


def _id_extractors(num: str) -> tuple[Extractor, ...]:
    """Identifiers, and the values whose key names their unit (before the ids the key would give)."""
    return (
        # The scrubber's keyed pseudonyms, ``<EMAIL_ADDRESS:3f2a1c>``: the same value everywhere.
        (re.compile(r"<[A-Z][A-Z_]*:[0-9a-f]{6}>"), _id_plain, _WHOLE_TEXT, None),
        (
            re.compile(
                r"[0-9a-fA-F](?<![\w-][0-9a-fA-F])(?:[0-9a-fA-F]{7}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
                r"-[0-9a-fA-F]{12}|[0-9a-fA-F]{6,})(?![\w-])"
            ),
            _id_hex,
            _DIGITS,
            None,
        ),
        (
            re.compile(r"[A-Z](?<![\w-][A-Z])(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![\w-])"),
            _id_plain,
            _DIGITS,
            None,
        ),
        # us-east-1, gpt-4o: found from their hyphens, rarer than the letters they start with.
        (re.compile(r"-(?<=[a-z0-9]-)[a-z0-9]"), _id_hyphenated, _DIGITS, None),
        # A value whose key names its unit; the key, a field name, is no identifier.
        (
            re.compile(
                r"(?:(?<=[a-z0-9])(?:_|(?<=[a-z])(?=[A-Z]))|(?<=[\"'])(?=[a-z]{2,}[\"']:))"
                r"(?P<kunit>ms|(?i:(?:business|working)_days|seconds|secs|minutes|mins|min|hours|hrs|days|weeks|months|years)"
                r"|kg|km|mm|cm|ml|mph|kph|kmh|kpa|psi|bar|mb|gb|pct|percent"
                r"|(?<!per_)(?<!mg_)(?<!ug_)(?<!kg_)(?<!km_)(?<!ml_)[mgtshl])"  # max_train_length_m, not mic_mg_l or km_h
                r"[\"']?(?:[ \t]*[:=][ \t]*|[ \t]+)[\"']?"
                rf"(?P<num>{num})(?![\w.:/-]|,\d)"
            ),
            _keyed_quantity,
            _UNIT_KEYS,
            None,
        ),
        (
            re.compile(r"[A-Za-z](?<![\w.][A-Za-z])(?:[A-Za-z0-9]*\.[A-Za-z])*[A-Za-z0-9]*_\w*(?:\.[A-Za-z_]\w*)*"),
            _id_underscored,
            _UNDERSCORE,
            None,
        ),
    )


def _extractors(num: str, amount: str) -> tuple[Extractor, ...]:
    """The extractors, in priority order, for a text writing numbers as ``num`` and amounts as ``amount``."""
    return (
        (SCIENTIFIC, scientific, _DIGITS, needs_scientific),  # 2.4e-4, 2.4×10⁻⁴: before ids and plain numbers
        *_id_extractors(num),
        # 2026-03-11, 2026/03/11, 11.03.2026; 03/11/2026 read by the text's date order.
        (
            re.compile(r"(?P<a>\d(?<![\w.]\d)\d{0,3})(?P<sep>[-/.])(?P<b>\d{1,2})(?P=sep)(?P<c>\d{1,4})(?![\d]|\.\d)"),
            _date_numeric,
            _DIGITS,
            None,
        ),
        # 2026-02: a month of a year (a billing period), not the number 2026.
        (
            re.compile(r"(?P<y>(?:19|20)\d\d)(?<![\w.-]\d{4})-(?P<mo>0[1-9]|1[0-2])(?![\w-]|\.\d)"),
            _year_month,
            _DIGITS,
            None,
        ),
        (
            re.compile(
                rf"(?P<d>\d(?<![\w.]\d)\d?)(?:(?:st|nd|rd|th|er)?(?:\s+|-)|\. )(?:of\s+|de\s+)?(?P<mon>{MONTH})"
                rf"{_DATE_NAMED_TAIL}(?P<y2>)"
            ),
            _date_named,
            _DIGITS,
            _NEEDS_MONTH,
        ),
        (
            re.compile(
                rf"(?P<mon>{MONTH})\s+(?:(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?![\d:]){_DATE_NAMED_TAIL}"
                r"|(?P<y2>\d{4})(?!\d))"
            ),
            _date_named,
            _DIGITS,
            _NEEDS_MONTH,
        ),
        (
            re.compile(
                r"(?P<h>\d(?<![A-SU-Za-z0-9_:.]\d)\d?)(?:(?P<hsep>:|h|[ \t]h[ \t])(?P<mi>[0-5]\d)(?!\d|\.\d|[ \t]?(?:min|sec|s\b))"
                r"(?::(?P<s>[0-5]\d)(?:\.\d+)?)?"
                r"(?:\s?(?P<ap>[AaPp])\.?[Mm]\.?(?![\w]))?|\s?(?P<ap2>[AaPp])\.?[Mm]\.?(?![\w]))"
                rf"(?:\s?(?:Uhr\s)?(?P<tz>{TIME_ZONES})(?![\w]))?(?![\w]|:\w)"
            ),
            _time,
            _DIGITS,
            _NEEDS_CLOCK,
        ),
        *_money_extractors(amount),
        (_CLAUSE_KEYWORD, _clause_keyword, _DIGITS, None),
        (_CLAUSE_KEYWORD, _clause_keyword, _CLAUSE_WORDS, None),
        (
            re.compile(r"\d(?<![\w.§]\d)\d*(?:\.\d+)*(?:\((?:[A-Za-z]{1,2}|[ivx]{1,5}|\d{1,2})\))+"),
            _clause_bare,
            _DIGITS,
            None,
        ),
        (re.compile(r"\d(?<![\w.]\d)\d*(?:\.\d+){2,}(?![\w]|\.\d)"), _id_dotted, _DIGITS, _NEEDS_DOTS),
        (_quantity_pattern(num), _quantity, _DIGITS, None),
        (worded.WORDED_DURATION, worded.worded_duration, _WHOLE_TEXT, worded.NEEDS_WORDED_DURATION),
        (worded.WORDED_CLOCK, worded.worded_clock, _WHOLE_TEXT, worded.NEEDS_WORDED_CLOCK),
        (worded.WORDED_SHARE, worded.worded_share, _WHOLE_TEXT, worded.NEEDS_WORDED_SHARE),
        (worded.WRITTEN_NUMBER, _written_number, _WHOLE_TEXT, worded.NEEDS_WRITTEN_NUMBER),
    )


# In priority order: a span taken by an earlier extractor is not matched again by a later one.
EXTRACTORS = _extractors(NUM, _AMOUNT)
# The same for a text whose decimal mark is a comma (:class:`~handoff.analysis.constraints.reading.Reading`).
EXTRACTORS_DECIMAL_COMMA = _extractors(NUM_COMMA, _AMOUNT_COMMA)


def extractors_for(reading: Reading) -> tuple[Extractor, ...]:
    """The extractors that read numbers the way ``reading`` says the text writes them."""
    return EXTRACTORS_DECIMAL_COMMA if reading.decimal_comma else EXTRACTORS
