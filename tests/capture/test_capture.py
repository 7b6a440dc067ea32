"""Capture: what the decorators and context managers record for each handoff."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

import handoff
from handoff.testing import capture


def by_to(records) -> dict:
    return {h.to_step: h for h in records.handoffs}


def test_sync_step_records_exact_input_output_and_digests():
    """A decorated function's input and output are recorded byte for byte, with their SHA-256."""

    @handoff.step(to="validate", model="m-1", template="prompts/v.j2@abc123")
    def validate(report: str) -> str:
        return report.upper()

    with capture() as records:
        result = validate("surcharge base is the rebated subtotal per 7.2(b)")
    assert result == "SURCHARGE BASE IS THE REBATED SUBTOTAL PER 7.2(B)"
    (h,) = records.handoffs
    assert h.input == b"surcharge base is the rebated subtotal per 7.2(b)"
    assert h.output == b"SURCHARGE BASE IS THE REBATED SUBTOTAL PER 7.2(B)"
    assert h.input_sha256 == hashlib.sha256(h.input).hexdigest()
    assert h.output_sha256 == hashlib.sha256(h.output).hexdigest()
    assert (h.to_step, h.kind, h.status, h.attempt, h.model, h.template) == (
        "validate",
        "agent",
        "ok",
        1,
        "m-1",
        "prompts/v.j2@abc123",
    )
    assert h.input_content_type == "text/plain; charset=utf-8"


def test_every_field_of_a_step_record_is_what_the_call_did():
    """Each field of a retried, fallen-back, verified step's record holds its own value (none swapped or left out)."""

    @handoff.step(
        to="price", from_="validate", kind="transform", model="m-2", effort="high", prompt_pack="receivables@4",
        template="prompts/p.j2@abc", scrub=False, allow_empty=True, config={"temperature": 0}, team="billing",
    )  # fmt: skip
    def price(report: str) -> str:
        handoff.fallback("short-report")
        handoff.verdict("fail", "total off by 0.01")
        return "total 155660.00"

    with capture() as records:
        with handoff.run("invoice") as run:
            price("report: subtotal 155660.00")
            price("report: subtotal 155660.00")
    first, second = records.handoffs
    fields = dataclasses.asdict(second)
    span_ids = (fields.pop("trace_id"), fields.pop("span_id"))
    volatile = (fields.pop("ts_ns"), fields.pop("duration_ms"))
    fields["config"].pop("replay")
    assert fields == {
        "run_id": run.run_id,
        "handoff_id": "hf-2",
        "seq": 2,
        "to_step": "price",
        "from_step": "validate",
        "kind": "transform",
        "parent_handoff_id": None,
        "fan_in": [],
        "status": "fallback",
        "error_type": None,
        "error_message": None,
        "input": b"report: subtotal 155660.00",
        "output": b"total 155660.00",
        "input_content_type": "text/plain; charset=utf-8",
        "output_content_type": "text/plain; charset=utf-8",
        "input_sha256": hashlib.sha256(b"report: subtotal 155660.00").hexdigest(),
        "output_sha256": hashlib.sha256(b"total 155660.00").hexdigest(),
        "digest_alg": "sha256",
        "input_tokens": None,
        "output_tokens": None,
        "model": "m-2",
        "effort": "high",
        "prompt_pack": "receivables@4",
        "template": "prompts/p.j2@abc",
        "config": {
            "temperature": 0, "model": "m-2", "effort": "high", "prompt_pack": "receivables@4",
            "template": "prompts/p.j2@abc",
        },
        "attempt": 2,
        "retry_of": first.handoff_id,
        "attributes": {"team": "billing"},
        "scrub": False,
        "verdict": "fail",
        "verdict_reason": "total off by 0.01",
        "allow_empty": True,
        "capture_error": None,
    }  # fmt: skip
    assert (len(span_ids[0]), len(span_ids[1])) == (32, 16)
    assert volatile[0] >= first.ts_ns and volatile[1] >= 0


