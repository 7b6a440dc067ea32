"""Handoff spans are built after the step ends, off the hot path: what an application still relies on."""

from __future__ import annotations

import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ParentBased

import handoff
from handoff.testing import capture


@pytest.fixture
def spans(tmp_path):
    """An SDK provider exporting into memory, as the application's own."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    handoff.configure(store=str(tmp_path / "store"), scrub=False, tracer_provider=provider)
    exporter.provider = provider
    return exporter


def by_name(exporter: InMemorySpanExporter) -> dict[str, object]:
    return {span.name: span for span in exporter.get_finished_spans()}


def test_attributes_set_on_the_current_span_inside_a_step_reach_its_exported_span(spans):
    """trace.get_current_span() inside a step is the handoff's span: what the app sets on it is exported with it."""

    @handoff.step(to="price")
    def price(text: str) -> str:
        current = trace.get_current_span()
        current.set_attribute("app.invoice", "INV-88214")
        current.set_attributes({"app.lines": 3, "app.codes": ["A", "B"]})
        current.add_event("app.priced", {"app.total": "169825.06"})
        return "ok"

    with handoff.run("r"):
        price("brief")
    handoff.flush(10)
    span = by_name(spans)["handoff r -> price"]
    attributes = dict(span.attributes)
    assert (attributes["app.invoice"], attributes["app.lines"], attributes["app.codes"]) == ("INV-88214", 3, ("A", "B"))
    assert attributes["handoff.status"] == "ok"
    assert [(event.name, dict(event.attributes)) for event in span.events] == [
        ("app.priced", {"app.total": "169825.06"})
    ]


def test_a_child_span_the_app_starts_inside_a_step_has_the_handoff_span_as_parent(spans):
    """Spans an app or a GenAI instrumentation starts inside a step nest under that step's handoff span."""
    tracer = spans.provider.get_tracer("app")

    @handoff.step(to="price")
    def price(text: str) -> str:
        with tracer.start_as_current_span("app.lookup"):
            return "ok"

    with handoff.run("r"):
        price("brief")
    handoff.flush(10)
    found = by_name(spans)
    child, step, run = found["app.lookup"], found["handoff r -> price"], found["handoff.run r"]
    assert child.parent.span_id == step.context.span_id
    assert step.parent.span_id == run.context.span_id
    assert child.context.trace_id == step.context.trace_id == run.context.trace_id


