"""The capture API: ``run``, ``step``, ``record``, ``fallback`` and ``current``.

Everything here runs on the application's thread. It renders and hashes the payloads, infers
parent and attempt, opens an OpenTelemetry span and hands a record to the background writer.
It never waits on I/O and never raises into the application: a failure inside the recorder is
counted, logged once, and the decorated function runs and returns exactly as without it.
"""

from __future__ import annotations

import functools
import inspect
import time
from typing import Any, Callable, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import trace

from handoff.context import RunState, current_handle, current_run
from handoff.exporters.spans import span_ids
from handoff.ids import new_run_id
from handoff.record import KINDS, Event, Handoff, RunRecord
from handoff.recorder import Recorder, get_recorder
from handoff.render import Rendered, coerce_rendered, make_input_renderer, render_stream, render_value

F = TypeVar("F", bound=Callable[..., Any])


class StepSpec:
    """What ``@step``/``record`` were given, resolved once at decoration time."""

    __slots__ = ("to", "from_", "kind", "parent", "config", "attributes", "scrub", "render", "render_output")

    def __init__(
        self,
        to: str,
        from_: str | None,
        kind: str,
        parent: Any,
        config: dict[str, Any],
        attributes: dict[str, Any],
        scrub: bool,
        render: Callable[..., Rendered] | None,
        render_output: Callable[[Any], Rendered],
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if not to:
            raise ValueError("a step needs a consumer name: to=...")
        self.to = to
        self.from_ = from_
        self.kind = kind
        self.parent = parent
        self.config = config
        self.attributes = {str(k): str(v) for k, v in attributes.items()}
        self.scrub = scrub
        self.render = render
        self.render_output = render_output


def _output_renderer(render_output: Callable[[Any], Any] | None) -> Callable[[Any], Rendered]:
    if render_output is None:
        return render_value
    return lambda value: coerce_rendered(render_output(value))


def _split_config(model, effort, prompt_pack, template, config) -> dict[str, Any]:
    merged = dict(config or {})
    for name, value in (("model", model), ("effort", effort), ("prompt_pack", prompt_pack), ("template", template)):
        if value is not None:
            merged[name] = value
    return merged


class Handle:
    """One handoff in progress: the ``h`` in ``with handoff.record(...) as h``.

    Its methods never raise into the application; misuse logs a warning and is ignored.
    """

    __slots__ = (
        "_recorder", "_spec", "_run", "_owns_run", "_explicit_parent", "_enclosing", "seq", "handoff_id",
        "ts_ns", "_t0", "_config", "_input", "_input_type", "_input_sha", "_output", "_output_type",
        "_output_sha", "_input_tokens", "_output_tokens", "_parent_id", "_fan_in", "_from", "_attempt",
        "_retry_of", "status", "_error", "_finished", "_tokens", "_span", "_span_name",
    )

    def __init__(
        self, recorder: Recorder, spec: StepSpec, run: RunState, owns_run: bool, parent: Any, *, start_span: bool = True
    ) -> None:
        self._recorder = recorder
        self._spec = spec
        self._run = run
        self._owns_run = owns_run
        self._explicit_parent = parent if parent is not None else spec.parent
        self._enclosing = current_handle.get() if current_run.get() is run else None
        self.seq, self.handoff_id = run.next_id()
        run.register(self.handoff_id, spec.to)
        self.ts_ns = time.time_ns()
        self._t0 = time.perf_counter_ns()
        self._config = dict(spec.config)
        self._input: bytes | None = None
        self._input_type: str | None = None
        self._input_sha: str | None = None
        self._output: bytes | None = None
        self._output_type: str | None = None
        self._output_sha: str | None = None
        self._input_tokens: int | None = None
        self._output_tokens: int | None = None
        self._parent_id: str | None = None
        self._fan_in: list[str] = []
        self._from: str | None = spec.from_
        self._attempt = 1
        self._retry_of: str | None = None
        self.status = "ok"
        self._error: Exception | None = None
        self._finished = False
        self._tokens: list = []
        self._span: Any = None
        self._span_name = ""
        if start_span:
            # Decorators pass False and start the span once the input is known (fewer attribute passes).
            self._start_span()

    @property
    def run_id(self) -> str:
        """The id of the run this handoff belongs to."""
        return self._run.run_id

    # -- span ----------------------------------------------------------------------------

    def _start_span(self) -> None:
        """Open the span, with everything known about the input already on it (one validation pass)."""
        run, spec = self._run, self._spec
        self._span_name = f"handoff {self._from or '?'} -> {spec.to}"
        attributes = {
            "handoff.run_id": run.run_id,
            "handoff.id": self.handoff_id,
            "handoff.seq": self.seq,
            "handoff.to": spec.to,
            "handoff.kind": spec.kind,
        }
        if self._input_sha is not None:
            attributes.update(self._input_attributes())
        if "model" in self._config:
            attributes["gen_ai.request.model"] = str(self._config["model"])
        self._span = self._recorder.spans.start(self._span_name, attributes, self.ts_ns)

    def _input_attributes(self) -> dict[str, Any]:
        attributes = {
            "handoff.from": self._from or "",
            "handoff.attempt": self._attempt,
            "handoff.input.sha256": self._input_sha or "",
            "handoff.input.bytes": len(self._input or b""),
            "handoff.input.ref": span_ref(self._run.run_id, self.handoff_id, "in"),
        }
        if self._parent_id:
            attributes["handoff.parent_id"] = self._parent_id
        if self._retry_of:
            attributes["handoff.retry_of"] = self._retry_of
        return attributes

    # -- activation ----------------------------------------------------------------------

    def _activate(self) -> None:
        tokens = []
        if self._owns_run:
            tokens.append((current_run, current_run.set(self._run)))
        tokens.append((current_handle, current_handle.set(self)))
        if self._span is not None:
            tokens.append((None, otel_context.attach(trace.set_span_in_context(self._span))))
        self._tokens.append(tokens)

    def _deactivate(self) -> None:
        if not self._tokens:
            return
        for var, token in reversed(self._tokens.pop()):
            if var is None:
                otel_context.detach(token)
            else:
                var.reset(token)

    # -- what the app reports ------------------------------------------------------------

    def input(self, value: Any) -> None:
        """Set what the consumer received (str, bytes, or a JSON-able value)."""
        try:
            self._set_input(render_value(value))
        except Exception as exc:  # noqa: BLE001
            self._recorder.capture_failed(exc)

    def output(self, value: Any) -> None:
        """Set what the consumer returned."""
        try:
            self._set_output(self._spec.render_output(value))
        except Exception as exc:  # noqa: BLE001
            self._recorder.capture_failed(exc)

    def usage(self, input_tokens: int | None = None, output_tokens: int | None = None) -> None:
        """Record token usage reported by the model (otherwise it is estimated and flagged)."""
        if input_tokens is not None:
            self._input_tokens = int(input_tokens)
        if output_tokens is not None:
            self._output_tokens = int(output_tokens)

    def config(self, **values: Any) -> None:
        """Add config (``model``, ``effort``, ``prompt_pack``, ``template`` or anything else)."""
        self._config.update(values)

    def fallback(self, name: str, error: BaseException | None = None, **attributes: Any) -> None:
        """Record a named fallback on this handoff and mark it ``status=fallback``."""
        self.status = "fallback"
        self._recorder.submit(
            Event(
                run_id=self._run.run_id,
                handoff_id=self.handoff_id,
                name=name,
                ts_ns=time.time_ns(),
                error_type=type(error).__name__ if error is not None else None,
                error_message=str(error) if error is not None else None,
                attributes={str(k): str(v) for k, v in attributes.items()},
            )
        )

    # -- internals -----------------------------------------------------------------------

    def _set_input(self, rendered: Rendered) -> None:
        data, content_type = rendered
        run = self._run
        self._input, self._input_type = data, content_type
        self._input_sha = self._recorder.digest(data)
        self._parent_id, self._fan_in = self._infer_parent(data, self._input_sha)
        if self._from is None:
            self._from = run.step_of(self._parent_id) if self._parent_id else None
            if self._from is None:
                self._from = self._enclosing._spec.to if self._enclosing is not None else run.name
        key = (self._spec.to, self._parent_id, self._input_sha)
        self._attempt, self._retry_of = run.attempt_for(key, self.handoff_id)

    def _infer_parent(self, data: bytes, sha: str) -> tuple[str | None, list[str]]:
        explicit = self._explicit_parent
        if explicit is not None:
            if isinstance(explicit, Handle):
                return explicit.handoff_id, []
            return self._run.latest_for_step(str(explicit)) or str(explicit), []
        floor = self._enclosing.seq if self._enclosing is not None else 0
        matches = self._run.match_outputs(data, sha, after_seq=floor)
        if matches:
            return matches[0], matches[1:]
        if self._enclosing is not None:
            return self._enclosing.handoff_id, []
        # A run joined from another process (handoff.extract) names the remote caller.
        return self._run.remote_parent, []

    def _set_output(self, rendered: Rendered) -> None:
        self._output, self._output_type = rendered
        self._output_sha = self._recorder.digest(self._output)

    def _fail(self, exc: Exception) -> None:
        self.status = "error"
        self._error = exc

    def _finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        self._deactivate()
        if self._input is None:
            self._set_input((b"", "text/plain; charset=utf-8"))
        duration_ms = (time.perf_counter_ns() - self._t0) / 1e6
        if self._output is not None and self.status != "error":
            self._run.add_output(self.seq, self.handoff_id, self._spec.to, self._output, self._output_sha or "")
        self._end_span()
        self._recorder.submit(self._record(duration_ms))
        if self._owns_run:
            _end_run(self._recorder, self._run, "error" if self.status == "error" else "ok")

    def _end_span(self) -> None:
        span = self._span
        if span is None:
            return
        name = f"handoff {self._from} -> {self._spec.to}"
        attributes: dict[str, Any] = {"handoff.status": self.status}
        if name != self._span_name:
            # The input arrived after the span started (handoff.record): name and input attributes now.
            span.update_name(name)
            attributes.update(self._input_attributes())
            if "model" in self._config:
                attributes["gen_ai.request.model"] = str(self._config["model"])
        if self._output is not None:
            attributes["handoff.output.sha256"] = self._output_sha or ""
            attributes["handoff.output.bytes"] = len(self._output)
            attributes["handoff.output.ref"] = span_ref(self._run.run_id, self.handoff_id, "out")
        if self._input_tokens is not None:
            attributes["gen_ai.usage.input_tokens"] = self._input_tokens
        if self._output_tokens is not None:
            attributes["gen_ai.usage.output_tokens"] = self._output_tokens
        span.set_attributes(attributes)
        if self._error is not None:
            span.set_status(trace.Status(trace.StatusCode.ERROR, type(self._error).__name__))
        span.end()

    def _record(self, duration_ms: float) -> Handoff:
        trace_id, span_id = span_ids(self._span) if self._span is not None else (None, None)
        config = self._config
        error = self._error
        return Handoff(
            run_id=self._run.run_id,
            handoff_id=self.handoff_id,
            seq=self.seq,
            to_step=self._spec.to,
            from_step=self._from,
            kind=self._spec.kind,
            parent_handoff_id=self._parent_id,
            fan_in=self._fan_in,
            ts_ns=self.ts_ns,
            duration_ms=duration_ms,
            status=self.status,
            error_type=type(error).__name__ if error is not None else None,
            error_message=str(error) if error is not None else None,
            input=self._input,
            output=self._output,
            input_content_type=self._input_type,
            output_content_type=self._output_type,
            input_sha256=self._input_sha,
            output_sha256=self._output_sha,
            digest_alg=self._recorder.digest_alg,
            input_tokens=self._input_tokens,
            output_tokens=self._output_tokens,
            model=_opt_str(config.get("model")),
            effort=_opt_str(config.get("effort")),
            prompt_pack=_opt_str(config.get("prompt_pack")),
            template=_opt_str(config.get("template")),
            config=config,
            attempt=self._attempt,
            retry_of=self._retry_of,
            trace_id=trace_id,
            span_id=span_id,
            attributes=dict(self._spec.attributes),
            scrub=self._spec.scrub,
        )


def span_ref(run_id: str, handoff_id: str, side: str) -> str:
    """Return the logical content ref put on spans: ``handoff://<run_id>/<handoff_id>/<in|out>``.

    The stored ref (file and row) is only known once the background writer has written the
    content; this one is stable from the start and resolves with ``handoff show RUN HANDOFF``.
    """
    return f"handoff://{run_id}/{handoff_id}/{side}"


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


# -- runs ------------------------------------------------------------------------------------


def _start_run(recorder: Recorder, name: str, attributes: dict[str, str], run_id: str | None) -> RunState:
    joined = run_id is not None
    state = RunState(run_id or new_run_id(), name, attributes, joined=joined, start_ns=time.time_ns())
    if not joined:
        recorder.submit(RunRecord(state.run_id, name, state.start_ns, attributes=attributes, recorded_ns=state.start_ns))
    return state


def _end_run(recorder: Recorder, state: RunState, status: str) -> None:
    if state.status != "ok" and status == "ok":
        status = state.status
    now = time.time_ns()
    recorder.submit(RunRecord(state.run_id, state.name, state.start_ns, now, status, state.attributes, recorded_ns=now))


def _open(spec: StepSpec, parent: Any = None, *, start_span: bool = True) -> Handle | None:
    """Open a handoff in the current run (or an implicit run of its own); ``None`` if recording failed."""
    recorder = get_recorder()
    if not recorder.settings.enabled:
        return None
    try:
        run = current_run.get()
        owns = run is None
        if owns:
            run = _start_run(recorder, spec.to, {}, None)
        return Handle(recorder, spec, run, owns, parent, start_span=start_span)
    except Exception as exc:  # noqa: BLE001 - the app must run as if unrecorded
        recorder.capture_failed(exc)
        return None


def _guard(handle: Handle, action: Callable[[], None]) -> None:
    try:
        action()
    except Exception as exc:  # noqa: BLE001
        handle._recorder.capture_failed(exc)


class run:  # noqa: N801 - used as ``with handoff.run(...)`` and ``@handoff.run(...)``
    """Open a run: one end-to-end pipeline execution with a time-ordered id.

    ``with handoff.run("invoice", invoice="INV-88214") as r:`` — ``r.run_id`` is ``run_<ULID>``.
    Give ``run_id=`` to join a run started elsewhere (another process or service). With
    ``flush=True`` the run's records are written before the block exits. As a decorator,
    ``@handoff.run("invoice")`` opens a new run per call.
    """

    def __init__(self, name: str | Callable[..., Any] | None = None, *, run_id: str | None = None, flush: bool = False, **attributes: Any) -> None:
        self._fn = name if callable(name) else None
        self.name = None if callable(name) else name
        self.attributes = {str(k): str(v) for k, v in attributes.items()}
        self._join_id = run_id
        self._flush = flush
        self._state: RunState | None = None
        self._tokens: list = []
        if self._fn is not None:
            functools.update_wrapper(self, self._fn)

    @property
    def run_id(self) -> str | None:
        """The run's id (set once the run has started)."""
        return self._state.run_id if self._state is not None else self._join_id

    def set_status(self, status: str) -> None:
        """Override the run's final status (e.g. ``"degraded"``)."""
        if self._state is not None:
            self._state.status = status

    def __enter__(self) -> "run":
        recorder = get_recorder()
        try:
            self._state = _start_run(recorder, self.name or "run", self.attributes, self._join_id)
            span = recorder.spans.start(f"handoff.run {self._state.name}", {"handoff.run_id": self._state.run_id}, self._state.start_ns)
            self._tokens.append((span, current_run.set(self._state), otel_context.attach(trace.set_span_in_context(span))))
        except Exception as exc:  # noqa: BLE001
            recorder.capture_failed(exc)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self._tokens:
            return
        recorder = get_recorder()
        span, run_token, otel_token = self._tokens.pop()
        try:
            otel_context.detach(otel_token)
            current_run.reset(run_token)
            span.end()
            if self._join_id is None:
                _end_run(recorder, self._state, "error" if exc_type is not None else "ok")
            if self._flush:
                recorder.writer.force_flush()
        except Exception as capture_exc:  # noqa: BLE001
            recorder.capture_failed(capture_exc)

    def _fresh(self) -> "run":
        return run(self.name or getattr(self._fn, "__qualname__", "run"), run_id=self._join_id, flush=self._flush, **self.attributes)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._fn is not None:
            with self._fresh():
                return self._fn(*args, **kwargs)
        fn = args[0]
        if self.name is None:
            self.name = fn.__qualname__
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def arun(*a: Any, **kw: Any) -> Any:
                with self._fresh():
                    return await fn(*a, **kw)

            return arun

        @functools.wraps(fn)
        def srun(*a: Any, **kw: Any) -> Any:
            with self._fresh():
                return fn(*a, **kw)

        return srun


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
    scrub: bool = True,
    config: dict[str, Any] | None = None,
    **attributes: Any,
) -> Callable[[F], F]:
    """Record every call of the decorated function as a handoff to ``to`` (default: its name).

    Works on functions, methods, coroutines, generators and async generators (a stream's
    output is what it yielded, recorded when it ends or is closed early). The input is the
    single argument (after ``self``), or ``{name: value}`` of all arguments, rendered as
    UTF-8 text, raw bytes or canonical JSON; ``render=`` receives the call's arguments and
    returns what the consumer really saw. ``scrub=False`` opts this step out of scrubbing.
    A call that raises is recorded as ``status=error`` and the exception re-raised unchanged.
    """

    def decorate(fn: F) -> F:
        spec = StepSpec(
            to or fn.__name__,
            from_,
            kind,
            parent,
            _split_config(model, effort, prompt_pack, template, config),
            attributes,
            scrub,
            make_input_renderer(fn, render),
            _output_renderer(render_output),
        )
        if inspect.isasyncgenfunction(fn):
            return _wrap_async_gen(fn, spec)  # type: ignore[return-value]
        if inspect.isgeneratorfunction(fn):
            return _wrap_gen(fn, spec)  # type: ignore[return-value]
        if inspect.iscoroutinefunction(fn):
            return _wrap_async(fn, spec)  # type: ignore[return-value]
        return _wrap_sync(fn, spec)  # type: ignore[return-value]

    if callable(to) and not isinstance(to, str):
        fn, to = to, None
        return decorate(fn)  # type: ignore[return-value]
    return decorate


