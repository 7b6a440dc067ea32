"""The capture API: ``step``, ``record`` and ``fallback`` (``run`` lives in :mod:`handoff.capture.runs`).

Everything here runs on the application's thread. It renders and hashes the payloads, infers
parent and attempt, opens an OpenTelemetry span and hands a record to the background writer.
It never waits on I/O and never raises into the application: a failure inside the recorder is
counted, logged once, and the decorated function runs and returns exactly as without it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from handoff.capture.context import current_run
from handoff.capture.handle import Handle, current_handle, open_handle
from handoff.capture.recorder import get_recorder
from handoff.capture.render import make_input_renderer, make_output_renderer, render_stream, render_value
from handoff.capture.replayable import REPLAY_KEY, describe_replay
from handoff.capture.spec import StepSpec, merge_config
from handoff.diagnostics import warn_once
from handoff.model import Event

__all__ = ["fallback", "record", "step", "verdict"]

F = TypeVar("F", bound=Callable[..., Any])


# -- steps -----------------------------------------------------------------------------------


def step(
    to: str | None = None,
    *,
    from_: str | None = None,
    kind: str = "agent",
    model: str | None = None,
    effort: str | None = None,
    prompt_pack: str | None = None,
    template: str | None = None,
    parent: Any = None,
    render: Callable[..., Any] | None = None,
    render_output: Callable[[Any], Any] | None = None,
    replay: Callable[[Any], Any] | None = None,
    scrub: bool = True,
    allow_empty: bool = False,
    config: dict[str, Any] | None = None,
    **attributes: Any,
) -> Callable[[F], F]:
    """Record every call of the decorated function as a handoff to ``to`` (default: its name).

    Works on functions, methods, coroutines, generators and async generators (a stream's
    output is what it yielded, recorded when it ends or is closed early). The input is the
    single argument (after ``self``), or ``{name: value}`` of all arguments, rendered as
    UTF-8 text, raw bytes or canonical JSON; ``render=`` receives the call's arguments and
    returns what the consumer really saw, and ``replay=`` (a ``callable(stored_input) ->
    (args, kwargs)``) rebuilds the arguments from it for ``handoff replay``. ``scrub=False``
    opts this step out of scrubbing; ``allow_empty=True`` says an empty output is a normal answer
    here (no ``empty-output`` check). A call that raises is recorded as ``status=error`` and the
    exception re-raised unchanged. The function's import path and how its input maps to its
    arguments are recorded in the config, under ``"replay"``.
    """

    def decorate(fn: F) -> F:
        recorded = merge_config(model, effort, prompt_pack, template, config)
        recorded[REPLAY_KEY] = describe_replay(fn, render, replay)
        spec = StepSpec(
            to or fn.__name__,
            from_,
            kind,
            parent,
            recorded,
            attributes,
            scrub,
            make_input_renderer(fn, render),
            make_output_renderer(render_output),
            allow_empty,
            replay,
        )
        wrapper = _wrap(fn, spec)
        wrapper.__handoff_step__ = spec  # type: ignore[attr-defined] # what handoff replay calls it with
        return wrapper  # type: ignore[return-value]

    if callable(to) and not isinstance(to, str):
        fn, to = to, None
        return decorate(fn)  # type: ignore[return-value]
    return decorate


def _wrap(fn: Callable[..., Any], spec: StepSpec) -> Callable[..., Any]:
    if inspect.isasyncgenfunction(fn):
        return _wrap_async_gen(fn, spec)
    if inspect.isgeneratorfunction(fn):
        return _wrap_gen(fn, spec)
    if inspect.iscoroutinefunction(fn):
        return _wrap_async(fn, spec)
    return _wrap_sync(fn, spec)


def _begin(spec: StepSpec, args: tuple, kwargs: dict) -> Handle | None:
    handle = open_handle(spec, start_span=False)
    if handle is None:
        return None
    handle.guarded(handle.render_input, spec.render, args, kwargs)  # a bad render= must not break the call
    handle.guarded(_start_and_activate, handle)
    return handle


def _start_and_activate(handle: Handle) -> None:
    handle.start_span()
    handle.activate()


def _returned(handle: Handle, spec: StepSpec, result: Any) -> Any:
    handle.guarded(handle.render_output, spec.render_output, result)
    return result


def _wrap_sync(fn: Callable[..., Any], spec: StepSpec) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        handle = _begin(spec, args, kwargs)
        if handle is None:
            return fn(*args, **kwargs)
        try:
            return _returned(handle, spec, fn(*args, **kwargs))
        except Exception as exc:
            handle.fail(exc)
            raise
        finally:
            handle.guarded(handle.finish)

    return wrapper


def _wrap_async(fn: Callable[..., Any], spec: StepSpec) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        handle = _begin(spec, args, kwargs)
        if handle is None:
            return await fn(*args, **kwargs)
        try:
            return _returned(handle, spec, await fn(*args, **kwargs))
        except Exception as exc:
            handle.fail(exc)
            raise
        finally:
            handle.guarded(handle.finish)

    return wrapper


def _wrap_gen(fn: Callable[..., Any], spec: StepSpec) -> Callable[..., Any]:
    """Delegate to the generator as ``yield from`` does (send, throw, close, return value), with
    the handoff active only while the generator itself runs."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        handle = _begin(spec, args, kwargs)
        if handle is None:
            return (yield from fn(*args, **kwargs))
        handle.guarded(handle.deactivate)
        items: list[Any] = []
        try:
            gen = fn(*args, **kwargs)
            resume, value = gen.send, None
            while True:
                handle.guarded(handle.activate)
                try:
                    item = resume(value)
                except StopIteration as stop:
                    return stop.value
                finally:
                    handle.guarded(handle.deactivate)
                items.append(item)
                try:
                    value, resume = (yield item), gen.send
                except GeneratorExit:
                    gen.close()
                    raise
                except BaseException as thrown:  # noqa: BLE001 - gen.throw(): the generator gets it, as with yield from
                    resume, value = gen.throw, thrown
        except Exception as exc:
            handle.fail(exc)
            raise
        finally:
            _end_stream(handle, items)

    return wrapper


