"""Handoff records for calls observed after the fact (foreign spans, framework traces).

Some integrations only learn about a call once it is over: a span from another
instrumentation ends, an Agents SDK span ends. There is no handle to open; this module builds
the :class:`~handoff.model.Handoff` directly, with the parent, ``from`` and attempt inference
every handoff gets (:func:`handoff.capture.lineage.infer_lineage`), and keeps the foreign
span's trace and span id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from handoff.capture.context import RunState
from handoff.capture.lineage import infer_lineage
from handoff.capture.recorder import Recorder
from handoff.capture.render import Rendered
from handoff.capture.runs import end_run as _end_run
from handoff.capture.runs import start_run as _start_run
from handoff.model import Handoff


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


def build_record(recorder: Recorder, run: RunState, call: ForeignCall, enclosing: Any = None) -> Handoff:
    """Return the handoff record for ``call`` in ``run``; ``enclosing`` is the handle active when it began."""
    seq, hid = run.next_id()
    run.register(hid, call.to)
    data, content_type = call.input
    sha = recorder.digest(data)
    lineage = infer_lineage(
        run, hid, call.to, data, sha, parent=call.parent, from_=call.from_ or None, enclosing=enclosing
    )
    output, output_type = call.output if call.output is not None else (None, None)
    output_sha = recorder.digest(output) if output is not None else None
    if output is not None and call.status != "error":
        run.add_output(seq, hid, call.to, output, output_sha or "")
    return Handoff(
        run_id=run.run_id, handoff_id=hid, seq=seq, to_step=call.to, from_step=lineage.from_step,
        kind=call.kind, parent_handoff_id=lineage.parent_id, fan_in=lineage.fan_in, ts_ns=call.start_ns,
        duration_ms=max(0, call.end_ns - call.start_ns) / 1e6, status=call.status,
        error_type=call.error_type, error_message=call.error_message, input=data, output=output,
        input_content_type=content_type, output_content_type=output_type, input_sha256=sha,
        output_sha256=output_sha, digest_alg=recorder.digest_alg, input_tokens=call.input_tokens,
        output_tokens=call.output_tokens, model=call.model, config={"model": call.model} if call.model else {},
        attempt=lineage.attempt, retry_of=lineage.retry_of, trace_id=call.trace_id, span_id=call.span_id,
        attributes=dict(call.attributes),
    )  # fmt: skip


def begin_run(recorder: Recorder, name: str) -> RunState:
    """Open a run of its own for calls observed outside any run."""
    return _start_run(recorder, name, {}, None)


def end_run(recorder: Recorder, run: RunState, status: str = "ok") -> None:
    """Close a run opened with :func:`begin_run`."""
    _end_run(recorder, run, status)
