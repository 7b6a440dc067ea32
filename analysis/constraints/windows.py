"""Where extractors look: the windows of a text near an extractor's gate literals.

Scanning only those windows, not the whole text, is what keeps extraction fast on prose; a
:class:`View` joins a text's windows into one string and maps match offsets back.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Gate:
    """Where an extractor can match at all: near one of ``literals`` (searched lower-cased).

    Scanning only those windows, not the whole text, is what keeps extraction fast on prose.
    ``before``/``after`` are how far a match can reach from the literal; windows are widened
    to whitespace so no word is cut.
    """

    literals: tuple[str, ...]
    before: int
    after: int
    folded: bool = False


def fold(text: str) -> str:
    """Lower-cased ``text`` with the same length, so offsets into it are offsets into ``text``."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)


def gate_spans(text: str, low: str, gate: Gate | None) -> list[tuple[int, int]]:
    """The parts of ``text`` a gate lets its extractors scan."""
    if gate is None:
        return [(0, len(text))] if text else []
    return _windows(low if gate.folded else text, gate)


def _windows(source: str, gate: Gate) -> list[tuple[int, int]]:
    """Merged ``(start, end)`` spans of ``source`` within reach of the gate's literals."""
    if _surely_dense(source, gate):
        return [(0, len(source))]
    search = _LITERAL_SEARCH.get(gate.literals) or _LITERAL_SEARCH.setdefault(
        gate.literals, re.compile("|".join(map(re.escape, gate.literals))).search
    )
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


def _surely_dense(source: str, gate: Gate) -> bool:
    """Whether the windows of a gate of one-character literals surely cover more than half of ``source``.

    Every occurrence ``d`` of such a literal ends up in a window reaching at least to ``d + after``
    (a hit's window reaches ``after`` past its run; a later occurrence is skipped only when the
    window it is in already reaches ``after`` past it), so all but ``after`` characters of each
    gap between occurrences are what the windows may leave out. Counted in C, that spares the
    window loop on number-dense text (an invoice table), which :class:`View` scans whole anyway.
    """
    if not all(len(literal) == 1 for literal in gate.literals) or not source:
        return False
    gaps = _GAPS.get(gate) or _GAPS.setdefault(gate, _gap_pattern(gate))
    first = gaps[0].search(source)
    if first is None:
        return False
    uncovered = first.start() + sum(len(gap) - gate.after for gap in gaps[1].findall(source, first.start()))
    return len(source) - uncovered > len(source) // 2


def _gap_pattern(gate: Gate) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A literal, and a literal with a longer gap than a window's reach after it (each gap: one match)."""
    literals = re.escape("".join(gate.literals))
    return re.compile(f"[{literals}]"), re.compile(f"[{literals}]([^{literals}]{{{gate.after + 1},}})")


_GAPS: dict[Gate, tuple[re.Pattern[str], re.Pattern[str]]] = {}


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    """Move ``start`` back and ``end`` forward to a space or line break (or the text's ends)."""
    if start > 0:
        floor = max(0, start - WIDEN_MAX)
        start = max(text.rfind(" ", floor, start), text.rfind("\n", floor, start), floor - 1) + 1
    high = min(len(text), end + WIDEN_MAX)
    ends = [p for p in (text.find(" ", end, high), text.find("\n", end, high)) if p != -1]
    return max(start, 0), min(ends) if ends else high


_RUN = re.compile(r".[\d,.:/-]*", re.DOTALL)
_LITERAL_SEARCH: dict[tuple[str, ...], Callable[[str, int], re.Match[str] | None]] = {}
WIDEN_MAX = 256  # a "word" longer than this may be cut at a window's edge
_DENSE_AFTER = 8192  # once this far in, windows covering half the text so far mean: scan it all


class View:
    """The windows of a text joined into one string (NUL-separated), and the way back to text offsets."""

    def __init__(self, text: str, spans: list[tuple[int, int]]) -> None:
        if sum(end - start for start, end in spans) > len(text) // 2:
            spans = [(0, len(text))] if text else []
        self.text = "\x00".join(text[start:end] for start, end in spans)
        #: Whether the view is the whole text, so its offsets are the text's.
        self.whole = self.text == text
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
