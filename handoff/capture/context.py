"""Run context: the run active in this thread or task, and what this process knows about it.

Context travels in ``contextvars``: asyncio tasks inherit it natively; a thread inherits it
when started through ``contextvars.copy_context().run`` (``handoff.bind`` does that for you).
The active *handoff* lives beside its class, in :mod:`handoff.capture.handle`.
"""

from __future__ import annotations

import contextvars
import itertools
import threading
from collections.abc import Callable
from typing import Any

from handoff.capture.matching import OutputIndex
from handoff.ids import fork_generation, handoff_id, process_tag

#: How many handoffs a run remembers for parents, retries, span links and ``from`` defaults.
REMEMBERED = 10_000


def _newest(memory: dict) -> dict:
    """Return the newest half of ``memory`` (insertion order): one O(n) copy every n/2 inserts."""
    return dict(itertools.islice(memory.items(), len(memory) - REMEMBERED // 2, None))


class RunState:
    """One run as seen from this process: id, sequence, recent outputs and attempt history."""

    def __init__(self, run_id: str, name: str, attributes: dict[str, str], *, joined: bool, start_ns: int) -> None:
        self.run_id = run_id
        self.name = name
        self.attributes = attributes
        self.start_ns = start_ns
        self.status = "ok"
        #: The handoff in another process that this process's work continues (``handoff.extract``).
        self.remote_parent: str | None = None
        self._prefix = process_tag() if joined else ""
        self._seq = itertools.count(1)
        self._generation = fork_generation()
        self._lock = threading.Lock()
        self._outputs = OutputIndex()
        # Per-handoff memories, each capped at REMEMBERED entries (oldest forgotten first), so a
        # run that never ends (a service wrapping its lifetime in one run) holds bounded memory.
        self._by_digest: dict[str, tuple[int, str]] = {}
        self._attempts: dict[tuple, tuple[str, int]] = {}
        self._latest_by_step: dict[str, str] = {}
        self._steps: dict[str, str] = {}
        self._spans: dict[str, Any] = {}

    def next_id(self) -> tuple[int, str]:
        """Return the next ``(seq, handoff_id)``.

        In a child forked while the run was open, ids continue as ``hf-<process tag>-<seq>``, a
        sequence of the child's own, so they can never collide with the parent's.
        """
        if self._generation != fork_generation():
            # First id in a forked child (one thread so far): a lock held by a parent thread at
            # fork time would never be released here, so the child takes a fresh one too.
            self._lock = threading.Lock()
            self._prefix, self._seq, self._generation = process_tag(), itertools.count(1), fork_generation()
        seq = next(self._seq)
        return seq, handoff_id(seq, self._prefix)

    def register(self, hid: str, to_step: str) -> None:
        """Remember which step a handoff delivered to, so a child's ``from`` defaults to it."""
        self._steps[hid] = to_step
        if len(self._steps) > REMEMBERED:
            with self._lock:
                self._steps = _newest(self._steps)

    def remember_span(self, hid: str, span_context: Any) -> None:
        """Remember handoff ``hid``'s span context, so its children's spans link to it."""
        self._spans[hid] = span_context
        if len(self._spans) > REMEMBERED:
            with self._lock:
                self._spans = _newest(self._spans)

    def span_of(self, hid: str) -> Any:
        """Return handoff ``hid``'s span context if it ran in this process, else ``None`` (O(1))."""
        return self._spans.get(hid)

    def step_of(self, hid: str) -> str | None:
        """Return the consumer step of handoff ``hid`` in this run, if it ran in this process."""
        return self._steps.get(hid)

    def add_output(self, seq: int, hid: str, to_step: str, output: bytes, sha: str) -> None:
        """Remember an output so later inputs that equal or contain it get this handoff as parent."""
        with self._lock:
            self._by_digest[sha] = (seq, hid)
            if len(self._by_digest) > REMEMBERED:
                self._by_digest = _newest(self._by_digest)
            self._outputs.add(seq, hid, output, sha)
            self._latest_by_step[to_step] = hid
            if len(self._latest_by_step) > REMEMBERED:
                self._latest_by_step = _newest(self._latest_by_step)

    def latest_for_step(self, to_step: str) -> str | None:
        """Return the latest handoff id delivered to ``to_step`` in this run."""
        return self._latest_by_step.get(to_step)

    def match_outputs(self, data: bytes, sha: str, after_seq: int) -> list[str]:
        """Return handoff ids whose output equals or is contained in ``data``, newest first.

        An exact match (same digest) is the whole answer, in one dict lookup; otherwise every
        recent output of at least ``MIN_CONTAINED_BYTES`` that is shorter than ``data`` and
        contained in it matches (:class:`~handoff.capture.matching.OutputIndex`: a bounded sample of
        ``data``, not one scan per output).
        """
        with self._lock:
            exact = self._by_digest.get(sha)
            if exact is not None and exact[0] > after_seq:
                return [exact[1]]
            return self._outputs.contained_in(data, after_seq)

    def attempt_for(self, key: tuple, hid: str) -> tuple[int, str | None]:
        """Return ``(attempt, retry_of)`` for a call identified by ``key`` and record it."""
        with self._lock:
            previous = self._attempts.get(key)
            attempt, retry_of = (previous[1] + 1, previous[0]) if previous else (1, None)
            self._attempts[key] = (hid, attempt)
            if len(self._attempts) > REMEMBERED:
                self._attempts = _newest(self._attempts)
        return attempt, retry_of


current_run: contextvars.ContextVar[RunState | None] = contextvars.ContextVar("handoff_run", default=None)


def bind(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Return ``fn`` bound to the current context, for running in another thread within this run.

    Example: ``executor.submit(handoff.bind(work), item)``.
    """
    ctx = contextvars.copy_context()

    def bound(*args: Any, **kwargs: Any) -> Any:
        return ctx.copy().run(fn, *args, **kwargs)

    return bound
