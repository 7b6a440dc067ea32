"""Timing helpers: per-call samples, percentiles, and interleaved rounds on a noisy machine.

The machine is shared, so every comparison runs its candidates in alternating rounds in the
same process and reports the median over rounds of each round's statistic.
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any, Callable


def percentile(samples: list[float], q: float) -> float:
    """Return the ``q`` quantile (0..1) of ``samples`` by nearest rank."""
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def sample_calls(fn: Callable[[Any], Any], arg: Any, n: int) -> list[float]:
    """Call ``fn(arg)`` ``n`` times; return each call's wall time in microseconds."""
    clock = time.perf_counter_ns
    samples = []
    for _ in range(n):
        start = clock()
        fn(arg)
        samples.append((clock() - start) / 1000)
    return samples


def interleaved(
    samplers: dict[str, Callable[[Any, int], list[float]]],
    arg: Any,
    n: int,
    rounds: int,
    settle: Callable[[], Any] | None = None,
) -> dict[str, dict[str, float]]:
    """Run each sampler (``sampler(arg, n)`` -> per-call µs) for ``rounds`` alternating rounds.

    ``settle`` runs before every round (e.g. drain a background writer, so one candidate's
    leftover work does not slow the next one down). Returns ``{name: {"median_us": ...,
    "p99_us": ...}}``, each the median over rounds.
    """
    per_round: dict[str, list[tuple[float, float]]] = {name: [] for name in samplers}
    for _ in range(rounds):
        for name, sampler in samplers.items():
            if settle is not None:
                settle()
            gc.collect()
            samples = sampler(arg, n)
            per_round[name].append((statistics.median(samples), percentile(samples, 0.99)))
    return {
        name: {
            "median_us": statistics.median(m for m, _ in stats),
            "p99_us": statistics.median(p for _, p in stats),
        }
        for name, stats in per_round.items()
    }


def rate(count: int, seconds: float) -> float:
    """Return ``count / seconds``, guarding against a zero-length interval."""
    return count / max(seconds, 1e-9)
