"""Runs across processes: inject/extract carry the run and the calling handoff in W3C headers."""

from __future__ import annotations

import contextvars
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import openai
import pytest

import handoff
from handoff.adapters import openai as handoff_openai
from handoff.config import reset_settings
from handoff.queries.db import connect, query
from handoff.testing import capture

SERVICE_B = Path(__file__).with_name("service_b.py")


def test_inject_writes_traceparent_and_run_baggage_inside_a_handoff():
    """Headers injected inside a handoff name its span, its run, its id and its step."""
    with capture():
        with handoff.run("invoice") as run:
            with handoff.record(to="price") as h:
                headers = handoff.inject({})
                span_id = format(h._span.get_span_context().span_id, "016x")
    assert sorted(headers) == ["baggage", "traceparent"]
    assert headers["traceparent"].split("-")[2] == span_id
    assert sorted(headers["baggage"].split(",")) == sorted(
        [f"handoff.run_id={run.run_id}", "handoff.parent_id=hf-1", "handoff.step=price"]
    )


def test_inject_outside_any_run_or_span_writes_nothing():
    """Outside a run and a span there is nothing to propagate, and inject says so with no headers."""
    assert handoff.inject({"accept": "application/json"}) == {"accept": "application/json"}


def test_extract_joins_the_run_with_the_caller_as_parent_and_from():
    """A handoff recorded under extract(headers) is in the caller's run, its parent the calling handoff."""
    with capture() as records:
        with handoff.run("invoice") as run:
            with handoff.record(to="price", from_="orchestrator.compress_v3") as caller:
                caller.input("freight surcharge: 9.1% (clause 7.2)")
                headers = handoff.inject({"Content-Type": "text/plain"})

        def service_b() -> None:
            with handoff.extract({k.title(): v for k, v in headers.items()}):
                with handoff.record(to="pricer.compute") as h:
                    h.input("freight surcharge: 9.1% (clause 7.2)")
                    h.output("171312.00")

        contextvars.Context().run(service_b)
        records.flush()
    joined = next(h for h in records.handoffs if h.to_step == "pricer.compute")
    assert joined.run_id == run.run_id
    assert joined.parent_handoff_id == "hf-1"
    assert joined.from_step == "price"
    assert joined.handoff_id.startswith("hf-") and joined.handoff_id.endswith("-1") and joined.handoff_id != "hf-1"
    caller_record = next(h for h in records.handoffs if h.to_step == "price")
    assert joined.trace_id == caller_record.trace_id


def test_extract_without_handoff_baggage_records_a_run_of_its_own():
    """Headers from a caller that is not recording leave this process's handoffs in their own runs."""
    with capture() as records:
        with handoff.extract({"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}):
            with handoff.record(to="pricer.compute") as h:
                h.input("x")
        records.flush()
    (only,) = records.handoffs
    assert (only.parent_handoff_id, only.trace_id) == (None, "0af7651916cd43dd8448eb211c80319c")


@pytest.fixture
def service_b(tmp_path):
    """Service B running in its own process, recording into the same store as this test (service A)."""
    store = tmp_path / "store"
    env = {**os.environ, "HANDOFF_STORE": str(store), "HANDOFF_SCRUB": "0"}
    service = subprocess.Popen(
        [sys.executable, str(SERVICE_B)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        port = int(service.stdout.readline())
        handoff.configure(store=str(store), scrub=False)
        yield port, store
    finally:
        service.stdin.close()
        service.wait(30)
        handoff.shutdown()
        reset_settings()


def test_service_b_called_over_http_joins_service_a_run(service_b):
    """Service B, another process called over HTTP with injected headers, records into A's run under A's handoff."""
    port, store = service_b

    @handoff.step(to="price", from_="orchestrator.compress_v3")
    def price(brief: str) -> str:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/price", data=brief.encode(), headers=handoff.inject({})
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.read().decode()

    with handoff.run("invoice", invoice="INV-88214") as run:
        answer = price("freight surcharge: 9.1% (clause 7.2)")
    handoff.flush()

    assert answer == "total for [freight surcharge: 9.1% (clause 7.2)]: 171312.00 (checked)"
    rows = query(
        connect(str(store)),
        "SELECT handoff_id, from_step, to_step, parent_handoff_id, trace_id, model FROM handoffs WHERE run_id = ? ORDER BY ts",
        [run.run_id],
    )
    assert [(r["from_step"], r["to_step"]) for r in rows] == [
        ("orchestrator.compress_v3", "price"),
        ("price", "pricer.compute"),
        ("pricer.compute", "pricer.audit"),
    ]
    a, b_compute, b_audit = rows
    assert a["handoff_id"] == "hf-1"
    assert b_compute["parent_handoff_id"] == "hf-1"
    assert b_audit["parent_handoff_id"] == b_compute["handoff_id"]
    assert b_compute["handoff_id"].startswith("hf-") and b_compute["handoff_id"].endswith("-1")
    assert b_compute["model"] == "fake-pricer"
    assert {r["trace_id"] for r in rows} == {a["trace_id"]}


def test_the_openai_adapter_propagates_the_run_to_the_model_server(service_b):
    """A model server that calls handoff.extract joins the caller's run under the adapter's handoff, with no code at the call site."""
    port, store = service_b
    client = openai.OpenAI(
        base_url=f"http://127.0.0.1:{port}/v1", api_key="test", http_client=handoff_openai.http_client()
    )

    @handoff.step(to="price")
    def price(brief: str) -> str:
        return (
            client.chat.completions.create(model="fake-pricer", messages=[{"role": "user", "content": brief}])
            .choices[0]
            .message.content
        )

    with handoff.run("invoice") as run:
        assert price("freight surcharge: 9.1% (clause 7.2)") == "total 171312.00"
    handoff.flush()
    rows = query(
        connect(str(store)),
        "SELECT handoff_id, from_step, to_step, parent_handoff_id FROM handoffs WHERE run_id = ? ORDER BY ts",
        [run.run_id],
    )
    assert [(r["from_step"], r["to_step"], r["parent_handoff_id"]) for r in rows] == [
        ("invoice", "price", None),
        ("price", "openai.chat.completions", "hf-1"),
        ("openai.chat.completions", "model_server.generate", "hf-2"),
    ]