def test_values_render_as_canonical_json_and_bytes_as_is():
    """Non-text inputs render as canonical JSON (sorted keys, compact) and bytes pass through unchanged."""

    @handoff.step(to="price")
    def price(order: dict) -> bytes:
        return b"\x00\xffraw"

    with capture() as records:
        price({"b": 1, "a": [1, 2], "c": "é"})
    (h,) = records.handoffs
    assert h.input == '{"a":[1,2],"b":1,"c":"é"}'.encode()
    assert h.input_content_type == "application/json"
    assert h.output == b"\x00\xffraw"
    assert h.output_content_type == "application/octet-stream"


def test_several_arguments_render_as_named_mapping_and_render_overrides():
    """A step with several arguments records {name: value}; render= records what the consumer really saw."""

    @handoff.step(to="a")
    def two(x, y=2):
        return x + y

    @handoff.step(to="b", render=lambda brief, budget: f"BRIEF({budget}):\n{brief}")
    def rendered(brief, budget):
        return brief[:budget]

    with capture() as records:
        two(1, y=5)
        rendered("abcdef", 3)
    steps = by_to(records)
    assert steps["a"].input == b'{"x":1,"y":5}'
    assert steps["b"].input == b"BRIEF(3):\nabcdef"


def test_methods_skip_self():
    """On a method, the input is the argument after self, not the instance."""

    class Agent:
        @handoff.step(to="agent.method")
        def answer(self, question: str) -> str:
            return "42"

    with capture() as records:
        assert Agent().answer("why?") == "42"
    assert records.handoffs[0].input == b"why?"


def test_async_step_is_recorded():
    """Coroutines are recorded with their awaited result as output."""

    @handoff.step(to="fetch")
    async def fetch(query: str) -> str:
        await asyncio.sleep(0)
        return f"result for {query}"

    with capture() as records:
        assert asyncio.run(fetch("q")) == "result for q"
    (h,) = records.handoffs
    assert (h.input, h.output) == (b"q", b"result for q")


def test_generator_output_is_what_was_yielded():
    """A generator's output is the concatenation of what it yielded, recorded when the stream ends."""

    @handoff.step(to="stream")
    def stream(prompt: str):
        yield "tok1 "
        yield "tok2"

    with capture() as records:
        assert list(stream("p")) == ["tok1 ", "tok2"]
    (h,) = records.handoffs
    assert h.output == b"tok1 tok2"


def test_generator_closed_early_records_what_was_consumed():
    """A stream closed early is recorded with what the consumer actually took."""

    @handoff.step(to="stream")
    def stream(prompt: str):
        for i in range(10):
            yield f"{i},"

    with capture() as records:
        gen = stream("p")
        assert [next(gen), next(gen)] == ["0,", "1,"]
        gen.close()
    (h,) = records.handoffs
    assert (h.output, h.status) == (b"0,1,", "ok")


def test_async_generator_output_is_what_was_yielded():
    """Async generators are recorded like generators."""

    @handoff.step(to="astream")
    async def astream(prompt: str):
        for part in ("a", "b", "c"):
            yield part

    async def consume():
        return [part async for part in astream("p")]

    with capture() as records:
        assert asyncio.run(consume()) == ["a", "b", "c"]
    assert records.handoffs[0].output == b"abc"


def test_exception_is_recorded_and_reraised_unchanged():
    """A step that raises is recorded as an error and the very same exception object reaches the caller."""
    boom = ValueError("rate limited")

    @handoff.step(to="price")
    def price(brief: str) -> str:
        raise boom

    with capture() as records:
        with pytest.raises(ValueError) as info:
            price("brief")
    assert info.value is boom
    (h,) = records.handoffs
    assert (h.status, h.error_type, h.error_message, h.output) == ("error", "ValueError", "rate limited", None)


def test_generator_exception_is_recorded_and_reraised():
    """An exception inside a stream is recorded with what was yielded before it, then re-raised."""

    @handoff.step(to="stream")
    def stream(prompt: str):
        yield "partial"
        raise RuntimeError("disconnected")

    with capture() as records:
        with pytest.raises(RuntimeError, match="disconnected"):
            list(stream("p"))
    (h,) = records.handoffs
    assert (h.status, h.error_type, h.output) == ("error", "RuntimeError", b"partial")


