"""Timing helpers: per-call samples, percentiles, and interleaved rounds on a noisy machine.

The machine is shared, so every comparison runs its candidates in alternating rounds in the
same process and reports the median over rounds of each round's statistic.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any


def percentile(samples: list[float], q: float) -> float:
    """Return the ``q`` quantile (0..1) of ``samples`` by nearest rank."""
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def sample_calls(fn: Callable[[Any], Any], arg: Any, n: int, start: int = 0) -> list[float]:
    """Call ``fn`` ``n`` times; return each call's wall time in microseconds.

    ``arg`` is the argument, or a list of arguments used in turn from index ``start``.
    """
    items = arg if isinstance(arg, list) else [arg]
    clock = time.perf_counter_ns
    samples = []
    for i in range(start, start + n):
        item = items[i % len(items)]
        begin = clock()
        fn(item)
        samples.append((clock() - begin) / 1000)
    return samples


def cycling(fn: Callable[[Any], Any]) -> Callable[[Any, int], list[float]]:
    """Return a sampler over ``fn`` that continues through an argument list where its last round stopped."""
    position = [0]

    def sample(arg: Any, n: int) -> list[float]:
        samples = sample_calls(fn, arg, n, position[0])
        position[0] += n
        return samples

    return sample


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
