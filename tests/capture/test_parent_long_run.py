"""Parent inference in long runs: the content match still finds the right producer after hundreds of steps."""

from __future__ import annotations

import handoff
from handoff.testing import capture


def test_each_step_of_a_300_step_run_gets_the_step_whose_output_it_embeds():
    """In a 300-step chain where each prompt embeds the previous step's reply, every parent is that step."""

    @handoff.step(to="stage")
    def stage(prompt: str) -> str:
        return f"stage report on a prompt of {len(prompt)} bytes: " + prompt.split()[1] + " lines checked"

    with capture() as records, handoff.run("long"):
        reply = stage("You are the first stage. Start from the invoice INV-88214 and list its lines.")
        for i in range(299):
            reply = stage(f"Step {i}: continue from the previous stage's report below.\n---\n{reply}\n---\nBe brief.")
    steps = sorted(records.handoffs, key=lambda h: h.seq)
    assert len(steps) == 300
    assert [h.parent_handoff_id for h in steps[1:]] == [h.handoff_id for h in steps[:-1]]
    assert all(h.fan_in == [] for h in steps)


def test_an_output_embedded_among_many_unrelated_outputs_is_found_with_the_others_in_fan_in():
    """After 100 unrelated steps, a prompt embedding two earlier replies names the later as parent, the earlier in fan_in."""

    @handoff.step(to="search")
    def search(q: str) -> str:
        return f"results for {q}: the rebated subtotal per clause 7.2(b), item {q}"

    @handoff.step(to="merge")
    def merge(text: str) -> str:
        return "merged"

    with capture() as records, handoff.run("r"):
        replies = [search(f"query number {i}") for i in range(100)]
        merge(f"Combine these two findings.\n{replies[40]}\nand\n{replies[70]}\n")
    steps = sorted(records.handoffs, key=lambda h: h.seq)
    assert (steps[-1].parent_handoff_id, steps[-1].fan_in) == ("hf-71", ["hf-41"])


def test_a_reply_repeated_by_many_steps_makes_the_latest_of_them_the_parent_and_no_fan_in():
    """A fixed reply returned by 20 polls, then embedded in a prompt: the last poll is the parent,
    and the 19 identical earlier replies are not listed as further sources (the input holds the
    reply once), while a different reply embedded beside it still is."""

    @handoff.step(to="poll")
    def poll(n: int) -> str:
        return '{"status": "pending", "queue": "invoices-eu", "eta_s": 30}'

    @handoff.step(to="lookup")
    def lookup(q: str) -> str:
        return f"customer record for {q}: tier gold, region EU"

    @handoff.step(to="decide")
    def decide(text: str) -> str:
        return "wait"

    with capture() as records, handoff.run("r"):
        record = lookup("ACC 0091-22")
        for n in range(20):
            status = poll(n)
        decide(f"Latest status:\n{status}\nCustomer:\n{record}\nDecide.")
    steps = sorted(records.handoffs, key=lambda h: h.seq)
    assert (steps[-1].parent_handoff_id, steps[-1].fan_in) == (steps[-2].handoff_id, [steps[0].handoff_id])
