"""Finding constraints in a text: atoms by priority, then phrases; the entry points.

:func:`find_constraints` scans a whole text; :func:`extract_constraints` gives its sorted tokens,
by default through the piece cache (:mod:`handoff.analysis.constraints.cache`), which is tested
to give exactly the tokens of the whole-text scan.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from decimal import Decimal

from handoff.analysis.constraints.cache import (
    PIECE_CACHE_CHARS,
    PIECE_CACHE_ENTRIES,
    PieceCache,
)
from handoff.analysis.constraints.extractors import extractors_for
from handoff.analysis.constraints.layout import layout_spans
from handoff.analysis.constraints.numerals import plain_number
from handoff.analysis.constraints.phrases import find_phrases
from handoff.analysis.constraints.quantities import canonical_quantity, duration_seconds, duration_value
from handoff.analysis.constraints.reading import Reading, read_text
from handoff.analysis.constraints.tokens import Constraint, Found
from handoff.analysis.constraints.values import either_reading_carried
from handoff.analysis.constraints.vocabulary import UNIT_ALT, UNIT_FORMS
from handoff.analysis.constraints.windows import Gate, View, fold, gate_spans


def _atoms(text: str, low: str, reading: Reading) -> tuple[list[Constraint], bytearray]:
    """Atomic constraints in text order, and a map of the characters they cover.

    Layout (chat stamps, quoted header dates) is taken first and yields nothing; each other
    span goes to the first extractor (in priority order) that matches it.
    """
    taken = bytearray(len(text))
    for start, end in layout_spans(text):
        taken[start:end] = b"\x01" * (end - start)
    found: list[Constraint] = []
    views: dict[Gate | None, View] = {}
    present: dict[tuple[object, Gate | None], bool] = {}
    for pattern, build, gate, needs in extractors_for(reading):
        view = views.get(gate) or views.setdefault(gate, View(text, gate_spans(text, low, gate)))
        if needs is not None:
            key = (needs, gate)
            if key not in present:
                present[key] = bool(needs(view.text))
            if not present[key]:
                continue  # no match of this extractor can be in the view
        if view.whole:
            _claim_whole(pattern.finditer(text), build, reading, taken, text, found)
            continue
        for m in pattern.finditer(view.text):
            shift = view.shift(m.start())
            if taken.find(1, m.start() + shift, m.end() + shift) == -1:
                _claim(build(m, view.text, reading), shift, taken, text, found)
    found.sort(key=lambda c: c.start)
    keys = _keys(found, text)
    found = [c for c in found if c.start not in keys] if keys else found
    if "one" in low or "un" in low or "ein" in low:
        found = _counted_ones(found, text, low, taken)
    if ")" in text:
        found = _restated_numbers(found, text)
    return _day_lists(_tolerances(_dimensions(_joined_durations(found, text), text), text), text), taken


# "2 hours 15 minutes", "14 min and 24 s": one duration written in two units.
_DURATION_JOINER = re.compile(r"[ \t]*(?:,|and|y|et|und)?[ \t]*")


def _joined_durations(found: list[Constraint], text: str) -> list[Constraint]:
    """``found`` with each duration followed by a smaller one (``2 hours 15 minutes``) made one, summed."""
    joined: list[Constraint] = []
    for atom in found:
        last = joined[-1] if joined else None
        if last is not None and (total := _sum_durations(last, atom, text)) is not None:
            joined[-1] = Constraint(
                "unit", f"unit:{duration_value(total)}", text[last.start : atom.end], last.start, atom.end
            )
        else:
            joined.append(atom)
    return joined


# "61 × 40.6 × 30.5 cm", "24, 48 and 72 hours", "40–90 °F": the unit after the last number of a
# dimension, a list or a range is every number's.
_TIMES = re.compile(
    r"[ \t]*[x×–—][ \t]*|-|,[ \t]+|[ \t]+(?:to|and|or|a|à|bis|y|et|und|o|ou|oder)[ \t]+|,[ \t]*(?:and|or)[ \t]+"
)
_UNIT_AFTER_NUMBER = re.compile(r"([\d.,]+)[ \t]?([^\d\s.,]\S*)")


def _dimensions(found: list[Constraint], text: str) -> list[Constraint]:
    """``found`` with each bare number of an ``a × b × c unit``, ``a, b and c unit`` or ``a–b unit`` run given that unit."""
    out = list(found)
    spelling = None  # the unit of the run being read, right to left
    for i in range(len(out) - 1, 0, -1):
        unit, number = out[i], out[i - 1]
        if number.cls != "number" or unit.cls != "unit" or not _TIMES.fullmatch(text, number.end, unit.start):
            spelling = None
            continue
        written = _UNIT_AFTER_NUMBER.fullmatch(unit.text)
        spelling = written.group(2) if written else spelling
        if written and not _comparable(Decimal(number.token[7:]), written.group(1)):
            spelling = None  # "IMO 9588123, 199.9 m": an id beside a length, no list of lengths
            continue
        value = _quantity(Decimal(number.token[7:]), spelling) if spelling else None  # "4 and 24 replicas" too
        if value is not None:
            out[i - 1] = Constraint("unit", f"unit:{value}", number.text, number.start, number.end)
    return out


_LEADING_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _comparable(number: Decimal, written: str) -> bool:
    """Whether a bare number is within a factor of a thousand of the number a unit is ``written`` with."""
    lead = _LEADING_NUMBER.match(written.replace(",", ""))
    other = Decimal(lead.group()) if lead else Decimal(0)
    return not other or other / 1000 <= number <= other * 1000


# "five (5) years", "thirty (30) days", "30 (thirty) days": a number restated in parentheses is one number,
# and the unit after the parenthesis is its unit.
_RESTATED = re.compile(rf"[ \t]*\((?P<again>[^()\n]{{1,30}})\)[ \t]*(?P<unit>{UNIT_ALT})(?![\w])")


def _restated_numbers(found: list[Constraint], text: str) -> list[Constraint]:
    """``found`` with each ``five (5) years`` as one quantity (the parenthesis' number dropped)."""
    out: list[Constraint] = []
    skip_to = -1
    for i, atom in enumerate(found):
        if atom.start < skip_to:
            continue
        m = _RESTATED.match(text, atom.end) if atom.cls == "number" else None
        again = m and next((c for c in found[i + 1 : i + 2] if c.start >= m.start("again")), None)
        same = m and (m["again"].strip() == atom.token[7:] or (again is not None and again.token == atom.token))
        value = _quantity(Decimal(atom.token[7:]), m["unit"]) if same else None
        if value is None:
            out.append(atom)
            continue
        out.append(Constraint("unit", f"unit:{value}", text[atom.start : m.end()], atom.start, m.end()))
        skip_to = m.end()
    return out


def _quantity(amount: Decimal, spelling: str) -> str | None:
    """The canonical value of ``amount`` of the unit written ``spelling`` (a counted thing keeps its noun)."""
    value = canonical_quantity(amount, spelling)
    if value is None and spelling in UNIT_FORMS:
        singular, plural = UNIT_FORMS[spelling]
        value = f"{plain_number(amount)} {singular if amount == 1 else plural}"
    return value


# "at most one replica", "a hop limit of one": after a bound's cue "one" counts (elsewhere it is as
# often an article or a pronoun, and is read only inside a longer number or before a unit).
_COUNTED_ONE = re.compile(
    r"(?<![\w-])(?:at most|at least|no more than|not more than|more than|no fewer than|fewer than|less than|up to"
    r"|maximum(?: of)?|minimum(?: of)?|max\.?|min\.?|limit of|exactly|au moins|au plus|al menos|como máximo"
    r"|como mínimo|mindestens|höchstens)[ \t]+(one|une?|un[oa]|ein(?:e[nmr]?)?)(?![\w-])"
)


def _counted_ones(found: list[Constraint], text: str, low: str, taken: bytearray) -> list[Constraint]:
    """``found`` with each "one" after a bound's cue as the number 1 (where no atom has its span)."""
    ones = []
    for m in _COUNTED_ONE.finditer(low):
        start, end = m.span(1)
        if taken.find(1, start, end) == -1:
            taken[start:end] = b"\x01" * (end - start)
            ones.append(Constraint("number", "number:1", text[start:end], start, end))
    return sorted(found + ones, key=lambda c: c.start) if ones else found


# A key names the value after it and is no identifier, digits or not (docs/constraints.md, Structure):
# ``"days_8_14": 45``, ``max_rh_change_per_24h: 5 %``.
_KEY_MARK = re.compile(r"[\"']?[ \t]*[:=][ \t]*[\"'{\[\d-]")


def _keys(found: list[Constraint], text: str) -> set[int]:
    """The starts of the identifiers in ``found`` written with an underscore as a key before its value."""
    return {c.start for c in found if c.cls == "id" and "_" in c.text and _KEY_MARK.match(text, c.end)}


# "20 and 21 April", "24 et 31 juillet 2026", "2. bis 5. März", "1-31 May", "3, 10 and 17 March", "March 3,
# 10 and 17": the days of a list or range share the month (and year) written once.
_DAY_JOINER = re.compile(
    r"\.?(?:[ \t]*[–—-][ \t]*|,[ \t]*(?:(?:and|et|y|und)[ \t]+)?|[ \t]+(?:and|or|to|et|ou|au|y|o|al|a|und|oder|bis|&)[ \t]+)"
)
_DAY_TOKEN = re.compile(r"date:(\d{4}|-)-(\d\d)-(\d\d)")


def _day_lists(found: list[Constraint], text: str) -> list[Constraint]:
    """``found`` with each bare day of a list or range of days given the month and year of its date."""
    out = list(found)
    for i in range(len(out) - 1, 0, -1):  # day first: "20 and 21 April", read right to left
        _shared_month(out, i - 1, i, text, before=True)
    for i in range(len(out) - 1):  # month first: "March 3, 10 and 17", read left to right
        _shared_month(out, i + 1, i, text, before=False)
    return out


def _shared_month(out: list[Constraint], day_at: int, date_at: int, text: str, before: bool) -> None:
    """Make ``out[day_at]``, a bare day joined to the date ``out[date_at]``, a date of the same month."""
    day, date = out[day_at], out[date_at]
    m = _DAY_TOKEN.fullmatch(date.token)
    if day.cls != "number" or m is None or not day.token[7:].isdigit() or not day.text.isdigit():
        return
    if not _DAY_JOINER.fullmatch(text, *((day.end, date.start) if before else (date.end, day.start))):
        return
    value = int(day.token[7:])
    if not 1 <= value < 32 or (value >= int(m[3]) if before else value <= int(m[3])):
        return  # a list or range of days goes up
    if not before and not date.text[:1].isalpha():
        return  # "3 March, 10 and 17" is no month first
    token = f"date:{m[1]}-{m[2]}-{value:02d}"
    out[day_at] = Constraint("date", token, day.text, day.start, day.end)


# "50% ± 5%", "20 °C ± 2 °C", "1.20 mm ±0.05": a value with a tolerance states the range it allows.
_PLUS_MINUS = re.compile(r"[ \t]*(?:±|\+/-|\+-)[ \t]*")
_TOLERANT = frozenset(("number", "percent", "unit"))


def _tolerances(found: list[Constraint], text: str) -> list[Constraint]:
    """``found`` with each ``X ± Y`` made its two ends (``X-Y`` at X, ``X+Y`` at Y), which bounds read as a range."""
    out = list(found)
    for i in range(len(out) - 1):
        value, tolerance = out[i], out[i + 1]
        if value.cls not in _TOLERANT or tolerance.cls not in (value.cls, "number"):
            continue
        if not _PLUS_MINUS.fullmatch(text, value.end, tolerance.start):
            continue
        ends = _ends(value.token, tolerance.token)
        if ends is not None:
            out[i] = Constraint(value.cls, ends[0], value.text, value.start, value.end)
            out[i + 1] = Constraint(value.cls, ends[1], tolerance.text, tolerance.start, tolerance.end)
    return out


def _ends(value: str, tolerance: str) -> tuple[str, str] | None:
    """The tokens of ``value`` minus and plus ``tolerance`` (a bare tolerance in the value's unit)."""
    cls, _, written = value.partition(":")
    number, _, symbol = written.partition(" ")
    other, _, other_symbol = tolerance.partition(":")[2].partition(" ")
    if (other_symbol and other_symbol != symbol) or duration_seconds(written) is not None:
        return None  # durations and counted things are not written with a tolerance
    low, high = Decimal(number) - Decimal(other), Decimal(number) + Decimal(other)
    if low < 0 and symbol != "°C":
        return None
    if cls == "unit":
        ends = canonical_quantity(low, symbol), canonical_quantity(high, symbol)
        return None if None in ends else (f"unit:{ends[0]}", f"unit:{ends[1]}")
    return f"{cls}:{plain_number(low)}", f"{cls}:{plain_number(high)}"


def _sum_durations(first: Constraint, second: Constraint, text: str) -> Decimal | None:
    if first.cls != "unit" or second.cls != "unit" or not _DURATION_JOINER.fullmatch(text, first.end, second.start):
        return None
    a, b = duration_seconds(first.token[5:]), duration_seconds(second.token[5:])
    step = duration_seconds("1 " + first.token.rpartition(" ")[2])
    if a is None or b is None or step is None or not 0 < b < step:
        return None  # "2 h 15 min" sums; "15 min 2 h" or "3 h 3 h" are two durations
    return a + b


def _claim_whole(
    matches: Iterator[re.Match[str]],
    build: Callable[[re.Match[str], str, Reading], list[Found]],
    reading: Reading,
    taken: bytearray,
    text: str,
    found: list[Constraint],
) -> None:
    """:func:`_claim` for the matches of a view that is the whole text (no offsets to shift)."""
    for m in matches:
        start, end = m.span()
        if taken.find(1, start, end) == -1:
            for cls, token, start, end in build(m, text, reading):
                if taken.find(1, start, end) == -1:
                    taken[start:end] = b"\x01" * (end - start)
                    found.append(Constraint(cls, token, text[start:end], start, end))


def _claim(built: list[Found], shift: int, taken: bytearray, text: str, found: list[Constraint]) -> None:
    """Append the constraints at their text offsets to ``found``, marking their spans taken; overlapping ones are dropped."""
    for cls, token, start, end in built:
        start, end = start + shift, end + shift
        if taken.find(1, start, end) == -1:
            taken[start:end] = b"\x01" * (end - start)
            found.append(Constraint(cls, token, text[start:end], start, end))


def find_constraints(text: str, reading: Reading | None = None) -> list[Constraint]:
    """Every constraint in ``text``, in text order (by start, then end).

    Ambiguous numbers and dates are read by ``reading``, by default the text's own
    (:func:`~handoff.analysis.constraints.reading.read_text`). Atomic constraints never overlap
    one another; negation and qualifier phrases may contain them. The same text always gives
    the same list.
    """
    reading = read_text(text) if reading is None else reading
    low = fold(text)
    atoms, taken = _atoms(text, low, reading)
    found = atoms + list(find_phrases(text, low, atoms, taken))
    found.sort(key=lambda c: (c.start, c.end))
    return found


def extract_constraints(text: str | bytes, *, cache: bool = True) -> list[str]:
    """The sorted, de-duplicated constraint tokens of ``text``; bytes are decoded as UTF-8 (errors replaced).

    With ``cache`` (the default) the text is cut into pieces no constraint can cross (at ``|``
    and at line breaks allows (:data:`~handoff.analysis.constraints.cache.NEWLINE_CUT`)) and each distinct piece is extracted once
    and remembered (a bounded cache shared by threads), which is what
    keeps the writer fast on prompts that repeat lines and table cells; ``cache=False`` extracts
    the whole text in one pass, the reference the cached path is tested against.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not cache:
        return sorted({c.token for c in find_constraints(text)})
    return _PIECES.tokens(text)


_PIECES = PieceCache(PIECE_CACHE_ENTRIES, PIECE_CACHE_CHARS, find_constraints)


def lost_constraints(upstream: str, downstream: str) -> list[Constraint]:
    """Constraints of ``upstream`` whose token does not appear in ``downstream``.

    One entry per lost token (its first occurrence), in upstream text order. A slashed date that
    states either of two readings (``12/03/2026`` in a text that fixes no order) is kept by either.
    """
    kept = frozenset(c.token for c in find_constraints(downstream))
    lost: dict[str, Constraint] = {}
    for constraint in find_constraints(upstream):
        token = constraint.token
        if token not in kept and token not in lost and not either_reading_carried(token, kept):
            lost[token] = constraint
    return list(lost.values())


def diff_tokens(upstream: list[str], downstream: list[str]) -> tuple[list[str], list[str]]:
    """``(lost, gained)``: tokens only upstream and tokens only downstream, each sorted."""
    up, down = set(upstream), set(downstream)
    return sorted(up - down), sorted(down - up)
