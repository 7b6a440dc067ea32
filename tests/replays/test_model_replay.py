"""Replaying model calls the OpenAI and Anthropic adapters recorded: the stored body, sent again through the SDK."""

from __future__ import annotations

import json

import anthropic
import openai
import pytest

import handoff
from handoff.adapters import anthropic as handoff_anthropic
from handoff.adapters import openai as handoff_openai
from handoff.adapters.fake_server import FakeModelServer
from handoff.errors import ReplayError
from handoff.queries import connect
from handoff.queries.content import fetch_content
from handoff.queries.runs import get_run
from handoff.store import open_store

MESSAGES = [{"role": "user", "content": "freight surcharge: 9.1% (clause 7.2), base is the rebated subtotal"}]


@pytest.fixture
def fake_model():
    """The local stand-in for the paid model APIs, on loopback."""
    with FakeModelServer() as server:
        yield server


@pytest.fixture
def store(tmp_path) -> str:
    """A store of its own, configured for recording and replaying."""
    path = str(tmp_path / "store")
    handoff.configure(store=path, scrub_key="test-key-replay")
    return path


def _record_openai(fake_model) -> str:
    client = openai.OpenAI(base_url=fake_model.openai_url, api_key="test", http_client=handoff_openai.http_client())
    with handoff.run("invoice") as run:
        client.chat.completions.create(model="fake-1", messages=MESSAGES)
    assert handoff.flush(timeout_s=600)
    return run.run_id


def test_an_openai_call_replays_from_the_exact_stored_body(store, fake_model, monkeypatch):
    """The replay sends the stored request body byte for byte through the OpenAI client its environment configures."""
    run_id = _record_openai(fake_model)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_model.openai_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-replay")
    report = handoff.replay(run_id, "hf-1", times=3)
    stored = fetch_content(open_store(store), connect(store), run_id, "hf-1", "in")
    assert [body for _path, _headers, body in fake_model.requests[1:]] == [stored] * 3
    assert json.loads(stored) == json.loads(fake_model.requests[0][2])  # the stored body is the scrubbed one
    assert [path for path, _headers, _body in fake_model.requests[1:]] == ["/v1/chat/completions"] * 3
    assert {k.lower(): v for k, v in fake_model.requests[1][1].items()}["authorization"] == "Bearer test-replay"
    assert (report.step, report.target, report.ok, report.original_reproduced, report.errors) == (
        "openai.chat.completions",
        "openai:/v1/chat/completions",
        3,
        3,
        {},
    )
    rows = get_run(connect(store), report.replay_run_id)["handoffs"]
    assert [(h["to_step"], h["model"], h["status"]) for h in rows] == [("openai.chat.completions", "fake-1", "ok")] * 3


def test_model_replaces_the_model_in_the_body(store, fake_model, monkeypatch):
    """--model sends the same body to another model, and the replays record that model."""
    run_id = _record_openai(fake_model)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_model.openai_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-replay")
    report = handoff.replay(run_id, "hf-1", times=2, model="fake-2")
    sent = [json.loads(body) for _path, _headers, body in fake_model.requests[1:]]
    assert [body["model"] for body in sent] == ["fake-2", "fake-2"]
    assert [body["messages"] for body in sent] == [MESSAGES, MESSAGES]
    assert (report.model, report.ok, report.original_reproduced) == ("fake-2", 2, 0)
    rows = get_run(connect(store), report.replay_run_id)["handoffs"]
    assert [h["model"] for h in rows] == ["fake-2", "fake-2"]


def test_an_http_error_is_counted_by_the_sdks_exception_type(store, fake_model, monkeypatch):
    """A model that answers 500 gives the SDK's InternalServerError per replay, counted; nothing raises."""
    run_id = _record_openai(fake_model)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_model.openai_url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-replay")
    monkeypatch.setenv("OPENAI_MAX_RETRIES", "0")
    fake_model.reply = lambda api, request: {"_status": 500, "error": {"message": "overloaded"}}
    report = handoff.replay(run_id, "hf-1", times=2)
    assert (report.ok, report.errors) == (0, {"InternalServerError": 2})


def test_an_anthropic_call_replays_through_the_anthropic_client(store, fake_model, monkeypatch):
    """A recorded Anthropic messages call replays from its stored body through the Anthropic client."""
    client = anthropic.Anthropic(base_url=fake_model.url, api_key="test", http_client=handoff_anthropic.http_client())
    with handoff.run("invoice") as run:
        client.messages.create(model="fake-claude", max_tokens=100, messages=MESSAGES)
    assert handoff.flush(timeout_s=600)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_model.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-replay")
    report = handoff.replay(run.run_id, "hf-1", times=2)
    sent = [json.loads(body) for _path, _headers, body in fake_model.requests[1:]]
    assert sent == [json.loads(fake_model.requests[0][2])] * 2
    carrying_key = [value for value in fake_model.requests[1][1].values() if "test-replay" in value]
    assert carrying_key in (["test-replay"], ["Bearer test-replay"])  # x-api-key, or Authorization in newer SDKs
    assert (report.step, report.target, report.ok, report.original_reproduced) == (
        "anthropic.messages",
        "anthropic:/v1/messages",
        2,
        2,
    )


def test_a_missing_api_key_is_one_line(store, fake_model, monkeypatch):
    """Without the SDK's key in the environment the replay stops with the SDK's own reason, in one line."""
    run_id = _record_openai(fake_model)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ReplayError, match="^cannot build the openai client: Missing credentials"):
        handoff.replay(run_id, "hf-1", times=1)
