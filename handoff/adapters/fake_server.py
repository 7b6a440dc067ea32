"""A fake model on loopback: an OpenAI- and Anthropic-compatible HTTP server for offline tests.

    with FakeModelServer() as server:
        client = openai.OpenAI(base_url=server.openai_url, api_key="test")
        client.chat.completions.create(model="fake-1", messages=[{"role": "user", "content": "hi"}])

It answers ``POST /v1/chat/completions`` (also streamed, with ``stream_options.include_usage``),
``POST /v1/responses`` and ``POST /v1/messages`` (also streamed); ``api`` is ``"openai"``,
``"responses"`` or ``"anthropic"``. ``reply(api, request)`` decides the answer: a string becomes the
assistant's text, a dict is sent as the whole response body (with HTTP status ``_status``
if it has that key, default 200). The default echoes the last user message. Usage is
deterministic: input tokens = request bytes // 4, output tokens = words.
Every request is kept in :attr:`FakeModelServer.requests` as ``(path, headers, body)`` and
every response body in :attr:`FakeModelServer.responses`.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[str, dict], "str | dict"]


def echo(api: str, request: dict) -> str:
    """The default reply: ``echo: <the last user message>``."""
    items = request.get("messages") or request.get("input") or []
    if isinstance(items, str):
        return f"echo: {items}"
    messages = [m for m in items if m.get("role") == "user"]
    content = messages[-1].get("content", "") if messages else ""
    if isinstance(content, list):
        content = " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return f"echo: {content}"


def _usage(body: bytes, text: str) -> tuple[int, int]:
    return len(body) // 4, len(text.split())


def chat_completion(request: dict, text: str, body: bytes) -> dict:
    """An OpenAI ``chat.completion`` object answering ``request`` with ``text``."""
    prompt, completion = _usage(body, text)
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1764400000,
        "model": request.get("model", "fake"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def anthropic_message(request: dict, text: str, body: bytes) -> dict:
    """An Anthropic ``message`` object answering ``request`` with ``text``."""
    prompt, completion = _usage(body, text)
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": request.get("model", "fake"),
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": completion},
    }


def response_object(request: dict, text: str, body: bytes) -> dict:
    """An OpenAI Responses API ``response`` object answering ``request`` with ``text``."""
    prompt, completion = _usage(body, text)
    message = {
        "type": "message",
        "id": "msg_fake",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return {
        "id": "resp_fake",
        "object": "response",
        "created_at": 1764400000,
        "model": request.get("model", "fake"),
        "status": "completed",
        "output": [message],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": prompt,
            "output_tokens": completion,
            "total_tokens": prompt + completion,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def _chunks(request: dict, text: str, body: bytes) -> list[dict]:
    base = {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": 1764400000,
        "model": request.get("model", "fake"),
    }
    words = text.split(" ")
    pieces = [w if i == 0 else " " + w for i, w in enumerate(words)]
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": p}, "finish_reason": None}]}
        for p in pieces
    ]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    if (request.get("stream_options") or {}).get("include_usage"):
        prompt, completion = _usage(body, text)
        usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        chunks.append({**base, "choices": [], "usage": usage})
    return chunks


def _anthropic_events(request: dict, text: str, body: bytes) -> list[tuple[str, dict]]:
    prompt, completion = _usage(body, text)
    message = {
        **anthropic_message(request, "", body),
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": prompt, "output_tokens": 1},
    }
    return [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        (
            "content_block_delta",
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": completion},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes; without this, Nagle + delayed ACK add ~40 ms.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet in tests
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's spelling
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.owner.requests.append((self.path, dict(self.headers.items()), body))
        request = json.loads(body or b"{}")
        api = (
            "anthropic"
            if self.path.endswith("/messages")
            else "responses"
            if self.path.endswith("/responses")
            else "openai"
        )
        answer = self.server.owner.reply(api, request)
        if isinstance(answer, dict):
            answer = dict(answer)
            return self._send_json(answer, answer.pop("_status", 200))
        if api == "anthropic" and request.get("stream"):
            return self._send_events(_anthropic_events(request, answer, body))
        if api == "anthropic":
            return self._send_json(anthropic_message(request, answer, body))
        if api == "responses":
            return self._send_json(response_object(request, answer, body))
        if request.get("stream"):
            return self._send_sse(_chunks(request, answer, body))
        return self._send_json(chat_completion(request, answer, body))

    def _send_json(self, payload: dict, status: int = 200) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.server.owner.responses.append(data)
        self.wfile.write(data)

    def _send_events(self, events: list[tuple[str, dict]]) -> None:
        self._send_stream(b"".join(f"event: {name}\ndata: {json.dumps(e)}\n\n".encode() for name, e in events))

    def _send_sse(self, chunks: list[dict]) -> None:
        self._send_stream(b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n")

    def _send_stream(self, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.server.owner.responses.append(data)
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeModelServer


class FakeModelServer:
    """An OpenAI- and Anthropic-compatible server on ``127.0.0.1`` answering from ``reply``."""

    def __init__(self, reply: Reply | None = None) -> None:
        self.reply: Reply = reply or echo
        self.requests: list[tuple[str, dict, bytes]] = []
        self.responses: list[bytes] = []
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` (the Anthropic SDK's ``base_url``)."""
        assert self._server is not None, "start the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def openai_url(self) -> str:
        """``<url>/v1`` (the OpenAI SDK's ``base_url``)."""
        return self.url + "/v1"

    def start(self) -> FakeModelServer:
        """Start serving on a free loopback port in a daemon thread."""
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-model", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
