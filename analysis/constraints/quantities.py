"""Quantities with a physical, time or data unit as one canonical value, by way of `pint`.

``90 min``, ``1.5 h`` and ``an hour and a half`` are the same duration; ``1,850 kg`` and ``4,079 lb``
the same mass. :func:`canonical_quantity` converts a value and a unit spelling to the base unit
of its dimension (s, kg, m, °C, L, N, B, …) and rounds it to three significant digits, which is
the rounding a reader accepts as a restatement ("5 km" ≈ "3.1 miles", "2.40 m" ≈ "94.5 in"):
``unit:1850 kg``, ``unit:2.4 m``. Durations and data sizes convert exactly instead: a duration in
the largest of d, h, min, s that holds it whole (``90 min`` = ``1.5 h`` -> ``unit:90 min``,
``5 weeks`` = ``35 days`` -> ``unit:35 d``), months and years in months (``1 year`` -> ``unit:12
months``), data in bytes (``2 GiB`` = ``2048 MiB`` -> ``unit:2147483648 B``). Business days are
their own unit (``unit:10 business days``), never days; counted things (lines, replicas, pallets)
keep their noun.

`pint` is imported on the first conversion; each unit's scale to its base is computed once.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache
from typing import Any

from handoff.analysis.constraints.numerals import plain_number

# Spellings -> pint unit names. Each dimension is written in the unit its value is given in.
PINT_UNITS: dict[str, str] = {}
for _unit, *_spellings in (
    ("millisecond", "ms", "msec", "millisecond", "milliseconds"),
    (
        "second",
        "s",
        "sec",
        "secs",
        "second",
        "seconds",
        "Sekunde",
        "Sekunden",
        "segundo",
        "segundos",
        "seconde",
        "secondes",
    ),
    ("minute", "min", "mins", "minute", "minutes", "Minute", "Minuten", "minuto", "minutos"),
    ("hour", "h", "hr", "hrs", "hour", "hours", "Stunde", "Stunden", "hora", "horas", "heure", "heures"),
    (
        "day",
        "d",
        "day",
        "days",
        "calendar day",
        "calendar days",
        "Tag",
        "Tage",
        "Tagen",
        "día",
        "días",
        "jour",
        "jours",
    ),
    ("week", "wk", "wks", "week", "weeks", "Woche", "Wochen", "semana", "semanas", "semaine", "semaines"),
    ("month", "month", "months", "Monat", "Monate", "Monaten", "mes", "meses", "mois"),
    ("year", "yr", "yrs", "year", "years", "Jahr", "Jahre", "Jahren", "año", "años", "ans"),
    ("microgram", "µg", "mcg", "microgram", "micrograms"),
    ("milligram", "mg", "milligram", "milligrams"),
    ("gram", "g", "gram", "grams", "Gramm", "gramos", "grammes"),
    ("kilogram", "kg", "kilogram", "kilograms", "kilos", "Kilogramm", "kilogramos", "kilogrammes"),
    ("metric_ton", "t", "tonne", "tonnes", "metric ton", "metric tons", "Tonnen", "toneladas"),
    ("pound", "lb", "lbs", "pound", "pounds"),
    ("ounce", "oz", "ounce", "ounces"),
    ("micrometer", "µm", "μm", "micrometer", "micrometers", "micrometre", "micrometres", "micron", "microns"),
    ("millimeter", "mm", "millimeter", "millimeters", "millimetre", "millimetres", "millimètres", "milímetros"),
    ("centimeter", "cm", "centimeter", "centimeters", "centimetre", "centimetres", "centimètres", "centímetros"),
    ("meter", "m", "meter", "meters", "metre", "metres", "Meter", "Metern", "mètres", "metros"),
    (
        "kilometer",
        "km",
        "kilometer",
        "kilometers",
        "kilometre",
        "kilometres",
        "Kilometer",
        "Kilometern",
        "kilomètres",
        "kilómetros",
    ),
    ("inch", "in", "inch", "inches"),
    ("foot ** 2", "sq ft", "sq. ft.", "sqft", "square feet", "square foot", "RSF"),
    ("meter ** 2", "m²", "sq m", "square meters", "square metres", "Quadratmeter"),
    ("acre", "acre", "acres"),
    ("hectare", "ha", "hectare", "hectares"),
    ("foot", "ft", "foot", "feet"),
    ("mile", "mi", "mile", "miles"),
    ("milliliter", "ml", "mL", "milliliter", "milliliters", "millilitre", "millilitres"),
    ("centiliter", "cl", "cL", "centiliter", "centiliters", "centilitre", "centilitres"),
    ("liter", "l", "L", "liter", "liters", "litre", "litres", "Liter", "Litern", "litros"),
    ("gallon", "gal", "gallon", "gallons"),
    ("meter ** 3", "m³", "cubic meter", "cubic meters", "cubic metre", "cubic metres", "Kubikmeter", "mètres cubes"),
    ("degree_Celsius", "°C", "ºC", "degC"),
    ("degree_Fahrenheit", "°F", "ºF", "degF"),
    ("newton", "N"),
    ("dekanewton", "daN"),
    ("kilonewton", "kN"),
    ("force_pound", "lbf"),
    ("newton * meter", "Nm", "N·m", "N*m", "N-m"),
    ("millimole / liter", "mmol/L", "mmol/l"),
    ("micromole / liter", "µmol/L", "µmol/l", "umol/L", "μmol/L"),
    ("nanomole / liter", "nmol/L", "nmol/l"),
    ("kilometer_per_hour", "km/h", "kph"),
    ("mile_per_hour", "mph"),
    ("watt", "W"),
    ("kilowatt", "kW"),
    ("megawatt", "MW"),
    ("kilowatt_hour", "kWh"),
    ("megawatt_hour", "MWh"),
    ("kilovolt_ampere", "kVA"),
    ("bar", "bar"),
    ("millibar", "mbar"),
    ("pascal", "Pa"),
    ("kilopascal", "kPa"),
    ("megapascal", "MPa"),
    ("psi", "psi"),
    ("byte", "bytes", "byte", "B"),
    ("kilobyte", "KB", "kB"),
    ("megabyte", "MB", "megabyte", "megabytes"),
    ("gigabyte", "GB", "gigabyte", "gigabytes"),
    ("terabyte", "TB", "terabyte", "terabytes"),
    ("kibibyte", "KiB", "Ki"),
    ("mebibyte", "MiB", "Mi"),
    ("gibibyte", "GiB", "Gi"),
    ("tebibyte", "TiB", "Ti"),
):
    for _spelling in _spellings:
        PINT_UNITS[_spelling] = _unit

# The unit each dimension is written in, and its symbol in a token.
_BASES = {
    "second": "s",
    "kilogram": "kg",
    "meter": "m",
    "liter": "L",
    "meter ** 2": "m²",
    "newton": "N",
    "newton * meter": "N·m",
    "mole / liter": "mol/L",
    "kilometer_per_hour": "km/h",
    "watt": "W",
    "kilowatt_hour": "kWh",
    "pascal": "Pa",
}
_SIGNIFICANT = 3


@cache
def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


@cache
def _scale(unit: str) -> tuple[str, float] | None:
    """``(base symbol, factor)`` of a pint unit: ``"minute"`` -> ``("s", 60.0)``; None for temperatures."""
    registry = _registry()
    if unit.endswith("byte"):
        return "B", registry.Quantity(1, unit).to("byte").magnitude
    if unit.endswith("volt_ampere"):  # apparent power has the dimension of watts but is not real power
        return "VA", registry.Quantity(1, unit).to("volt_ampere").magnitude
    quantity = registry.Quantity(1, unit)
    if quantity.dimensionality == registry.Quantity(1, "kelvin").dimensionality:
        return None
    base = next(base for base in _BASES if registry.Quantity(1, base).dimensionality == quantity.dimensionality)
    return _BASES[base], quantity.to(base).magnitude


def canonical_quantity(value: Decimal, spelling: str) -> str | None:
    """``(Decimal("90"), "min")`` -> ``"90 min"``, ``(Decimal("1.5"), "h")`` too; None when pint does not convert ``spelling``."""
    unit = PINT_UNITS.get(spelling)
    if unit is None:
        return None
    if unit in _CALENDAR:
        return _count(value * _CALENDAR[unit], "month", "months")
    scale = _scale(unit)
    if scale is None:
        return f"{_round(_registry().Quantity(float(value), unit).to('degree_Celsius').magnitude)} °C"
    symbol, factor = scale
    if symbol == "s":
        return _duration(value * Decimal(repr(factor)))
    if symbol == "B":
        return f"{plain_number((value * Decimal(repr(factor))).quantize(Decimal(1)))} B"
    return f"{_round(float(value) * factor)} {symbol}"


_DURATION_SECONDS = {"d": 86400, "h": 3600, "min": 60, "s": 1, "ms": Decimal("0.001")}


def duration_seconds(value: str) -> Decimal | None:
    """The seconds of a canonical duration (``"2 h"`` -> 7200), None for any other quantity."""
    number, _, symbol = value.partition(" ")
    scale = _DURATION_SECONDS.get(symbol)
    return None if scale is None else Decimal(number) * scale


def duration_value(seconds: Decimal) -> str:
    """The canonical value of a duration of ``seconds``: ``7200`` -> ``"2 h"``."""
    return _duration(seconds)


def _duration(seconds: Decimal) -> str:
    """Exact seconds in the largest of d, h, min, s, ms that holds them whole: ``5 weeks`` and ``35 days`` -> ``35 d``."""
    for size, symbol in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds and seconds % size == 0:
            return f"{plain_number(seconds / size)} {symbol}"
    if seconds % 1 and (seconds * 1000) % 1 == 0:
        return f"{plain_number(seconds * 1000)} ms"
    return f"{plain_number(seconds)} s"


def _count(value: Decimal, singular: str, plural: str) -> str:
    number = plain_number(value)
    return f"{number} {singular if number == '1' else plural}"


def _round(magnitude: float) -> str:
    return plain_number(Decimal(f"{magnitude:.{_SIGNIFICANT}g}"))


# Months and years are not a whole number of days: they are compared in months.
_CALENDAR = {"month": Decimal(1), "year": Decimal(12)}


@cache
def _factors(symbol: str) -> tuple[float, ...]:
    """How many base units (``symbol``) one of each unit pint converts to it makes: kg -> (1e-06, 0.001, 1.0, …)."""
    factors = set()
    for unit in set(PINT_UNITS.values()) - set(_CALENDAR):
        scale = _scale(unit)
        if scale is not None and scale[0] == symbol:
            factors.add(scale[1])
    return tuple(sorted(factors))


def written_values(value: str) -> frozenset[Decimal]:
    """The numbers a canonical quantity may have been written as, in any unit of its dimension
    (three significant digits): ``"0.00025 kg"`` -> {250 (mg), 0.25 (g), 0.00025 (kg), …}."""
    number, _, symbol = value.partition(" ")
    seconds = duration_seconds(value)
    if seconds is not None:
        return frozenset(plain_decimal(seconds / Decimal(size)) for size in (1, 60, 3600, 86400, 604800))
    if symbol in ("month", "months"):
        return frozenset({Decimal(number), plain_decimal(Decimal(number) / 12)})
    return frozenset(Decimal(_round(float(number) / factor)) for factor in _factors(symbol))


def plain_decimal(value: Decimal) -> Decimal:
    """``value`` at three significant digits, normalized: 2.3333 -> 2.33, 250.0 -> 250."""
    return Decimal(_round(float(value)))


# A key ending in "_min" counts minutes when its other words name a stretch of time
# ("downtime_min", "max_monthly_downtime_min", "retry_delay_min"), and states a minimum otherwise
# ("replicas_min", "temp_min"): a minimum of downtime, delay or maintenance is no limit anyone sets.
_TIME_KEY_WORDS = frozenset(
    (
        "duration", "delay", "timeout", "interval", "wait", "waiting", "window", "outage", "maintenance",
        "latency", "lag", "break", "pause", "ttl", "age", "period", "elapsed", "session", "cooldown", "backoff",
        "grace", "travel", "drive", "commute", "shift", "slot", "lead", "response", "resolution", "restore",
    )
)  # fmt: skip
_KEY_WORD = re.compile(r"[A-Z]?[a-z]+")
_KEY_BEFORE = re.compile(r"[A-Za-z0-9_]*\Z")


def minutes_key(text: str, end: int) -> bool:
    """Whether the key whose ``_min`` suffix starts at ``end`` in ``text`` names a stretch of time, so
    ``min`` is its unit (minutes), not a bound: a word of time, or a word ending in ``time``."""
    key = _KEY_BEFORE.search(text, max(0, end - 64), end).group()
    words = [w.lower() for w in _KEY_WORD.findall(key)]
    return any(w in _TIME_KEY_WORDS or w.endswith("time") for w in words)


def percent_key(text: str, end: int) -> bool:
    """Whether the key whose unit suffix starts at ``end`` has a ``pct`` or ``percent`` part, so its
    value is a percentage whatever the suffix (``discount_pct_off_bar: 18`` is 18%, not 18 bar)."""
    key = _KEY_BEFORE.search(text, max(0, end - 64), end).group()
    return not {"pct", "percent"}.isdisjoint(key.lower().split("_"))