def test_content_match_gives_parent_and_from():
    """A step whose input contains an earlier output in the run gets that handoff as parent and its step as producer."""

    @handoff.step(to="validate")
    def validate(doc: str) -> str:
        return "REPORT: the surcharge base is the rebated subtotal"

    @handoff.step(to="compress", kind="transform")
    def compress(report: str) -> str:
        return "BRIEF: surcharge 9.1% on subtotal"

    @handoff.step(to="price")
    def price(prompt: str) -> str:
        return "{}"

    with capture() as records, handoff.run("invoice") as run:
        price("You are the pricer.\n" + compress(validate("invoice text")) + "\nReturn JSON.")
    steps = by_to(records)
    assert steps["validate"].parent_handoff_id is None
    assert steps["validate"].from_step == "invoice"
    assert (steps["compress"].parent_handoff_id, steps["compress"].from_step) == (
        steps["validate"].handoff_id,
        "validate",
    )
    assert (steps["price"].parent_handoff_id, steps["price"].from_step) == (steps["compress"].handoff_id, "compress")
    assert [h.handoff_id for h in sorted(records.handoffs, key=lambda h: h.seq)] == ["hf-1", "hf-2", "hf-3"]
    assert {h.run_id for h in records.handoffs} == {run.run_id}
    assert run.run_id.startswith("run_") and len(run.run_id) == 30


def test_fan_in_lists_further_parents():
    """A step consuming two earlier outputs gets the latest as parent and the other in fan_in."""

    @handoff.step(to="search")
    def search(q: str) -> str:
        return f"results for {q}: alpha beta gamma"

    @handoff.step(to="merge")
    def merge(text: str) -> str:
        return "merged"

    with capture() as records, handoff.run("r"):
        a = search("first query")
        b = search("second query")
        merge(a + "\n" + b)
    steps = sorted(records.handoffs, key=lambda h: h.seq)
    assert (steps[2].parent_handoff_id, steps[2].fan_in) == ("hf-2", ["hf-1"])


def test_nesting_gives_enclosing_step_as_parent():
    """A step called inside another step, with no content match, gets the enclosing handoff as parent."""

    @handoff.step(to="tool")
    def tool(arg: str) -> str:
        return "tool result"

    @handoff.step(to="agent")
    def agent(task: str) -> str:
        return tool("lookup something unrelated") + " and more"

    with capture() as records, handoff.run("r"):
        agent("do the task")
    steps = by_to(records)
    assert steps["tool"].parent_handoff_id == steps["agent"].handoff_id
    assert steps["tool"].from_step == "agent"


def test_content_match_inside_a_step_beats_nesting():
    """Stages an orchestrator step calls in sequence get each other as parents, not the orchestrator.

    DESIGN.md ranks nesting first; the code ranks a content match first (docs/architecture.md),
    or every stage of a one-step orchestrator would hang off it and the stage-to-stage edges,
    where faults happen, would be lost.
    """

    @handoff.step(to="extract")
    def extract(doc: str) -> str:
        return "EXTRACTED: 340 billable lines, subtotal $172,000.00"

    @handoff.step(to="validate")
    def validate(prompt: str) -> str:
        return "validated"

    @handoff.step(to="orchestrator")
    def orchestrate(doc: str) -> str:
        return validate("Check this extraction:\n" + extract(doc))

    with capture() as records, handoff.run("invoice"):
        orchestrate("invoice text")
    steps = by_to(records)
    assert (steps["extract"].parent_handoff_id, steps["extract"].from_step) == (
        steps["orchestrator"].handoff_id,
        "orchestrator",
    )
    assert (steps["validate"].parent_handoff_id, steps["validate"].from_step) == (
        steps["extract"].handoff_id,
        "extract",
    )
    assert steps["validate"].fan_in == []


