"""One handoff in progress: what ``@step`` and ``record`` resolve once (:class:`StepSpec`) and per call (:class:`Handle`).

Runs on the application's thread: renders and hashes the payloads, infers parent and attempt,
opens and ends the OpenTelemetry span, and builds the record for the background writer.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from opentelemetry import context as otel_context
from opentelemetry import trace

from handoff.context import RunState, current_handle, current_run
from handoff.exporters.spans import span_ids
from handoff.model import KINDS, Event, Handoff
from handoff.recorder import Recorder
from handoff.render import Rendered, coerce_rendered, render_value
from handoff.runs import end_run

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
            end_run(self._recorder, self._run, "error" if self.status == "error" else "ok")

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

