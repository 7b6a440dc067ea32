"""What each piece of a handoff span costs at its start and end, in one process: ``python -m bench.span_cost``.

A diagnostic beside figure 1 (the hot path): the same SDK provider and ``BatchSpanProcessor``
(no-op exporter) as the hot-path baseline, timing span start + end with the attribute sets a
handoff span carries before and after the GenAI conventions, with and without a parent link,
the exception event of a failed step and the fallback event. Medians of alternating rounds, in this thread's CPU time (the
export thread and other processes on a loaded machine do not count).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

BEFORE = {
    "handoff.run_id": "run_01JDZ3M6Q8W1T5V7X9Z2B4D6F8",
    "handoff.id": "hf-3",
    "handoff.seq": 3,
    "handoff.to": "price",
    "handoff.kind": "agent",
    "handoff.from": "orchestrator.compress_v3",
    "handoff.attempt": 1,
    "handoff.input.sha256": "9f2b" * 16,
    "handoff.input.bytes": 10240,
    "handoff.input.ref": "handoff://run_01JDZ3M6Q8W1T5V7X9Z2B4D6F8/hf-3/in",
    "handoff.parent_id": "hf-2",
    "gen_ai.request.model": "claude-sonnet-4",
}
GENAI = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "price"}
#: What the record already carries and a span consumer can derive (the seq is in the id, refs from run and id).
TRIMMED = ("handoff.seq", "handoff.input.bytes", "handoff.input.ref", "handoff.output.bytes", "handoff.output.ref")
END = {
    "handoff.status": "ok",
    "handoff.output.sha256": "4c1d" * 16,
    "handoff.output.bytes": 241,
    "handoff.output.ref": "handoff://run_01JDZ3M6Q8W1T5V7X9Z2B4D6F8/hf-3/out",
}


def _tracer():
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class NoopExporter(SpanExporter):
        def export(self, spans):
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(NoopExporter()))
    return provider.get_tracer("bench.span_cost")


def variants() -> dict[str, Callable[[], None]]:
    """Return the span shapes to time, each a no-argument call that starts and ends one span."""
    from opentelemetry import trace

    tracer = _tracer()
    parent = tracer.start_span("parent").get_span_context()
    links = [trace.Link(parent, {"handoff.id": "hf-2"})]
    bare_links = [trace.Link(parent)]
    with_genai = {**BEFORE, **GENAI}
    trimmed = {k: v for k, v in with_genai.items() if k not in TRIMMED}
    trimmed_end = {k: v for k, v in END.items() if k not in TRIMMED}
    error = ValueError("limit exceeded for INV-88214")

    def bare() -> None:
        tracer.start_span("price").end()

    def before() -> None:
        span = tracer.start_span("handoff a -> price", attributes=BEFORE)
        span.set_attributes(END)
        span.end()

    def genai() -> None:
        span = tracer.start_span("handoff a -> price", attributes=with_genai)
        span.set_attributes(END)
        span.end()

    def genai_link() -> None:
        span = tracer.start_span("handoff a -> price", kind=trace.SpanKind.INTERNAL, attributes=with_genai, links=links)
        span.set_attributes(END)
        span.end()

    def genai_bare_link() -> None:
        span = tracer.start_span("handoff a -> price", attributes=with_genai, links=bare_links)
        span.set_attributes(END)
        span.end()

    def now() -> None:
        span = tracer.start_span("handoff a -> price", attributes=trimmed, links=bare_links)
        span.set_attributes(trimmed_end)
        span.end()

    def failed() -> None:
        span = tracer.start_span("handoff a -> price", attributes=with_genai, links=links)
        span.set_attributes({**END, "handoff.status": "error", "error.type": "ValueError"})
        span.record_exception(error, escaped=True)
        span.set_status(trace.Status(trace.StatusCode.ERROR, "ValueError"))
        span.end()

    def fallback() -> None:
        span = tracer.start_span("handoff a -> price", attributes=with_genai, links=links)
        span.add_event("handoff.fallback", {"handoff.fallback.name": "short-report"})
        span.set_attributes({**END, "handoff.status": "fallback"})
        span.end()

    return {
        "bare span": bare,
        "handoff span before (12 start + 4 end attributes)": before,
        "+ gen_ai.operation.name, gen_ai.agent.name": genai,
        "+ a parent link with handoff.id, explicit kind": genai_link,
        "+ a parent link without attributes": genai_bare_link,
        "- seq, sizes and refs (what handoff emits now)": now,
        "failed step (+ error.type, exception event, ERROR status)": failed,
        "fallback (+ handoff.fallback event)": fallback,
    }


def measure(calls: int = 5000, rounds: int = 7) -> dict[str, float]:
    """Return the median µs per span of each variant, over ``rounds`` alternating rounds of ``calls``."""
    shapes = variants()
    samples: dict[str, list[float]] = {name: [] for name in shapes}
    for _ in range(rounds):
        for name, call in shapes.items():
            start = time.thread_time_ns()
            for _ in range(calls):
                call()
            samples[name].append((time.thread_time_ns() - start) / calls / 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    """Print the table."""
    result: dict[str, Any] = measure()
    base = result["handoff span before (12 start + 4 end attributes)"]
    for name, us in result.items():
        print(f"{name:60s} {us:6.2f} µs  ({us - base:+.2f} µs vs before)")


if __name__ == "__main__":
    main()