def test_explicit_parent_wins_over_content_match():
    """parent= given at the call site overrides inferred parents."""

    @handoff.step(to="first")
    def first(x: str) -> str:
        return "an output that the next input contains"

    with capture() as records, handoff.run("r"):
        out = first("x")
        with handoff.record(to="second", parent="hf-9", from_="elsewhere") as h:
            h.input("prefix " + out)
            h.output("done")
    steps = by_to(records)
    assert (steps["second"].parent_handoff_id, steps["second"].from_step) == ("hf-9", "elsewhere")


def test_retry_is_a_new_attempt_with_retry_of():
    """Calling the same step again with the same parent and input is attempt 2 pointing at attempt 1."""
    calls = []

    @handoff.step(to="price")
    def price(brief: str) -> str:
        calls.append(brief)
        if len(calls) == 1:
            raise TimeoutError("model timed out")
        return "priced"

    with capture() as records, handoff.run("r"):
        for _ in range(2):
            try:
                price("the brief")
                break
            except TimeoutError:
                continue
    first, second = sorted(records.handoffs, key=lambda h: h.seq)
    assert (first.attempt, first.status, first.retry_of) == (1, "error", None)
    assert (second.attempt, second.status, second.retry_of) == (2, "ok", first.handoff_id)


def test_different_input_is_not_a_retry():
    """A later call with a different input is a new handoff at attempt 1."""

    @handoff.step(to="price")
    def price(brief: str) -> str:
        return "ok"

    with capture() as records, handoff.run("r"):
        price("brief one")
        price("brief two")
    assert [h.attempt for h in records.handoffs] == [1, 1]


def test_fallback_marks_handoff_and_records_event():
    """handoff.fallback() inside a step records a named event and marks that handoff status=fallback."""

    @handoff.step(to="retrieve")
    def retrieve(q: str) -> str:
        try:
            raise LookupError("no conversation found")
        except LookupError as exc:
            handoff.fallback("rag-conv-empty", error=exc, source="conversations")
        return "default context"

    with capture() as records, handoff.run("r"):
        assert retrieve("q") == "default context"
    (h,) = records.handoffs
    (event,) = records.events
    assert h.status == "fallback"
    assert (event.name, event.handoff_id, event.error_type, event.error_message, event.attributes) == (
        "rag-conv-empty",
        h.handoff_id,
        "LookupError",
        "no conversation found",
        {"source": "conversations"},
    )


def test_record_context_manager_with_usage_and_config():
    """handoff.record() records code that is not one call, with reported usage and config."""
    with capture() as records, handoff.run("r"):
        with handoff.record(to="price", from_="orchestrator.compress_v3", kind="agent") as h:
            h.input("brief text")
            h.config(model="gpt-x", effort="high", prompt_pack="receivables@4")
            h.usage(input_tokens=412, output_tokens=39)
            h.output({"total": "171312.00"})
    (rec,) = records.handoffs
    assert (rec.from_step, rec.to_step, rec.model, rec.effort, rec.prompt_pack) == (
        "orchestrator.compress_v3",
        "price",
        "gpt-x",
        "high",
        "receivables@4",
    )
    assert (rec.input_tokens, rec.output_tokens) == (412, 39)
    assert rec.output == b'{"total":"171312.00"}'


def test_record_block_exception_propagates_and_is_recorded():
    """An exception leaving a record() block is recorded and propagates unchanged."""
    with capture() as records:
        with pytest.raises(KeyError):
            with handoff.record(to="lookup") as h:
                h.input("key")
                raise KeyError("missing")
    assert records.handoffs[0].status == "error"


def test_step_without_run_gets_an_implicit_run():
    """A step called outside any run is recorded in a run of its own, with start and end rows."""

    @handoff.step(to="solo")
    def solo(x: str) -> str:
        return x

    with capture() as records:
        solo("a")
        solo("b")
    first, second = records.handoffs
    assert first.run_id != second.run_id
    assert [(r.run_id, r.status) for r in records.runs if r.run_id == first.run_id] == [
        (first.run_id, "running"),
        (first.run_id, "ok"),
    ]


