"""Clock times and durations written in words: "noon", "half an hour", "one week", "un mes".

Their digits are read by :mod:`~handoff.analysis.constraints.extractors`; these are the spellings
without digits that a rewrite uses for the same fact ("30 min" -> "half an hour", "12:00" -> "noon").
"""

from __future__ import annotations

import re
from decimal import Decimal

from handoff.analysis.constraints.quantities import canonical_quantity
from handoff.analysis.constraints.reading import Reading
from handoff.analysis.constraints.tokens import Found, make_found
from handoff.analysis.constraints.vocabulary import NUMBER_JOINERS, NUMBER_WORDS, TIME_ZONES, trie_pattern

# "one week", "half an hour", "a quarter of an hour", "an hour and a half", "one and a half days":
# a duration in words ("one" is read before a unit, where it is no article).
WORDED_DURATION = re.compile(
    r"(?<![\w-])(?i:(?P<whole>one|every|each|an?|una?|une|ein|eine[mnr]?)(?P<andhalf>[ \t]+and[ \t]+a[ \t]+half)?[ \t-]+"
    r"(?P<unit>minute|hour|day|week|month|year|minuto|hora|día|semana|mes|año|heure|jour|semaine|mois|an"
    r"|Minute|Stunde|Tag|Woche|Monat|Jahr)s?"
    r"(?P<tailhalf>[ \t]+and[ \t]+a[ \t]+half)?"
    r"|(?:(?:an?|one)[ \t]+)?(?P<frac>half|quarter|three[ \t]+quarters)(?:[ \t]+(?:of[ \t]+)?an?)?[ \t-]+"
    r"(?P<funit>minute|hour|day|week|month|year))"
    r"(?![\w-])"
)
_FRACTIONS = {"half": Decimal("0.5"), "quarter": Decimal("0.25"), "three quarters": Decimal("0.75")}


def _needs_any(*words: str):
    """A prefilter: whether the lower-cased text holds any of ``words`` (one C-level ``in`` each).

    A case-insensitive regex alternation tries every position of a 10 KB text (about 1 ms);
    these ``in`` tests cost a few µs. The words may over-approximate what the extractor matches:
    a prefilter only ever skips an extractor that could not match.
    """

    def needs(text: str) -> bool:
        low = text.lower()
        return any(word in low for word in words)

    return needs


NEEDS_WORDED_DURATION = _needs_any(
    "half", "quarter", "one ", "one\t", "one-", "every", "each", "un ", "un\t", "una ", "una\t", "une ", "une\t", "ein"
)


# "two", "twenty-five", "dreißig", "treinta": a number written in words (read by extractors'
# ``_written_number``). It starts with a number word, not a joiner ("and twenty-five" is read from "twenty").
_NUMBER_PART = trie_pattern([*NUMBER_WORDS, *NUMBER_JOINERS])
_WRITTEN_BODY = rf"(?:{trie_pattern(NUMBER_WORDS)})(?:{_NUMBER_PART})*(?:[ -](?:{_NUMBER_PART})+)*"
WRITTEN_NUMBER = re.compile(rf"(?<![\w-])(?i:{_WRITTEN_BODY})(?![\w-])")
# The same in lower-cased text, case-sensitively, from a first letter of a number word (a class
# `re` skips ahead to; the word start and the rest checked in look-arounds): the number words are
# lower-case, so on an ASCII text it finds a match exactly where WRITTEN_NUMBER would.
_FIRST_LETTERS = f"[{re.escape(''.join(sorted({word[0] for word in NUMBER_WORDS})))}]"
_LOWER_WRITTEN_NUMBER = re.compile(
    rf"{_FIRST_LETTERS}(?<![\w-]{_FIRST_LETTERS})(?<=(?={_WRITTEN_BODY}(?![\w-])){_FIRST_LETTERS})"
)


def _needs_written_number(text: str) -> bool:
    """Whether :data:`WRITTEN_NUMBER` may match in ``text``: exactly so on an ASCII text, where case
    folding is plain lower-casing (the case-insensitive pattern tries every character, about 0.5 ms
    per 10 KB; this one skips to candidate letters); always on any other, which is scanned anyway."""
    return not text.isascii() or _LOWER_WRITTEN_NUMBER.search(text.lower()) is not None


NEEDS_WRITTEN_NUMBER = _needs_written_number


# "noon" and "midnight" are clock times ("by Thursday noon" = "by Thursday 12:00").
_CLOCK_WORDS = {
    "noon": "12:00", "midday": "12:00", "mediodía": "12:00", "midi": "12:00", "mittag": "12:00",
    "midnight": "00:00", "medianoche": "00:00", "minuit": "00:00", "mitternacht": "00:00",
}  # fmt: skip
WORDED_CLOCK = re.compile(rf"(?<![\w-])(?i:{'|'.join(_CLOCK_WORDS)})(?![\w-])")
NEEDS_WORDED_CLOCK = _needs_any(
    "noon", "midday", "mediod", "midi", "mittag", "midnight", "medianoche", "minuit", "mitternacht"
)


