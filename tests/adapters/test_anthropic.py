"""Anthropic SDK adapter: exact HTTP bodies and usage, plain and streamed, against a fake model."""

from __future__ import annotations

import anthropic
import pytest

import handoff
from handoff.adapters import anthropic as handoff_anthropic
from handoff.testing import capture

MESSAGES = [{"role": "user", "content": "surcharge base is the rebated subtotal per 7.2(b)"}]


def _client(fake_model) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=fake_model.url, api_key="test", http_client=handoff_anthropic.http_client())


def test_a_messages_call_is_a_handoff_with_the_exact_bodies_and_usage(fake_model):
    """messages.create inside a step is a handoff from that step: request body in, response body out, usage from the response."""
    client = _client(fake_model)

    @handoff.step(to="validate")
    def validate(report: str) -> str:
        return (
            client.messages.create(model="claude-fake", max_tokens=64, system="Check it.", messages=MESSAGES)
            .content[0]
            .text
        )

    with capture() as records:
        with handoff.run("invoice") as run:
            assert validate("report") == "echo: surcharge base is the rebated subtotal per 7.2(b)"
        records.flush()
    call = next(h for h in records.handoffs if h.to_step == "anthropic.messages")
    (path, headers, sent) = fake_model.requests[0]
    assert (call.run_id, call.from_step, call.parent_handoff_id, call.status) == (run.run_id, "validate", "hf-1", "ok")
    assert (call.input, call.output) == (sent, fake_model.responses[0])
    assert (call.model, call.input_tokens, call.output_tokens) == ("claude-fake", len(sent) // 4, 9)
    assert headers["baggage"].split(",")[0] == "handoff.parent_id=hf-2"


def test_a_streamed_message_is_recorded_whole_with_usage_from_its_events(fake_model):
    """A streamed reply is recorded as the whole event stream; usage comes from message_start and message_delta."""
    client = _client(fake_model)
    with capture() as records:
        with client.messages.stream(model="claude-fake", max_tokens=64, messages=MESSAGES) as stream:
            text = "".join(stream.text_stream)
        records.flush()
    (call,) = records.handoffs
    assert text == "echo: surcharge base is the rebated subtotal per 7.2(b)"
    assert call.output == fake_model.responses[0]
    assert call.output.startswith(b"event: message_start\n")
    assert (call.input_tokens, call.output_tokens) == (len(fake_model.requests[0][2]) // 4, 9)


def test_an_error_status_is_recorded_as_an_error_and_the_sdk_error_reaches_the_app(fake_model):
    """A 400 from the API is a status=error handoff, and the app still gets the SDK's own exception."""
    fake_model.reply = lambda api, request: {
        "_status": 400,
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "max_tokens"},
    }
    client = _client(fake_model)
    with capture() as records:
        with pytest.raises(anthropic.BadRequestError) as raised:
            client.messages.create(model="claude-fake", max_tokens=64, messages=MESSAGES)
        records.flush()
    assert raised.value.status_code == 400
    (call,) = records.handoffs
    assert (call.status, call.error_type, call.error_message) == (
        "error",
        "UpstreamHTTPError",
        "HTTP 400 from /v1/messages",
    )
    assert call.output == fake_model.responses[0]
