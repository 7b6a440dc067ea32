"""Foreign GenAI spans: content from other instrumentations becomes scrubbed handoff records."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

import handoff
from handoff.adapters.fake_server import FakeModelServer
from handoff.adapters.genai import GenAISpanProcessor
from handoff.queries.content import fetch_content
from handoff.queries.db import connect, query
from handoff.store import open_store
from handoff.testing import capture

GENAI_APP = Path(__file__).with_name("genai_app.py")


@pytest.mark.parametrize(
    ("instrumentation", "step"),
    [("openinference", "openai.ChatCompletion"), ("openllmetry", "openai.chat")],
)
def test_spans_of_a_real_instrumentation_become_scrubbed_handoffs(tmp_path, instrumentation, step):
    """A chat call seen only by a third-party instrumentation is a handoff: digest of the raw content, scrubbed text in the store."""
    store = tmp_path / "store"
    env = {**os.environ, "HANDOFF_STORE": str(store), "HANDOFF_SCRUB": "1", "HANDOFF_SCRUB_KEY": "k" * 32}
    with FakeModelServer() as server:
        done = subprocess.run(
            [sys.executable, str(GENAI_APP), instrumentation, server.openai_url],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        ((_, _, sent),) = server.requests
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    (span,) = seen["spans"]

    con = connect(str(store))
    rows = query(con, "SELECT * FROM handoffs WHERE run_id = ? ORDER BY seq", [seen["run_id"]])
    assert [(r["handoff_id"], r["from_step"], r["to_step"], r["parent_handoff_id"]) for r in rows] == [
        ("hf-1", "support", "summarize", None),
        ("hf-2", "summarize", step, "hf-1"),
    ]
    foreign = rows[1]
    raw = span["input"].encode()
    assert (foreign["input_sha256"], foreign["input_bytes"]) == (hashlib.sha256(raw).hexdigest(), len(raw))
    assert foreign["output_sha256"] == hashlib.sha256(span["output"].encode()).hexdigest()
    assert (foreign["trace_id"], foreign["span_id"]) == (span["trace_id"], span["span_id"])
    assert (foreign["model"], foreign["input_tokens"], foreign["output_tokens"]) == ("fake-1", len(sent) // 4, 9)
    stored = fetch_content(open_store(str(store)), con, seen["run_id"], "hf-2", "in").decode()
    assert "jane.doe@example.com" not in stored
    assert "<EMAIL_ADDRESS:" in stored
    assert "INV-88214" in stored and "9.1%" in stored and "7.2(b)" in stored


def _provider() -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(GenAISpanProcessor())
    return provider


def test_openllmetry_indexed_attributes_are_read_in_order():
    """Older OpenLLMetry spans (gen_ai.prompt.N.*, gen_ai.completion.N.*) are recorded as JSON message lists."""
    provider = _provider()
    with capture(tracer_provider=provider) as records:
        with provider.get_tracer("legacy").start_as_current_span("openai.chat") as span:
            span.set_attributes(
                {
                    "gen_ai.system": "openai",
                    "gen_ai.request.model": "gpt-x",
                    "gen_ai.prompt.1.role": "user",
                    "gen_ai.prompt.1.content": "price INV-88214",
                    "gen_ai.prompt.0.role": "system",
                    "gen_ai.prompt.0.content": "Be exact.",
                    "gen_ai.completion.0.role": "assistant",
                    "gen_ai.completion.0.content": "171312.00",
                    "gen_ai.usage.prompt_tokens": 12,
                    "gen_ai.usage.completion_tokens": 3,
                }
            )
        records.flush()
    (record,) = records.handoffs
    assert record.input == b'[{"content":"Be exact.","role":"system"},{"content":"price INV-88214","role":"user"}]'
    assert record.output == b'[{"content":"171312.00","role":"assistant"}]'
    assert (record.to_step, record.model, record.input_tokens, record.output_tokens) == ("openai.chat", "gpt-x", 12, 3)


def test_semconv_event_content_is_recorded_byte_for_byte():
    """Content the instrumentation put on a gen_ai.client.inference.operation.details event is stored exactly."""
    provider = _provider()
    messages = '[{"role": "user", "parts": [{"type": "text", "content": "price INV-88214"}]}]'
    answer = '[{"role": "assistant", "parts": [{"type": "text", "content": "171312.00"}]}]'
    with capture(tracer_provider=provider) as records:
        with handoff.run("invoice"):
            with provider.get_tracer("official").start_as_current_span("chat gpt-x") as span:
                span.set_attributes({"gen_ai.provider.name": "openai", "gen_ai.operation.name": "chat"})
                span.add_event(
                    "gen_ai.client.inference.operation.details",
                    {"gen_ai.input.messages": messages, "gen_ai.output.messages": answer},
                )
        records.flush()
    (record,) = records.handoffs
    assert (record.input, record.output, record.to_step, record.from_step) == (
        messages.encode(),
        answer.encode(),
        "openai.chat",
        "invoice",
    )


def test_spans_without_content_and_handoff_own_spans_are_not_recorded():
    """Ordinary spans, and handoff's own spans, never turn into extra handoff records."""
    provider = _provider()
    with capture(tracer_provider=provider) as records:
        with provider.get_tracer("http").start_as_current_span("GET /health"):
            pass
        with handoff.record(to="price") as h:
            h.input("x")
        records.flush()
    assert [r.to_step for r in records.handoffs] == ["price"]


def test_a_handoff_span_carrying_genai_content_is_not_recorded_twice():
    """Content an instrumentation puts on handoff's own span does not make a second handoff of the same call."""
    provider = _provider()
    messages = '[{"role": "user", "content": "price INV-88214"}]'
    with capture(tracer_provider=provider) as records:
        with handoff.record(to="price") as h:
            h.input(messages)
            own = trace.get_current_span()
            own.set_attributes({"gen_ai.input.messages": messages, "gen_ai.output.messages": "[]"})
        records.flush()
    assert own.instrumentation_scope.name == "handoff"
    assert [r.to_step for r in records.handoffs] == ["price"]
