"""Where a handoff comes from: parent, fan-in, producer step and attempt, inferred in one place.

The decorator, ``record`` and the adapters (including calls observed after the fact, such as
foreign spans) all ask :func:`infer_lineage`, so every handoff in a run gets its parent by the
same rules (docs/architecture.md "Parent inference"), in this order:

1. an explicit parent: a handle (its id), else a step name (the latest handoff to that step in
   the run) or a handoff id;
2. a content match among handoffs that started inside the enclosing step (anywhere in the run
   at top level): the latest whose output equals the input or is contained in it, further
   matches going to ``fan_in``. This beats nesting on purpose: an orchestrator written as one
   step calling its stages in sequence must still show the stage-to-stage edges;
3. the enclosing step (nesting);
4. the caller in another process, for a run joined through ``handoff.extract``.

``from`` is the explicit producer (``None``: not given), else the parent's consumer step, else the enclosing step's,
else the run's name. The attempt is keyed by ``(to, parent, input digest)`` within the run.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

from handoff.capture.context import RunState

#: ``parent=ROOT``: the handoff has no parent and is nobody's retry, whatever its input
#: (a replay: each call is a fresh delegation of a stored input, not a child of the previous one).
ROOT: Any = type("Root", (), {"__repr__": lambda self: "ROOT", "__slots__": ()})()


class Enclosing(Protocol):
    """The handoff in progress around a new one (a :class:`~handoff.capture.handle.Handle`)."""

    seq: int
    handoff_id: str

    @property
    def to(self) -> str: ...


class Lineage(NamedTuple):
    """What :func:`infer_lineage` decided for one handoff (a tuple: built on every call, on the hot path)."""

    parent_id: str | None
    from_step: str
    attempt: int
    retry_of: str | None
    fan_in: list[str]


def infer_lineage(
    run: RunState,
    handoff_id: str,
    to: str,
    data: bytes,
    sha: str | None,
    *,
    parent: Any = None,
    fan_in: list[str] | None = None,
    from_: str | None = None,
    enclosing: Enclosing | None = None,
) -> Lineage:
    """Infer parent, ``fan_in``, ``from`` and attempt for handoff ``handoff_id`` to ``to`` with input ``data``.

    ``parent`` is an explicit parent (a handle, a step name or a handoff id) and ``fan_in`` the
    further parents given with it; ``enclosing`` is the handoff active when this one began.
    Records the attempt in ``run``, so call it once per handoff. ``sha`` is ``None`` for an input
    that could not be rendered: it matches no output and is never a retry of another.
    """
    if parent is ROOT:
        return Lineage(None, _producer(run, None, from_, enclosing), 1, None, [])
    parent_id, matched = _parent(run, data, sha, parent, enclosing)
    attempt, retry_of = run.attempt_for((to, parent_id, sha), handoff_id) if sha is not None else (1, None)
    further = list(fan_in or ()) if parent is not None else matched
    return Lineage(parent_id, _producer(run, parent_id, from_, enclosing), attempt, retry_of, further)


def _parent(
    run: RunState, data: bytes, sha: str | None, explicit: Any, enclosing: Enclosing | None
) -> tuple[str | None, list[str]]:
    if explicit is not None:
        handoff_id = getattr(explicit, "handoff_id", None)
        if handoff_id is not None:
            return handoff_id, []
        return run.latest_for_step(str(explicit)) or str(explicit), []
    floor = enclosing.seq if enclosing is not None else 0
    matches = run.match_outputs(data, sha, after_seq=floor) if sha is not None else []
    if matches:
        return matches[0], matches[1:]
    if enclosing is not None:
        return enclosing.handoff_id, []
    # A run joined from another process (handoff.extract) names the remote caller.
    return run.remote_parent, []


def _producer(run: RunState, parent_id: str | None, from_: str | None, enclosing: Enclosing | None) -> str:
    if from_ is not None:
        return from_
    named = run.step_of(parent_id) if parent_id else None
    return named or (enclosing.to if enclosing is not None else run.name)
