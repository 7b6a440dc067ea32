"""When an atomic fact is stated downstream under another class: the value a token states.

Canonical tokens make most spellings of a fact one token. What they cannot unify is a fact
stated with less context on one side: a table cell ``412,600`` under the column "Amount (GBP)"
is ``number:412600`` where the prose said ``money:GBP412600.00``; a JSON ``"rate": 0.095`` is
``number:0.095`` where the prose said ``percent:9.5``; ``March 18`` in a text that names no year
is ``date:--03-18`` where the other side said ``date:2026-03-18``. :func:`atom_carried` accepts
those: the same value under a class that states less, never a different value.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from handoff.analysis.constraints.quantities import plain_decimal, written_values

_AMOUNT = re.compile(r"[A-Z]{3}(\d+(?:\.\d+)?)")
_LEADING = re.compile(r"\d+(?:\.\d+)?")


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text).normalize()
    except InvalidOperation:
        return None


def stated_value(token: str) -> Decimal | None:
    """The number an atomic token states: ``money:GBP412600.00`` -> 412600, ``unit:72.4 kg`` -> 72.4, ``percent:9.5`` -> 9.5."""
    cls, _, value = token.partition(":")
    if cls == "money":
        m = _AMOUNT.fullmatch(value)
    elif cls in ("number", "percent", "unit"):
        m = _LEADING.match(value)
    else:
        return None
    return _decimal(m.group(1) if cls == "money" else m.group()) if m else None


@lru_cache(maxsize=256)
def _index(downstream: frozenset[str]) -> tuple[frozenset[Decimal], frozenset[Decimal], frozenset[str], frozenset]:
    """``(values of any atom, bare numbers, month-days of dates, (class, value) of the others)`` stated downstream."""
    values, numbers, days, typed = set(), set(), set(), set()
    for token in downstream:
        value = stated_value(token)
        if value is not None:
            values.add(value)
            if token.startswith("number:"):
                numbers.add(value)
            else:
                typed.add((token.partition(":")[0], value))
        elif token.startswith("date:") and len(token) in (12, 15):  # date:--MM-DD, date:YYYY-MM-DD
            days.add(token[-5:])
    return frozenset(values), frozenset(numbers), frozenset(days), frozenset(typed)


# Physical quantities a writer rounds when converting ("5 km" ≈ "3.1 miles" = 4.99 km); durations,
# data sizes and counts convert exactly and are compared exactly.
_ZONE_STARTS = frozenset("Z+-ABCDEGHIJKLMNOPRSTUWXY")  # what a zone written after a clock starts with
_PHYSICAL = frozenset(("kg", "m", "L", "m²", "N", "N·m", "mol/L", "km/h", "W", "kWh", "VA", "Pa"))
_RELATIVE = Decimal("0.015")
_CELSIUS = Decimal("0.6")


def _near_quantity(token: str, value: Decimal, downstream: frozenset[str]) -> bool:
    """Whether a physical quantity is stated downstream in the same dimension within a reader's rounding."""
    symbol = token.rpartition(" ")[2]
    if symbol not in _PHYSICAL and symbol != "°C":
        return False
    for other in _units_by_symbol(downstream).get(symbol, ()):
        if symbol == "°C" and abs(other - value) <= _CELSIUS:
            return True
        if symbol != "°C" and abs(other - value) <= _RELATIVE * max(abs(other), abs(value)):
            return True
    return False


def _in_a_quantity(value: Decimal, downstream: frozenset[str]) -> bool:
    """Whether a quantity downstream states ``value`` in some unit of its dimension: a CSV cell under
    ``max_gross_kg`` as "6,804 kg" (physical quantities are stored at three significant digits, so the
    number is compared so), ``"days_of_stock": 1.8`` as "1.8 days" (stored in minutes). Small whole
    numbers meet some conversion by chance and are not read so."""
    if value < 10 and value == value.to_integral_value():
        return False
    rounded = plain_decimal(value)
    return any(rounded in written_values(token[5:]) for token in downstream if token.startswith("unit:"))


@lru_cache(maxsize=256)
def _folded_ids(downstream: frozenset[str]) -> frozenset[str]:
    return frozenset(token.lower() for token in downstream if token.startswith("id:"))


@lru_cache(maxsize=256)
def _units_by_symbol(downstream: frozenset[str]) -> dict[str, list[Decimal]]:
    units: dict[str, list[Decimal]] = {}
    for token in downstream:
        if token.startswith("unit:") and (value := stated_value(token)) is not None:
            units.setdefault(token.rpartition(" ")[2], []).append(value)
    return units


_SMALLEST_SCALED = 10


def _number_written_otherwise(value: Decimal, downstream: frozenset[str]) -> bool:
    """Whether a bare number is stated downstream as what it counts in a table or a JSON field:
    a quantity in the unit a column or key named (``dose_mg`` 250 = ``0.25 g``), a year of a date
    (``2027`` = ``31 December 2027``), epoch seconds as their day (``1773014400`` = ``9 March
    2026``), an amount in minor units (``"amount": 1416506`` = ``$14,165.06``)."""
    if value >= _SMALLEST_SCALED and value in _written_quantities(downstream):
        return True  # a small count ("2 results") meets some conversion of any quantity by chance
    if value == value.to_integral_value():
        whole = int(value)
        if 1900 <= whole <= 2100 and any(t.startswith(f"date:{whole}") for t in downstream):
            return True
        if 1_000_000_000 <= whole < 2_200_000_000:
            day = datetime.fromtimestamp(whole, timezone.utc).date().isoformat()
            return f"date:{day}" in downstream or f"date:--{day[5:]}" in downstream
        if whole >= 100 and (value / 100).normalize() in _amounts(downstream):
            return True
    return False


