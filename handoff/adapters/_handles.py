"""Opening and finishing handoffs from framework callbacks, where no ``with`` block fits.

Adapters see a call begin in one callback and end in another, sometimes on another thread.
These helpers open a :class:`~handoff.capture.handle.Handle` without making it current
(nothing is attached to the caller's context, so nothing needs detaching from the right one),
inside the run and span of an enclosing handle when the framework knows one. They drive the
handle through its lifecycle API and never raise.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace

from handoff.capture.handle import Handle
from handoff.capture.handle import open_handle as open_in_run
from handoff.capture.recorder import get_recorder
from handoff.capture.render import Rendered, render_value
from handoff.capture.spec import StepSpec


def open_handle(
    to: str,
    *,
    from_: str | None = None,
    kind: str = "agent",
    parent: Any = None,
    within: Handle | None = None,
    fan_in: list[str] | None = None,
    config: dict[str, Any] | None = None,
    operation: str | None = None,
    provider: str | None = None,
    **attributes: Any,
) -> Handle | None:
    """Open a handoff to ``to``: inside ``within``'s run and span if given, else in the current run or one of its own.

    ``parent`` and ``fan_in`` are explicit parents (handles or handoff ids), as the framework saw them;
    ``operation`` and ``provider`` are the GenAI ``gen_ai.operation.name`` and ``gen_ai.provider.name``.
    """
    recorder = get_recorder()
    if not recorder.settings.enabled:
        return None
    try:
        spec = StepSpec(
            to, from_, kind, parent, dict(config or {}), attributes, True, None, render_value,
            operation=operation, provider=provider,
        )  # fmt: skip
    except Exception as exc:  # noqa: BLE001 - the framework must run as if unrecorded
        recorder.capture_failed(exc)
        return None
    if within is None:
        return open_in_run(spec, parent, fan_in=fan_in)
    token = otel_context.attach(trace.set_span_in_context(within.span))
    try:
        return open_in_run(spec, parent, run=within.run_state, fan_in=fan_in)
    finally:
        otel_context.detach(token)


def set_input(handle: Handle | None, value: Any, content_type: str | None = None) -> None:
    """Set the input: raw ``bytes`` with ``content_type`` as they are, anything else rendered."""
    if handle is not None:
        handle.guarded(lambda: handle.set_input(_rendered(value, content_type)))


def set_output(handle: Handle | None, value: Any, content_type: str | None = None) -> None:
    """Set the output, like :func:`set_input`."""
    if handle is not None:
        handle.guarded(lambda: handle.set_output(_rendered(value, content_type)))


def finish(handle: Handle | None, error: Exception | None = None) -> None:
    """End the handoff (``status=error`` with ``error``) and hand it to the writer."""
    if handle is None:
        return
    if error is not None:
        handle.fail(error)
    handle.guarded(handle.finish)


def _rendered(value: Any, content_type: str | None) -> Rendered:
    if isinstance(value, bytes) and content_type:
        return value, content_type
    return render_value(value)
