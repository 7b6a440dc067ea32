"""A run that never ends holds bounded memory: it remembers its recent handoffs, not all of them."""

from __future__ import annotations

import handoff
from handoff.capture import context
from handoff.capture.context import REMEMBERED, current_run
from handoff.testing import capture


def test_a_long_run_remembers_a_bounded_number_of_handoffs_and_still_finds_recent_parents() -> None:
    """Three caps' worth of steps in one run: every per-handoff memory stays within its cap, recent parents are found."""

    @handoff.step(to="echo")
    def echo(text: str) -> str:
        return f"{text} -> reply"

    with capture() as records, handoff.run("long"):
        state = current_run.get()
        for n in range(3 * REMEMBERED):
            echo(f"request {n:06d} with enough text to be matched")
        echo(f"request {3 * REMEMBERED - 1:06d} with enough text to be matched -> reply")
    for memory in (state._by_digest, state._attempts, state._steps, state._spans):
        assert 0 < len(memory) <= REMEMBERED
    steps = sorted(records.handoffs, key=lambda h: h.seq)
    assert len(steps) == 3 * REMEMBERED + 1
    assert steps[-1].parent_handoff_id == steps[-2].handoff_id


def test_a_memory_past_its_cap_keeps_its_newest_half_in_order() -> None:
    """When a memory passes its cap, the oldest entries go and insertion order is kept."""
    memory = {n: n for n in range(REMEMBERED + 1)}
    assert list(context._newest(memory)) == list(range(REMEMBERED + 1 - REMEMBERED // 2, REMEMBERED + 1))
