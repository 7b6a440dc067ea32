"""LangChain / LangGraph adapter: nodes, chains, chat models and tools as handoffs, with a real graph."""

from __future__ import annotations

from typing import TypedDict

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy

import handoff
from handoff.adapters.langchain import HandoffCallbackHandler
from handoff.testing import capture


class Invoice(TypedDict, total=False):
    doc: str
    report: str
    brief: str
    total: str


@tool
def rebate(subtotal: float) -> float:
    """Apply the 9.5% volume rebate."""
    return round(subtotal * 0.905, 2)


def _graph(flaky_validate: bool = False):
    llm = FakeListChatModel(responses=["total 171312.00"])
    attempts = {"validate": 0}

    def validate(state: Invoice) -> Invoice:
        attempts["validate"] += 1
        if flaky_validate and attempts["validate"] == 1:
            raise ConnectionError("validator timed out")
        return {"report": "surcharge base is the rebated subtotal per 7.2(b)"}

    def compress(state: Invoice) -> Invoice:
        return {"brief": "freight surcharge: 9.1% (clause 7.2)"}

    def price(state: Invoice) -> Invoice:
        reply = llm.invoke([SystemMessage(content="Price it."), HumanMessage(content=state["brief"])])
        return {"total": f"{reply.content} after rebate {rebate.invoke({'subtotal': 172000.0})}"}

    graph = StateGraph(Invoice)
    graph.add_node(
        "validate", validate, retry_policy=RetryPolicy(initial_interval=0.01, jitter=False, retry_on=ConnectionError)
    )
    graph.add_node("compress", compress)
    graph.add_node("price", price)
    graph.add_edge(START, "validate")
    graph.add_edge("validate", "compress")
    graph.add_edge("compress", "price")
    graph.add_edge("price", END)
    return graph.compile()


def _by_step(records) -> dict:
    return {h.to_step: h for h in sorted(records.handoffs, key=lambda h: h.seq)}


def test_a_graph_run_records_every_node_model_and_tool_call_with_from_to_and_parents():
    """Each node is a handoff from the node before it; the chat model and the tool inside a node come from that node."""
    handler = HandoffCallbackHandler(kinds={"compress": "transform"})
    with capture() as records:
        with handoff.run("invoice") as run:
            _graph().invoke({"doc": "INV-88214"}, config={"callbacks": [handler]})
        records.flush()
    steps = _by_step(records)
    edges = [
        (h.from_step, h.to_step, h.kind, h.parent_handoff_id) for h in sorted(records.handoffs, key=lambda h: h.seq)
    ]
    assert edges == [
        ("invoice", "LangGraph", "agent", None),
        ("LangGraph", "validate", "agent", "hf-1"),
        ("validate", "compress", "transform", "hf-2"),
        ("compress", "price", "agent", "hf-3"),
        ("price", "FakeListChatModel", "agent", "hf-4"),
        ("price", "rebate", "tool", "hf-4"),
    ]
    assert {h.run_id for h in records.handoffs} == {run.run_id}
    assert (
        steps["compress"].input == b'{"doc":"INV-88214","report":"surcharge base is the rebated subtotal per 7.2(b)"}'
    )
    assert steps["compress"].output == b'{"brief":"freight surcharge: 9.1% (clause 7.2)"}'
    assert (
        steps["FakeListChatModel"].input
        == b'[{"content":"Price it.","role":"system"},{"content":"freight surcharge: 9.1% (clause 7.2)","role":"human"}]'
    )
    assert steps["FakeListChatModel"].output == b"total 171312.00"
    assert (steps["rebate"].input, steps["rebate"].output) == (b'{"subtotal":172000.0}', b"155660.0")
    assert steps["price"].output == b'{"total":"total 171312.00 after rebate 155660.0"}'


def test_a_node_retried_by_langgraph_is_attempt_two_of_the_same_edge():
    """A node that failed and was retried by the graph's retry policy is recorded as error then attempt 2 with retry_of."""
    with capture() as records:
        _graph(flaky_validate=True).invoke({"doc": "INV-88214"}, config={"callbacks": [HandoffCallbackHandler()]})
        records.flush()
    validates = [h for h in sorted(records.handoffs, key=lambda h: h.seq) if h.to_step == "validate"]
    assert [(h.status, h.attempt, h.error_type) for h in validates] == [
        ("error", 1, "ConnectionError"),
        ("ok", 2, None),
    ]
    assert validates[1].retry_of == validates[0].handoff_id
    assert _by_step(records)["compress"].parent_handoff_id == validates[1].handoff_id


def test_a_graph_outside_any_run_gets_a_run_of_its_own():
    """Invoking a graph without handoff.run records one run named after the graph, opened and closed."""
    with capture() as records:
        _graph().invoke({"doc": "INV-88214"}, config={"callbacks": [HandoffCallbackHandler()]})
        records.flush()
    assert len({h.run_id for h in records.handoffs}) == 1
    assert [(r.name, r.status) for r in records.runs] == [("LangGraph", "running"), ("LangGraph", "ok")]


def test_a_node_after_parallel_nodes_has_the_first_as_parent_and_the_others_as_fan_in():
    """When two nodes run in the same superstep, the node consuming both lists them as parent and fan_in."""

    class State(TypedDict, total=False):
        rebate: str
        surcharge: str
        total: str

    graph = StateGraph(State)
    graph.add_node("rebate_rule", lambda s: {"rebate": "9.5%"})
    graph.add_node("surcharge_rule", lambda s: {"surcharge": "9.1% of the rebated subtotal"})
    graph.add_node("price", lambda s: {"total": "169825.06"})
    graph.add_edge(START, "rebate_rule")
    graph.add_edge(START, "surcharge_rule")
    graph.add_edge(["rebate_rule", "surcharge_rule"], "price")
    graph.add_edge("price", END)
    with capture() as records:
        graph.compile().invoke({}, config={"callbacks": [HandoffCallbackHandler()]})
        records.flush()
    steps = _by_step(records)
    rules = {steps["rebate_rule"].handoff_id, steps["surcharge_rule"].handoff_id}
    price = steps["price"]
    assert {price.parent_handoff_id, *price.fan_in} == rules
    assert len(price.fan_in) == 1
    assert steps[price.from_step].handoff_id == price.parent_handoff_id
