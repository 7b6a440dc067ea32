"""Calling a step N times on its stored input, each call recorded as a handoff of the replay run.

Every call opens its own :class:`~handoff.capture.handle.Handle` with the original's consumer,
producer, kind and config, and the stored input bytes as its input, then runs the function.
Plain functions and generators run in a thread pool of ``concurrency`` workers (each in a copy
of the caller's context, so the replay run is current); coroutines and async generators run as
tasks of one event loop, at most ``concurrency`` at a time. A call that raises is recorded as
``status=error`` and counted; the other calls go on.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from handoff.capture.handle import Handle, open_handle
from handoff.capture.recorder import get_recorder
from handoff.capture.render import Rendered, render_stream
from handoff.capture.spec import StepSpec

#: One call: returns its result (a value, a coroutine, a generator or an async generator).
Invoke = Callable[[], Any]


@dataclass(frozen=True)
class ReplayCall:
    """What one replayed call gave: its output bytes and digest, or the exception type it raised."""

    index: int
    handoff_id: str | None
    output: bytes | None
    output_sha256: str | None
    error_type: str | None = None
    error_message: str | None = None

    @property
    def ok(self) -> bool:
        """``True`` when the call returned (or its stream ended) without raising."""
        return self.error_type is None


class _Call:
    """One replayed call's handoff: opened with the stored input, finished with what the call gave."""

    def __init__(self, spec: StepSpec, stored: Rendered, index: int) -> None:
        self.index = index
        self.handle: Handle | None = open_handle(spec, start_span=False)
        handle = self.handle
        if handle is not None:
            handle.guarded(lambda: handle.set_input(stored))
            handle.guarded(handle.start_span)
            handle.guarded(handle.activate)

    def returned(self, rendered: Rendered) -> ReplayCall:
        data = rendered[0]
        if self.handle is not None:
            handle = self.handle
            handle.guarded(lambda: handle.set_output(rendered))
        return self._done(ReplayCall(self.index, self._id(), data, get_recorder().digest(data)))

    def raised(self, exc: Exception) -> ReplayCall:
        if self.handle is not None:
            self.handle.fail(exc)
        return self._done(ReplayCall(self.index, self._id(), None, None, type(exc).__name__, str(exc)))

    def _id(self) -> str | None:
        return self.handle.handoff_id if self.handle is not None else None

    def _done(self, call: ReplayCall) -> ReplayCall:
        if self.handle is not None:
            self.handle.guarded(self.handle.finish)
        return call


def _sync_once(
    spec: StepSpec, stored: Rendered, invoke: Invoke, render: Callable, shape: str, index: int
) -> ReplayCall:
    call = _Call(spec, stored, index)
    try:
        rendered = render_stream(list(invoke())) if shape == "gen" else render(invoke())
    except Exception as exc:  # noqa: BLE001 - recorded and counted; the other replays go on
        return call.raised(exc)
    return call.returned(rendered)


async def _async_once(
    spec: StepSpec, stored: Rendered, invoke: Invoke, render: Callable, shape: str, index: int
) -> ReplayCall:
    call = _Call(spec, stored, index)
    try:
        if shape == "asyncgen":
            rendered = render_stream([item async for item in invoke()])
        else:
            rendered = render(await invoke())
    except Exception as exc:  # noqa: BLE001 - as in _sync_once
        return call.raised(exc)
    return call.returned(rendered)


def run_calls(
    spec: StepSpec,
    stored: Rendered,
    invoke: Invoke,
    *,
    shape: str,
    render: Callable[[Any], Rendered],
    times: int,
    concurrency: int = 1,
) -> list[ReplayCall]:
    """Call ``invoke`` ``times`` times (``shape`` says what it returns); return the calls in index order."""
    if shape in ("async", "asyncgen"):
        replays = _gather(spec, stored, invoke, render, shape, times, concurrency)
        if not _loop_running():
            return asyncio.run(replays)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="handoff-replay") as pool:  # a notebook's own loop
            return pool.submit(contextvars.copy_context().run, asyncio.run, replays).result()
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="handoff-replay") as pool:
        futures = [
            pool.submit(contextvars.copy_context().run, _sync_once, spec, stored, invoke, render, shape, index)
            for index in range(times)
        ]
        return [future.result() for future in futures]


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def _gather(
    spec: StepSpec, stored: Rendered, invoke: Invoke, render: Callable, shape: str, times: int, concurrency: int
) -> list[ReplayCall]:
    limit = asyncio.Semaphore(max(1, concurrency))

    async def bounded(index: int) -> ReplayCall:
        async with limit:
            return await _async_once(spec, stored, invoke, render, shape, index)

    return list(await asyncio.gather(*(bounded(index) for index in range(times))))
