"""The writer's counters as OpenTelemetry metrics, and the bounded spill when the queue is full."""

from __future__ import annotations

import threading
import time

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

import handoff
from handoff.capture.recorder import writer_status
from handoff.config import reset_settings
from handoff.exporters.metrics import register_metrics
from handoff.queries import connect, query
from handoff.store.s3 import S3ObjectStore


@pytest.fixture(autouse=True)
def fresh_recorder(spool_dir):
    """Every test starts with default settings and shuts its recorder down."""
    reset_settings()
    yield
    handoff.shutdown(10)
    reset_settings()


def collected(reader: InMemoryMetricReader) -> dict[str, int]:
    """Return ``{metric name: value}`` from one collection."""
    data = reader.get_metrics_data()
    return {
        metric.name: metric.data.data_points[0].value
        for resource in data.resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
    }


def test_every_counter_is_an_opentelemetry_metric(tmp_path):
    """A metrics pipeline sees enqueued, written, spooled, retried, dropped and the queue and spool sizes."""
    handoff.configure(store=str(tmp_path / "store"), scrub=False)
    with handoff.run("metrics"):
        with handoff.record("price", from_="compress") as h:
            h.input("brief")
            h.output("total")
    handoff.flush(10)
    reader = InMemoryMetricReader()
    register_metrics(writer_status, meter_provider=MeterProvider(metric_readers=[reader]))
    assert collected(reader) == {
        "handoff.writer.enqueued": 3,
        "handoff.writer.written": 3,
        "handoff.writer.export_failures": 0,
        "handoff.writer.spooled": 0,
        "handoff.writer.retried": 0,
        "handoff.writer.dropped": 0,
        "handoff.writer.capture_errors": 0,
        "handoff.writer.encode_errors": 0,
        "handoff.writer.spilled": 0,
        "handoff.writer.span_errors": 0,
        "handoff.writer.queued": 0,
        "handoff.spool.bytes": 0,
    }


def test_a_full_queue_spills_to_the_spool_instead_of_dropping(fault_proxy, s3_url, moto_endpoint, monkeypatch):
    """While the writer is stuck on a stalled store and the queue is full, records spill and are spooled, not dropped."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", fault_proxy.url)
    handoff.configure(store=s3_url, scrub=False, max_queue=20, max_batch=20, flush_interval_s=0.05)
    fault_proxy.stall(10)
    with handoff.run("spill") as run:
        flusher = threading.Thread(target=handoff.flush, args=(30,))
        flusher.start()
        deadline = time.monotonic() + 5
        while fault_proxy.stalled_now == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        for n in range(30):
            with handoff.record("price", from_="compress") as h:
                h.input(f"brief {n}")
    fault_proxy.heal()
    flusher.join(30)
    assert handoff.flush(30) is True
    assert handoff.flush(30) is True
    stats = handoff.stats()
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_endpoint)
    stored = query(
        connect(S3ObjectStore.from_url(s3_url)), "SELECT count(*) AS n FROM handoffs WHERE run_id = ?", [run.run_id]
    )
    over_the_bound = (
        stats["spooled"] + stats["spilled"]
    )  # spooled by the writer thread, or spilled encrypted by the app
    assert (stats["dropped"], stats["spooled"] == stats["retried"], over_the_bound >= 11, stats["written"]) == (
        0,
        True,
        True,
        32,
    )
    assert stored == [{"n": 30}]
