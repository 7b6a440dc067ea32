"""Runs: one end-to-end pipeline execution, with a time-ordered id (``handoff.run``)."""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace

from handoff.capture.context import RunState, current_run
from handoff.capture.recorder import Recorder, get_recorder
from handoff.ids import new_run_id
from handoff.model import RunRecord


def start_run(recorder: Recorder, name: str, attributes: dict[str, str], run_id: str | None) -> RunState:
    """Begin a run (a new id, or ``run_id`` to join one started elsewhere) and record its start row."""
    joined = run_id is not None
    state = RunState(run_id or new_run_id(), name, attributes, joined=joined, start_ns=time.time_ns())
    if not joined:
        recorder.submit(
            RunRecord(state.run_id, name, state.start_ns, attributes=attributes, recorded_ns=state.start_ns)
        )
    return state


def end_run(recorder: Recorder, state: RunState, status: str) -> None:
    """Record a run's end row; a status set on the run (``set_status``) wins over ``ok``."""
    if state.status != "ok" and status == "ok":
        status = state.status
    now = time.time_ns()
    recorder.submit(RunRecord(state.run_id, state.name, state.start_ns, now, status, state.attributes, recorded_ns=now))


class run:  # noqa: N801 - used as ``with handoff.run(...)`` and ``@handoff.run(...)``
    """Open a run: one end-to-end pipeline execution with a time-ordered id.

    ``with handoff.run("invoice", invoice="INV-88214") as r:`` — ``r.run_id`` is ``run_<ULID>``.
    Give ``run_id=`` to join a run started elsewhere (another process or service). With
    ``flush=True`` the run's records are written before the block exits. As a decorator,
    ``@handoff.run("invoice")`` opens a new run per call.
    """

    def __init__(
        self,
        name: str | Callable[..., Any] | None = None,
        *,
        run_id: str | None = None,
        flush: bool = False,
        **attributes: Any,
    ) -> None:
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

    def __enter__(self) -> run:
        recorder = get_recorder()
        try:
            self._state = start_run(recorder, self.name or "run", self.attributes, self._join_id)
            span = recorder.spans.start(
                f"handoff.run {self._state.name}", {"handoff.run_id": self._state.run_id}, self._state.start_ns
            )
            self._tokens.append(
                (span, current_run.set(self._state), otel_context.attach(trace.set_span_in_context(span)))
            )
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
                end_run(recorder, self._state, "error" if exc_type is not None else "ok")
            if self._flush:
                recorder.flush()
        except Exception as capture_exc:  # noqa: BLE001
            recorder.capture_failed(capture_exc)

    def _fresh(self) -> run:
        return run(
            self.name or getattr(self._fn, "__qualname__", "run"),
            run_id=self._join_id,
            flush=self._flush,
            **self.attributes,
        )

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
