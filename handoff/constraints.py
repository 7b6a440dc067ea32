"""Constraint extraction: the facts a handoff must carry, as normalized tokens.

A constraint is a number, percentage, amount of money, date, time, clause reference,
identifier, negation, qualifier or quantity with a unit. Each one found in a text becomes a
:class:`Constraint` whose ``token`` (``"<class>:<value>"``) is the same however the fact was
written, so ``9.5%`` and ``9.50 percent`` both give ``percent:9.5`` and a transform's input and
output can be compared as sets::

    >>> lost_constraints("base is the rebated subtotal per 7.2(b)", "see clause 7.2")[0].token
    'clause:7.2(b)'

Extraction is pure, deterministic and uses only :mod:`re`; it runs in the background writer on
every payload. Atomic constraints (everything but negations and qualifiers) never overlap: the
digits of a date, an amount or an identifier do not also count as a bare number. Negations and
qualifiers are phrases bound to what they govern, capped at a few words, and may contain atomic
constraints, which appear in their token in normalized form (``qualifier:per 7.2(b)``).

Tokens change meaning only with :data:`CONSTRAINTS_VERSION`, which the writer stores beside them.
"""

from __future__ import annotations

import itertools
import re
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

__all__ = [
    "CONSTRAINTS_VERSION",
    "CONSTRAINT_CLASSES",
    "Constraint",
    "diff_tokens",
    "extract_constraints",
    "find_constraints",
    "lost_constraints",
]

#: Bump whenever a token for the same text could change; stored in ``constraints_version``.
CONSTRAINTS_VERSION: int = 1

#: Every value ``Constraint.cls`` can take.
CONSTRAINT_CLASSES: tuple[str, ...] = (
    "number", "percent", "money", "date", "time", "clause", "id", "negation", "qualifier", "unit",
)


@dataclass(frozen=True)
class Constraint:
    """One constraint found in a text: its class, normalized token and where it was written."""

    cls: str
    token: str
    text: str
    start: int
    end: int


