"""OpenAI Agents SDK adapter: a tracing processor that records agents, handoffs and tool calls.

    import agents
    from handoff.adapters.openai_agents import HandoffTracingProcessor

    agents.add_trace_processor(HandoffTracingProcessor())

Every model call an agent makes is a handoff *to that agent* (input: the exact messages sent
to the model, output: what it returned, usage from the SDK); the first call after an
agent-to-agent handoff comes ``from`` the agent that handed off, later ones from the step
whose output they consume. Every function tool call is a ``kind=tool`` handoff from the
calling agent to the tool, its input the arguments JSON the model produced. Parents follow
the conversation: a model call's parent is the record just before it in the trace, a tool
call's parent is the model call that asked for it. A trace started inside ``handoff.run``
joins that run; otherwise each trace is a run of its own, named after the workflow.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

from agents.tracing import TracingProcessor
from agents.tracing.span_data import (
    AgentSpanData,
    FunctionSpanData,
    GenerationSpanData,
    HandoffSpanData,
    ResponseSpanData,
)

from handoff.adapters._foreign import ForeignCall, begin_run, build_record, end_run
from handoff.capture.context import current_run
from handoff.capture.handle import current_handle
from handoff.capture.recorder import get_recorder
from handoff.capture.render import render_value

__all__ = ["HandoffTracingProcessor"]


def _ns(stamp: str | None) -> int:
    return int(datetime.fromisoformat(stamp).timestamp() * 1_000_000) * 1000 if stamp else 0


def _dump(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else value


class _Trace:
    """What the processor knows about one Agents SDK trace."""

    def __init__(self, run: Any, owns: bool, enclosing: Any, name: str) -> None:
        self.run, self.owns, self.enclosing, self.name = run, owns, enclosing, name
        self.parents: dict[str, str | None] = {}
        self.agents: dict[str, str] = {}
        self.handed_from: dict[str, str] = {}
        self.last: str | None = None
        self.last_call_of: dict[str, str] = {}
        self.failed = False

    def agent_of(self, span_id: str | None) -> str | None:
        while span_id is not None:
            if span_id in self.agents:
                return self.agents[span_id]
            span_id = self.parents.get(span_id)
        return None


class HandoffTracingProcessor(TracingProcessor):
    """Turns Agents SDK traces into handoff records; thread-safe, never raises into the SDK."""

    def __init__(self) -> None:
        self._traces: dict[str, _Trace] = {}
        self._lock = threading.Lock()

    def on_trace_start(self, trace: Any) -> None:
        """Join the handoff run active here, or open a run of its own for this trace."""
        recorder = get_recorder()
        try:
            run = current_run.get()
            owns = run is None
            if owns:
                run = begin_run(recorder, trace.name)
            with self._lock:
                self._traces[trace.trace_id] = _Trace(run, owns, current_handle.get(), trace.name)
        except Exception as exc:  # noqa: BLE001
            recorder.capture_failed(exc)

    def on_trace_end(self, trace: Any) -> None:
        """Close the run this trace opened, if it opened one."""
        with self._lock:
            state = self._traces.pop(trace.trace_id, None)
        if state is not None and state.owns:
            end_run(get_recorder(), state.run, "error" if state.failed else "ok")

    def on_span_start(self, span: Any) -> None:
        """Remember the span tree, and which span is which agent."""
        state = self._state(span)
        if state is None:
            return
        with self._lock:
            state.parents[span.span_id] = span.parent_id
            if isinstance(span.span_data, AgentSpanData):
                state.agents[span.span_id] = span.span_data.name

    def on_span_end(self, span: Any) -> None:
        """Record model calls and tool calls; note agent-to-agent handoffs."""
        state = self._state(span)
        if state is None:
            return
        recorder = get_recorder()
        try:
            call = self._call(state, span)
            if call is not None:
                self._submit(recorder, state, span, call)
        except Exception as exc:  # noqa: BLE001 - tracing must not disturb the agents
            recorder.capture_failed(exc)

    def _state(self, span: Any) -> _Trace | None:
        with self._lock:
            return self._traces.get(span.trace_id)

    def _call(self, state: _Trace, span: Any) -> ForeignCall | None:
        data = span.span_data
        with self._lock:
            agent = state.agent_of(span.parent_id) or state.name
            if isinstance(data, HandoffSpanData):
                if data.to_agent and data.from_agent:
                    state.handed_from[data.to_agent] = data.from_agent
                return None
            if isinstance(data, FunctionSpanData):
                return self._tool_call(state, agent, data)
            if isinstance(data, (GenerationSpanData, ResponseSpanData)):
                return self._model_call(state, agent, data)
        return None

    def _tool_call(self, state: _Trace, agent: str, data: FunctionSpanData) -> ForeignCall:
        output = data.output if isinstance(data.output, str) else _dump(data.output)
        return ForeignCall(
            to=data.name,
            from_=agent,
            kind="tool",
            parent=state.last_call_of.get(agent, state.last),
            input=render_value(data.input or ""),
            output=render_value(output) if data.output is not None else None,
        )

    def _model_call(self, state: _Trace, agent: str, data: Any) -> ForeignCall:
        if isinstance(data, GenerationSpanData):
            sent, answer, model, usage = data.input, data.output, data.model, data.usage or {}
        else:
            response = data.response
            sent, model = data.input, getattr(response, "model", None)
            answer = _dump(getattr(response, "output", None)) if response is not None else None
            usage = data.usage or _dump(getattr(response, "usage", None)) or {}
        return ForeignCall(
            to=agent,
            from_=state.handed_from.pop(agent, None),
            kind="agent",
            parent=state.last,
            input=render_value(_dump(sent) if sent is not None else []),
            output=render_value(answer) if answer is not None else None,
            model=model,
            input_tokens=usage.get("input_tokens", usage.get("prompt_tokens")),
            output_tokens=usage.get("output_tokens", usage.get("completion_tokens")),
        )

    def _submit(self, recorder: Any, state: _Trace, span: Any, call: ForeignCall) -> None:
        call.start_ns, call.end_ns = _ns(span.started_at), _ns(span.ended_at)
        call.attributes = {"agents.trace_id": span.trace_id, "agents.span_id": span.span_id}
        if span.error:
            call.status, call.error_type = "error", "AgentsSpanError"
            call.error_message = str(span.error.get("message", "")) if isinstance(span.error, dict) else str(span.error)
        with self._lock:
            record = build_record(recorder, state.run, call, state.enclosing)
            state.last = record.handoff_id
            state.failed = state.failed or call.status == "error"
            if call.kind == "agent":
                state.last_call_of[call.to] = record.handoff_id
        recorder.submit(record)

    def shutdown(self) -> None:
        """Forget open traces (their runs stay open; the recorder flushes what it has at exit)."""
        with self._lock:
            self._traces.clear()

    def force_flush(self) -> None:
        """Write everything recorded so far through the handoff writer."""
        get_recorder().flush()
