"""GenAI semantic conventions on handoff spans, as a real OTLP/HTTP receiver gets them."""

from __future__ import annotations

import hashlib

import openai
import pytest
from opentelemetry.sdk.trace import TracerProvider

import handoff
from handoff.adapters import openai as handoff_openai
from handoff.adapters.fake_server import FakeModelServer

INTERNAL, CLIENT = 1, 3  # OTLP SpanKind
UNSET, ERROR = 0, 2  # OTLP StatusCode


class CardDeclined(Exception):
    pass


@pytest.fixture
def receiver(store_dir, otlp_receiver):
    """handoff spans exported over OTLP/HTTP to the loopback receiver; flushed before the test reads them."""
    provider = TracerProvider()
    handoff.configure(otlp_endpoint=otlp_receiver.endpoint, tracer_provider=provider)
    yield lambda: provider.force_flush(10_000) and otlp_receiver.by_handoff()
    provider.shutdown()


def _pipeline() -> None:
    @handoff.step(to="rebate", kind="tool")
    def rebate(subtotal: str) -> str:
        return "155660.00"

    @handoff.step(to="validate", model="gpt-x", config={"provider": "openai"})
    def validate(doc: str) -> str:
        return "report: surcharge base is the rebated subtotal " + rebate("172000.00")

    @handoff.step(to="compress", kind="transform")
    def compress(report: str) -> str:
        handoff.fallback("short-report", error=TimeoutError())
        return "freight surcharge: 9.1% (clause 7.2)"

    @handoff.step(to="check", kind="verifier", model="gpt-y")
    def check(brief: str) -> str:
        raise CardDeclined("limit exceeded for INV-88214")

    with handoff.run("invoice"):
        brief = compress(validate("INV-88214 340 lines"))
        with pytest.raises(CardDeclined):
            check(brief)


def test_every_step_span_carries_its_genai_operation_agent_or_tool_name_and_model(receiver):
    """Agents are invoke_agent with their name and model, tools and model-less transforms execute_tool."""
    _pipeline()
    spans = receiver()
    genai = {
        hid: {k: v for k, v in span["attributes"].items() if k.startswith("gen_ai.")} for hid, span in spans.items()
    }
    assert genai == {
        "hf-1": {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "validate",
            "gen_ai.request.model": "gpt-x",
            "gen_ai.provider.name": "openai",
        },
        "hf-2": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "rebate"},
        "hf-3": {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "compress"},
        "hf-4": {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "check",
            "gen_ai.request.model": "gpt-y",
        },
    }
    assert {span["kind"] for span in spans.values()} == {INTERNAL}


def test_each_span_links_to_its_parent_handoffs_span_and_nests_under_its_caller(receiver):
    """A consumer's span links to its producer's span; a step called inside another is its child."""
    _pipeline()
    spans = receiver()
    assert spans["hf-2"]["parent_span_id"] == spans["hf-1"]["span_id"]
    assert spans["hf-1"]["links"] == []
    assert spans["hf-3"]["links"] == [(spans["hf-1"]["trace_id"], spans["hf-1"]["span_id"], {})]
    assert spans["hf-4"]["links"] == [(spans["hf-3"]["trace_id"], spans["hf-3"]["span_id"], {})]


def test_a_failed_step_is_an_error_span_with_an_exception_event(receiver):
    """The step that raised has ERROR status, error.type and an exception event naming the exception."""
    _pipeline()
    failed = receiver()["hf-4"]
    assert failed["status"] == (ERROR, "CardDeclined")
    assert failed["attributes"]["error.type"] == "CardDeclined"
    assert failed["attributes"]["handoff.status"] == "error"
    [(name, event)] = failed["events"]
    assert name == "exception"
    assert event["exception.type"].endswith("CardDeclined")
    assert event["exception.message"] == "limit exceeded for INV-88214"
    assert "raise CardDeclined" in event["exception.stacktrace"]


def test_a_fallback_is_a_span_event_with_its_name(receiver):
    """A fallback inside a step leaves a handoff.fallback event with its name and error type; the status stays unset."""
    _pipeline()
    span = receiver()["hf-3"]
    assert span["events"] == [
        ("handoff.fallback", {"handoff.fallback.name": "short-report", "error.type": "TimeoutError"})
    ]
    assert span["status"] == (UNSET, "")
    assert span["attributes"]["handoff.status"] == "fallback"


def test_a_record_block_span_has_from_attempt_input_parent_and_link(receiver):
    """handoff.record(to=..., from_=...) spans carry what @step spans carry: from, attempt, input digest, parent."""
    report = "report: surcharge base is the rebated subtotal per 7.2(b)"
    with handoff.run("invoice") as run:
        with handoff.record(to="validate") as first:
            first.input("INV-88214 340 lines")
            first.output(report)
        with handoff.record(to="price", from_="validate", kind="tool") as second:
            second.input(report)
            second.output("total 155660.00")
            second.config(model="gpt-x")
            second.usage(input_tokens=812, output_tokens=9)
    spans = receiver()
    price = spans[second.handoff_id]
    out = b"total 155660.00"
    assert price["name"] == "handoff validate -> price"
    assert price["attributes"] == {
        "handoff.run_id": run.run_id,
        "handoff.id": "hf-2",
        "handoff.to": "price",
        "handoff.kind": "tool",
        "handoff.from": "validate",
        "handoff.attempt": 1,
        "handoff.parent_id": "hf-1",
        "handoff.status": "ok",
        "handoff.input.sha256": hashlib.sha256(report.encode()).hexdigest(),
        "handoff.output.sha256": hashlib.sha256(out).hexdigest(),
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "price",
        "gen_ai.request.model": "gpt-x",
        "gen_ai.usage.input_tokens": 812,
        "gen_ai.usage.output_tokens": 9,
    }
    assert price["links"] == [(spans["hf-1"]["trace_id"], spans["hf-1"]["span_id"], {})]


def test_a_model_call_through_the_adapter_is_a_client_chat_span_with_provider_model_and_usage(receiver):
    """An OpenAI chat call is gen_ai.operation.name=chat, provider openai, its model and the reported usage."""
    with FakeModelServer() as fake:
        client = openai.OpenAI(base_url=fake.openai_url, api_key="test", http_client=handoff_openai.http_client())

        @handoff.step(to="price")
        def price(brief: str) -> str:
            messages = [{"role": "user", "content": brief}]
            return client.chat.completions.create(model="fake-1", messages=messages).choices[0].message.content

        with handoff.run("invoice"):
            price("freight surcharge: 9.1% (clause 7.2)")
        sent = fake.requests[0][2]
    call = receiver()["hf-2"]
    genai = {k: v for k, v in call["attributes"].items() if k.startswith("gen_ai.")}
    assert genai == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "fake-1",
        "gen_ai.usage.input_tokens": len(sent) // 4,
        "gen_ai.usage.output_tokens": 6,
    }
    assert call["kind"] == CLIENT
    assert call["attributes"]["handoff.from"] == "price"