# Patterns start with a character class, then check the character before it with a
# two-character lookbehind: a leading class lets `re` skip ahead quickly, which keeps
# extraction fast on prose.
_NUM = r"\d(?<![\w.]\d)(?:\d{0,2}(?:,\d{3})+(?:\.\d+)?|\d*(?:\.\d+)?)"
_MONTH = (
    r"[JFMASOND](?<![\w][JFMASOND])(?:an(?:uary)?|une?|uly?|eb(?:ruary)?|ar(?:ch)?|ay"
    r"|pr(?:il)?|ug(?:ust)?|ep(?:t(?:ember)?)?|ct(?:ober)?|ov(?:ember)?|ec(?:ember)?)(?:\.|(?![A-Za-z]))"
)
_MONTHS = {name: n for n, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
_CURRENCY_CODES = "USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|INR|CNY|SEK|NOK|DKK|SGD|HKD|MXN|BRL|ZAR"
_CURRENCY_WORDS = {"dollar": "USD", "dollars": "USD", "euro": "EUR", "euros": "EUR"}
_CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
_MULTIPLIERS = {
    "k": 1000, "K": 1000, "thousand": 1000, "m": 10**6, "M": 10**6, "mn": 10**6, "MM": 10**6,
    "million": 10**6, "bn": 10**9, "billion": 10**9,
}
_MULT_BODY = r"(?:(?P<mult>[kKmM]|mn|MM|bn)|\s(?P<multw>thousand|million|billion))?"
_MULT = _MULT_BODY + r"(?![\w])"
_US_AMOUNT = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_EU_AMOUNT = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?|\d+,\d{1,2}")
# A "-hh:mm" offset only counts after seconds (ISO timestamps): "02:00-04:00" is a range.
_TIME_ZONES = r"UTC|GMT|Z|\+\d{2}:?\d{2}|(?<=:\d\d:\d\d)-\d{2}:?\d{2}|[ECMP][SD]T|CES?T|BST|IST|JST|AE[SD]T"
_CLAUSE_REF = r"(?:\d+[A-Za-z]?(?:\.\d+[A-Za-z]?)*(?:\([A-Za-z0-9]{1,4}\))*|[IVXLC]{1,6}(?![A-Za-z])|[A-Z](?![A-Za-z]))"
_CLAUSE_KINDS = {
    "art": "art.", "article": "art.", "schedule": "schedule.", "annex": "annex.",
    "annexe": "annex.", "appendix": "appendix.", "appendice": "appendix.", "exhibit": "exhibit.",
}

# Units: how each spelling is normalized, as (singular, plural); symbols have no plural.
_UNIT_FORMS: dict[str, tuple[str, str]] = {}


def _add_units(singular: str, plural: str, *aliases: str) -> None:
    for alias in (singular, plural, *aliases):
        _UNIT_FORMS[alias] = (singular, plural)


for _singular, _plural, *_aliases in (
    ("line", "lines"), ("token", "tokens"), ("item", "items"), ("page", "pages"), ("word", "words"),
    ("character", "characters", "char", "chars"), ("row", "rows"), ("record", "records"),
    ("request", "requests"), ("call", "calls"), ("retry", "retries"), ("attempt", "attempts"),
    ("user", "users"), ("seat", "seats"), ("unit", "units"), ("piece", "pieces", "pcs"),
    ("employee", "employees"), ("step", "steps"), ("agent", "agents"), ("file", "files"),
    ("invoice", "invoices"), ("order", "orders"), ("ticket", "tickets"), ("license", "licenses"),
    ("node", "nodes"), ("instance", "instances"), ("replica", "replicas"), ("shard", "shards"),
    ("worker", "workers"), ("pallet", "pallets"), ("shipment", "shipments"),
    ("business day", "business days"), ("working day", "working days"),
    ("calendar day", "calendar days"), ("day", "days"), ("week", "weeks", "wk", "wks"),
    ("month", "months"), ("year", "years", "yr", "yrs"), ("hour", "hours", "hr", "hrs"),
    ("minute", "minutes", "min", "mins"), ("second", "seconds", "sec", "secs"),
    ("basis point", "basis points", "bp", "bps"),
):
    _add_units(_singular, _plural, *_aliases)
for _symbol, *_aliases in (
    ("kg", "kilogram", "kilograms", "kilos"), ("g", "gram", "grams"), ("mg", "milligram", "milligrams"),
    ("lb", "lbs", "pound", "pounds"), ("km", "kilometer", "kilometers", "kilometre", "kilometres"),
    ("cm", "centimeter", "centimeters"), ("mm", "millimeter", "millimeters"),
    ("ms", "millisecond", "milliseconds"), ("KB",), ("MB", "megabyte", "megabytes"),
    ("GB", "gigabyte", "gigabytes"), ("TB", "terabyte", "terabytes"), ("KiB",), ("MiB",), ("GiB",),
    ("bytes", "byte"),
):
    _add_units(_symbol, _symbol, *_aliases)
_UNIT_ALT = "|".join(sorted((re.escape(u) for u in _UNIT_FORMS), key=len, reverse=True))

# Words that end a negation's or qualifier's object once it has a content word.
_STOP_WORDS = frozenset(
    "and or but nor so then than that which who whom whose when where while because since as if "
    "of in on at for to from with by into onto over under about against between through during "
    "across among around via throughout upon toward towards along despite versus vs "
    "not no never without unless except per before after until within including excluding based "
    "only also it its this these those there".split()
)
# Auxiliaries ride along inside an object without counting towards its length.
_FILLER_WORDS = frozenset(
    "is are was were be been being has have had do does did will would shall should must may might can could".split()
)
_ARTICLES = frozenset(("a", "an", "the"))
_UNCOUNTED = _STOP_WORDS | _FILLER_WORDS | _ARTICLES
_OBJECT_WORDS = 3

_NEGATIONS = {"no": "no", "without": "without"}
_QUALIFIERS = {
    "at least": "at least", "no less than": "at least", "not less than": "at least",
    "no fewer than": "at least", "not fewer than": "at least", "a minimum of": "at least",
    "at most": "at most", "no more than": "at most", "not more than": "at most",
    "not to exceed": "at most", "up to": "at most", "a maximum of": "at most", "capped at": "at most",
    "no later than": "no later than", "not later than": "no later than",
    "no earlier than": "no earlier than", "not earlier than": "no earlier than",
    "only if": "only if", "only when": "only if", "unless": "unless", "except": "except",
    "excluding": "excluding", "including": "including", "based on": "based on", "base is": "base is",
    "per": "per", "before": "before", "prior to": "before", "after": "after", "until": "until",
    "within": "within", "subject to": "subject to", "provided that": "provided that",
    "as long as": "provided that",
}
_NEGATION_WORDS = ("not", "never", "cannot", "no", "without", *(
    f"{aux}n{apostrophe}t" for apostrophe in "'’" for aux in (
        "do", "does", "did", "is", "are", "was", "were", "has", "have", "had", "must", "should", "would",
        "could", "need", "ca", "wo", "sha")))


def _trie_pattern(phrases: list[str]) -> str:
    """A regex matching any of ``phrases``, factored by shared prefixes so `re` does not try each in turn."""
    tree: dict = {}
    for phrase in phrases:
        node = tree
        for char in phrase:
            node = node.setdefault(char, {})
        node[""] = {}
    return _trie_node(tree)


def _trie_node(node: dict) -> str:
    branches = [(r"\s+" if char == " " else re.escape(char)) + _trie_node(child)
                for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
    return f"(?:{body})?" if "" in node else body


_PHRASE_BODY = f"({_trie_pattern([*_QUALIFIERS, *_NEGATION_WORDS])})(?![a-z0-9])"
# Triggers are matched in lower-cased text after a space: punctuation that can open a word
# (``(no``, ``**never``, a line break) is first turned into spaces, so one pattern with a
# literal first character, which `re` finds fastest, sees them all.
_PHRASE_AFTER_SPACE = re.compile(" " + _PHRASE_BODY)
_OPENERS = "\t\n\r([{\"“‘*_/>—–-"
_PHRASE_AT_START = re.compile(_PHRASE_BODY)
_GAP_PATTERN = r"[*_]*(?:[ \t]+|[ \t]*\r?\n[ \t]*(?=[a-z*_]))[*_]*"  # markdown emphasis is not a word
_WORD_PATTERN = r"[A-Za-z0-9][\w'’-]*"
_GAP = re.compile(_GAP_PATTERN)
_WORD = re.compile(_WORD_PATTERN)
# Runs of plain words after a trigger: the common case, handled without a loop over matches.
_RUN_WORDS = 8
_WORD_RUN = re.compile(rf"(?:{_GAP_PATTERN}{_WORD_PATTERN}){{1,{_RUN_WORDS}}}")
_SENTENCE_END = frozenset(".;:!?,)]}\"”")


def _norm_number(raw: str) -> str:
    """``"172,000.00"`` -> ``"172000"``, ``"9.50"`` -> ``"9.5"``, ``"007"`` -> ``"7"``."""
    digits = raw.replace(",", "")
    if "." in digits:
        digits = digits.rstrip("0").rstrip(".")
    whole, dot, fraction = digits.partition(".")
    return (whole.lstrip("0") or "0") + dot + fraction


# What a builder finds: (class, token, start, end) in the text it was given.
_Found = tuple[str, str, int, int]


def _make(cls: str, value: str, start: int, end: int) -> _Found:
    return cls, f"{cls}:{value}", start, end


def _money_value(raw: str, code: str, multiplier: int) -> str | None:
    """Parse an amount written US style (or EU style for euros) into ``"<CODE><amount .2f>"``."""
    if code == "EUR" and _EU_AMOUNT.fullmatch(raw) and not _US_AMOUNT.fullmatch(raw):
        raw = raw.replace(".", "").replace(",", ".")
    elif code == "EUR" and re.fullmatch(r"\d{1,3}(?:\.\d{3})+", raw):
        raw = raw.replace(".", "")
    elif not _US_AMOUNT.fullmatch(raw):
        return None
    try:
        return f"{code}{Decimal(raw.replace(',', '')) * multiplier:.2f}"
    except InvalidOperation:
        return None


def _multiplier(m: re.Match[str]) -> int:
    word = m["mult"] or m["multw"]
    return _MULTIPLIERS[word] if word else 1


def _money_symbol(m: re.Match[str], text: str) -> list[_Found]:
    start = m.start() - 2 if text[max(m.start() - 2, 0):m.start()] == "US" else m.start()
    value = _money_value(m["num"], _CURRENCY_SYMBOLS[m["sym"]], _multiplier(m))
    return [_make("money", value, start, m.end())] if value else []


def _money_code(m: re.Match[str], text: str) -> list[_Found]:
    if m.start() and text[m.start() - 1].isalnum():
        return []
    value = _money_value(m["num"], m["code"], _multiplier(m))
    return [_make("money", value, m.start(), m.end())] if value else []


def _money_suffix(m: re.Match[str], text: str) -> list[_Found]:
    code = _CURRENCY_WORDS.get(m["code"].lower(), m["code"])
    value = _money_value(m["num"], code, _multiplier(m))
    return [_make("money", value, m.start(), m.end())] if value else []


def _percent(m: re.Match[str], text: str) -> list[_Found]:
    return [_make("percent", _norm_number(m["num"]), m.start(), m.end())]


def _date_value(year: int | None, month: int, day: int | None) -> str | None:
    """ISO form of a full date, ``YYYY-MM`` without a day, ``--MM-DD`` without a year."""
    try:
        date(year or 2000, month, day or 1)
    except ValueError:
        return None
    if year is None:
        return f"--{month:02d}-{day:02d}"
    return f"{year:04d}-{month:02d}" if day is None else f"{year:04d}-{month:02d}-{day:02d}"


def _date_emit(m: re.Match[str], text: str, year: str | None, month: int, day: str | None) -> list[_Found]:
    value = _date_value(int(year) if year else None, month, int(day) if day else None)
    return [_make("date", value, m.start(), m.end())] if value else []


def _date_numeric(m: re.Match[str], text: str) -> list[_Found]:
    if len(m["a"]) == 4 and len(m["c"]) <= 2:
        return _date_emit(m, text, m["a"], int(m["b"]), m["c"])
    if len(m["a"]) <= 2 and len(m["c"]) == 4:
        return _date_emit(m, text, m["c"], int(m["a"]), m["b"])
    return []


def _date_named(m: re.Match[str], text: str) -> list[_Found]:
    month = _MONTHS.get(m["mon"][:3].lower())  # the pattern pairs letters loosely: "Man" is no month
    return _date_emit(m, text, m["y"] or m["y2"], month, m["d"]) if month else []


def _time(m: re.Match[str], text: str) -> list[_Found]:
    hour, minute, second = int(m["h"]), int(m["mi"] or 0), int(m["s"] or 0)
    half = (m["ap"] or m["ap2"] or "").lower()
    if (half and not 1 <= hour <= 12) or hour > 23:
        return []
    if half:
        hour = hour % 12 + (12 if half == "p" else 0)
    value = f"{hour:02d}:{minute:02d}" + (f":{second:02d}" if second else "") + _zone(m["tz"])
    return [_make("time", value, m.start(), m.end())]


def _zone(raw: str | None) -> str:
    """``UTC``/``GMT``/``Z``/``+00:00`` -> ``Z``; ``+0100`` -> ``+01:00``; names kept upper-case."""
    if not raw:
        return ""
    if raw[0] in "+-":
        digits = raw[1:].replace(":", "")
        offset = f"{raw[0]}{digits[:2]}:{digits[2:]}"
        return "Z" if offset in ("+00:00", "-00:00") else offset
    return "Z" if raw in ("UTC", "GMT", "Z") else raw


def _clause_keyword(m: re.Match[str], text: str) -> list[_Found]:
    keyword = m["kw"].lower().rstrip(".")
    prefix = _CLAUSE_KINDS.get(keyword.rstrip("s"), "")
    if not prefix and not m["ref"][0].isdigit():
        return []  # "Section IV" is only found near digits: leave it out rather than find it by chance
    found = [_make("clause", prefix + m["ref"].lower(), m.start(), m.end())]
    if keyword.endswith("s") or keyword in ("§§", "¶¶"):
        found += _clause_list(text, m.end(), prefix)
    return found


def _clause_list(text: str, pos: int, prefix: str) -> list[_Found]:
    """Further references after a plural keyword: ``sections 4.1, 4.2 and 4.3``."""
    found = []
    while more := _CLAUSE_MORE.match(text, pos):
        found.append(_make("clause", prefix + more["ref"].lower(), more.start("ref"), more.end()))
        pos = more.end()
    return found


def _clause_bare(m: re.Match[str], text: str) -> list[_Found]:
    return [_make("clause", m.group().lower(), m.start(), m.end())]


def _unit(m: re.Match[str], text: str) -> list[_Found]:
    value = _norm_number(m["num"])
    singular, plural = _UNIT_FORMS[m["unit"]]
    return [_make("unit", f"{value} {singular if value == '1' else plural}", m.start(), m.end())]


def _id_hex(m: re.Match[str], text: str) -> list[_Found]:
    raw = m.group()
    if "-" not in raw and (raw.isdigit() or raw.isalpha()):
        return []
    return [_make("id", raw.lower(), m.start(), m.end())]


def _id_hyphenated(m: re.Match[str], text: str) -> list[_Found]:
    start = m.start()
    while start and text[start - 1] in _ID_CHARS:
        start -= 1
    word = _HYPHENATED_ID.match(text, start)
    if word is None or word.end() <= m.start():
        return []
    return [_make("id", word.group(), start, word.end())]


def _id_plain(m: re.Match[str], text: str) -> list[_Found]:
    return [_make("id", m.group(), m.start(), m.end())] if len(m.group()) > 1 else []


def _quantity(m: re.Match[str], text: str) -> list[_Found]:
    """A number, alone or as a percentage or a count of some unit."""
    if m["pct"]:
        return _percent(m, text)
    if m["unit"]:
        return _unit(m, text)
    start, end = m.start(), m.end()
    if text[end:end + 1].isalnum() or text[end:end + 1] == "_" or _is_list_marker(text, start, end):
        return []
    return [_make("number", _norm_number(m["num"]), start, end)]


def _is_list_marker(text: str, start: int, end: int) -> bool:
    """``1.`` or ``2)`` opening a line is list numbering, not a constraint."""
    if text[end:end + 2] not in (". ", ") ", ".\n", ")\n"):
        return False
    line_start = text.rfind("\n", max(0, start - 16), start) + 1
    return (line_start > 0 or start <= 16) and not text[line_start:start].strip(" \t#*-")


_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_HYPHENATED_ID = re.compile(r"(?<![\w-])(?=[a-z0-9-]*\d)[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?![\w-])")
_CLAUSE_MORE = re.compile(rf"\s*(?:,|and|or|to|through|&|–|-)\s*(?P<ref>{_CLAUSE_REF})")

_Builder = Callable[[re.Match[str], str], list[_Found]]


@dataclass(frozen=True)
class _Gate:
    """Where an extractor can match at all: near one of ``literals`` (searched lower-cased).

    Scanning only those windows, not the whole text, is what keeps extraction fast on prose.
    ``before``/``after`` are how far a match can reach from the literal; windows are widened
    to whitespace so no word is cut.
    """

    literals: tuple[str, ...]
    before: int
    after: int
    folded: bool = False


_WHOLE_TEXT = None  # patterns with a literal first character: `re` finds them fast anywhere
_DIGITS = _Gate(tuple("0123456789"), before=16, after=32)
_UNDERSCORE = _Gate(("_",), before=0, after=0)
# Clause references by letter or roman numeral (``Schedule B``, ``Article IV``); numbered ones
# are found near their digits.
_CLAUSE_WORDS = _Gate(("article", "art.", "schedule", "annex", "appendi", "exhibit"), before=0, after=64, folded=True)
# The keyword's first letter is matched on its own so `re` can skip ahead to candidates;
# the rest is matched case-insensitively.
_CLAUSE_KEYWORD = re.compile(
    r"(?P<kw>[§¶][§¶]?|[CcSsPpAaEe](?<![\w][CcSsPpAaEe])(?i:lauses?|ections?|ecs?\.|aragraphs?|aras?\.?"
    r"|rticles?|rts?\.|chedules?|nnex(?:es)?|ppendix|ppendices|xhibits?)(?![A-Za-z]))"
    rf"\s*(?P<ref>{_CLAUSE_REF})")
# A number, then what it counts: a percent sign or word, or a unit (maybe after one adjective).
_QUANTITY = re.compile(
    rf"(?P<num>{_NUM})(?:\s?(?P<pct>%|(?i:percent|per\s?cent|pct)\b)"
    rf"|(?:[\s-](?!(?:{'|'.join(sorted(_STOP_WORDS | _FILLER_WORDS | _ARTICLES))})\b)[a-z]+[\s-]|[\s-]?)"
    rf"(?P<unit>{_UNIT_ALT})(?![\w]))?")
_DATE_NAMED_TAIL = r"(?:,?\s+(?P<y>\d{4})(?!\d))?"

# In priority order: a span taken by an earlier extractor is not matched again by a later one.
_EXTRACTORS: tuple[tuple[re.Pattern[str], _Builder, _Gate | None], ...] = (
    # The scrubber's keyed pseudonyms, ``<EMAIL_ADDRESS:3f2a1c>``: the same value everywhere.
    (re.compile(r"<[A-Z][A-Z_]*:[0-9a-f]{6}>"), _id_plain, _WHOLE_TEXT),
    (re.compile(
        r"[0-9a-fA-F](?<![\w-][0-9a-fA-F])(?:[0-9a-fA-F]{7}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
        r"-[0-9a-fA-F]{12}|[0-9a-fA-F]{6,})(?![\w-])"), _id_hex, _DIGITS),
    (re.compile(r"[A-Z](?<![\w-][A-Z])(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![\w-])"),
     _id_plain, _DIGITS),
    # us-east-1, gpt-4o: found from their hyphens, rarer than the letters they start with.
    (re.compile(r"-(?<=[a-z0-9]-)[a-z0-9]"), _id_hyphenated, _DIGITS),
    (re.compile(r"[A-Za-z](?<![\w.][A-Za-z])(?:[A-Za-z0-9]*\.[A-Za-z])*[A-Za-z0-9]*_\w*(?:\.[A-Za-z_]\w*)*"),
     _id_plain, _UNDERSCORE),
    # 2026-03-11 and 2026/03/11, or 03/11/2026 read US style.
    (re.compile(r"(?P<a>\d(?<![\w.]\d)\d{0,3})(?P<sep>[-/])(?P<b>\d{1,2})(?P=sep)(?P<c>\d{1,4})(?!\d)"),
     _date_numeric, _DIGITS),
    (re.compile(rf"(?P<d>\d(?<![\w.]\d)\d?)(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{_MONTH}){_DATE_NAMED_TAIL}(?P<y2>)"),
     _date_named, _DIGITS),
    (re.compile(
        rf"(?P<mon>{_MONTH})\s+(?:(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?![\d:]){_DATE_NAMED_TAIL}|(?P<y2>\d{{4}})(?!\d))"),
     _date_named, _DIGITS),
    (re.compile(
        r"(?P<h>\d(?<![A-SU-Za-z0-9_:.]\d)\d?)(?::(?P<mi>[0-5]\d)(?::(?P<s>[0-5]\d)(?:\.\d+)?)?"
        r"(?:\s?(?P<ap>[AaPp])\.?[Mm]\.?(?![\w]))?|\s?(?P<ap2>[AaPp])\.?[Mm]\.?(?![\w]))"
        rf"(?:\s?(?P<tz>{_TIME_ZONES})(?![\w]))?(?![\w:])"), _time, _DIGITS),
    (re.compile(rf"(?P<sym>[$€£¥])\s?(?P<num>\d[\d,.]*\d|\d){_MULT}"), _money_symbol, _DIGITS),
    (re.compile(rf"(?P<code>{_CURRENCY_CODES})\s?(?P<num>\d[\d,.]*\d|\d){_MULT}"), _money_code, _DIGITS),
    (re.compile(
        rf"(?P<num>\d(?<![\w.,]\d)(?:[\d,.]*\d)?){_MULT_BODY}\s?(?P<code>{_CURRENCY_CODES}|[Dd]ollars?|[Ee]uros?)"
        r"(?![A-Za-z])"), _money_suffix, _DIGITS),
    (_CLAUSE_KEYWORD, _clause_keyword, _DIGITS),
    (_CLAUSE_KEYWORD, _clause_keyword, _CLAUSE_WORDS),
    (re.compile(r"\d(?<![\w.§]\d)\d*(?:\.\d+)*(?:\((?:[A-Za-z]{1,2}|[ivx]{1,5}|\d{1,2})\))+"),
     _clause_bare, _DIGITS),
    (re.compile(r"\d(?<![\w.]\d)\d*(?:\.\d+){2,}(?![\w]|\.\d)"), _id_plain, _DIGITS),
    (_QUANTITY, _quantity, _DIGITS),
)


def _fold(text: str) -> str:
    """Lower-cased ``text`` with the same length, so offsets into it are offsets into ``text``."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)


def _spans(text: str, low: str, gate: _Gate | None) -> list[tuple[int, int]]:
    """The parts of ``text`` a gate lets its extractors scan."""
    if gate is None:
        return [(0, len(text))] if text else []
    return _windows(low if gate.folded else text, gate)


def _windows(source: str, gate: _Gate) -> list[tuple[int, int]]:
    """Merged ``(start, end)`` spans of ``source`` within reach of the gate's literals."""
    search = _LITERAL_SEARCH.get(gate.literals) or _LITERAL_SEARCH.setdefault(
        gate.literals, re.compile("|".join(map(re.escape, gate.literals))).search)
    spans: list[tuple[int, int]] = []
    pos = covered = 0
    while pos < _DENSE_AFTER or covered < pos // 2:
        found = search(source, pos)  # the nearest occurrence of any literal
        if found is None:
            return spans
        hit = found.start()
        run_end = _RUN.match(source, hit).end()  # a whole number counts as one hit
        start, end = _widen(source, hit - gate.before, run_end + gate.after)
        if spans and start <= spans[-1][1]:
            covered += max(end, spans[-1][1]) - spans[-1][1]
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            covered += end - start
            spans.append((start, end))
        pos = max(run_end, spans[-1][1] - gate.after)  # later hits before this keep their reach
    return [(0, len(source))]  # dense: scanning everything is cheaper than finding windows


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    """Move ``start`` back and ``end`` forward to a space or line break (or the text's ends)."""
    if start > 0:
        floor = max(0, start - _WIDEN_MAX)
        start = max(text.rfind(" ", floor, start), text.rfind("\n", floor, start), floor - 1) + 1
    high = min(len(text), end + _WIDEN_MAX)
    ends = [p for p in (text.find(" ", end, high), text.find("\n", end, high)) if p != -1]
    return max(start, 0), min(ends) if ends else high


_RUN = re.compile(r".[\d,.:/-]*", re.DOTALL)
_LITERAL_SEARCH: dict[tuple[str, ...], Callable[[str, int], re.Match[str] | None]] = {}
_WIDEN_MAX = 256  # a "word" longer than this may be cut at a window's edge
_DENSE_AFTER = 8192  # once this far in, windows covering half the text so far mean: scan it all


class _View:
    """The windows of a text joined into one string (NUL-separated), and the way back to text offsets."""

    def __init__(self, text: str, spans: list[tuple[int, int]]) -> None:
        if sum(end - start for start, end in spans) > len(text) // 2:
            spans = [(0, len(text))] if text else []
        self.text = "\x00".join(text[start:end] for start, end in spans)
        self.starts: list[int] = []
        self.shifts: list[int] = []
        joined = 0
        for start, end in spans:
            self.starts.append(joined)
            self.shifts.append(start - joined)
            joined += end - start + 1

    def shift(self, pos: int) -> int:
        """How far a match starting at ``pos`` in the joined string is from its place in the text."""
        return self.shifts[bisect_right(self.starts, pos) - 1]


def _atoms(text: str, low: str) -> tuple[list[Constraint], bytearray]:
    """Atomic constraints in text order, and a map of the characters they cover.

    Each span goes to the first extractor (in priority order) that matches it.
    """
    taken = bytearray(len(text))
    found: list[Constraint] = []
    views: dict[_Gate | None, _View] = {}
    for pattern, build, gate in _EXTRACTORS:
        view = views.get(gate) or views.setdefault(gate, _View(text, _spans(text, low, gate)))
        for m in pattern.finditer(view.text):
            shift = view.shift(m.start())
            if taken.find(1, m.start() + shift, m.end() + shift) == -1:
                found += _claim(build(m, view.text), shift, taken, text)
    found.sort(key=lambda c: c.start)
    return found, taken


def _claim(built: list[_Found], shift: int, taken: bytearray, text: str) -> Iterator[Constraint]:
    """Constraints at their text offsets, marking their spans taken; any that overlap one already taken are dropped."""
    for cls, token, start, end in built:
        start, end = start + shift, end + shift
        if taken.find(1, start, end) == -1:
            taken[start:end] = b"\x01" * (end - start)
            yield Constraint(cls, token, text[start:end], start, end)


def _atom_word(atom: Constraint) -> str:
    """How an atomic constraint reads inside a phrase token: its value, ``%`` kept for percents."""
    value = atom.token.split(":", 1)[1]
    return value + "%" if atom.cls == "percent" else value


def _object(text: str, pos: int, atoms_at: dict[int, Constraint], atom_starts: list[int]) -> tuple[list[str], int]:
    """The few words a negation or qualifier governs, starting at ``pos``; and where they end.

    Up to three content words; stop words end the object once it has one, auxiliaries and
    articles ride along uncounted, an atomic constraint or the end of a sentence ends it.
    """
    run = _WORD_RUN.match(text, pos)
    if run is None or "_" in run.group():
        return _object_with_atoms(text, pos, atoms_at)
    plain = run.group().replace("*", " ")
    words: list[str] = []
    ends: list[int] = []
    counted, seen = 0, 0
    for raw in plain.split():
        word = raw.lower()
        if counted and word in _STOP_WORDS:
            break
        seen = plain.find(raw, seen) + len(raw)
        words.append(word)
        ends.append(pos + seen)
        counted += word not in _UNCOUNTED
        if counted == _OBJECT_WORDS:
            break
    else:  # the run ran out: the object may go on past it, with an atom or more words
        if len(ends) == _RUN_WORDS or _atom_within(text, pos, run.end(), atom_starts, past_gap=True):
            return _object_with_atoms(text, pos, atoms_at)
    if ends and _atom_within(text, pos, ends[-1], atom_starts, past_gap=False):
        return _object_with_atoms(text, pos, atoms_at)
    while words and words[-1] in _UNCOUNTED:
        words.pop()
    return words, ends[len(words) - 1] if words else pos


def _atom_within(text: str, start: int, end: int, atom_starts: list[int], past_gap: bool) -> bool:
    """Whether an atom starts inside ``text[start:end]`` (or, with ``past_gap``, right after it)."""
    i = bisect_left(atom_starts, start)
    if i == len(atom_starts) or atom_starts[i] - end > _WIDEN_MAX:
        return False
    gap = _GAP.match(text, end) if past_gap else None
    return atom_starts[i] <= (gap.end() if gap else end)


def _object_with_atoms(text: str, pos: int, atoms_at: dict[int, Constraint]) -> tuple[list[str], int]:
    """:func:`_object` word by word, for objects that contain an atomic constraint."""
    words: list[tuple[str, int]] = []  # each word with where it ends
    counted, end = 0, pos
    while counted < _OBJECT_WORDS and (gap := _GAP.match(text, end)):
        word, stop_after, end = _next_word(text, gap.end(), atoms_at)
        if word is None or (counted and word in _STOP_WORDS):
            break
        words.append((word, end))
        counted += word not in _UNCOUNTED
        if stop_after:
            break
    while words and words[-1][0] in _UNCOUNTED:
        words.pop()
    return [word for word, _end in words], words[-1][1] if words else pos


def _next_word(text: str, pos: int, atoms_at: dict[int, Constraint]) -> tuple[str | None, bool, int]:
    """The word at ``pos`` (an atom counts as one word and ends the object), whether it ends a sentence."""
    atom = atoms_at.get(pos)
    if atom is not None:
        return _atom_word(atom), True, atom.end
    m = _WORD.match(text, pos)
    if m is None:
        return None, True, pos
    return m.group().lower(), text[m.end():m.end() + 1] in _SENTENCE_END, m.end()


def _head(m: re.Match[str]) -> tuple[str, str]:
    """The class and canonical trigger of a phrase match: ``"can't"`` -> ``("negation", "not")``."""
    raw = m[1] if m[1].isalpha() else " ".join(m[1].split())
    if raw in _QUALIFIERS:
        return "qualifier", _QUALIFIERS[raw]
    return "negation", _NEGATIONS.get(raw, "not")


def _triggers(low: str) -> list[re.Match[str]]:
    """Every negation or qualifier trigger in ``low``, in text order."""
    for opener in _OPENERS:
        low = low.replace(opener, " ")
    first = _PHRASE_AT_START.match(low)
    found = list(_PHRASE_AFTER_SPACE.finditer(low))
    return [first, *found] if first else found


def _phrases(text: str, low: str, atoms: list[Constraint], taken: bytearray) -> Iterator[Constraint]:
    """Negations and qualifiers with their objects; triggers inside an atom are not phrases."""
    atoms_at = {atom.start: atom for atom in atoms}
    atom_starts = sorted(atoms_at)
    covered = 0
    for m in _triggers(low):
        start = m.start(1)
        if start < covered or taken.find(1, start, m.end()) != -1:
            continue
        words, end = _object(text, m.end(), atoms_at, atom_starts)
        if words:
            cls, head = _head(m)
            covered = m.end()
            yield Constraint(cls, f"{cls}:{head} {' '.join(words)}", text[start:end], start, end)


def find_constraints(text: str) -> list[Constraint]:
    """Every constraint in ``text``, in text order (by start, then end).

    Atomic constraints never overlap one another; negation and qualifier phrases may contain
    them. The same text always gives the same list.
    """
    low = _fold(text)
    atoms, taken = _atoms(text, low)
    found = atoms + list(_phrases(text, low, atoms, taken))
    found.sort(key=lambda c: (c.start, c.end))
    return found


def extract_constraints(text: str | bytes, *, cache: bool = True) -> list[str]:
    """The sorted, de-duplicated constraint tokens of ``text``; bytes are decoded as UTF-8 (errors replaced).

    With ``cache`` (the default) the text is cut into pieces no constraint can cross (at ``|``
    and at line breaks :data:`_NEWLINE_CUT` allows) and each distinct piece is extracted once
    and remembered (a bounded cache shared by threads), which is what
    keeps the writer fast on prompts that repeat lines and table cells; ``cache=False`` extracts
    the whole text in one pass, the reference the cached path is tested against.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not cache:
        return sorted({c.token for c in find_constraints(text)})
    return _PIECES.tokens(text)


# Where a text can be cut without changing its tokens. A piece keeps the separator on each side
# as context (lookbehinds, list markers and lookaheads see one character past an edge), and:
# - "|" is never part of a match, a trigger or an object: a table cell is a piece;
# - a line break is a cut when nothing can continue across it. Atoms continue only into a word
#   character or one of ``%,&–-+*``, or, after a digit, into a unit, code, month, zone, am/pm or
#   percent word, none of which starts with L, Q, R, V, W, X or Y; no atom or object continues
#   past ``]};:!?``, nor past ``.)%`` into a capitalized word (after "Sec." or "p.m." only a
#   reference, a zone or a digit could follow). Trigger phrases ("no more than") continue only
#   from a letter, across spaces and openers, into a letter.
# Whole blocks between cuts at blank lines (a system prompt, a tool schema) are remembered too,
# once all of their pieces were known: a repeated block then costs one look-up.
_OPENER_CLASS = "(\\[{\"“‘*_/>—–-"
_ATOM_STOP = r"(?=\s*(?:[^\w\s%,&–+*-]|\Z))"
_NEWLINE_CUT = re.compile(
    r"\n(?:(?<=[\]};:!?]\n)"  # no atom, object or trigger goes on after one of these
    r"|(?<=[.)%]\n)(?=\s*[A-Z][a-z])"  # a capitalized word is no reference, zone or connector
    rf"|(?<=[^\s\w{_OPENER_CLASS}]\n){_ATOM_STOP}"
    r"|(?<=[0-9]\n)(?=\s*(?:[^\w\s%,&–+*-]|[LQRVWXY]|\Z))"
    rf"|{_ATOM_STOP}(?=[\s{_OPENER_CLASS}]*(?:[^\w\s{_OPENER_CLASS}]|\d|\Z)))"
)
_PIECE_CACHE_ENTRIES = 65536
_PIECE_CACHE_CHARS = 8_000_000  # all remembered pieces together, so memory stays in the tens of MB
_PIECE_CACHE_MAX_CHARS = 16384  # longer pieces are extracted every time rather than remembered
_FIRST = "\x00"  # key prefix of a text's first piece, which has no separator before it


class _PieceCache:
    """Tokens per distinct piece of text, bounded and shared by threads.

    Two generations approximate LRU: hits are served from either and promoted to the young one;
    when the young one fills, the old one is dropped. At most ``entries`` pieces and about
    ``chars`` characters of them are kept.
    """

    def __init__(self, entries: int, chars: int) -> None:
        self._half, self._half_chars = max(1, entries // 2), max(1, chars // 2)
        self._young: dict[str, tuple[str, ...]] = {}
        self._old: dict[str, tuple[str, ...]] = {}
        self._young_chars = 0
        self._lock = threading.Lock()

    def tokens(self, text: str) -> list[str]:
        """The tokens of ``text`` as the union over its blocks and pieces, extracting only unknown pieces."""
        found: set[str] = set()
        for lo, hi, key in _blocks(text):
            with self._lock:
                hit = self._young.get(key)
                if hit is None and (hit := self._old.get(key)) is not None:
                    self._young[key] = hit
                    self._young_chars += len(key)
            if hit is None:
                hit, all_known = self._pieces_tokens(text, lo, hi)
                if all_known:
                    self._remember({key: hit})
            found.update(hit)
        return sorted(found)

    def _pieces_tokens(self, text: str, lo: int, hi: int) -> tuple[tuple[str, ...], bool]:
        """The tokens of the block ``text[lo:hi + 1]`` from its pieces, and whether all were known."""
        keys, direct = _split_money_cells(_piece_keys(text, lo, hi))
        missing: list[str] = []
        with self._lock:
            young, old = self._young, self._old
            hits = list(map(young.get, keys))
            if None in hits:
                for key in itertools.compress(keys, [hit is None for hit in hits]):
                    hit = old.get(key)
                    if hit is None:
                        missing.append(key)
                    else:
                        young[key] = hit
                        self._young_chars += len(key)
                        hits.append(hit)
        if missing:
            scanned = _scan_pieces(missing)
            hits += scanned.values()
            self._remember(scanned)
        return tuple(set(itertools.chain(direct, itertools.chain.from_iterable(filter(None, hits))))), not (missing or direct)

    def _remember(self, extracted: dict[str, tuple[str, ...]]) -> None:
        with self._lock:
            for key, piece_tokens in extracted.items():
                if len(key) <= _PIECE_CACHE_MAX_CHARS:
                    self._young[key] = piece_tokens
                    self._young_chars += len(key)
            if len(self._young) >= self._half or self._young_chars >= self._half_chars:
                self._old, self._young, self._young_chars = self._young, {}, 0

    def clear(self) -> None:
        """Forget every piece."""
        with self._lock:
            self._young, self._old, self._young_chars = {}, {}, 0


def _blocks(text: str) -> list[tuple[int, int, str]]:
    """``(lo, hi, key)`` of the blocks of ``text``, cut at blank lines where :data:`_NEWLINE_CUT` allows.

    A block runs from the cut at ``lo`` (or the text's start) to the cut at ``hi`` (or its end);
    its key is ``text[lo:hi + 1]``, prefixed with :data:`_FIRST` for the text's first block.
    """
    bounds, lo = [], 0
    at = text.find("\n\n")
    while at != -1:
        if _NEWLINE_CUT.match(text, at):
            bounds.append((lo, at))
            lo = at
        at = text.find("\n\n", at + 1)
    bounds.append((lo, len(text)))
    return [(lo, hi, text[lo:hi + 1] if lo else _FIRST + text[:hi + 1]) for lo, hi in bounds]


def _piece_keys(text: str, lo: int = 0, hi: int | None = None) -> list[str]:
    """The pieces of the block ``text[lo:hi + 1]``, each with its separators; a text's first one
    prefixed with :data:`_FIRST`.

    Lines are cut where :data:`_NEWLINE_CUT` allows, then at every ``|``.
    """
    hi = len(text) if hi is None else hi
    cuts = []
    for m in _NEWLINE_CUT.finditer(text, lo + 1 if lo else 0):
        if m.start() >= hi:
            break
        cuts.append(m.start())
    cuts.append(hi)
    keys: list[str] = []
    start = lo
    for cut in cuts:
        line = text[start:cut + 1]  # with the line break before and after, where there are ones
        if "|" not in line:
            if len(line) > (start > 0) + (cut < len(text)):  # some text between the separators
                keys.append(line if start else _FIRST + line)
        else:
            cells = line.split("|")
            first, last = cells[0], cells[-1]
            if len(first) > 1 or (start == 0 and first):
                keys.append(first + "|" if start else _FIRST + first + "|")
            keys += ["|" + cell + "|" for cell in cells[1:-1] if cell]
            if last:
                keys.append("|" + last)
        start = cut
    return keys


def _split_money_cells(keys: list[str]) -> tuple[list[str], list[str]]:
    """``(other keys, tokens)``: the tokens of the money cells among ``keys``, read directly."""
    candidates = [key for key in keys if "$" in key and "\x00" not in key]  # NUL ends a candidate below
    if not candidates:
        return keys, []
    # One match per candidate, each ending at its NUL: a money cell, or anything else.
    cells = _MONEY_CELLS.findall("\x00".join(candidates) + "\x00")
    tokens = [f"money:USD{whole.replace(',', '')}.{cents:0<2}"
              for cell, word, whole, cents in cells if cell and word not in _TRIGGER_HEADS]
    if not tokens:
        return keys, []
    read = {key for key, (cell, word, _whole, _cents) in zip(candidates, cells) if cell and word not in _TRIGGER_HEADS}
    return [key for key in keys if key not in read], tokens


# A table cell holding one dollar amount, maybe after a plain word: ``| unit  $1,232.63 |``.
# Nothing in it but the amount can match (no letter group, hex run, colon, slash, code or
# multiplier), so its only token is the amount's, written as ``_money_value`` writes it (no
# grouping, two decimals; leading zeros are left to the scan); a trigger word before it
# (``| per $5 |``) makes a phrase, so such cells are left to the scan too.
_MONEY_CELLS = re.compile(
    r"([|\n][ \t]*(?:([a-z]+)[ \t]+)?\$([1-9]\d{0,2}(?:,\d{3})*|0)(?:\.(\d{1,2}))?[ \t]*[|\n]?\x00)|[^\x00]*\x00")
_TRIGGER_HEADS = frozenset(phrase.split()[0] for phrase in (*_QUALIFIERS, *_NEGATION_WORDS))


def _scan_pieces(keys: list[str]) -> dict[str, tuple[str, ...]]:
    """Tokens of pieces of any shape, found in one pass over the pieces joined by ``|``.

    A first piece goes first, where it has no separator before it, as in its text.
    """
    unique = sorted(set(keys), key=lambda key: not key.startswith(_FIRST))
    texts = [key[1:] if key.startswith(_FIRST) else key for key in unique]
    starts, at = [], 0
    for piece in texts:
        starts.append(at)
        at += len(piece) + 1
    per_piece: list[set[str]] = [set() for _ in unique]
    for constraint in find_constraints("|".join(texts)):
        per_piece[bisect_right(starts, constraint.start) - 1].add(constraint.token)
    return {key: tuple(tokens) for key, tokens in zip(unique, per_piece)}


_PIECES = _PieceCache(_PIECE_CACHE_ENTRIES, _PIECE_CACHE_CHARS)


def lost_constraints(upstream: str, downstream: str) -> list[Constraint]:
    """Constraints of ``upstream`` whose token does not appear in ``downstream``.

    One entry per lost token (its first occurrence), in upstream text order.
    """
    kept = {c.token for c in find_constraints(downstream)}
    lost: dict[str, Constraint] = {}
    for constraint in find_constraints(upstream):
        if constraint.token not in kept and constraint.token not in lost:
            lost[constraint.token] = constraint
    return list(lost.values())


def diff_tokens(upstream: list[str], downstream: list[str]) -> tuple[list[str], list[str]]:
    """``(lost, gained)``: tokens only upstream and tokens only downstream, each sorted."""
    up, down = set(upstream), set(downstream)
    return sorted(up - down), sorted(down - up)