def _begin(spec: StepSpec, args: tuple, kwargs: dict) -> Handle | None:
    handle = _open(spec, start_span=False)
    if handle is None:
        return None
    try:
        handle._set_input(spec.render(args, kwargs))
    except Exception as exc:  # noqa: BLE001 - a bad render= must not break the call
        handle._recorder.capture_failed(exc)
    try:
        handle._start_span()
        handle._activate()
    except Exception as exc:  # noqa: BLE001
        handle._recorder.capture_failed(exc)
    return handle


def _wrap_sync(fn: Callable[..., Any], spec: StepSpec) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        handle = _begin(spec, args, kwargs)
        if handle is None:
            return fn(*args, **kwargs)
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            handle._fail(exc)
            raise
        else:
            _guard(handle, lambda: handle._set_output(spec.render_output(result)))
            return result
        finally:
            _finish(handle)

    return wrapper


def _wrap_async(fn: Callable[..., Any], spec: StepSpec) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        handle = _begin(spec, args, kwargs)
        if handle is None:
            return await fn(*args, **kwargs)
        try:
            result = await fn(*args, **kwargs)
        except Exception as exc:
            handle._fail(exc)
            raise
        else:
            _guard(handle, lambda: handle._set_output(spec.render_output(result)))
            return result
        finally:
            _finish(handle)

    return wrapper


