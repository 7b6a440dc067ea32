"""OpenAI Agents SDK adapter: agent-to-agent handoffs and tool calls, with the real SDK and a fake model."""

from __future__ import annotations

import asyncio
import json

import pytest
from agents import Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, Runner, function_tool, set_trace_processors
from openai import AsyncOpenAI

import handoff
from handoff.adapters.openai_agents import HandoffTracingProcessor
from handoff.testing import capture


def chat_tool_call(request: dict, name: str, arguments: dict) -> dict:
    """A chat.completion asking for one function call."""
    call = {"id": f"call_{name}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return {
        "id": "chatcmpl-tool",
        "object": "chat.completion",
        "created": 1764400000,
        "model": request["model"],
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def responses_tool_call(request: dict, name: str, arguments: dict) -> dict:
    """A Responses API response asking for one function call."""
    call = {
        "type": "function_call",
        "id": f"fc_{name}",
        "call_id": f"call_{name}",
        "name": name,
        "arguments": json.dumps(arguments),
        "status": "completed",
    }
    return {
        "id": "resp_tool",
        "object": "response",
        "created_at": 1764400000,
        "model": request["model"],
        "status": "completed",
        "output": [call],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 10,
            "output_tokens": 5,
            "total_tokens": 15,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


@function_tool
def rebate(subtotal: float) -> float:
    """Apply the 9.5% volume rebate."""
    return round(subtotal * 0.905, 2)


def script(api: str, request: dict):
    """Triage hands off to the pricer; the pricer calls the rebate tool, then answers."""
    if api == "responses":
        instructions, items, make_call = request.get("instructions", ""), request["input"], responses_tool_call
        rebated = any(
            item.get("call_id") == "call_rebate" and item.get("type") == "function_call_output" for item in items
        )
    else:
        instructions, items, make_call = request["messages"][0]["content"], request["messages"], chat_tool_call
        rebated = any(m.get("tool_call_id") == "call_rebate" for m in items)
    if "triage" in instructions:
        return make_call(request, "transfer_to_pricer", {})
    if not rebated:
        return make_call(request, "rebate", {"subtotal": 172000})
    return "total 155660.0"


@pytest.fixture
def processor():
    processor = HandoffTracingProcessor()
    set_trace_processors([processor])
    yield processor
    set_trace_processors([])


def _run_agents(base_url: str, api: str = "chat") -> str:
    client = AsyncOpenAI(base_url=base_url, api_key="test")
    if api == "chat":
        model = OpenAIChatCompletionsModel(model="fake-1", openai_client=client)
    else:
        model = OpenAIResponsesModel(model="fake-1", openai_client=client)
    pricer = Agent(name="pricer", instructions="You are the pricer.", model=model, tools=[rebate])
    triage = Agent(name="triage", instructions="You are the triage agent.", model=model, handoffs=[pricer])
    return asyncio.run(Runner.run(triage, "price INV-88214")).final_output


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_agent_handoffs_and_tool_calls_are_handoff_records(processor, fake_model, api):
    """Triage -> pricer -> rebate tool -> pricer is recorded edge by edge with agent names, parents and model I/O."""
    fake_model.reply = script
    with capture() as records:
        with handoff.run("invoice") as run:
            assert _run_agents(fake_model.openai_url, api) == "total 155660.0"
        records.flush()
    calls = sorted(records.handoffs, key=lambda h: h.seq)
    assert [(h.from_step, h.to_step, h.kind, h.parent_handoff_id, h.attempt) for h in calls] == [
        ("invoice", "triage", "agent", None, 1),
        ("triage", "pricer", "agent", "hf-1", 1),
        ("pricer", "rebate", "tool", "hf-2", 1),
        ("rebate", "pricer", "agent", "hf-3", 1),
    ]
    assert {h.run_id for h in calls} == {run.run_id}
    assert (calls[2].input, calls[2].output) == (b'{"subtotal": 172000}', b"155660.0")
    assert (calls[3].model, calls[3].input_tokens) == ("fake-1", len(fake_model.requests[2][2]) // 4)
    first_request = json.loads(fake_model.requests[0][2])
    if api == "chat":
        assert json.loads(calls[0].input) == first_request["messages"]
        assert json.loads(calls[3].output)[0]["content"] == "total 155660.0"
    else:
        assert json.loads(calls[0].input) == first_request["input"]
        assert json.loads(calls[3].output)[0]["content"][0]["text"] == "total 155660.0"


def test_a_trace_outside_any_run_is_a_run_named_after_the_workflow(processor, fake_model):
    """Runner.run without handoff.run opens and closes one run per trace, named after the workflow."""
    fake_model.reply = script
    with capture() as records:
        _run_agents(fake_model.openai_url)
        records.flush()
    assert [(r.name, r.status) for r in records.runs] == [("Agent workflow", "running"), ("Agent workflow", "ok")]
    assert len({h.run_id for h in records.handoffs}) == 1
