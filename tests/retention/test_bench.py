"""The retention cost benchmark measures what it claims: one day expiring in each store."""

from __future__ import annotations

from bench.retention_cost import measure


def test_the_benchmark_expires_exactly_one_day_in_each_store():
    """`measure` times an apply that moves one day (3 handoffs a run) to the digest tier in both stores."""
    figures = measure(days_small=33, days_large=40, runs_per_day=2, repeats=1)
    for size in ("small", "large"):
        assert (figures[size]["days_changed"], figures[size]["rows_moved"]) == (1, {"digest": {"rows": 6, "days": 1}})
        assert figures[size]["days_listed"] == 2
    assert (figures["small"]["days"], figures["large"]["days"]) == (33, 40)
