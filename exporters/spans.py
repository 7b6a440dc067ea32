"""The OpenTelemetry side: every handoff is a span carrying ``handoff.*`` attributes, never content.

If the application already installed an SDK ``TracerProvider`` globally, handoff spans go
through it (and its exporters). Otherwise handoff keeps a private SDK provider so spans still
get real trace and span ids, without taking over the global one.
"""

from __future__ import annotations

import threading
from typing import Any

from opentelemetry import trace

from handoff.diagnostics import Counters, warn_once
from handoff.exporters.deferred_spans import DeferredTracer, SpanEmitter

_lock = threading.Lock()
_private_provider: Any = None
#: ``SpanKind`` by name, looked up on every span start (cheaper than ``SpanKind[name]``).
_SPAN_KINDS = {kind.name: kind for kind in trace.SpanKind}


def _sdk_provider_class():
    from opentelemetry.sdk.trace import TracerProvider

    return TracerProvider


def _sdk_tracer_class():
    from opentelemetry.sdk.trace import Tracer

    return Tracer


def private_provider():
    """Return handoff's own SDK provider, creating it on first use."""
    global _private_provider
    if _private_provider is None:
        with _lock:
            if _private_provider is None:
                _private_provider = _sdk_provider_class()()
    return _private_provider


def resolve_provider(configured: Any = None):
    """Pick the provider: the configured one, else the global SDK provider, else the private one."""
    if configured is not None:
        return configured
    provider = trace.get_tracer_provider()
    if isinstance(provider, _sdk_provider_class()):
        return provider
    return private_provider()


class SpanRecorder:
    """Starts handoff spans and emits them once ended; caches the tracer per provider.

    With an SDK provider a span is a :class:`~handoff.exporters.deferred_spans.DeferredSpan`,
    built into the SDK span off the hot path by :attr:`emitter`; with any other provider the
    provider's tracer makes it at the call, as usual.
    """

    def __init__(self, configured_provider: Any = None, counters: Counters | None = None) -> None:
        self._configured = configured_provider
        self._seen_global: Any = None
        self._tracer: Any = None
        self._deferred: Any = None
        self.emitter = SpanEmitter(counters)

    def tracer(self):
        """Return the tracer of the provider in force now (cheap after the first call).

        The global provider is looked at on every call, so an application that installs its
        SDK provider after the first handoff is picked up; the tracer is rebuilt only when it changes.
        """
        if self._configured is not None:
            if self._tracer is None:
                self._use(self._configured.get_tracer("handoff"))
            return self._tracer
        current = trace.get_tracer_provider()
        if current is not self._seen_global or self._tracer is None:
            self._seen_global = current
            self._use(resolve_provider(None).get_tracer("handoff"))
        return self._tracer

    def _use(self, tracer: Any) -> None:
        self._tracer, self._deferred = tracer, None
        if isinstance(tracer, _sdk_tracer_class()):
            try:
                self._deferred = DeferredTracer(tracer, self.emitter)
            except Exception as exc:  # noqa: BLE001 - an SDK we cannot defer spans on still gets them at the call
                warn_once("handoff: spans are started on the hot path (%s)", exc)

    def start(self, name: str, attributes: dict[str, Any], start_ns: int, kind: str = "INTERNAL", links: Any = None):
        """Start a span as a child of the current OpenTelemetry context (``kind``: a ``SpanKind`` name)."""
        tracer = self.tracer()
        if self._deferred is not None:
            return self._deferred.start(name, attributes, start_ns, _SPAN_KINDS[kind], links)
        return tracer.start_span(name, kind=_SPAN_KINDS[kind], attributes=attributes, links=links, start_time=start_ns)


def span_ids(span) -> tuple[str | None, str | None]:
    """Return ``(trace_id, span_id)`` as hex, or ``(None, None)`` for a non-recording span."""
    ctx = span.get_span_context()
    if not ctx.is_valid:
        return None, None
    return format(ctx.trace_id, "032x"), format(ctx.span_id, "016x")
