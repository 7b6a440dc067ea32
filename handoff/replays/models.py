"""Replaying a model call recorded by the OpenAI or Anthropic adapter: the stored request body, sent again.

The request goes through the SDK's own client, built as the SDK builds it by default: base URL,
API key, headers, retries and timeouts from its environment (``OPENAI_BASE_URL``,
``OPENAI_API_KEY``, ``ANTHROPIC_BASE_URL``, ``ANTHROPIC_API_KEY``). The recorded host is never
used: a stored record must not decide where your API key is sent. The body is the stored one byte
for byte, unless ``model`` replaces the model it names.
"""

from __future__ import annotations

import json
from typing import Any

from handoff.errors import ReplayError
from handoff.model import BINARY
from handoff.replays.calls import ReplayCall, run_calls
from handoff.replays.original import Original

#: The SDKs whose recorded calls can be replayed, by the name the adapters record.
SDKS = ("openai", "anthropic")


def recorded_call(original: Original) -> tuple[str, str] | None:
    """``(sdk, path)`` when the handoff is a model call an adapter recorded, else ``None``."""
    described = original.config.get("replay") or {}
    if described.get("sdk") in SDKS and described.get("path"):
        return described["sdk"], str(described["path"])
    sdk = original.row["to_step"].split(".", 1)[0]
    path = (original.row.get("attributes") or {}).get("url_path")
    return (sdk, path) if sdk in SDKS and path else None  # recorded before adapters said so in the config


def sdk_client(sdk: str) -> tuple[Any, Any]:
    """``(client, httpx module)``: the SDK's client as it builds itself from its environment.

    A missing package or API key is one line.
    """
    try:
        if sdk == "openai":
            import openai

            from handoff.adapters.openai import http_module

            return openai.OpenAI(), http_module()
        import anthropic

        from handoff.adapters.anthropic import http_module

        return anthropic.Anthropic(), http_module()
    except ImportError:
        raise ReplayError(
            f"replaying a {sdk} call needs the {sdk} package: pip install 'handoff-trace[{sdk}]'"
        ) from None
    except Exception as exc:  # noqa: BLE001 - the SDK's own configuration error, e.g. no API key
        raise ReplayError(f"cannot build the {sdk} client: {str(exc).strip().splitlines()[0]}") from None


def relative_path(client: Any, recorded_path: str) -> str:
    """The recorded request path relative to the client's base URL (``/v1/chat/completions`` -> ``chat/completions``)."""
    base = str(client.base_url.path)
    base = base if base.endswith("/") else base + "/"
    return recorded_path[len(base) :] if recorded_path.startswith(base) else recorded_path.lstrip("/")


def request_body(stored: bytes, model: str | None) -> bytes:
    """The stored body as it was, or with its ``model`` replaced (keys kept in their order)."""
    if model is None:
        return stored
    try:
        body = json.loads(stored)
    except ValueError:
        raise ReplayError("--model needs a JSON request body, and the stored one is not JSON") from None
    if not isinstance(body, dict):
        raise ReplayError("--model needs a JSON object as the request body")
    body["model"] = model
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class ModelPlan:
    """A replay that sends the stored request body through the SDK's client, once per call."""

    def __init__(self, original: Original, sdk: str, path: str, model: str | None, spec_for: Any) -> None:
        self.client, self.http = sdk_client(sdk)
        self.route = relative_path(self.client, path)
        self.body = request_body(original.input, model)
        self.path = f"{sdk}:{path}"
        self.spec = spec_for(original, self.path, _rendered, model)
        self.stored = (self.body, original.input_content_type or "application/json")

    def call(self, times: int, concurrency: int) -> list[ReplayCall]:
        """Send the body ``times`` times; an HTTP error status is the SDK's exception, counted by type."""
        response_class = self.http.Response

        def invoke() -> Any:
            headers = {"Content-Type": "application/json"}
            return self.client.post(self.route, cast_to=response_class, content=self.body, options={"headers": headers})

        return run_calls(
            self.spec, self.stored, invoke, shape="sync", render=_rendered, times=times, concurrency=concurrency
        )


def _rendered(response: Any) -> tuple[bytes, str]:
    return response.content, response.headers.get("content-type") or BINARY
