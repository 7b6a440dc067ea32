"""output-collapse: a step's outputs getting much shorter across the fleet, against its own baseline."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest

from handoff.queries import connect
from handoff.queries.collapse import find_collapses
from handoff.queries.health import CircuitBreaker, check_and_record
from handoff.store import open_store
from handoff.store.tables import to_table, write_table
from tests.queries.population import silent_alarms

NOW = datetime(2026, 3, 20, tzinfo=timezone.utc)


def _write(store_root: str, sizes_by_day: dict[int, list[int]], *, step: str = "verify", tokens: bool = True) -> None:
    """Digest rows of one step: ``sizes_by_day[k]`` are the output sizes of the day ending ``k`` days before NOW."""
    store = open_store(store_root)
    for days_ago, sizes in sizes_by_day.items():
        day_end = NOW - timedelta(days=days_ago)
        rows = [
            {
                "run_id": f"run_{days_ago:03d}_{n:04d}",
                "handoff_id": "hf-1",
                "seq": 1,
                "to_step": step,
                "kind": "verifier",
                "ts": day_end - timedelta(minutes=10 + n),
                "status": "ok",
                "input_bytes": 100,
                "output_bytes": size * 4,
                "output_tokens": size if tokens else None,
                "tier": "digest",
            }
            for n, size in enumerate(sizes)
        ]
        day = rows[0]["ts"].strftime("%Y-%m-%d")
        write_table(store, "handoffs", day, f"t{days_ago}", 0, to_table("handoffs", rows))


def _normal(rng: random.Random, n: int = 40) -> list[int]:
    return [rng.randint(25, 50) for _ in range(n)]


def test_a_collapsed_day_fires_with_its_figures(tmp_path):
    """Reasoning falling from a median ~37 tokens to ~12 fires, with both medians, the ratio and the count under p10."""
    rng = random.Random(1)
    sizes = {k: _normal(rng) for k in range(1, 8)} | {0: [12] * 30}
    _write(str(tmp_path), sizes)
    (alert,) = find_collapses(connect(str(tmp_path)), now=NOW)
    assert (alert.step, alert.unit, alert.outputs, alert.median, alert.below_low) == ("verify", "tokens", 30, 12.0, 30)
    assert alert.baseline_outputs == 280
    assert alert.ratio == pytest.approx(12 / alert.baseline_median)
    assert alert.message().startswith(
        f"output-collapse on verify: median 12 tokens vs {alert.baseline_median:g} baseline"
    )


def test_a_shrink_under_the_low_percentile_fires_without_halving(tmp_path):
    """Most outputs under nearly every normal one fires even when the median is above half the baseline."""
    rng = random.Random(2)
    sizes = {k: [rng.randint(100, 200) for _ in range(40)] for k in range(1, 8)} | {0: [100] * 25}
    _write(str(tmp_path), sizes)
    (alert,) = find_collapses(connect(str(tmp_path)), now=NOW)
    assert alert.median == 100.0
    assert alert.ratio > 0.5
    assert alert.below_low == 25


def test_one_terse_answer_or_a_quiet_window_never_fires(tmp_path):
    """Under min_outputs outputs in the window, however short, nothing fires; at the minimum it does."""
    rng = random.Random(3)
    _write(str(tmp_path), {k: _normal(rng) for k in range(1, 8)} | {0: [2] * 19})
    con = connect(str(tmp_path))
    assert find_collapses(con, now=NOW) == []
    assert [a.outputs for a in find_collapses(con, now=NOW, min_outputs=19)] == [19]


def test_naturally_short_outputs_never_fire_over_a_month(tmp_path):
    """A step answering in 1 to 3 tokens, day after day, gives no alert on any of 30 days."""
    rng = random.Random(4)
    _write(str(tmp_path), {k: [rng.choice((1, 1, 2, 2, 3)) for _ in range(60)] for k in range(37)}, step="classify")
    con = connect(str(tmp_path))
    fired = [day for day in range(30) if find_collapses(con, now=NOW - timedelta(days=day))]
    assert fired == []


def test_bytes_are_the_unit_when_tokens_are_unknown(tmp_path):
    """Without token counts the alert compares output bytes."""
    rng = random.Random(5)
    _write(str(tmp_path), {k: _normal(rng) for k in range(1, 8)} | {0: [10] * 30}, tokens=False)
    (alert,) = find_collapses(connect(str(tmp_path)), now=NOW)
    assert (alert.unit, alert.median) == ("bytes", 40.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_ratio": 0}, "bad collapse ratio 0"),
        ({"low_quantile": 0.5}, "bad low percentile 0.5"),
        ({"baseline_days": 0}, "bad baseline of 0 days"),
        ({"min_outputs": 0}, "bad minimum count 0"),
    ],
)
def test_bad_thresholds_are_refused(tmp_path, kwargs, message):
    """A threshold that cannot mean anything is a ValueError naming it."""
    with pytest.raises(ValueError, match=message):
        find_collapses(connect(str(tmp_path)), now=NOW, **kwargs)


def test_the_breaker_opens_once_on_a_collapse(tmp_path):
    """A collapse in the checked window opens its breaker at once (systemic); the next check stays quiet."""
    rng = random.Random(6)
    _write(str(tmp_path), {k: _normal(rng) for k in range(1, 8)} | {0: [12] * 30})
    store, now = open_store(str(tmp_path)), datetime.now(timezone.utc)
    # The rows are dated around NOW: check a window that ends there.
    since = now - NOW + timedelta(hours=24)
    breaker = CircuitBreaker(window=since)
    done = check_and_record(store, connect(store), breaker, since=since)
    (trip,) = [t for t in done.trips if t.check.startswith("output-collapse")]
    assert trip.check == "output-collapse:verify"
    assert trip.message().startswith("circuit breaker open: HIGH output-collapse on verify: median 12 tokens")
    again = check_and_record(store, connect(store), CircuitBreaker(window=since), since=since)
    assert [t for t in again.trips if t.check.startswith("output-collapse")] == []


def test_a_generated_month_fires_only_on_what_was_planted(month):
    """Over 30 days of generated traffic each signal catches what was planted and raises no false alarm."""
    found = silent_alarms(month)
    assert {name: (a.caught, a.missed, a.false_alarms, a.checked) for name, a in found.items()} == {
        "verifier-broken": (3, 0, 0, 1932),
        "empty-output": (3, 0, 0, 11622),
        "output-collapse": (1, 0, 0, 30),
    }
    assert len(month.variants["collapse"]) > 20  # the alert's minimum count: the collapsed day is a fleet, not one run
