"""Runs across processes: carry the run and the calling handoff in W3C trace context + baggage.

Service A, inside a handoff, calls service B over HTTP::

    requests.post(url, json=payload, headers=handoff.inject({}))

Service B joins A's run, and its handoffs get A's handoff as parent::

    with handoff.extract(request.headers):
        price(brief)

``inject`` writes ``traceparent``/``tracestate`` (the handoff's span, so B's spans nest under
it in any tracing backend) and ``baggage`` with ``handoff.run_id``, ``handoff.parent_id`` (the
calling handoff) and ``handoff.step`` (the step that made the call). ``extract`` reads them back.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from typing import Any

from opentelemetry import baggage, trace
from opentelemetry import context as otel_context
from opentelemetry.baggage.propagation import W3CBaggagePropagator
from opentelemetry.propagators.composite import CompositePropagator
from opentelemetry.propagators.textmap import Getter
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from handoff.capture.context import current_run
from handoff.capture.handle import current_handle
from handoff.capture.recorder import get_recorder
from handoff.capture.runs import run

RUN_KEY = "handoff.run_id"
PARENT_KEY = "handoff.parent_id"
STEP_KEY = "handoff.step"

_PROPAGATOR = CompositePropagator([TraceContextTextMapPropagator(), W3CBaggagePropagator()])


class _AnyCaseGetter(Getter):
    """Reads headers from dicts, ``email.message.Message``, httpx/Starlette headers, in any case."""

    def get(self, carrier: Any, key: str) -> list[str] | None:
        value = carrier.get(key)
        if value is None:
            value = next((v for k, v in carrier.items() if str(k).lower() == key), None)
        if value is None:
            return None
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        return [value] if isinstance(value, str) else [str(v) for v in value]

    def keys(self, carrier: Any) -> list[str]:
        return [str(k).lower() for k in carrier.keys()]


_GETTER = _AnyCaseGetter()


def inject(headers: MutableMapping[str, str] | None = None, *, handle: Any = None) -> MutableMapping[str, str]:
    """Add trace context and the run's baggage to ``headers`` (a new dict if ``None``) and return it.

    ``handle`` is the calling handoff (default: the one active here). Outside any run only the
    OpenTelemetry context is written. Never raises: on failure ``headers`` is returned unchanged.
    """
    headers = {} if headers is None else headers
    try:
        _PROPAGATOR.inject(headers, context=_outgoing_context(handle or current_handle.get()))
    except Exception as exc:  # noqa: BLE001 - propagation must not break the call it rides on
        _capture_failed(exc)
    return headers


def _outgoing_context(handle: Any) -> otel_context.Context:
    ctx = otel_context.get_current()
    state = handle.run_state if handle is not None else current_run.get()
    if handle is not None:
        ctx = trace.set_span_in_context(handle.span, ctx)
        ctx = baggage.set_baggage(PARENT_KEY, handle.handoff_id, ctx)
        ctx = baggage.set_baggage(STEP_KEY, handle.to, ctx)
    if state is not None:
        ctx = baggage.set_baggage(RUN_KEY, state.run_id, ctx)
    return ctx


def _capture_failed(exc: Exception) -> None:
    get_recorder().capture_failed(exc)


class RemoteRun:
    """What ``extract`` found: use it as a context manager, or ``attach()``/``detach()`` in middleware.

    While active, the extracted OpenTelemetry context is current (new spans are children of
    the caller's span) and, when the caller sent a run id, handoffs recorded here join that
    run; those whose parent cannot be inferred locally get the caller's handoff as parent and
    its step as ``from``.
    """

    def __init__(
        self, context: otel_context.Context, run_id: str | None, parent_id: str | None, step: str | None
    ) -> None:
        self.context = context
        self.run_id = run_id
        self.parent_id = parent_id
        self.step = step
        self._active: list[tuple[object, Any]] = []

    def attach(self) -> None:
        """Make the remote run current in this thread or task until :meth:`detach`; never raises."""
        token = otel_context.attach(self.context)
        joined = None
        if self.run_id:
            try:
                joined = _join(self.run_id, self.parent_id, self.step)
            except Exception as exc:  # noqa: BLE001 - joining is best effort; the request goes on
                _capture_failed(exc)
        self._active.append((token, joined))

    def detach(self) -> None:
        """Undo the latest :meth:`attach`."""
        if not self._active:
            return
        token, joined = self._active.pop()
        if joined is not None:
            joined.__exit__(None, None, None)
        otel_context.detach(token)

    def __enter__(self) -> RemoteRun:
        self.attach()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.detach()


def _join(run_id: str, parent_id: str | None, step: str | None):
    joined = run(step or "remote", run_id=run_id)
    joined.__enter__()
    state = current_run.get()
    if state is not None and state.run_id == run_id:
        state.remote_parent = parent_id  # the last resort of handoff.capture.lineage
        if parent_id and step:
            state.register(parent_id, step)
    return joined


def extract(headers: Any) -> RemoteRun:
    """Read trace context and handoff baggage from incoming ``headers``; return a :class:`RemoteRun`.

    Headers without handoff baggage still carry the OpenTelemetry parent; without any, the
    returned object does nothing. Never raises.
    """
    try:
        ctx = _PROPAGATOR.extract(headers, getter=_GETTER)
    except Exception as exc:  # noqa: BLE001
        _capture_failed(exc)
        return RemoteRun(otel_context.get_current(), None, None, None)
    return RemoteRun(ctx, *(_baggage_str(ctx, key) for key in (RUN_KEY, PARENT_KEY, STEP_KEY)))


def _baggage_str(ctx: otel_context.Context, key: str) -> str | None:
    value = baggage.get_baggage(key, ctx)
    return str(value) if value else None


def header_names() -> Iterable[str]:
    """The header names ``inject`` may write (for CORS allow-lists and proxies)."""
    return sorted(_PROPAGATOR.fields)
