"""One handoff in progress: :class:`Handle`, the ``h`` in ``with handoff.record(...) as h``.

Runs on the application's thread: renders and hashes the payloads, infers parent and attempt
(:mod:`handoff.capture.lineage`), opens and ends the OpenTelemetry span, and builds the record
for the background writer.

A handle has two faces. What the application calls (``input``, ``output``, ``usage``,
``config``, ``fallback``) never raises. What drives it (the *lifecycle*: ``set_input``,
``start_span``, ``activate``, ``set_output``, ``fail``, ``finish``) is called by the capture API
and the adapters, in that order, each call wrapped in :meth:`Handle.guarded` so that a failure
inside the recorder is counted and never reaches the application.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace

from handoff.capture.context import RunState, current_run
from handoff.capture.lineage import infer_lineage
from handoff.capture.recorder import Recorder, get_recorder
from handoff.capture.render import TEXT, Rendered, render_value
from handoff.capture.runs import end_run, start_run
from handoff.capture.spec import StepSpec, config_strings
from handoff.diagnostics import warn_once
from handoff.exporters.spans import span_ids
from handoff.model import VERDICTS, Event, Handoff, describe_error, describe_value

#: The handoff active in this thread or task (``handoff.current()``).
current_handle: contextvars.ContextVar[Handle | None] = contextvars.ContextVar("handoff_handle", default=None)


def current() -> Handle | None:
    """Return the handoff active in this thread or task, or ``None``."""
    return current_handle.get()


def open_handle(
    spec: StepSpec,
    parent: Any = None,
    *,
    run: RunState | None = None,
    start_span: bool = True,
    fan_in: list[str] | None = None,
) -> Handle | None:
    """Open a handoff in ``run`` (default: the current run, else an implicit run of its own).

    ``None`` when recording is off or opening failed (counted, never raised). Nothing is made
    current: the caller activates the handle if the handoff runs in its context.
    """
    recorder = get_recorder()
    if not recorder.settings.enabled:
        return None
    try:
        state = run or current_run.get()
        owns = state is None
        if owns:
            state = start_run(recorder, spec.to, {}, None)
        return Handle(recorder, spec, state, owns, parent, start_span=start_span, fan_in=fan_in)
    except Exception as exc:  # noqa: BLE001 - the app must run as if unrecorded
        recorder.capture_failed(exc)
        return None


class Handle:
    """One handoff in progress: the ``h`` in ``with handoff.record(...) as h``.

    Its application methods never raise; misuse logs a warning and is ignored.
    """

    __slots__ = (
        "_recorder", "_spec", "_run", "_owns_run", "_explicit_parent", "_explicit_fan_in", "_enclosing", "seq",
        "handoff_id", "ts_ns", "_t0", "_config", "_input", "_input_type", "_input_sha", "_output", "_output_type",
        "_output_sha", "_input_tokens", "_output_tokens", "_parent_id", "_fan_in", "_from", "_attempt",
        "_retry_of", "status", "_error", "_finished", "_tokens", "_span", "_span_name", "_verdict", "_verdict_reason",
        "_input_failed", "_capture_errors", "_input_on_span", "_config_strings",
    )  # fmt: skip

    def __init__(
        self,
        recorder: Recorder,
        spec: StepSpec,
        run: RunState,
        owns_run: bool,
        parent: Any,
        *,
        start_span: bool = True,
        fan_in: list[str] | None = None,
    ) -> None:
        self._recorder = recorder
        self._spec = spec
        self._run = run
        self._owns_run = owns_run
        self._explicit_parent = parent if parent is not None else spec.parent
        self._explicit_fan_in = fan_in
        self._enclosing = current_handle.get() if current_run.get() is run else None
        self.seq, self.handoff_id = run.next_id()
        run.register(self.handoff_id, spec.to)
        self.ts_ns = time.time_ns()
        self._t0 = time.perf_counter_ns()
        self._config = dict(spec.config)
        self._config_strings: tuple | None = spec.config_strings  # None once h.config() added some
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
        self._input_on_span = False
        self._verdict: str | None = None
        self._verdict_reason: str | None = None
        self._input_failed = False
        self._capture_errors: list[str] = []
        if start_span:
            # Decorators pass False and start the span once the input is known (fewer attribute passes).
            self.start_span()

    @property
    def run_id(self) -> str:
        """The id of the run this handoff belongs to."""
        return self._run.run_id

    @property
    def to(self) -> str:
        """The consumer step this handoff delivers to."""
        return self._spec.to

    @property
    def run_state(self) -> RunState:
        """The run this handoff belongs to, as this process tracks it (adapters open children in it)."""
        return self._run

    @property
    def span(self) -> Any:
        """This handoff's OpenTelemetry span (``None`` until :meth:`start_span`)."""
        return self._span

    # -- what the application reports -----------------------------------------------------

    def input(self, value: Any) -> None:
        """Set what the consumer received (str, bytes, or a JSON-able value)."""
        self.guarded(self.render_input, render_value, value)

    def output(self, value: Any) -> None:
        """Set what the consumer returned."""
        self.guarded(self.render_output, self._spec.render_output, value)

    def usage(self, input_tokens: int | None = None, output_tokens: int | None = None) -> None:
        """Record token usage reported by the model (otherwise it is estimated and flagged).

        A value that is not an integer is left out and noted in the record's ``capture_error``.
        """
        self.guarded(lambda: self._set_usage(input_tokens, output_tokens))

    def config(self, **values: Any) -> None:
        """Add config (``model``, ``effort``, ``prompt_pack``, ``template`` or anything else)."""
        self.guarded(self._add_config, values)

    def _add_config(self, values: dict[str, Any]) -> None:
        self._config.update(values)
        self._config_strings = None

    def fallback(self, name: str, error: BaseException | None = None, **attributes: Any) -> None:
        """Record a named fallback on this handoff and mark it ``status=fallback``."""
        if self.status == "ok":
            self.status = "fallback"
        self.guarded(lambda: self._fallback_event(name, error))
        self.guarded(
            lambda: self._recorder.submit(Event.fallback(self._run.run_id, name, error, attributes, self.handoff_id))
        )

    def _fallback_event(self, name: Any, error: BaseException | None) -> None:
        if self._span is None or self._finished:
            return
        event = {"handoff.fallback.name": describe_value(name)}
        if error is not None:
            event["error.type"] = type(error).__name__
        self._span.add_event("handoff.fallback", event)

    def verdict(self, verdict: str, reason: str | None = None) -> None:
        """Record this step's verdict (``pass``, ``fail`` or ``broken``) and an event; the latest call wins.

        ``broken`` (verification did not happen) makes the handoff ``status=broken`` unless it
        errored. An unknown verdict logs a warning once and is ignored.
        """
        self.guarded(lambda: self._set_verdict(verdict, reason))

    def _set_verdict(self, verdict: Any, reason: Any) -> None:
        if verdict not in VERDICTS:
            warn_once("handoff.verdict: unknown verdict ignored (use pass, fail or broken)")
            return
        self._verdict = verdict
        self._verdict_reason = None if reason is None else describe_value(reason)
        event = Event.verdict(self._run.run_id, self.handoff_id, verdict, self._verdict_reason, self._spec.to)
        self._recorder.submit(event)

    # -- lifecycle (the capture API and the adapters) -------------------------------------

    def guarded(self, action: Callable[..., None], *args: Any) -> None:
        """Run one lifecycle step, ``action(*args)``; a failure inside the recorder is counted, logged
        once and noted in the record's ``capture_error``, never raised."""
        try:
            action(*args)
        except Exception as exc:  # noqa: BLE001 - the app must run as if unrecorded
            self._capture_errors.append(describe_error(exc))
            self._recorder.capture_failed(exc)

    def render_input(self, render: Callable[..., Rendered], *args: Any) -> None:
        """Render the input with ``render(*args)`` and set it; if rendering fails the input stays null and the
        failure is noted, never raised."""
        try:
            rendered = render(*args)
        except Exception as exc:  # noqa: BLE001 - a value that cannot be rendered is recorded as such
            self._capture_errors.append(f"input not rendered: {describe_error(exc)}")
            self._recorder.capture_failed(exc)
            self.set_input(None)
            return
        self.set_input(rendered)

    def render_output(self, render: Callable[..., Rendered], *args: Any) -> None:
        """Render the output with ``render(*args)`` and set it; if rendering fails the output stays null and the
        failure is noted."""
        try:
            rendered = render(*args)
        except Exception as exc:  # noqa: BLE001
            self._capture_errors.append(f"output not rendered: {describe_error(exc)}")
            self._recorder.capture_failed(exc)
            return
        self.set_output(rendered)

    def set_input(self, rendered: Rendered | None) -> None:
        """Set the rendered input (``None``: it could not be rendered), hash it and infer parent, ``from`` and attempt.

        An input that could not be rendered has no digest, so it matches no parent by content and
        is never counted as a retry of another.
        """
        data, content_type = rendered if rendered is not None else (None, None)
        self._input, self._input_type, self._input_failed = data, content_type, rendered is None
        self._input_sha = self._recorder.digest(data) if data is not None else None
        lineage = infer_lineage(
            self._run, self.handoff_id, self._spec.to, data or b"", self._input_sha, parent=self._explicit_parent,
            fan_in=self._explicit_fan_in, from_=self._from, enclosing=self._enclosing,
        )  # fmt: skip
        self._parent_id, self._fan_in, self._from = lineage.parent_id, lineage.fan_in, lineage.from_step
        self._attempt, self._retry_of = lineage.attempt, lineage.retry_of

    def set_output(self, rendered: Rendered) -> None:
        """Set the rendered output and hash it."""
        self._output, self._output_type = rendered
        self._output_sha = self._recorder.digest(self._output)

    def start_span(self) -> None:
        """Open the span, with everything known about the input already on it (one validation pass)."""
        run, spec = self._run, self._spec
        self._span_name = f"handoff {self._from or '?'} -> {spec.to}"
        attributes = {"handoff.run_id": run.run_id, "handoff.id": self.handoff_id, **spec.span_attributes}
        links = None
        if self._input_sha is not None:
            attributes.update(self._input_attributes())
            links = self._parent_links()
            self._input_on_span = True
        span = self._recorder.spans.start(self._span_name, attributes, self.ts_ns, spec.span_kind, links)
        self._span = span
        run.remember_span(self.handoff_id, span.get_span_context())

    def activate(self) -> None:
        """Make this handoff current (contextvars and OpenTelemetry context) until :meth:`deactivate`."""
        tokens = []
        if self._owns_run:
            tokens.append((current_run, current_run.set(self._run)))
        tokens.append((current_handle, current_handle.set(self)))
        if self._span is not None:
            tokens.append((None, otel_context.attach(trace.set_span_in_context(self._span))))
        self._tokens.append(tokens)

    def deactivate(self) -> None:
        """Undo the latest :meth:`activate` (a no-op when there is none)."""
        if not self._tokens:
            return
        for var, token in reversed(self._tokens.pop()):
            if var is None:
                otel_context.detach(token)
            else:
                var.reset(token)

    def fail(self, exc: Exception) -> None:
        """Mark this handoff ``status=error`` with ``exc`` (the caller re-raises it unchanged)."""
        self.status = "error"
        self._error = exc

    def finish(self) -> None:
        """End the span and hand the record to the writer; only the first call counts."""
        if self._finished:
            return
        self._finished = True
        self.deactivate()
        if self._input is None and not self._input_failed:
            self.set_input((b"", TEXT))
        duration_ms = (time.perf_counter_ns() - self._t0) / 1e6
        if self._verdict == "broken" and self.status in ("ok", "fallback"):
            self.status = "broken"
        if self._output is not None and self.status != "error":
            self._run.add_output(self.seq, self.handoff_id, self._spec.to, self._output, self._output_sha or "")
        self._end_span()
        self._recorder.submit(self._record(duration_ms))
        if self._owns_run:
            end_run(self._recorder, self._run, "error" if self.status == "error" else "ok")

    # -- internals -----------------------------------------------------------------------

    def _set_usage(self, input_tokens: Any, output_tokens: Any) -> None:
        bad = []
        for name, value in (("input_tokens", input_tokens), ("output_tokens", output_tokens)):
            if value is None:
                continue
            try:
                tokens = value if type(value) is int else int(value)
            except (TypeError, ValueError, OverflowError):
                bad.append(f"{name}={value!r:.80}")
                continue
            setattr(self, f"_{name}", tokens)
        if bad:
            raise ValueError(f"usage() takes integers: {', '.join(bad)} left out")

    def _input_attributes(self) -> dict[str, Any]:
        attributes = {
            "handoff.from": self._from or "",
            "handoff.attempt": self._attempt,
            "handoff.input.sha256": self._input_sha or "",
        }
        if self._parent_id:
            attributes["handoff.parent_id"] = self._parent_id
        if self._retry_of:
            attributes["handoff.retry_of"] = self._retry_of
        return attributes

    def _parent_links(self) -> list | None:
        """Links to the spans of the handoffs this one consumes (the parent, then any fan-in)."""
        if not self._parent_id and not self._fan_in:
            return None
        run = self._run
        parents = [self._parent_id] if self._parent_id else []
        parents += [hid for hid in self._fan_in if hid != self._parent_id]
        contexts = [run.span_of(hid) for hid in parents]
        # No link attributes: the linked span carries handoff.id, and attributes double a link's cost.
        links = [trace.Link(ctx) for ctx in contexts if ctx is not None]
        return links or None

    def _end_span(self) -> None:
        span = self._span
        if span is None:
            return
        attributes: dict[str, Any] = {"handoff.status": self.status}
        if self._verdict is not None:
            attributes["handoff.verdict"] = self._verdict
        if not self._input_on_span:
            # The input arrived after the span started (handoff.record, adapters): name, input and links now.
            name = f"handoff {self._from or '?'} -> {self._spec.to}"
            if name != self._span_name:
                span.update_name(name)
            attributes.update(self._input_attributes())
            for link in self._parent_links() or ():
                span.add_link(link.context, link.attributes)
        if self._config_strings is None:
            model = self._config.get("model")
            if model is not None and model != self._spec.config.get("model"):
                attributes["gen_ai.request.model"] = describe_value(model)  # given with h.config() after the start
        if self._output is not None:
            attributes["handoff.output.sha256"] = self._output_sha or ""
        if self._input_tokens is not None:
            attributes["gen_ai.usage.input_tokens"] = self._input_tokens
        if self._output_tokens is not None:
            attributes["gen_ai.usage.output_tokens"] = self._output_tokens
        if self._error is not None:
            attributes["error.type"] = type(self._error).__name__
            self._exception_event(span, self._error)
            span.set_status(trace.Status(trace.StatusCode.ERROR, type(self._error).__name__))
        span.set_attributes(attributes)
        span.end()

    @staticmethod
    def _exception_event(span: Any, error: Exception) -> None:
        """Add the ``exception`` event; message and stack trace are scrubbed on export, like all app text."""
        try:
            span.record_exception(error, escaped=True)
        except Exception:  # noqa: BLE001 - a hostile __str__: the type and a placeholder message still go
            event = {
                "exception.type": type(error).__name__,
                "exception.message": describe_error(error, with_type=False),
            }
            span.add_event("exception", event)

    def _record(self, duration_ms: float) -> Handoff:
        trace_id, span_id = span_ids(self._span) if self._span is not None else (None, None)
        config, error, spec = self._config, self._error, self._spec
        model, effort, prompt_pack, template = self._config_strings or config_strings(config)
        # Positional, in Handoff's field order: 38 keyword arguments cost 1.5 µs more per call.
        return Handoff(
            self._run.run_id,  # run_id
            self.handoff_id,  # handoff_id
            self.seq,  # seq
            spec.to,  # to_step
            self._from,  # from_step
            spec.kind,  # kind
            self._parent_id,  # parent_handoff_id
            self._fan_in,  # fan_in
            self.ts_ns,  # ts_ns
            duration_ms,  # duration_ms
            self.status,  # status
            type(error).__name__ if error is not None else None,  # error_type
            describe_error(error, with_type=False) if error is not None else None,  # error_message
            self._input,  # input
            self._output,  # output
            self._input_type,  # input_content_type
            self._output_type,  # output_content_type
            self._input_sha,  # input_sha256
            self._output_sha,  # output_sha256
            self._recorder.digest_alg,  # digest_alg
            self._input_tokens,  # input_tokens
            self._output_tokens,  # output_tokens
            model,  # model
            effort,  # effort
            prompt_pack,  # prompt_pack
            template,  # template
            config,  # config
            self._attempt,  # attempt
            self._retry_of,  # retry_of
            trace_id,  # trace_id
            span_id,  # span_id
            dict(spec.attributes),  # attributes
            spec.scrub,  # scrub
            self._verdict,  # verdict
            self._verdict_reason,  # verdict_reason
            spec.allow_empty,  # allow_empty
            "; ".join(self._capture_errors) or None,  # capture_error
        )
