"""OpenAI SDK adapter: every API call is a handoff with the exact request and response bodies.

    import openai
    from handoff.adapters import openai as handoff_openai

    client = openai.OpenAI(http_client=handoff_openai.http_client())
    aclient = openai.AsyncOpenAI(http_client=handoff_openai.async_http_client())

The handoff goes to ``openai.<endpoint>`` (``openai.chat.completions``, ``openai.responses``)
from the step that made the call; its input is the JSON body the SDK sent, its output the
body the API returned (streamed responses whole), usage tokens come from the response and
``model`` from the request. The run's trace context and baggage ride along in the request
headers, so a server that calls ``handoff.extract`` joins the run. Works with any
OpenAI-compatible server (vLLM, Ollama, LiteLLM, ...).
"""

from __future__ import annotations

from typing import Any

from handoff.adapters._http import Namer, http_lib, step_name, transport_classes

__all__ = ["async_http_client", "async_transport", "http_client", "http_module", "transport"]


def _lib():
    import openai

    return http_lib(openai.DefaultHttpxClient)


def transport(inner: Any = None, *, to: Namer | None = None, from_: str | None = None, propagate: bool = True) -> Any:
    """Return a recording transport around ``inner`` for building your own HTTP client.

    ``to`` maps a request to the consumer step name; ``from_`` fixes the producer name;
    ``propagate=False`` keeps trace headers and baggage off the wire.
    """
    sync_class, _ = transport_classes(_lib())
    return sync_class(inner, name=to or step_name("openai"), from_=from_, propagate=propagate, sdk="openai")


def async_transport(
    inner: Any = None, *, to: Namer | None = None, from_: str | None = None, propagate: bool = True
) -> Any:
    """The asyncio twin of :func:`transport`."""
    _, async_class = transport_classes(_lib())
    return async_class(inner, name=to or step_name("openai"), from_=from_, propagate=propagate, sdk="openai")


def http_client(*, to: Namer | None = None, from_: str | None = None, propagate: bool = True, **kwargs: Any) -> Any:
    """Return the SDK's default HTTP client with a recording transport: ``OpenAI(http_client=...)``."""
    import openai

    return openai.DefaultHttpxClient(transport=transport(to=to, from_=from_, propagate=propagate), **kwargs)


def async_http_client(
    *, to: Namer | None = None, from_: str | None = None, propagate: bool = True, **kwargs: Any
) -> Any:
    """Return the SDK's default async HTTP client with a recording transport: ``AsyncOpenAI(http_client=...)``."""
    import openai

    return openai.DefaultAsyncHttpxClient(transport=async_transport(to=to, from_=from_, propagate=propagate), **kwargs)


def http_module() -> Any:
    """The httpx module (httpx or httpx2) this SDK's client is built on (``handoff replay`` reads responses with it)."""
    return _lib()
