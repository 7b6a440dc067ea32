"""Handoff ids never collide: within a run, across processes joining it, and across a fork."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from handoff.capture.context import RunState
from handoff.ids import handoff_id, new_run_id

HEX = st.text(alphabet="0123456789abcdef", min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(min_value=1, max_value=10**9), st.one_of(st.just(""), HEX)), max_size=50))
def test_distinct_sequence_and_prefix_pairs_give_distinct_ids(pairs):
    """Two handoffs with different (sequence, process tag) never share an id."""
    ids = {handoff_id(seq, prefix) for seq, prefix in set(pairs)}
    assert len(ids) == len(set(pairs))


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=1, max_value=300), st.integers(min_value=1, max_value=5))
def test_a_run_and_the_processes_that_join_it_mint_disjoint_ids(calls, joiners):
    """The originating process and every process joining the run (its own tag) mint ids no other mints."""
    run_id = new_run_id()
    states = [RunState(run_id, "r", {}, joined=False, start_ns=0)]
    states += [RunState(run_id, "r", {}, joined=True, start_ns=0) for _ in range(joiners)]
    ids = [state.next_id()[1] for state in states for _ in range(calls)]
    assert len(set(ids)) == len(ids) == calls * (joiners + 1)


def test_after_fork_the_child_continues_the_run_in_a_sequence_of_its_own():
    """In a forked child the next id of an open run carries the child's tag and starts at 1; the parent goes on."""
    state = RunState(new_run_id(), "r", {}, joined=False, start_ns=0)
    assert state.next_id() == (1, "hf-1")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.write(write, "|".join(state.next_id()[1] for _ in range(2)).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    child = os.read(read, 1000).decode().split("|")
    os.close(read)
    assert (state.next_id(), [hid.rsplit("-", 1)[1] for hid in child]) == ((2, "hf-2"), ["1", "2"])
    assert child[0].count("-") == 2 and child[0].split("-")[1] == child[1].split("-")[1]
