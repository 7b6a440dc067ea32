"""Steps the replay tests record and then replay by their import path (``tests.replays.steps:...``)."""

from __future__ import annotations

import handoff

REPORT = "Freight surcharge: 9.1% (clause 7.2).\nThe surcharge base is the rebated subtotal per 7.2(b)."


@handoff.step(to="orchestrator.compress_v3", kind="transform")
def compress(report: str) -> str:
    """Keeps the first line only: the qualifier on the second is lost."""
    return report.splitlines()[0]


def compress_fixed(report: str) -> str:
    """The fix: keeps every line."""
    return report


@handoff.step(to="orchestrator.compress_async", kind="transform")
async def compress_async(report: str) -> str:
    """The coroutine twin of :func:`compress`."""
    return report.splitlines()[0]


@handoff.step(to="orchestrator.compress_stream", kind="transform")
def compress_stream(report: str):
    """A generator: yields the first line word by word (the output is what it yielded, joined)."""
    for word in report.splitlines()[0].split(" "):
        yield word + " "


@handoff.step(to="orchestrator.compress_astream", kind="transform")
async def compress_astream(report: str):
    """An async generator yielding both lines, so nothing is lost."""
    for line in report.splitlines():
        yield line + "\n"


@handoff.step(to="price", kind="transform")
def price(subtotal: str, surcharge_pct: str) -> str:
    """Two arguments: the input is ``{name: value}`` and the replay calls it with keywords."""
    return f"surcharge {surcharge_pct}% on {subtotal}"


@handoff.step(to="flaky", kind="transform")
def always_fails(report: str) -> str:
    """Raises every time: the replay counts the errors by type."""
    raise ValueError("upstream model refused")


def _prompt(report: str, budget: int) -> str:
    return f"[{budget}] {report}"


@handoff.step(to="rendered", kind="transform", render=_prompt)
def rendered_only(report: str, budget: int) -> str:
    """``render=`` without ``replay=``: its arguments cannot be rebuilt from the stored input."""
    return report[:budget]


def _rebuild(stored: str) -> tuple[tuple, dict]:
    budget, report = stored[1:].split("] ", 1)
    return (report,), {"budget": int(budget)}


@handoff.step(to="rendered", kind="transform", render=_prompt, replay=_rebuild)
def rendered_with_replay(report: str, budget: int) -> str:
    """``render=`` with ``replay=`` rebuilding ``(args, kwargs)`` from the rendered input."""
    return report[:budget]


@handoff.step(to="ledger", kind="tool")
def post(entry: str) -> str:
    """A tool: replaying it would post again."""
    return f"posted {entry}"


def make_closure():
    """A step defined inside a function: its path has ``<locals>`` and cannot be imported."""

    @handoff.step(to="inner", kind="transform")
    def inner(report: str) -> str:
        return report

    return inner
