"""Per-call overhead of each framework adapter: the same call with and without it, median.

    python -m bench.adapters_overhead            # 200 calls per variant, prints JSON
    python -m bench.adapters_overhead 50

Every call goes to a :class:`~handoff.adapters.fake_server.FakeModelServer` on loopback (or
to LangChain's fake chat model), so the numbers are the adapter's own cost on the caller's
thread plus the loopback round trip it shares with the baseline. Each call is its own run
(no enclosing ``handoff.run``), as one request of a service would be. Variants alternate call by
call so drift hits both alike. Records go to ``handoff.testing.capture()`` (in memory): the
background writer's scrubbing and Parquet encoding run off the caller's thread and are
measured by the ingest benchmark, not here.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from handoff.adapters.fake_server import FakeModelServer
from handoff.testing import capture

MESSAGES = [
    {"role": "system", "content": "Price the invoice."},
    {"role": "user", "content": "freight surcharge: 9.1% (clause 7.2)"},
]
VERSIONS = ("openai", "anthropic", "langchain-core", "langgraph", "openai-agents", "opentelemetry-sdk")


def _paired(calls: int, without: Callable[[], Any], with_adapter: Callable[[], Any]) -> dict[str, float]:
    base, instrumented = [], []
    for _ in range(3):
        without(), with_adapter()
    for _ in range(calls):
        for fn, samples in ((without, base), (with_adapter, instrumented)):
            start = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - start) * 1000)
    without_ms, with_ms = statistics.median(base), statistics.median(instrumented)
    return {
        "median_ms_without": round(without_ms, 3),
        "median_ms_with": round(with_ms, 3),
        "overhead_ms": round(with_ms - without_ms, 3),
        "overhead_pct": round(100 * (with_ms - without_ms) / without_ms, 1),
    }


def _plain_transport(sdk: Any) -> Any:
    """The transport the adapter wraps, unwrapped: the baseline differs only by the recording."""
    from handoff.adapters._http import http_lib

    return http_lib(sdk.DefaultHttpxClient).HTTPTransport()


def _openai(server: FakeModelServer, calls: int) -> dict[str, float]:
    import openai

    from handoff.adapters import openai as adapter

    plain = openai.OpenAI(
        base_url=server.openai_url,
        api_key="bench",
        http_client=openai.DefaultHttpxClient(transport=_plain_transport(openai)),
    )
    recorded = openai.OpenAI(base_url=server.openai_url, api_key="bench", http_client=adapter.http_client())
    return _paired(
        calls,
        lambda: plain.chat.completions.create(model="fake-1", messages=MESSAGES),
        lambda: recorded.chat.completions.create(model="fake-1", messages=MESSAGES),
    )


def _anthropic(server: FakeModelServer, calls: int) -> dict[str, float]:
    import anthropic

    from handoff.adapters import anthropic as adapter

    plain = anthropic.Anthropic(
        base_url=server.url,
        api_key="bench",
        http_client=anthropic.DefaultHttpxClient(transport=_plain_transport(anthropic)),
    )
    recorded = anthropic.Anthropic(base_url=server.url, api_key="bench", http_client=adapter.http_client())
    ask = [MESSAGES[1]]
    return _paired(
        calls,
        lambda: plain.messages.create(model="claude-fake", max_tokens=64, messages=ask),
        lambda: recorded.messages.create(model="claude-fake", max_tokens=64, messages=ask),
    )


def _langgraph(calls: int) -> dict[str, float]:
    from typing import TypedDict

    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.messages import HumanMessage
    from langgraph.graph import END, START, StateGraph

    from handoff.adapters.langchain import HandoffCallbackHandler

    class State(TypedDict, total=False):
        brief: str
        total: str

    llm = FakeListChatModel(responses=["total 171312.00"])
    graph = StateGraph(State)
    graph.add_node("compress", lambda s: {"brief": "freight surcharge: 9.1% (clause 7.2)"})
    graph.add_node("price", lambda s: {"total": llm.invoke([HumanMessage(content=s["brief"])]).content})
    graph.add_edge(START, "compress")
    graph.add_edge("compress", "price")
    graph.add_edge("price", END)
    app = graph.compile()
    handler = HandoffCallbackHandler()
    return _paired(
        calls,
        lambda: app.invoke({"brief": ""}),
        lambda: app.invoke({"brief": ""}, config={"callbacks": [handler]}),
    )


def _agents(server: FakeModelServer, calls: int) -> dict[str, float]:
    from agents import Agent, OpenAIChatCompletionsModel, Runner, set_trace_processors
    from openai import AsyncOpenAI

    from handoff.adapters.openai_agents import HandoffTracingProcessor

    model = OpenAIChatCompletionsModel(
        model="fake-1", openai_client=AsyncOpenAI(base_url=server.openai_url, api_key="bench")
    )
    agent = Agent(name="pricer", instructions="Price the invoice.", model=model)
    loop = asyncio.new_event_loop()
    processor = HandoffTracingProcessor()

    def run(processors: list) -> Any:
        set_trace_processors(processors)
        return loop.run_until_complete(Runner.run(agent, "price INV-88214"))

    try:
        return _paired(calls, lambda: run([]), lambda: run([processor]))
    finally:
        set_trace_processors([])
        loop.close()


def _versions() -> dict[str, str]:
    found = {}
    for name in VERSIONS:
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "not installed"
    found["python"] = sys.version.split()[0]
    return found


def measure(calls: int = 200) -> dict:
    """Return median per-call time without and with each adapter, the difference, and the versions."""
    results: dict[str, Any] = {"calls": calls, "versions": _versions()}
    with FakeModelServer() as server, capture():
        results["openai"] = _openai(server, calls)
        results["anthropic"] = _anthropic(server, calls)
        results["langgraph"] = _langgraph(calls)
        results["openai_agents"] = _agents(server, calls)
    return results


if __name__ == "__main__":
    print(json.dumps(measure(int(sys.argv[1]) if len(sys.argv) > 1 else 200), indent=2))
