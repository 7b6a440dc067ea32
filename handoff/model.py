"""The record model: what the capture API hands to the background writer.

One :class:`Handoff` per handoff attempt (DESIGN.md "The record"), one :class:`RunRecord` per
run start and end, one :class:`Event` per named fallback or contingency. The capture side fills
what it knows on the hot path (raw bytes, digests, timings, ids); the writer derives the rest
(scrubbed content, refs, constraints, token estimates) in the background.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Any

#: Version 2 added ``verdict``, ``verdict_reason``, ``output_empty`` and ``allow_empty`` (issue 19);
#: rows of version 1 read with those columns null.
SCHEMA_VERSION = 2

#: Content types of a rendered payload (``input_content_type``, ``output_content_type``).
TEXT = "text/plain; charset=utf-8"
JSON = "application/json"
BINARY = "application/octet-stream"

KINDS = ("agent", "transform", "tool", "verifier")
STATUSES = ("ok", "error", "fallback", "broken")
#: What ``handoff.verdict`` accepts; ``broken`` means verification did not happen (the handoff's status is ``broken``).
VERDICTS = ("pass", "fail", "broken")


@dataclass(slots=True)
class Handoff:
    """One delegation of work from a producer step to a consumer step, as captured."""

    run_id: str
    handoff_id: str
    seq: int
    to_step: str
    from_step: str | None = None
    kind: str = "agent"
    parent_handoff_id: str | None = None
    fan_in: list[str] = field(default_factory=list)
    ts_ns: int = 0
    duration_ms: float = 0.0
    status: str = "ok"
    error_type: str | None = None
    error_message: str | None = None
    input: bytes | None = None
    output: bytes | None = None
    input_content_type: str | None = None
    output_content_type: str | None = None
    input_sha256: str | None = None
    output_sha256: str | None = None
    digest_alg: str = "sha256"
    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str | None = None
    effort: str | None = None
    prompt_pack: str | None = None
    template: str | None = None
    config: dict[str, Any] = field(default_factory=dict)
    attempt: int = 1
    retry_of: str | None = None
    trace_id: str | None = None
    span_id: str | None = None
    attributes: dict[str, str] = field(default_factory=dict)
    scrub: bool = True
    verdict: str | None = None
    verdict_reason: str | None = None
    allow_empty: bool = False
    #: What the recorder could not capture of this handoff (a failed render, bad usage), else ``None``.
    capture_error: str | None = None

    def replace(self, **changes: Any) -> Handoff:
        """Return a copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)


@dataclass(slots=True)
class RunRecord:
    """The state of a run at its start (``status="running"``) or its end."""

    run_id: str
    name: str
    start_ns: int
    end_ns: int | None = None
    status: str = "running"
    attributes: dict[str, str] = field(default_factory=dict)
    recorded_ns: int = 0


@dataclass(slots=True)
class Event:
    """A named fallback or contingency (``kind="fallback"``), a verdict (``kind="verdict"``), or a recorder event."""

    run_id: str
    name: str
    ts_ns: int
    kind: str = "fallback"
    handoff_id: str | None = None
    error_type: str | None = None
    error_message: str | None = None
    attributes: dict[str, str] = field(default_factory=dict)

    @classmethod
    def fallback(
        cls,
        run_id: str,
        name: str,
        error: BaseException | None,
        attributes: dict[str, Any],
        handoff_id: str | None = None,
    ) -> Event:
        """The event ``handoff.fallback(name, error=..., **attributes)`` records, now."""
        return cls(
            run_id=run_id,
            handoff_id=handoff_id,
            name=name,
            ts_ns=time.time_ns(),
            error_type=type(error).__name__ if error is not None else None,
            error_message=describe_error(error, with_type=False) if error is not None else None,
            attributes={str(k): describe_value(v) for k, v in attributes.items()},
        )

    @classmethod
    def verdict(cls, run_id: str, handoff_id: str, verdict: str, reason: str | None, to_step: str) -> Event:
        """The event ``handoff.verdict(verdict, reason=...)`` records, now: ``name`` is the verdict."""
        return cls(
            run_id=run_id,
            handoff_id=handoff_id,
            name=verdict,
            ts_ns=time.time_ns(),
            kind="verdict",
            error_message=reason,
            attributes={"step": to_step},
        )


def describe_error(exc: BaseException, *, with_type: bool = True) -> str:
    """``"TypeName: message"`` (or the message alone) for ``exc``, even when its ``__str__`` raises."""
    message = describe_value(exc)
    return f"{type(exc).__name__}: {message}" if with_type else message


def describe_value(value: Any) -> str:
    """``str(value)``, or a placeholder naming its type when ``__str__`` raises (the recorder never raises)."""
    try:
        return str(value)
    except Exception:  # noqa: BLE001 - a hostile __str__ must not break recording
        return f"<{type(value).__name__}: str() failed>"


#: Anything the capture side hands to the writer.
Record = Handoff | RunRecord | Event
