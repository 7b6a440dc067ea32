"""Step health, and the circuit breaker that turns a burst of HIGH failures into one alert."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from handoff.queries import connect
from handoff.queries.checks import CheckResult, run_checks, write_results
from handoff.queries.health import CircuitBreaker, step_health
from handoff.store import open_store

T0 = datetime(2026, 3, 11, 9, 0, tzinfo=timezone.utc)


def _fail(run: str, minutes: float, check: str = "transform-constraints", severity: str = "HIGH") -> CheckResult:
    return CheckResult(run, "hf-3", None, T0 + timedelta(minutes=minutes), check, severity, "fail")


def test_health_names_the_degraded_step(demo_copy):
    """After a check, health says the compressor is degraded on 2 of the 5 demo runs and why."""
    store = open_store(demo_copy.store)
    write_results(store, run_checks(connect(store), since=timedelta(days=7)))
    steps = {s.step: s for s in step_health(connect(store), since=timedelta(days=7))}
    compressor = steps["orchestrator.compress_v3"]
    assert (compressor.runs, compressor.degraded_runs, compressor.failing_checks) == (
        5,
        2,
        {"transform-constraints": 2},
    )
    assert compressor.summary() == "the orchestrator.compress_v3 step is degraded on 40% of runs (2 of 5)"
    assert steps["price"].summary() == "the price step is healthy on 5 runs"


def test_health_counts_errors_and_fallbacks_by_name(population):
    """Error and fallback rates are shares of runs, and fallbacks are listed by name."""
    steps = {s.step: s for s in step_health(connect(population.root), since=timedelta(days=90), now=population.now)}
    con = connect(population.root)
    errors = con.execute(
        "SELECT count(DISTINCT run_id) FROM handoffs WHERE to_step = 'price' AND status = 'error'"
    ).fetchone()[0]
    fallbacks = con.execute("SELECT count(*) FROM events WHERE name = 'validator-cache-miss'").fetchone()[0]
    assert steps["price"].error_runs == errors > 0
    assert steps["validate"].fallbacks == {"validator-cache-miss": fallbacks}
    assert steps["validate"].fallback_rate == fallbacks / steps["validate"].runs


def test_health_refuses_an_unknown_grouping(demo):
    """``by`` is one of the known groupings."""
    with pytest.raises(ValueError, match="bad --by 'colour'"):
        step_health(connect(demo.store), by="colour")


def test_three_failures_within_the_window_trip_once(webhook):
    """Three runs failing one HIGH check within 15 minutes give one alert, not three, and the fourth is absorbed."""
    breaker = CircuitBreaker(webhook_url=webhook.url)
    trips = breaker.evaluate([_fail("run_a", 0), _fail("run_b", 5), _fail("run_c", 12), _fail("run_d", 14)])
    assert [(t.check, t.run_ids) for t in trips] == [("transform-constraints", ("run_a", "run_b", "run_c"))]
    assert webhook.bodies == [trips[0].as_dict()]
    assert webhook.bodies[0]["runs"] == 3


def test_failures_spread_out_or_not_high_do_not_trip():
    """Failures further apart than the window, MED failures and passes never trip the breaker."""
    breaker = CircuitBreaker()
    spread = [_fail("run_a", 0), _fail("run_b", 20), _fail("run_c", 40)]
    medium = [_fail(f"run_{i}", i, severity="MED") for i in range(5)]
    assert breaker.evaluate(spread + medium, emit=False) == []


def test_the_breaker_reopens_after_its_window():
    """A new burst after the window is a new alert."""
    burst = [_fail(f"run_{i}", i) for i in range(3)] + [_fail(f"run_late_{i}", 60 + i) for i in range(3)]
    trips = CircuitBreaker().evaluate(burst, emit=False)
    assert [t.run_ids for t in trips] == [("run_0", "run_1", "run_2"), ("run_late_0", "run_late_1", "run_late_2")]


def test_a_trip_is_a_log_record_and_an_opentelemetry_event(caplog):
    """The alert reaches logs and traces as well as the webhook."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    breaker = CircuitBreaker(threshold_runs=2, window=timedelta(minutes=5), tracer_provider=provider)
    with caplog.at_level(logging.WARNING, logger="handoff.breaker"):
        breaker.evaluate([_fail("run_a", 0), _fail("run_b", 1)])
    assert [r.getMessage() for r in caplog.records] == [
        "circuit breaker open: HIGH check transform-constraints failed on 2 runs within 5 minutes "
        "(2026-03-11 09:00:00 to 09:01:00 UTC)"
    ]
    [span] = exporter.get_finished_spans()
    assert [(e.name, e.attributes["handoff.check"], e.attributes["handoff.runs"]) for e in span.events] == [
        ("handoff.circuit_breaker.open", "transform-constraints", 2)
    ]


def test_a_webhook_that_is_down_does_not_raise(caplog):
    """An unreachable webhook is logged; the check carries on."""
    breaker = CircuitBreaker(threshold_runs=1, webhook_url="http://127.0.0.1:9/nothing", timeout_s=1)
    with caplog.at_level(logging.ERROR, logger="handoff.breaker"):
        trips = breaker.evaluate([_fail("run_a", 0)])
    assert len(trips) == 1
    assert caplog.records[-1].getMessage().startswith("circuit breaker webhook http://127.0.0.1:9/nothing failed:")