def test_run_records_start_end_status_and_attributes():
    """A run that raises ends with status=error; its attributes are kept as strings."""
    with capture() as records:
        with pytest.raises(RuntimeError):
            with handoff.run("invoice", invoice="INV-88214", lines=340) as run:
                raise RuntimeError("pipeline failed")
    end = [r for r in records.runs if r.end_ns is not None]
    assert [(r.run_id, r.name, r.status, r.attributes) for r in end] == [
        (run.run_id, "invoice", "error", {"invoice": "INV-88214", "lines": "340"})
    ]


def test_run_decorator_opens_a_new_run_per_call():
    """@handoff.run gives each call its own run id."""

    @handoff.step(to="s")
    def s(x: str) -> str:
        return x

    @handoff.run("batch")
    def pipeline(x: str) -> str:
        return s(x)

    with capture() as records:
        pipeline("one")
        pipeline("two")
    assert len({h.run_id for h in records.handoffs}) == 2


def test_threads_keep_their_run_through_bind_and_copy_context():
    """Work handed to threads with handoff.bind or contextvars.copy_context stays in the caller's run."""

    @handoff.step(to="worker")
    def work(item: str) -> str:
        return item * 2

    with capture() as records, handoff.run("fan-out") as run:
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(handoff.bind(work), ["a", "b", "c", "d"]))
        ctx = contextvars.copy_context()
        thread = threading.Thread(target=ctx.run, args=(work, "e"))
        thread.start()
        thread.join()
    assert len(records.handoffs) == 5
    assert {h.run_id for h in records.handoffs} == {run.run_id}
    assert sorted(h.seq for h in records.handoffs) == [1, 2, 3, 4, 5]


def test_asyncio_tasks_keep_their_run():
    """Concurrent asyncio tasks inherit the run that created them, and each keeps its own parent."""

    @handoff.step(to="fetch")
    async def fetch(q: str) -> str:
        await asyncio.sleep(0.01)
        return f"answer to {q}"

    @handoff.step(to="outer")
    async def outer(q: str) -> str:
        return await fetch(q + " (inner)")

    async def main():
        with handoff.run("async") as run:
            await asyncio.gather(*(outer(f"q{i}") for i in range(3)))
        return run.run_id

    with capture() as records:
        run_id = asyncio.run(main())
    assert {h.run_id for h in records.handoffs} == {run_id}
    outers = {h.handoff_id: h for h in records.handoffs if h.to_step == "outer"}
    inners = [h for h in records.handoffs if h.to_step == "fetch"]
    for inner in inners:
        parent = outers[inner.parent_handoff_id]
        assert inner.input == parent.input + b" (inner)"


def test_digest_key_makes_digests_hmac():
    """With digest_key set, digests are HMAC-SHA256 under that key and say so."""
    import hmac

    @handoff.step(to="s")
    def s(x: str) -> str:
        return "out"

    with capture(digest_key="secret") as records:
        s("short")
    (h,) = records.handoffs
    assert h.digest_alg == "hmac-sha256"
    assert h.input_sha256 == hmac.new(b"secret", b"short", hashlib.sha256).hexdigest()


def test_span_per_handoff_carries_ids_not_content():
    """Each handoff is an OpenTelemetry span with handoff.* attributes and digests, never the content."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))

    @handoff.step(to="price", model="gpt-x")
    def price(brief: str) -> str:
        return "SECRET-OUTPUT"

    with capture(tracer_provider=provider) as records, handoff.run("r"):
        price("SECRET-INPUT")
    (h,) = records.handoffs
    span = next(s for s in spans.get_finished_spans() if s.name.startswith("handoff ") and "->" in s.name)
    attrs = dict(span.attributes)
    assert span.name == "handoff r -> price"
    assert (attrs["handoff.id"], attrs["handoff.to"], attrs["handoff.from"], attrs["gen_ai.request.model"]) == (
        "hf-1",
        "price",
        "r",
        "gpt-x",
    )
    assert attrs["handoff.input.sha256"] == h.input_sha256
    assert (h.trace_id, h.span_id) == (format(span.context.trace_id, "032x"), format(span.context.span_id, "016x"))
    assert not any("SECRET" in str(value) for value in attrs.values())
    run_span = next(s for s in spans.get_finished_spans() if s.name == "handoff.run r")
    assert span.parent.span_id == run_span.context.span_id
