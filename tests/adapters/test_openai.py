"""OpenAI SDK adapter: the exact HTTP bodies, usage, retries and propagation, against a fake model."""

from __future__ import annotations

import asyncio
import hashlib

import openai

import handoff
from handoff.adapters import openai as handoff_openai
from handoff.testing import capture

MESSAGES = [
    {"role": "system", "content": "Price the invoice."},
    {"role": "user", "content": "freight surcharge: 9.1% (clause 7.2)"},
]


def test_each_call_records_the_exact_request_and_response_bodies(fake_model):
    """A chat call inside a step is a handoff from that step with byte-exact input and output, model and usage."""
    client = openai.OpenAI(base_url=fake_model.openai_url, api_key="test", http_client=handoff_openai.http_client())

    @handoff.step(to="price")
    def price(brief: str) -> str:
        return client.chat.completions.create(model="fake-1", messages=MESSAGES).choices[0].message.content

    with capture() as records:
        with handoff.run("invoice") as run:
            answer = price("freight surcharge: 9.1% (clause 7.2)")
        records.flush()
    assert answer == "echo: freight surcharge: 9.1% (clause 7.2)"
    call = next(h for h in records.handoffs if h.to_step == "openai.chat.completions")
    (path, headers, sent) = fake_model.requests[0]
    assert (call.run_id, call.from_step, call.parent_handoff_id, call.attempt) == (run.run_id, "price", "hf-1", 1)
    assert call.input == sent
    assert call.input_sha256 == hashlib.sha256(sent).hexdigest()
    assert call.output == fake_model.responses[0]
    assert (call.model, call.input_tokens, call.output_tokens) == ("fake-1", len(sent) // 4, 6)
    assert headers["baggage"].split(",")[0] == "handoff.parent_id=hf-2"
    assert headers["traceparent"].split("-")[2] == call.span_id


def test_a_streamed_response_is_recorded_whole_with_its_usage(fake_model):
    """Streaming still hands chunks to the app one by one; the record holds the whole event stream and the final usage."""
    client = openai.OpenAI(base_url=fake_model.openai_url, api_key="test", http_client=handoff_openai.http_client())
    with capture() as records:
        stream = client.chat.completions.create(
            model="fake-1", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
        )
        text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
        records.flush()
    (call,) = records.handoffs
    assert text == "echo: freight surcharge: 9.1% (clause 7.2)"
    assert call.output == fake_model.responses[0]
    assert call.output.startswith(b"data: {") and call.output.endswith(b"data: [DONE]\n\n")
    assert call.output.count(b"chat.completion.chunk") == 8
    assert (call.input_tokens, call.output_tokens) == (len(fake_model.requests[0][2]) // 4, 6)


def test_sdk_retries_are_attempts_of_one_handoff(fake_model):
    """When the SDK retries a failed call, the retry is attempt 2 with retry_of pointing at the failed attempt."""
    calls = {"n": 0}

    def flaky(api: str, request: dict):
        calls["n"] += 1
        return {"error": {"message": "overloaded"}, "_status": 503} if calls["n"] == 1 else "ok"

    fake_model.reply = flaky
    client = openai.OpenAI(
        base_url=fake_model.openai_url, api_key="test", max_retries=1, http_client=handoff_openai.http_client()
    )
    with capture() as records:
        with handoff.run("invoice"):
            client.with_options(timeout=10).chat.completions.create(model="fake-1", messages=MESSAGES)
        records.flush()
    first, second = sorted(records.handoffs, key=lambda h: h.seq)
    assert (first.status, first.error_type, first.attempt) == ("error", "UpstreamHTTPError", 1)
    assert (second.status, second.attempt, second.retry_of) == ("ok", 2, first.handoff_id)
    assert first.input == second.input


def test_the_async_client_is_recorded_too(fake_model):
    """AsyncOpenAI with the async client records the same handoff as the sync one."""

    async def call() -> str:
        client = openai.AsyncOpenAI(
            base_url=fake_model.openai_url, api_key="test", http_client=handoff_openai.async_http_client()
        )
        reply = await client.chat.completions.create(model="fake-1", messages=MESSAGES)
        return reply.choices[0].message.content

    with capture() as records:
        assert asyncio.run(call()) == "echo: freight surcharge: 9.1% (clause 7.2)"
        records.flush()
    (record,) = records.handoffs
    assert (record.to_step, record.input, record.model) == (
        "openai.chat.completions",
        fake_model.requests[0][2],
        "fake-1",
    )


def test_propagate_false_keeps_headers_off_the_wire(fake_model):
    """With propagate=False nothing about the run is sent to the model provider."""
    client = openai.OpenAI(
        base_url=fake_model.openai_url, api_key="test", http_client=handoff_openai.http_client(propagate=False)
    )
    with capture():
        client.chat.completions.create(model="fake-1", messages=MESSAGES)
    headers = {k.lower() for k in fake_model.requests[0][1]}
    assert "traceparent" not in headers and "baggage" not in headers


def test_with_recording_off_the_call_is_untouched(fake_model):
    """With recording disabled the SDK call returns the same answer, nothing is recorded and no headers are added."""
    client = openai.OpenAI(base_url=fake_model.openai_url, api_key="test", http_client=handoff_openai.http_client())
    with capture(enabled=False) as records:
        reply = client.chat.completions.create(model="fake-1", messages=MESSAGES)
        records.flush()
    assert reply.choices[0].message.content == "echo: freight surcharge: 9.1% (clause 7.2)"
    assert records.handoffs == []
    assert "traceparent" not in {k.lower() for k in fake_model.requests[0][1]}
