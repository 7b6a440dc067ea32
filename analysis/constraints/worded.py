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

# "one week", "half an hour", "a quarter of an hour", "an hour and a half", "one and a half days":
# a duration in words ("one" is read before a unit, where it is no article).
WORDED_DURATION = re.compile(
    r"(?<![\w-])(?i:(?P<whole>one|an?|una?|une|ein|eine[mnr]?)(?P<andhalf>[ \t]+and[ \t]+a[ \t]+half)?[ \t-]+"
    r"(?P<unit>minute|hour|day|week|month|year|minuto|hora|día|semana|mes|año|heure|jour|semaine|mois|an"
    r"|Minute|Stunde|Tag|Woche|Monat|Jahr)s?"
    r"(?P<tailhalf>[ \t]+and[ \t]+a[ \t]+half)?"
    r"|(?:(?:an?|one)[ \t]+)?(?P<frac>half|quarter)(?:[ \t]+(?:of[ \t]+)?an?)?[ \t-]+(?P<funit>minute|hour|day|week|month|year))"
    r"(?![\w-])"
)
_FRACTIONS = {"half": Decimal("0.5"), "quarter": Decimal("0.25")}
NEEDS_WORDED_DURATION = re.compile(r"(?i:half|quarter|one[ \t-]|un[ae]?[ \t]|ein)").search


# "noon" and "midnight" are clock times ("by Thursday noon" = "by Thursday 12:00").
_CLOCK_WORDS = {
    "noon": "12:00", "midday": "12:00", "mediodía": "12:00", "midi": "12:00", "mittag": "12:00",
    "midnight": "00:00", "medianoche": "00:00", "minuit": "00:00", "mitternacht": "00:00",
}  # fmt: skip
WORDED_CLOCK = re.compile(rf"(?<![\w-])(?i:{'|'.join(_CLOCK_WORDS)})(?![\w-])")
NEEDS_WORDED_CLOCK = re.compile(r"(?i:noon|midday|mediod|midi|mittag|midnight|medianoche|minuit|mitternacht)").search


def worded_clock(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    """``noon`` -> ``time:12:00``, ``midnight`` -> ``time:00:00`` (an extractor's builder)."""
    return [make_found("time", _CLOCK_WORDS[m.group().lower()], m.start(), m.end())]


def worded_duration(m: re.Match[str], text: str, reading: Reading) -> list[Found]:
    """A duration written in words; "a day"/"an hour" alone is a rate's unit ("€5 a day"), not one."""
    if m["frac"]:
        amount, unit = _FRACTIONS[m["frac"].lower()], m["funit"].lower()
    elif m["andhalf"] or m["tailhalf"] or m["whole"].lower() not in ("a", "an"):  # "un mes" is "one month"
        amount, unit = Decimal("1.5") if m["andhalf"] or m["tailhalf"] else Decimal(1), m["unit"]
    else:
        return []
    value = canonical_quantity(amount, unit) or canonical_quantity(amount, unit.lower())
    return [make_found("unit", value, m.start(), m.end())] if value else []