def _finish(handle: Handle) -> None:
    _guard(handle, handle._finish)


def _wrap_gen(fn: Callable[..., Any], spec: StepSpec) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        handle = _begin(spec, args, kwargs)
        if handle is None:
            yield from fn(*args, **kwargs)
            return
        _guard(handle, handle._deactivate)
        items: list[Any] = []
        gen = fn(*args, **kwargs)
        try:
            sent = None
            while True:
                _guard(handle, handle._activate)
                try:
                    item = gen.send(sent)
                except StopIteration as stop:
                    return stop.value
                finally:
                    _guard(handle, handle._deactivate)
                items.append(item)
                sent = yield item
        except GeneratorExit:
            gen.close()
            raise
        except Exception as exc:
            handle._fail(exc)
            raise
        finally:
            _guard(handle, lambda: handle._set_output(render_stream(items)))
            _finish(handle)

    return wrapper


def _wrap_async_gen(fn: Callable[..., Any], spec: StepSpec) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        handle = _begin(spec, args, kwargs)
        if handle is None:
            async for item in fn(*args, **kwargs):
                yield item
            return
        _guard(handle, handle._deactivate)
        items: list[Any] = []
        agen = fn(*args, **kwargs)
        try:
            sent = None
            while True:
                _guard(handle, handle._activate)
                try:
                    item = await agen.asend(sent)
                except StopAsyncIteration:
                    return
                finally:
                    _guard(handle, handle._deactivate)
                items.append(item)
                sent = yield item
        except GeneratorExit:
            await agen.aclose()
            raise
        except Exception as exc:
            handle._fail(exc)
            raise
        finally:
            _guard(handle, lambda: handle._set_output(render_stream(items)))
            _finish(handle)

    return wrapper


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
        config: dict[str, Any] | None = None,
        **attributes: Any,
    ) -> None:
        self._spec = StepSpec(
            to, from_, kind, parent, _split_config(model, effort, prompt_pack, template, config),
            attributes, scrub, None, render_value,
        )
        self._handle: Handle | None = None

    def __enter__(self) -> Handle | "_NullHandle":
        self._handle = _open(self._spec)
        if self._handle is None:
            return _NullHandle()
        _guard(self._handle, self._handle._activate)
        return self._handle

    def __exit__(self, exc_type, exc, tb) -> None:
        handle = self._handle
        if handle is None:
            return
        if isinstance(exc, Exception):
            handle._fail(exc)
        _finish(handle)


class _NullHandle:
    """Stands in for a handle when recording is off or failed: every method does nothing."""

    handoff_id = None
    run_id = None

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


def current() -> Handle | None:
    """Return the handoff active in this thread or task, or ``None``."""
    return current_handle.get()


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
        if state is None:
            return
        recorder.submit(
            Event(
                run_id=state.run_id,
                name=name,
                ts_ns=time.time_ns(),
                error_type=type(error).__name__ if error is not None else None,
                error_message=str(error) if error is not None else None,
                attributes={str(k): str(v) for k, v in attributes.items()},
            )
        )
    except Exception as exc:  # noqa: BLE001
        recorder.capture_failed(exc)
