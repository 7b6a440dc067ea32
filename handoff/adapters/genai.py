"""Foreign GenAI spans as handoffs: a ``SpanProcessor`` for instrumentations you already run.

    from opentelemetry import trace
    from handoff.adapters.genai import GenAISpanProcessor

    trace.get_tracer_provider().add_span_processor(GenAISpanProcessor())

Every ended span that carries model content becomes a handoff record submitted to the
recorder (the writer then scrubs the content into the store and the digests into Parquet).
The span keeps its own trace and span id; no new span is made. Content is read from:

- the GenAI semantic conventions: ``gen_ai.input.messages`` / ``gen_ai.output.messages``
  attributes (the official OpenAI instrumentation, recent OpenLLMetry), or the same on a
  ``gen_ai.client.inference.operation.details`` span event, or the older
  ``gen_ai.content.prompt`` / ``gen_ai.content.completion`` events;
- OpenLLMetry's indexed attributes ``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*``;
- OpenInference's ``input.value`` / ``output.value``.

Runs and parents come from the handoff context active when the span started (a foreign span
inside ``@handoff.step`` gets that step as parent); a span outside any run gets a run of its own.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor
from opentelemetry.trace import StatusCode

from handoff.adapters._foreign import ForeignCall, begin_run, build_record, end_run
from handoff.capture.context import current_run
from handoff.capture.handle import current_handle
from handoff.capture.recorder import get_recorder
from handoff.capture.render import JSON, TEXT, canonical_json

Content = tuple[tuple[bytes, str], "tuple[bytes, str] | None"]

_INDEXED = re.compile(r"^gen_ai\.(prompt|completion)\.(\d+)\.(.+)$")
_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_OWN_SCOPE = "handoff"


def _utf8(value: Any, content_type: str) -> tuple[bytes, str]:
    return str(value).encode("utf-8"), content_type


def _semconv(attributes: Mapping[str, Any]) -> Content | None:
    messages = attributes.get("gen_ai.input.messages")
    if messages is None:
        return None
    system = attributes.get("gen_ai.system_instructions")
    if system is not None:
        # Both strings kept byte for byte inside one JSON object, so nothing the model saw is lost.
        messages = f'{{"system_instructions":{system},"input_messages":{messages}}}'
    output = attributes.get("gen_ai.output.messages")
    return _utf8(messages, JSON), (_utf8(output, JSON) if output is not None else None)


def _events(span: ReadableSpan) -> Content | None:
    by_name = {event.name: event.attributes or {} for event in span.events}
    if _DETAILS_EVENT in by_name:
        return _semconv(by_name[_DETAILS_EVENT])
    prompt = by_name.get("gen_ai.content.prompt", {}).get("gen_ai.prompt")
    if prompt is None:
        return None
    completion = by_name.get("gen_ai.content.completion", {}).get("gen_ai.completion")
    return _utf8(prompt, JSON), (_utf8(completion, JSON) if completion is not None else None)


def _indexed(attributes: Mapping[str, Any]) -> Content | None:
    sides: dict[str, dict[int, dict[str, Any]]] = {"prompt": {}, "completion": {}}
    for key, value in attributes.items():
        found = _INDEXED.match(key)
        if found:
            side, index, field = found.groups()
            sides[side].setdefault(int(index), {})[field] = value
    if not sides["prompt"]:
        return None
    prompt = [sides["prompt"][i] for i in sorted(sides["prompt"])]
    completion = [sides["completion"][i] for i in sorted(sides["completion"])]
    return (canonical_json(prompt), JSON), ((canonical_json(completion), JSON) if completion else None)


def _openinference(attributes: Mapping[str, Any]) -> Content | None:
    value = attributes.get("input.value")
    if value is None:
        return None
    in_type = JSON if attributes.get("input.mime_type") == "application/json" else TEXT
    out_type = JSON if attributes.get("output.mime_type") == "application/json" else TEXT
    output = attributes.get("output.value")
    return _utf8(value, in_type), (_utf8(output, out_type) if output is not None else None)


def span_content(span: ReadableSpan) -> Content | None:
    """Return ``((input, content_type), (output, content_type) | None)`` of a GenAI span, or ``None``."""
    attributes = span.attributes or {}
    return _semconv(attributes) or _events(span) or _indexed(attributes) or _openinference(attributes)


def _first(attributes: Mapping[str, Any], *names: str) -> Any:
    return next((attributes[name] for name in names if attributes.get(name) is not None), None)


def default_step_name(span: ReadableSpan) -> str:
    """``<provider>.<operation>`` (``openai.chat``) from GenAI attributes, else the span name."""
    attributes = span.attributes or {}
    provider = _first(attributes, "gen_ai.provider.name", "gen_ai.system", "llm.system")
    operation = attributes.get("gen_ai.operation.name")
    if provider and operation:
        return f"{provider}.{operation}"
    return f"{provider}.{span.name}" if provider and not span.name.startswith(str(provider)) else span.name


def _tokens(attributes: Mapping[str, Any]) -> tuple[int | None, int | None]:
    spent_in = _first(attributes, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt")
    spent_out = _first(
        attributes, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "llm.token_count.completion"
    )
    return (None if spent_in is None else int(spent_in)), (None if spent_out is None else int(spent_out))


def _kind(attributes: Mapping[str, Any]) -> str:
    tool = (
        attributes.get("openinference.span.kind") == "TOOL" or attributes.get("gen_ai.operation.name") == "execute_tool"
    )
    return "tool" if tool else "agent"


class GenAISpanProcessor(SpanProcessor):
    """Turns ended GenAI spans that carry content into handoff records.

    ``to`` names the consumer step of a span (default :func:`default_step_name`). ``on_start``
    and ``on_end`` run on the caller's thread: they read attributes, hash the content and
    queue a record, and never raise or wait on I/O.
    """

    def __init__(self, to: Callable[[ReadableSpan], str] | None = None) -> None:
        self._to = to or default_step_name
        self._origins: dict[int, tuple[Any, Any]] = {}
        self._lock = threading.Lock()

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        """Remember which run and handoff were active when ``span`` started."""
        scope = getattr(span, "instrumentation_scope", None)
        if scope is not None and scope.name == _OWN_SCOPE:
            return
        with self._lock:
            self._origins[span.context.span_id] = (current_run.get(), current_handle.get())

    def on_end(self, span: ReadableSpan) -> None:
        """Record ``span`` as a handoff if it carries GenAI content."""
        with self._lock:
            origin = self._origins.pop(span.context.span_id, None)
        if origin is None:
            return
        recorder = get_recorder()
        try:
            self._record(recorder, span, *origin)
        except Exception as exc:  # noqa: BLE001 - a span we cannot read must not disturb the app
            recorder.capture_failed(exc)

    def _record(self, recorder: Any, span: ReadableSpan, run: Any, enclosing: Any) -> None:
        content = span_content(span)
        if content is None or not recorder.settings.enabled:
            return
        call = self._call(span, content)
        owns = run is None
        if owns:
            run = begin_run(recorder, call.to)
        recorder.submit(build_record(recorder, run, call, enclosing))
        if owns:
            end_run(recorder, run, "error" if call.status == "error" else "ok")

    def _call(self, span: ReadableSpan, content: Content) -> ForeignCall:
        attributes = span.attributes or {}
        spent_in, spent_out = _tokens(attributes)
        failed = span.status.status_code is StatusCode.ERROR
        return ForeignCall(
            to=self._to(span),
            input=content[0],
            output=content[1],
            kind=_kind(attributes),
            model=_first(attributes, "gen_ai.request.model", "gen_ai.response.model", "llm.model_name"),
            input_tokens=spent_in,
            output_tokens=spent_out,
            start_ns=span.start_time or 0,
            end_ns=span.end_time or 0,
            status="error" if failed else "ok",
            error_type=str(attributes.get("error.type") or "SpanError") if failed else None,
            error_message=span.status.description if failed else None,
            trace_id=format(span.context.trace_id, "032x"),
            span_id=format(span.context.span_id, "016x"),
            attributes={"otel.scope": span.instrumentation_scope.name if span.instrumentation_scope else ""},
        )

    def shutdown(self) -> None:
        """Forget spans still open."""
        with self._lock:
            self._origins.clear()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Nothing is buffered here: records go straight to the handoff writer."""
        return True