@lru_cache(maxsize=256)
def _either_readings(downstream: frozenset[str]) -> frozenset[str]:
    """The readings of the slashed dates downstream that state either of two (``date:2026-03-12|2026-12-03``)."""
    return frozenset(r for t in downstream if t.startswith("date:") and "|" in t for r in t[5:].split("|"))


@lru_cache(maxsize=256)
def _written_quantities(downstream: frozenset[str]) -> frozenset[Decimal]:
    return frozenset(n for token in downstream if token.startswith("unit:") for n in written_values(token[5:]))


@lru_cache(maxsize=256)
def _amounts(downstream: frozenset[str]) -> frozenset[Decimal]:
    return frozenset(v for token in downstream if token.startswith("money:") and (v := stated_value(token)) is not None)


_DOTTED_REF = re.compile(r"\d+(?:\.\d+)+")
# An annex and an appendix are one word in French (annexe), Spanish (anexo) and German (Anhang).
_ATTACHMENTS = ("annex.", "appendix.")


def _clause_carried(ref: str, downstream: frozenset[str]) -> bool:
    """``clause 21.3`` is carried by ``article 21.3`` (the kinds are used interchangeably) and a
    dotted ``18.4`` by the bare ``18.4`` of a rewrite whose subject is the clauses."""
    bare = ref.removeprefix("art.")
    if f"clause:{bare}" in downstream or f"clause:art.{bare}" in downstream:
        return True
    if any(t.startswith((f"clause:{ref}(", f"clause:{ref}.")) for t in downstream):
        return True  # a part of the clause names it: "§ 288" is carried by "Section 288(2)"
    kind = next((k for k in _ATTACHMENTS if ref.startswith(k)), None)
    if kind and any(f"clause:{other}{ref[len(kind) :]}" in downstream for other in _ATTACHMENTS):
        return True  # "Appendix B" translated "Annexe B"
    return _DOTTED_REF.fullmatch(bare) is not None and f"number:{bare}" in downstream


def either_reading_carried(token: str, downstream: frozenset[str]) -> bool:
    """Whether a date is carried by a slashed date of either reading downstream, or a slashed date
    of either reading (``date:2026-03-12|2026-12-03``) by one of its readings."""
    if not token.startswith("date:"):
        return False
    if "|" in token:
        return any(f"date:{reading}" in downstream for reading in token[5:].split("|"))
    return token[5:] in _either_readings(downstream)


def atom_carried(token: str, downstream: frozenset[str]) -> bool:
    """Whether ``downstream`` states the fact of the atomic ``token`` with less context than the token has.

    - a bare number is carried by an amount, a quantity or a percentage of the same value (a
      physical quantity at its three significant digits: ``6804`` and ``6,804 kg``), or by a
      percentage a hundred times it (``0.095`` and ``9.5%``);
    - an amount, a quantity or a percentage is carried by a bare number of the same value (a
      table or JSON whose column or key names the currency, unit or per cent), a percentage also
      by a bare rate a hundredth of it; not when the same value is stated downstream in another
      unit or currency, which is a change;
    - an identifier is carried by the same identifier in another case (``over-10`` opening a
      table cell as ``Over-10``, ``us-east-1`` as ``US-EAST-1``);
    - a clause is carried by the same reference as an article, and a dotted one (``18.4``) by the
      bare number;
    - a clock time written without a zone is carried by the same clock with a zone (the rewrite
      named the zone the context gave: ``03:00`` -> ``03:00 UTC``); never the other way round, since
      dropping a stated zone is a change;
    - a date without its year is carried by the same day of any year, and a full date by the same
      day written without a year;
    - a physical quantity (mass, length, volume, area, force, speed, power, energy, temperature)
      is carried by one of its dimension within 1.5% (0.6 °C), the rounding of a conversion
      ("5 km" ≈ "3.1 miles", "40 lb" ≈ "18 kg"); durations and data sizes compare exactly.
    """
    cls = token.partition(":")[0]
    if cls == "id":
        return token.lower() in _folded_ids(downstream)
    values, numbers, days, typed = _index(downstream)
    if cls == "time":
        clock = token[5:]
        return clock[-1:].isdigit() and any(
            t.startswith(f"time:{clock}") and t[len(clock) + 5 :][:1] in _ZONE_STARTS for t in downstream
        )
    if cls == "clause":
        return _clause_carried(token[7:], downstream)
    if cls == "date":
        value = token[5:]
        if either_reading_carried(token, downstream):  # a slashed date in a text that fixes no order
            return True
        return (
            len(value) in (7, 10) and value[-5:] in days and ("date:--" + value[-5:] in downstream or value[0] == "-")
        )
    value = stated_value(token)
    if value is None:
        return False
    if cls == "unit" and _near_quantity(token, value, downstream):
        return True
    if cls == "number":
        return (
            value in values
            or (0 < value < 1 and (value * 100).normalize() in values)
            or _number_written_otherwise(value, downstream)
            or _in_a_quantity(value, downstream)
        )
    if (cls, value) in typed:
        return False  # the same value in another unit or currency: a change ("9 hours" -> "9 days")
    if cls == "percent":
        return value in numbers or (value / 100).normalize() in numbers
    if cls == "unit" and value not in numbers:  # "age >= 80" for "80 years": the number in the unit written
        return any(n >= _SMALLEST_SCALED and n in numbers for n in written_values(token[5:]))
    return value in numbers
