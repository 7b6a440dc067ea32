"""Opening and finishing handoffs from framework callbacks, where no ``with`` block fits.

Adapters see a call begin in one callback and end in another, sometimes on another thread.
These helpers open a :class:`~handoff.capture.Handle` without making it current (nothing is
attached to the caller's context, so nothing needs detaching from the right one), with an
explicit run, parent and span parent when the framework knows them. They never raise.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace

from handoff.handle import Handle, StepSpec
from handoff.runs import start_run as _start_run
from handoff.context import RunState, current_run
from handoff.recorder import get_recorder
from handoff.render import Rendered, render_value


def open_handle(
    to: str,
    *,
    from_: str | None = None,
    kind: str = "agent",
    parent: Any = None,
    run: RunState | None = None,
    span_parent: Handle | None = None,
    config: dict[str, Any] | None = None,
    **attributes: Any,
) -> Handle | None:
    """Open a handoff to ``to`` in ``run`` (default: the current run, else a run of its own)."""
    recorder = get_recorder()
    if not recorder.settings.enabled:
        return None
    try:
        spec = StepSpec(to, from_, kind, parent, dict(config or {}), attributes, True, None, render_value)
        state = run or current_run.get()
        owns = state is None
        if owns:
            state = _start_run(recorder, to, {}, None)
        return _new_handle(recorder, spec, state, owns, parent, span_parent)
    except Exception as exc:  # noqa: BLE001 - the framework must run as if unrecorded
        recorder.capture_failed(exc)
        return None


def _new_handle(recorder, spec: StepSpec, state: RunState, owns: bool, parent: Any, span_parent: Handle | None) -> Handle:
    if span_parent is None:
        return Handle(recorder, spec, state, owns, parent)
    token = otel_context.attach(trace.set_span_in_context(span_parent._span))
    try:
        return Handle(recorder, spec, state, owns, parent)
    finally:
        otel_context.detach(token)


def set_input(handle: Handle | None, value: Any, content_type: str | None = None) -> None:
    """Set the input: raw ``bytes`` with ``content_type`` as they are, anything else rendered."""
    _guarded(handle, lambda: handle._set_input(_rendered(value, content_type)))


def set_output(handle: Handle | None, value: Any, content_type: str | None = None) -> None:
    """Set the output, like :func:`set_input`."""
    _guarded(handle, lambda: handle._set_output(_rendered(value, content_type)))


def finish(handle: Handle | None, error: Exception | None = None) -> None:
    """End the handoff (``status=error`` with ``error``) and hand it to the writer."""
    if handle is None:
        return
    if error is not None:
        handle._fail(error)
    _guarded(handle, handle._finish)


def _rendered(value: Any, content_type: str | None) -> Rendered:
    if isinstance(value, bytes) and content_type:
        return value, content_type
    return render_value(value)


def _guarded(handle: Handle | None, action) -> None:
    if handle is None:
        return
    try:
        action()
    except Exception as exc:  # noqa: BLE001
        handle._recorder.capture_failed(exc)
