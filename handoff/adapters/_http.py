"""Recording HTTP transports for model SDKs built on httpx (or its successor httpx2).

A :class:`RecordingTransport` wraps the transport that really sends the request. Per request
it opens a handoff, records the exact request body as the input, injects trace context and
the run's baggage into the request headers, and wraps the response stream: the bytes the SDK
reads become the output, and the handoff ends when the SDK closes the response (so streamed
responses are recorded whole, and the SDK still reads them incrementally).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from types import ModuleType
from typing import Any

from handoff.adapters._handles import finish, open_handle, set_input, set_output
from handoff.capture.propagation import inject

Namer = Callable[[Any], str]


class UpstreamHTTPError(Exception):
    """The model API answered with an HTTP error status (recorded as ``status=error``)."""


def _objects(body: bytes):
    stripped = body.strip()
    if stripped.startswith(b"{"):
        yield json.loads(stripped)
        return
    for line in body.splitlines():
        if line.startswith(b"data:"):
            payload = line[5:].strip()
            if payload.startswith(b"{"):
                yield json.loads(payload)


def _usage_dicts(obj: dict):
    for holder in (obj, obj.get("message"), obj.get("response")):
        if isinstance(holder, dict) and isinstance(holder.get("usage"), dict):
            yield holder["usage"]


def usage_from(body: bytes) -> tuple[int | None, int | None]:
    """Return ``(input_tokens, output_tokens)`` from a JSON or server-sent-events response body."""
    found: dict[str, int | None] = {"in": None, "out": None}
    try:
        for obj in _objects(body):
            for usage in _usage_dicts(obj):
                found["in"] = usage.get("prompt_tokens", usage.get("input_tokens", found["in"]))
                found["out"] = usage.get("completion_tokens", usage.get("output_tokens", found["out"]))
    except (ValueError, AttributeError):
        pass
    return found["in"], found["out"]


def model_of(body: bytes) -> str | None:
    """Return the ``model`` named in a JSON request body, if any."""
    try:
        value = json.loads(body).get("model") if body.lstrip().startswith(b"{") else None
    except (ValueError, AttributeError):
        return None
    return None if value is None else str(value)


#: The config key under which a model call records what ``handoff replay`` needs to send it again.
REPLAY_KEY = "replay"

# The GenAI ``gen_ai.operation.name`` of a model API endpoint, by the end of its path.
_OPERATIONS = (
    ("/chat/completions", "chat"),
    ("/completions", "text_completion"),
    ("/embeddings", "embeddings"),
    ("/messages", "chat"),
    ("/responses", "chat"),
)


def operation_of(path: str) -> str | None:
    """Return the GenAI operation of a model API path (``/v1/chat/completions`` -> ``chat``), if known."""
    path = path.rstrip("/")
    return next((operation for suffix, operation in _OPERATIONS if path.endswith(suffix)), None)


class _Call:
    """One HTTP exchange being recorded."""

    def __init__(self, request: Any, to: str, from_: str | None, propagate: bool, sdk: str | None = None) -> None:
        config: dict[str, Any] = (
            {REPLAY_KEY: {"sdk": sdk, "method": request.method, "path": request.url.path}} if sdk else {}
        )
        self.body = request.content
        model = model_of(self.body)
        if model is not None:
            config["model"] = model  # known before the call: on the span from its start
        self.handle = open_handle(
            to, from_=from_, kind="agent", config=config, operation=operation_of(request.url.path), provider=sdk,
            method=request.method, url_path=request.url.path,
        )  # fmt: skip
        self.path = request.url.path
        self.chunks: list[bytes] = []
        self.response: Any = None
        self.error: Exception | None = None
        set_input(self.handle, self.body, request.headers.get("content-type") or "application/octet-stream")
        if propagate and self.handle is not None:
            inject(request.headers, handle=self.handle)

    def responded(self, response: Any) -> None:
        self.response = response
        if response.status_code >= 400:
            self.error = UpstreamHTTPError(f"HTTP {response.status_code} from {self.path}")

    def finish(self) -> None:
        handle, self.handle = self.handle, None
        if handle is None:
            return
        output = b"".join(self.chunks)
        if self.response is not None:
            set_output(handle, output, self.response.headers.get("content-type") or "application/octet-stream")
        handle.usage(*usage_from(output))
        finish(handle, self.error)

    def fail(self, exc: Exception) -> None:
        self.error = exc
        self.finish()


def _read_body(request: Any) -> None:
    try:
        request.content  # noqa: B018 - reading the property loads the body, or raises for a streamed one
    except Exception:  # noqa: BLE001 - a streamed upload: read it once, it is replayable afterwards
        request.read()


@functools.cache
def transport_classes(lib: ModuleType) -> tuple[type, type]:
    """Return ``(RecordingTransport, AsyncRecordingTransport)`` built on ``lib`` (httpx or httpx2)."""
    return _sync_transport(lib), _async_transport(lib)


def _sync_transport(lib: ModuleType) -> type:
    class RecordingStream(lib.SyncByteStream):
        def __init__(self, inner: Any, call: _Call) -> None:
            self._inner, self._call = inner, call

        def __iter__(self):
            for chunk in self._inner:
                self._call.chunks.append(chunk)
                yield chunk

        def close(self) -> None:
            try:
                self._inner.close()
            finally:
                self._call.finish()

    class RecordingTransport(lib.BaseTransport):
        """Records every request sent through ``inner`` (default: a new ``HTTPTransport``) as a handoff."""

        def __init__(
            self,
            inner: Any = None,
            *,
            name: Namer,
            from_: str | None = None,
            propagate: bool = True,
            sdk: str | None = None,
        ) -> None:
            self._inner = inner if inner is not None else lib.HTTPTransport()
            self._name, self._from, self._propagate, self._sdk = name, from_, propagate, sdk

        def handle_request(self, request: Any) -> Any:
            _read_body(request)
            call = _Call(request, self._name(request), self._from, self._propagate, self._sdk)
            try:
                response = self._inner.handle_request(request)
            except Exception as exc:
                call.fail(exc)
                raise
            call.responded(response)
            response.stream = RecordingStream(response.stream, call)
            return response

        def close(self) -> None:
            self._inner.close()

    return RecordingTransport


def _async_transport(lib: ModuleType) -> type:
    class AsyncRecordingStream(lib.AsyncByteStream):
        def __init__(self, inner: Any, call: _Call) -> None:
            self._inner, self._call = inner, call

        async def __aiter__(self):
            async for chunk in self._inner:
                self._call.chunks.append(chunk)
                yield chunk

        async def aclose(self) -> None:
            try:
                await self._inner.aclose()
            finally:
                self._call.finish()

    class AsyncRecordingTransport(lib.AsyncBaseTransport):
        """The asyncio twin of ``RecordingTransport``."""

        def __init__(
            self,
            inner: Any = None,
            *,
            name: Namer,
            from_: str | None = None,
            propagate: bool = True,
            sdk: str | None = None,
        ) -> None:
            self._inner = inner if inner is not None else lib.AsyncHTTPTransport()
            self._name, self._from, self._propagate, self._sdk = name, from_, propagate, sdk

        async def handle_async_request(self, request: Any) -> Any:
            try:
                request.content  # noqa: B018 - as in _read_body
            except Exception:  # noqa: BLE001
                await request.aread()
            call = _Call(request, self._name(request), self._from, self._propagate, self._sdk)
            try:
                response = await self._inner.handle_async_request(request)
            except Exception as exc:
                call.fail(exc)
                raise
            call.responded(response)
            response.stream = AsyncRecordingStream(response.stream, call)
            return response

        async def aclose(self) -> None:
            await self._inner.aclose()

    return AsyncRecordingTransport


def http_lib(client_class: type) -> ModuleType:
    """Return the httpx module ``client_class`` (an SDK's default client) is built on."""
    import importlib

    for base in client_class.__mro__:
        root = base.__module__.split(".")[0]
        if root in ("httpx", "httpx2"):
            return importlib.import_module(root)
    import httpx

    return httpx


def step_name(prefix: str, base_path: str = "/v1/") -> Namer:
    """Return a namer giving ``<prefix>.<path after base_path, dots for slashes>`` (``openai.chat.completions``)."""

    def name(request: Any) -> str:
        path = request.url.path
        tail = path.split(base_path, 1)[1] if base_path in path else path.lstrip("/")
        return f"{prefix}.{tail.strip('/').replace('/', '.')}" if tail else prefix

    return name
