"""Handoff records for calls observed after the fact (foreign spans, framework traces).

Some integrations only learn about a call once it is over: a span from another
instrumentation ends, an Agents SDK span ends. There is no handle to open; this module builds
the :class:`~handoff.record.Handoff` directly, with the same parent, ``from`` and attempt
inference the capture API uses, and keeps the foreign span's trace and span id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from handoff.runs import end_run as _end_run
from handoff.runs import start_run as _start_run
from handoff.context import RunState
from handoff.model import Handoff
from handoff.recorder import Recorder
from handoff.render import Rendered


@dataclass
class ForeignCall:
    """What an integration observed about one finished call."""

    to: str
    input: Rendered
    output: Rendered | None = None
    from_: str | None = None
    kind: str = "agent"
    parent: str | None = None
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    start_ns: int = 0
    end_ns: int = 0
    status: str = "ok"
    error_type: str | None = None
    error_message: str | None = None
    trace_id: str | None = None
    span_id: str | None = None
    attributes: dict[str, str] = field(default_factory=dict)


def _parent(call: ForeignCall, run: RunState, enclosing: Any, data: bytes, sha: str) -> tuple[str | None, list[str]]:
    if call.parent is not None:
        return call.parent, []
    matches = run.match_outputs(data, sha, after_seq=enclosing.seq if enclosing is not None else 0)
    if matches:
        return matches[0], matches[1:]
    if enclosing is not None:
        return enclosing.handoff_id, []
    return getattr(run, "remote_parent", None), []


def _from(call: ForeignCall, run: RunState, enclosing: Any, parent: str | None) -> str:
    if call.from_:
        return call.from_
    named = run.step_of(parent) if parent else None
    return named or (enclosing._spec.to if enclosing is not None else run.name)


def build_record(recorder: Recorder, run: RunState, call: ForeignCall, enclosing: Any = None) -> Handoff:
    """Return the handoff record for ``call`` in ``run``; ``enclosing`` is the handle active when it began."""
    seq, hid = run.next_id()
    run.register(hid, call.to)
    data, content_type = call.input
    sha = recorder.digest(data)
    parent, fan_in = _parent(call, run, enclosing, data, sha)
    attempt, retry_of = run.attempt_for((call.to, parent, sha), hid)
    output, output_type = call.output if call.output is not None else (None, None)
    output_sha = recorder.digest(output) if output is not None else None
    if output is not None and call.status != "error":
        run.add_output(seq, hid, call.to, output, output_sha or "")
    return Handoff(
        run_id=run.run_id, handoff_id=hid, seq=seq, to_step=call.to, from_step=_from(call, run, enclosing, parent),
        kind=call.kind, parent_handoff_id=parent, fan_in=fan_in, ts_ns=call.start_ns,
        duration_ms=max(0, call.end_ns - call.start_ns) / 1e6, status=call.status,
        error_type=call.error_type, error_message=call.error_message, input=data, output=output,
        input_content_type=content_type, output_content_type=output_type, input_sha256=sha,
        output_sha256=output_sha, digest_alg=recorder.digest_alg, input_tokens=call.input_tokens,
        output_tokens=call.output_tokens, model=call.model, config={"model": call.model} if call.model else {},
        attempt=attempt, retry_of=retry_of, trace_id=call.trace_id, span_id=call.span_id,
        attributes=dict(call.attributes),
    )


def begin_run(recorder: Recorder, name: str) -> RunState:
    """Open a run of its own for calls observed outside any run."""
    return _start_run(recorder, name, {}, None)


def end_run(recorder: Recorder, run: RunState, status: str = "ok") -> None:
    """Close a run opened with :func:`begin_run`."""
    _end_run(recorder, run, status)
