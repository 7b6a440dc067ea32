"""OTLP/HTTP export of handoff spans, added to the tracer provider already in use.

Two ways to turn it on:

- ``handoff.configure(otlp_endpoint="http://collector:4318")`` (or ``HANDOFF_OTLP_ENDPOINT``):
  a ``BatchSpanProcessor`` with an OTLP/HTTP exporter is *added* to the provider handoff
  records into (yours, if you installed an SDK ``TracerProvider``; otherwise handoff's
  private one). Your own processors and exporters stay as they are.
- The standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``
  variables, when handoff uses its private provider (an application with its own SDK provider
  already exports what it wants; adding a second exporter there would send every span twice).

Every other ``OTEL_EXPORTER_OTLP_*`` variable (headers, timeout, compression, certificates) is
read by the OpenTelemetry exporter itself. ``OTEL_TRACES_EXPORTER=none`` turns env-driven
export off.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from typing import Any

from handoff.config import Settings
from handoff.diagnostics import warn_once
from handoff.exporters.deferred_spans import flush_all
from handoff.exporters.spans import private_provider, resolve_provider

TRACES_PATH = "/v1/traces"
ENV_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")

_lock = threading.Lock()
# provider -> ((endpoint, scrub key and model), processor): one handoff OTLP processor per provider, retargeted on change.
_attached: weakref.WeakKeyDictionary[Any, tuple[str | None, Any]] = weakref.WeakKeyDictionary()


def traces_url(endpoint: str) -> str:
    """Return the OTLP/HTTP traces URL for a base endpoint (``http://host:4318`` -> ``.../v1/traces``)."""
    endpoint = endpoint.rstrip("/")
    return endpoint if endpoint.endswith(TRACES_PATH) else endpoint + TRACES_PATH


def env_configured() -> bool:
    """True when the standard OTLP variables ask for trace export."""
    if os.environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return False
    return any(os.environ.get(name) for name in ENV_ENDPOINTS)


def build_processor(endpoint: str | None, scrubber: Callable[[], Any] | None = None):
    """Return a ``BatchSpanProcessor`` over an OTLP/HTTP exporter (``None``: endpoint from env).

    With ``scrubber`` (a function returning the store's scrubber) every span is scrubbed before it
    leaves the process (:class:`~handoff.exporters.span_scrub.ScrubbingSpanExporter`).
    """
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    exporter = OTLPSpanExporter(endpoint=traces_url(endpoint)) if endpoint else OTLPSpanExporter()
    if scrubber is not None:
        from handoff.exporters.span_scrub import ScrubbingSpanExporter

        exporter = ScrubbingSpanExporter(exporter, scrubber)
    return BatchSpanProcessor(exporter)


def attach_otlp(endpoint: str | None = None, tracer_provider: Any = None, settings: Settings | None = None):
    """Add OTLP export to the provider handoff records into; return the processor or ``None``.

    With ``settings`` that scrub (the default), spans are scrubbed with the store's scrubber (same
    key, same pseudonyms) before they are sent.

    Idempotent per provider: calling it again with the same endpoint keeps the processor,
    with another endpoint shuts the old one down (it then drops spans) and adds a new one,
    with none (and no OTLP variables) shuts it down.
    Never raises: a failure is logged once and recording carries on without OTLP.
    """
    if not endpoint and not env_configured():
        _detach(tracer_provider)
        return None
    try:
        provider = resolve_provider(tracer_provider)
        if not hasattr(provider, "add_span_processor") or not (endpoint or provider is private_provider()):
            return None
        return _attach(provider, endpoint or None, settings if settings is not None and settings.scrub else None)
    except Exception as exc:  # noqa: BLE001 - tracing setup must not stop recording
        warn_once("handoff: OTLP export is off: %s", exc)
        return None


def _attach(provider: Any, endpoint: str | None, settings: Settings | None):
    target = (endpoint, None if settings is None else (settings.scrub_key, settings.spacy_model))
    with _lock:
        current = _attached.get(provider)
        if current is not None and current[0] == target:
            return current[1]
        processor = build_processor(endpoint, None if settings is None else _scrubber_of(settings))
        provider.add_span_processor(processor)
        _attached[provider] = (target, processor)
    if current is not None:
        current[1].shutdown()
    return processor


def _scrubber_of(settings: Settings) -> Callable[[], Any]:
    from handoff.exporters.factory import build_scrubber, pseudonym_key

    key = pseudonym_key(settings)
    return lambda: build_scrubber(key, settings.spacy_model)


def _detach(tracer_provider: Any) -> None:
    """Shut down every processor handoff attached, on any provider (one configured OTLP export at a time).

    Detaching only the current provider's would leave a processor on a provider configured before
    (and perhaps shut down since), and ``force_flush`` would report it as never flushing.
    """
    del tracer_provider
    if not _attached:
        return
    with _lock:
        current = list(_attached.values())
        _attached.clear()
    for _, processor in current:
        processor.shutdown()


def force_flush(timeout_s: float = 30.0) -> bool:
    """Emit the ended handoff spans, then export every finished span still waiting in handoff's OTLP processors."""
    emitted = flush_all(timeout_s)
    with _lock:
        processors = [processor for _, processor in _attached.values()]
    return all([processor.force_flush(int(timeout_s * 1000)) for processor in processors]) and emitted