def _wrap_async_gen(fn: Callable[..., Any], spec: StepSpec) -> Callable[..., Any]:
    """The async twin of :func:`_wrap_gen`: ``asend``, ``athrow`` and ``aclose`` reach the generator."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        handle = _begin(spec, args, kwargs) or _NullHandle()  # unrecorded: the same delegation
        handle.guarded(handle.deactivate)
        items: list[Any] = []
        try:
            agen = fn(*args, **kwargs)
            resume, value = agen.asend, None
            while True:
                handle.guarded(handle.activate)
                try:
                    item = await resume(value)
                except StopAsyncIteration:
                    return
                finally:
                    handle.guarded(handle.deactivate)
                items.append(item)
                try:
                    value, resume = (yield item), agen.asend
                except GeneratorExit:
                    await agen.aclose()
                    raise
                except BaseException as thrown:  # noqa: BLE001 - athrow(): the generator gets it
                    resume, value = agen.athrow, thrown
        except Exception as exc:
            handle.fail(exc)
            raise
        finally:
            _end_stream(handle, items)

    return wrapper


def _end_stream(handle: Handle, items: list[Any]) -> None:
    """A stream's output is what it yielded, however it ended."""
    handle.guarded(handle.render_output, render_stream, items)
    handle.guarded(handle.finish)


class record:  # noqa: N801 - used as ``with handoff.record(...) as h``
    """Record a handoff for code that is not one function call.

    ``with handoff.record(to="price", from_="orchestrator.compress_v3") as h:`` then
    ``h.input(prompt)``, ``h.output(reply)``, ``h.usage(input_tokens=..., output_tokens=...)``,
    ``h.config(model=...)``. An exception leaving the block is recorded and propagates unchanged.
    """

    def __init__(
        self,
        to: str,
        *,
        from_: str | None = None,
        kind: str = "agent",
        model: str | None = None,
        effort: str | None = None,
        prompt_pack: str | None = None,
        template: str | None = None,
        parent: Any = None,
        scrub: bool = True,
        allow_empty: bool = False,
        config: dict[str, Any] | None = None,
        **attributes: Any,
    ) -> None:
        config = merge_config(model, effort, prompt_pack, template, config)
        self._spec = StepSpec(to, from_, kind, parent, config, attributes, scrub, None, render_value, allow_empty)
        self._handle: Handle | None = None

    def __enter__(self) -> Handle | _NullHandle:
        self._handle = open_handle(self._spec)
        if self._handle is None:
            return _NullHandle()
        self._handle.guarded(self._handle.activate)
        return self._handle

    def __exit__(self, exc_type, exc, tb) -> None:
        handle = self._handle
        if handle is None:
            return
        if isinstance(exc, Exception):
            handle.fail(exc)
        handle.guarded(handle.finish)


class _NullHandle:
    """Stands in for a handle when recording is off or failed: every method does nothing."""

    handoff_id = None
    run_id = None

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


def fallback(name: str, error: BaseException | None = None, **attributes: Any) -> None:
    """Record a named fallback (``handoff.fallback("rag-conv-empty", error=e)``); the code carries on.

    Inside a step it marks that handoff ``status=fallback``; outside one it records a run event.
    """
    recorder = get_recorder()
    try:
        handle = current_handle.get()
        if handle is not None:
            handle.fallback(name, error, **attributes)
            return
        state = current_run.get()
        if state is not None:
            recorder.submit(Event.fallback(state.run_id, name, error, attributes))
    except Exception as exc:  # noqa: BLE001
        recorder.capture_failed(exc)


def verdict(verdict: str, reason: str | None = None) -> None:
    """Record the current step's verdict: ``"pass"``, ``"fail"`` or ``"broken"`` (verification did not happen).

    Recorded on the handoff (``verdict``, ``verdict_reason``) and as an event (``kind="verdict"``);
    ``broken`` makes the handoff ``status=broken``. Natural in ``kind="verifier"`` steps, allowed in
    any. Outside a step, or with an unknown verdict, it logs a warning once and does nothing.
    """
    recorder = get_recorder()
    try:
        handle = current_handle.get()
        if handle is None:
            warn_once("handoff.verdict called outside a step: ignored")
            return
        handle.verdict(verdict, reason)
    except Exception as exc:  # noqa: BLE001
        recorder.capture_failed(exc)
