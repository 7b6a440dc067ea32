"""Small charts as shapes a template draws in SVG: bars per day, and one row of bars per step."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

BAR_AREA_H = 120
ROW_H = 36
LEFT = 44
STEP_LEFT = 220


@dataclass(frozen=True)
class Bar:
    """One bar: its box, the value it stands for and its label (a tooltip and the accessible text)."""

    x: float
    y: float
    w: float
    h: float
    value: float
    label: str
    level: str = ""


@dataclass(frozen=True)
class Chart:
    """Bars, axis labels ``(x, y, text, anchor)`` (anchor ``start`` or ``end``), and the drawing's size."""

    bars: list[Bar]
    labels: list[tuple[float, float, str, str]]
    width: float
    height: float


def _days(first: date, last: date) -> list[date]:
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


def daily_bars(counts: Iterable[tuple[date, int]], *, noun: str = "runs") -> Chart:
    """A bar per day from the first to the last day with a count (days without one are zero)."""
    counts = dict(counts)
    if not counts:
        return Chart([], [], 0, 0)
    days = _days(min(counts), max(counts))
    top = max(counts.values())
    step = max(4.0, min(28.0, 720 / len(days)))
    bars = []
    for i, day in enumerate(days):
        value = counts.get(day, 0)
        height = BAR_AREA_H * value / top if top else 0
        bars.append(
            Bar(
                LEFT + i * step, 16 + BAR_AREA_H - height, step - 2, height, value, f"{day.isoformat()}: {value} {noun}"
            )
        )
    labels = [
        (LEFT - 6, 24, str(top), "end"),
        (LEFT - 6, 16 + BAR_AREA_H, "0", "end"),
        (LEFT, 16 + BAR_AREA_H + 16, days[0].isoformat(), "start"),
    ]
    if len(days) > 1:
        labels.append((LEFT + len(days) * step, 16 + BAR_AREA_H + 16, days[-1].isoformat(), "end"))
    return Chart(bars, labels, LEFT + len(days) * step + 20, BAR_AREA_H + 40)


def step_rows(points: Iterable[tuple[date, str, int, int]]) -> Chart:
    """One row per step, one bar per day: the bar's height is the share of that day's runs it was degraded on.

    ``points`` are ``(day, step, runs, degraded_runs)``; steps keep their first-seen order.
    """
    points = list(points)
    if not points:
        return Chart([], [], 0, 0)
    days = _days(min(p[0] for p in points), max(p[0] for p in points))
    steps = list(dict.fromkeys(p[1] for p in points))
    index = {day: i for i, day in enumerate(days)}
    step_w = max(4.0, min(24.0, 560 / len(days)))
    bars, labels = [], []
    for row, step in enumerate(steps):
        base = 20 + row * ROW_H + ROW_H - 6
        labels.append((STEP_LEFT - 8, base - 4, step, "end"))
    for day, step, runs, degraded in points:
        share = degraded / runs if runs else 0.0
        base = 20 + steps.index(step) * ROW_H + ROW_H - 6
        height = max(1.0, (ROW_H - 10) * share) if runs else 0
        level = "bad" if share >= 0.1 else ("some" if share > 0 else "none")
        bars.append(
            Bar(
                STEP_LEFT + index[day] * step_w,
                base - height,
                step_w - 2,
                height,
                share,
                f"{step} on {day.isoformat()}: degraded on {degraded} of {runs} runs ({share:.0%})",
                level,
            )
        )
    bottom = 20 + len(steps) * ROW_H
    labels.append((STEP_LEFT, bottom + 14, days[0].isoformat(), "start"))
    if len(days) > 1:
        labels.append((STEP_LEFT + len(days) * step_w, bottom + 14, days[-1].isoformat(), "end"))
    return Chart(bars, labels, max(STEP_LEFT + len(days) * step_w, STEP_LEFT + 180) + 40, bottom + 24)