def test_a_sampler_that_drops_traces_drops_the_handoff_spans_but_not_the_records(tmp_path):
    """A provider sampling nothing exports no handoff span; the handoffs themselves are still recorded."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(sampler=ParentBased(ALWAYS_OFF))
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    @handoff.step(to="price")
    def price(text: str) -> str:
        assert not trace.get_current_span().is_recording()
        return "ok"

    with capture(tracer_provider=provider) as records, handoff.run("r"):
        price("brief")
        price("again")
    assert exporter.get_finished_spans() == ()
    assert [h.to_step for h in records.handoffs] == ["price", "price"]
    assert records.stats()["span_errors"] == 0


def test_flush_exports_every_handoff_span(spans):
    """After handoff.flush() every handoff and run ended so far is an exported span, with the ids its record carries."""

    @handoff.step(to="price")
    def price(text: str) -> str:
        return text.upper()

    with capture(tracer_provider=spans.provider) as records:
        for n in range(3):
            with handoff.run(f"r{n}"):
                for i in range(40):
                    price(f"brief {n} {i}")
        records.flush(10)
        exported = {(span.context.trace_id, span.context.span_id) for span in spans.get_finished_spans()}
        recorded = {(int(h.trace_id, 16), int(h.span_id, 16)) for h in records.handoffs}
        assert len(spans.get_finished_spans()) == 3 * 40 + 3
        assert recorded <= exported
        assert len(recorded) == 120


def test_a_span_processor_sees_on_start_and_on_end_with_the_ids_children_carry(spans):
    """on_start and on_end see the handoff span with its final name, ids, start and end times, in that order."""
    seen: list[tuple[str, str, int]] = []

    class Watcher(SpanProcessor):
        def on_start(self, span, parent_context=None) -> None:
            seen.append(("start", span.name, span.context.span_id))

        def on_end(self, span) -> None:
            seen.append(("end", span.name, span.context.span_id))

    spans.provider.add_span_processor(Watcher())
    ids = []

    @handoff.step(to="price")
    def price(text: str) -> str:
        ids.append(trace.get_current_span().get_span_context().span_id)
        return "ok"

    with handoff.run("r"):
        price("brief")
    handoff.flush(10)
    step = by_name(spans)["handoff r -> price"]
    assert seen[:2] == [("start", "handoff r -> price", ids[0]), ("end", "handoff r -> price", ids[0])]
    assert step.start_time < step.end_time


def test_a_span_processor_that_raises_is_counted_and_the_app_is_unaffected(spans):
    """A processor failing on our spans never reaches the app: the step returns, the failure is counted."""

    class Broken(SpanProcessor):
        def on_end(self, span) -> None:
            raise RuntimeError("exporter bug")

    spans.provider.add_span_processor(Broken())

    @handoff.step(to="price")
    def price(text: str) -> str:
        return "ok"

    with capture(tracer_provider=spans.provider) as records:
        assert price("brief") == "ok"
        records.flush(10)
        assert records.stats()["span_errors"] == 1
        assert [h.to_step for h in records.handoffs] == ["price"]


def test_a_run_span_ended_after_configure_replaced_the_recorder_is_still_exported(spans, tmp_path):
    """A run still open when handoff.configure() is called again reaches the provider when it ends."""
    with handoff.run("r"):
        handoff.configure(store=str(tmp_path / "other"), scrub=False, tracer_provider=spans.provider)
    handoff.flush(10)
    assert "handoff.run r" in by_name(spans)
    assert handoff.stats()["span_errors"] == 0


def test_flushing_the_provider_exports_pending_handoff_spans(spans):
    """An app that flushes its own provider (at the end of a request) gets the handoff spans ended so far."""

    @handoff.step(to="price")
    def price(text: str) -> str:
        return "ok"

    with handoff.run("r"):
        price("brief")
    assert spans.provider.force_flush(10_000)
    assert sorted(by_name(spans)) == ["handoff r -> price", "handoff.run r"]


def test_a_step_under_a_parent_that_was_not_sampled_exports_no_span(spans):
    """With the default sampler, a step inside a trace its caller did not sample is not exported either."""
    from opentelemetry.trace import SpanContext, TraceFlags

    unsampled = trace.NonRecordingSpan(SpanContext(0x1234, 0x5678, is_remote=True, trace_flags=TraceFlags(0)))

    @handoff.step(to="price")
    def price(text: str) -> str:
        return "ok"

    with trace.use_span(unsampled):
        price("brief")
    handoff.flush(10)
    assert spans.get_finished_spans() == ()


@pytest.mark.parametrize(
    "sampler_of",
    [
        lambda s: ParentBased(s.ALWAYS_ON),
        lambda s: ParentBased(s.ALWAYS_OFF, remote_parent_not_sampled=s.ALWAYS_ON, local_parent_sampled=s.ALWAYS_OFF),
        lambda s: ParentBased(s.TraceIdRatioBased(0.5)),
    ],
)
def test_a_handoff_span_gets_the_decision_and_trace_state_its_sampler_gives_under_every_kind_of_parent(sampler_of):
    """The SDK default sampler is not asked per span (its delegates are constant): the decision must be the same."""
    from opentelemetry.sdk.trace import sampling
    from opentelemetry.trace import SpanContext, TraceFlags, TraceState

    from handoff.exporters.deferred_spans import DeferredTracer, SpanEmitter

    sampler = sampler_of(sampling)
    tracer = TracerProvider(sampler=sampler).get_tracer("t")
    deferred = DeferredTracer(tracer, SpanEmitter())
    state = TraceState([("vendor", "v1")])
    parents = [None] + [
        trace.NonRecordingSpan(SpanContext(0x1234, 0x5678, remote, TraceFlags(flags), state))
        for remote in (False, True)
        for flags in (0, 1)
    ]
    attributes = {"handoff.id": "h1"}
    for parent in parents:
        context = trace.set_span_in_context(parent) if parent is not None else None
        token = otel_context.attach(context) if context is not None else None
        try:
            span = deferred.start("handoff a -> b", attributes, 1, trace.SpanKind.INTERNAL, None)
            expected = sampler.should_sample(otel_context.get_current(), span.get_span_context().trace_id, "x")
        finally:
            if token is not None:
                otel_context.detach(token)
        got = span.get_span_context()
        assert got.trace_flags.sampled == expected.decision.is_sampled(), parent
        assert span.is_recording() == expected.decision.is_recording(), parent
        assert (got.trace_state or None) == (expected.trace_state or None), parent