def worded_clock(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    """``noon`` -> ``time:12:00``, ``midnight`` -> ``time:00:00`` (an extractor's builder)."""
    return [make_found("time", _CLOCK_WORDS[m.group().lower()], m.start(), m.end())]


def worded_duration(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    """A duration written in words; "a day"/"an hour" alone is a rate's unit ("€5 a day"), not one;
    "every minute", "every hour" are the period of one."""
    if m["frac"]:
        amount, unit = _FRACTIONS[re.sub(r"[ \t]+", " ", m["frac"].lower())], m["funit"].lower()
    elif m["whole"].lower() in ("every", "each") and m["unit"].lower() not in ("minute", "hour"):
        return []  # "every minute" = "every 60 seconds"; "each month" is as often "monthly", not read
    elif m["andhalf"] or m["tailhalf"] or m["whole"].lower() not in ("a", "an"):  # "un mes" is "one month"
        amount, unit = Decimal("1.5") if m["andhalf"] or m["tailhalf"] else Decimal(1), m["unit"]
    else:
        return []
    value = canonical_quantity(amount, unit) or canonical_quantity(amount, unit.lower())
    return [make_found("unit", value, m.start(), m.end())] if value else []


# A share written as a fraction is the percentage it equals ("half the fee" = 50%, "two thirds" ≈
# 66.7%, "la totalité" = 100%). Read only where it is a share: before "of", an article or a
# pronoun, or at the end of a clause; not "a third party", "the first half of March", "half past".
_SHARES = {
    "half": "50", "one half": "50", "a half": "50", "a quarter": "25", "one quarter": "25",
    "three quarters": "75", "a third": "33.3", "one third": "33.3", "two thirds": "66.7",
    "all": "100", "the whole": "100", "the entire": "100", "la mitad": "50", "un cuarto": "25",
    "tres cuartos": "75", "un tercio": "33.3", "dos tercios": "66.7", "la totalidad": "100",
    "la moitié": "50", "un quart": "25", "trois quarts": "75", "un tiers": "33.3",
    "deux tiers": "66.7", "la totalité": "100", "die hälfte": "50", "der hälfte": "50",
    "hälfte": "50", "ein viertel": "25", "drei viertel": "75", "ein drittel": "33.3",
    "einem drittel": "33.3", "zwei drittel": "66.7",
}  # fmt: skip
_SHARE_WORDS = "|".join(sorted((w.replace(" ", r"[ \t-]") for w in _SHARES), key=len, reverse=True))
WORDED_SHARE = re.compile(
    r"(?<![\w-])(?<!first )(?<!second )(?<!other )(?<!latter )(?<!once )(?<!twice )(?<!times )(?<!per )"
    rf"(?i:(?P<share>{_SHARE_WORDS}))"
    r"(?:(?<=all)(?=[ \t]+of[ \t]+(?:the|its|their|it|them)\b)"  # "all of the shares", not "all shares"
    r"|(?<!all)(?:(?=[ \t]+(?i:of|the|its|their|his|her|it|them|that|this|from|or|and|if|when|by"
    r"|des|du|de|del|der|von|la|le|les|los|las)\b)"
    r"|(?=[ \t]*[^\w \t'’-])|(?=[ \t]*$)))",
    re.MULTILINE | re.IGNORECASE,  # the look-behinds too: "ALL." and "First half" are no shares
)
_NEEDS_SHARE_WORDS = _needs_any(
    "half", "quart", "third", "whole", "entire", "mitad", "cuarto", "tercio", "totali", "moiti", "tiers", "hälfte",
    "viertel", "drittel",
)  # fmt: skip
_ALL_OF = re.compile(r"all[ \t]+of")


def NEEDS_WORDED_SHARE(text: str) -> bool:  # noqa: N802 - a prefilter, named like the other NEEDS_*
    """Whether ``text`` holds a share word, or "all of" (in any case)."""
    return _NEEDS_SHARE_WORDS(text) or ("all" in (low := text.lower()) and _ALL_OF.search(low) is not None)


def worded_share(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    """``half the fee`` -> ``percent:50``, ``two thirds`` -> ``percent:66.7`` (an extractor's builder)."""
    share = re.sub(r"[ \t-]+", " ", m["share"].lower())
    return [make_found("percent", _SHARES[share], m.start(), m.end())]


# "à 18 h", "entre 9 h et 12 h", "8 h – 18 h CET": an hour written with "h" is a clock after "à",
# "entre", "between", "vers", "dès" or in a range of such hours; "pendant 12 h" stays a duration.
_SP = r"[ \t\u00a0]"
_HOUR_CUE = re.compile(rf"(?<![\w])(?i:à|entre|between|vers|dès|from|de){_SP}\Z")
_HOUR_RANGE_AFTER = re.compile(
    rf"{_SP}*(?:[–—-]|à|et|and|to){_SP}*\d{{1,2}}{_SP}?h(?![\w])(?:{_SP}+(?P<tz>{TIME_ZONES})(?![\w]))?"
)
_HOUR_RANGE_BEFORE = re.compile(rf"\d{_SP}?h{_SP}*(?:[–—-]|à|et|and|to){_SP}*\Z")
_HOUR_ZONE = re.compile(rf"{_SP}+(?P<tz>{TIME_ZONES})(?![\w])")


def hour_clock(text: str, start: int, end: int, amount: Decimal) -> tuple[int, str | None] | None:
    """``(hour, zone)`` when the ``N h`` at ``text[start:end]`` is a clock, else ``None``."""
    if amount != amount.to_integral_value() or not 0 <= amount <= 23:
        return None
    after = _HOUR_RANGE_AFTER.match(text, end)
    before = _HOUR_RANGE_BEFORE.search(text, max(0, start - 8), start)
    cue = _HOUR_CUE.search(text, max(0, start - 8), start)
    if not (after or before or (cue and cue.group().strip().lower() not in ("de", "from"))):
        return None
    zone = _HOUR_ZONE.match(text, end) or after
    return int(amount), zone["tz"] if zone and zone["tz"] else None
