"""OTLP export: handoff spans reach a real OTLP/HTTP receiver, added to the provider already in use."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import handoff
from handoff.exporters.otlp import traces_url


def _record_two_steps() -> str:
    @handoff.step(to="validate")
    def validate(doc: str) -> str:
        return "report: surcharge base is the rebated subtotal per 7.2(b)"

    @handoff.step(to="orchestrator.compress_v3", kind="transform")
    def compress(report: str) -> str:
        return "freight surcharge: 9.1% (clause 7.2)"

    with handoff.run("invoice", invoice="INV-88214") as run:
        compress(validate("INV-88214 340 lines"))
    return run.run_id


def test_spans_arrive_with_the_contract_attributes_and_the_app_exporter_still_gets_them(store_dir, otlp_receiver):
    """configure(otlp_endpoint=...) adds an exporter to my provider: mine keeps its spans, the receiver gets every attribute."""
    provider = TracerProvider()
    mine = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(mine))
    handoff.configure(otlp_endpoint=otlp_receiver.endpoint, tracer_provider=provider)

    run_id = _record_two_steps()
    assert provider.force_flush(10_000)

    spans = otlp_receiver.by_handoff()
    assert sorted(spans) == ["hf-1", "hf-2"]
    report = b"report: surcharge base is the rebated subtotal per 7.2(b)"
    brief = b"freight surcharge: 9.1% (clause 7.2)"
    assert spans["hf-2"]["attributes"] == {
        "handoff.run_id": run_id,
        "handoff.id": "hf-2",
        "handoff.to": "orchestrator.compress_v3",
        "handoff.kind": "transform",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "orchestrator.compress_v3",
        "handoff.from": "validate",
        "handoff.attempt": 1,
        "handoff.status": "ok",
        "handoff.parent_id": "hf-1",
        "handoff.input.sha256": hashlib.sha256(report).hexdigest(),
        "handoff.output.sha256": hashlib.sha256(brief).hexdigest(),
    }
    assert spans["hf-2"]["name"] == "handoff validate -> orchestrator.compress_v3"
    run_span = next(s for s in otlp_receiver.spans if s["name"] == "handoff.run invoice")
    assert run_span["parent_span_id"] == ""
    assert spans["hf-1"]["parent_span_id"] == run_span["span_id"]
    assert spans["hf-2"]["parent_span_id"] == run_span["span_id"]
    assert {s["trace_id"] for s in otlp_receiver.spans} == {run_span["trace_id"]}
    assert sorted(s.name for s in mine.get_finished_spans()) == sorted(s["name"] for s in otlp_receiver.spans)
    provider.shutdown()


def test_nested_steps_arrive_as_parent_and_child(store_dir, otlp_receiver):
    """A step called inside another step is its child span in the backend, as it was recorded."""
    provider = TracerProvider()
    handoff.configure(otlp_endpoint=otlp_receiver.endpoint, tracer_provider=provider)

    @handoff.step(to="rebate", kind="tool")
    def rebate(subtotal: str) -> str:
        return "155660.00"

    @handoff.step(to="price", model="gpt-x")
    def price(brief: str) -> str:
        return "total " + rebate("172000.00")

    with handoff.run("invoice"):
        price("freight surcharge: 9.1% (clause 7.2)")
    provider.force_flush(10_000)

    spans = otlp_receiver.by_handoff()
    assert spans["hf-2"]["parent_span_id"] == spans["hf-1"]["span_id"]
    assert spans["hf-2"]["attributes"]["handoff.parent_id"] == "hf-1"
    assert spans["hf-2"]["attributes"]["handoff.from"] == "price"
    assert spans["hf-1"]["attributes"]["gen_ai.request.model"] == "gpt-x"
    provider.shutdown()


def test_configuring_the_same_endpoint_twice_exports_each_span_once(store_dir, otlp_receiver):
    """Calling configure() again does not stack a second OTLP exporter on the provider."""
    provider = TracerProvider()
    handoff.configure(otlp_endpoint=otlp_receiver.endpoint, tracer_provider=provider)
    handoff.configure(otlp_endpoint=otlp_receiver.endpoint, tracer_provider=provider, flush_interval_s=0.1)
    _record_two_steps()
    provider.force_flush(10_000)
    assert sorted(otlp_receiver.by_handoff()) == ["hf-1", "hf-2"]
    assert len(otlp_receiver.spans) == 3
    provider.shutdown()


def test_configuring_no_endpoint_stops_the_export(store_dir, otlp_receiver):
    """configure(otlp_endpoint=None) removes handoff's exporter: later spans are not sent."""
    provider = TracerProvider()
    handoff.configure(otlp_endpoint=otlp_receiver.endpoint, tracer_provider=provider)
    with handoff.record(to="validate") as h:
        h.input("x")
    provider.force_flush(10_000)
    handoff.configure(otlp_endpoint=None)
    with handoff.record(to="price") as h:
        h.input("y")
    provider.force_flush(10_000)
    assert [s["attributes"]["handoff.to"] for s in otlp_receiver.by_handoff().values()] == ["validate"]
    provider.shutdown()


def test_the_standard_otel_variables_turn_export_on(tmp_path, otlp_receiver):
    """With only OTEL_EXPORTER_OTLP_ENDPOINT set, handoff spans are exported over OTLP/HTTP."""
    script = textwrap.dedent(
        """
        import handoff
        from handoff.exporters import otlp

        @handoff.step(to="price")
        def price(brief):
            return "total"

        price("freight surcharge: 9.1% (clause 7.2)")
        handoff.flush()
        print(otlp.force_flush(10.0))
        """
    )
    env = {
        **os.environ,
        "OTEL_EXPORTER_OTLP_ENDPOINT": otlp_receiver.endpoint,
        "HANDOFF_STORE": str(tmp_path / "s"),
        "HANDOFF_SCRUB": "0",
    }
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "True", done.stderr
    assert [s["attributes"]["handoff.to"] for s in otlp_receiver.by_handoff().values()] == ["price"]


def test_otlp_endpoint_gets_the_traces_path():
    """A base endpoint gets /v1/traces appended, a full traces URL is kept, as the OTLP spec says."""
    assert traces_url("http://collector:4318") == "http://collector:4318/v1/traces"
    assert traces_url("http://collector:4318/") == "http://collector:4318/v1/traces"
    assert traces_url("http://collector:4318/v1/traces") == "http://collector:4318/v1/traces"
