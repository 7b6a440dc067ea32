"""handoff.replay: a recorded step called again on its stored input, recorded as a new run and scored."""

from __future__ import annotations

import asyncio
import json

import pytest

import handoff
from handoff.errors import HandoffNotFound, ReplayError
from handoff.queries import connect
from handoff.queries.runs import get_run
from tests.replays import steps

LOST = ["clause:7.2(b)", "qualifier:base is the rebated subtotal", "qualifier:per 7.2(b)"]


@pytest.fixture
def store(tmp_path) -> str:
    """A store of its own, configured for recording and replaying."""
    path = str(tmp_path / "store")
    handoff.configure(store=path, scrub_key="test-key-replay")
    return path


def record(call) -> str:
    """Run ``call()`` in a run of its own, write it, and return the run id."""
    with handoff.run("t") as run:
        call()
    handoff.flush()
    return run.run_id


def kept(report) -> dict[str, int]:
    return {item.token: item.kept for item in report.constraints}


def test_a_sync_step_replays_on_its_stored_input(store):
    """Replaying a plain function N times calls it N times on the stored input and says it reproduces the original."""
    run_id = record(lambda: steps.compress(steps.REPORT))
    report = handoff.replay(run_id, "hf-1", times=5)
    assert (report.replays, report.ok, report.distinct_outputs, report.original_reproduced) == (5, 5, 1, 5)
    assert (report.step, report.target, report.errors, report.pseudonyms) == (
        "orchestrator.compress_v3",
        "tests.replays.steps:compress",
        {},
        0,
    )
    assert kept(report) == dict.fromkeys(LOST, 0)
    assert [item.to_dict()["text"] for item in report.constraints] == [
        "7.2(b)",
        "base is the rebated subtotal",
        "per 7.2(b)",
    ]


def test_replays_are_a_new_run_linked_to_the_original(store):
    """The replays are handoffs of a new run whose attributes name the original; the original run is untouched."""
    run_id = record(lambda: steps.compress(steps.REPORT))
    report = handoff.replay(run_id, "hf-1", times=3)
    con = connect(store)
    replayed = get_run(con, report.replay_run_id)
    assert replayed["name"] == "replay"
    assert replayed["attributes"] == {
        "replay_of": f"{run_id}/hf-1",
        "step": "orchestrator.compress_v3",
        "target": "tests.replays.steps:compress",
    }
    rows = replayed["handoffs"]
    assert [(h["handoff_id"], h["to_step"], h["parent_handoff_id"], h["attempt"]) for h in rows] == [
        ("hf-1", "orchestrator.compress_v3", None, 1),
        ("hf-2", "orchestrator.compress_v3", None, 1),
        ("hf-3", "orchestrator.compress_v3", None, 1),
    ]
    assert {h["attributes"]["replay_of"] for h in rows} == {f"{run_id}/hf-1"}
    assert len(get_run(con, run_id)["handoffs"]) == 1
    assert report.replay_handoff_ids == ["hf-1", "hf-2", "hf-3"]


def test_a_target_tries_a_fix_on_the_same_input(store):
    """--target calls another function on the stored input: the fixed compressor keeps what the original lost."""
    run_id = record(lambda: steps.compress(steps.REPORT))
    report = handoff.replay(run_id, "hf-1", times=4, target="tests.replays.steps:compress_fixed")
    assert (report.target, report.original_reproduced, report.distinct_outputs) == (
        "tests.replays.steps:compress_fixed",
        0,
        1,
    )
    assert kept(report) == dict.fromkeys(LOST, 4)


def test_a_coroutine_step_replays(store):
    """An async step replays on one event loop, at most --concurrency calls at a time."""
    run_id = record(lambda: asyncio.run(steps.compress_async(steps.REPORT)))
    report = handoff.replay(run_id, "hf-1", times=6, concurrency=3)
    assert (report.ok, report.original_reproduced) == (6, 6)
    assert kept(report) == dict.fromkeys(LOST, 0)


def test_a_generator_step_replays_its_whole_stream(store):
    """A generator's replay output is what it yielded, joined, as the decorator records it."""
    run_id = record(lambda: list(steps.compress_stream(steps.REPORT)))
    report = handoff.replay(run_id, "hf-1", times=2)
    assert (report.ok, report.original_reproduced, report.distinct_outputs) == (2, 2, 1)
    assert kept(report) == dict.fromkeys(LOST, 0)


def test_an_async_generator_step_replays(store):
    """An async generator's replay output is its joined stream; this one keeps everything."""

    async def consume() -> None:
        async for _ in steps.compress_astream(steps.REPORT):
            pass

    run_id = record(lambda: asyncio.run(consume()))
    report = handoff.replay(run_id, "hf-1", times=2)
    assert (report.ok, report.original_reproduced, report.constraints) == (2, 2, [])


def test_several_arguments_are_rebuilt_from_the_mapping(store):
    """A step of several arguments was recorded as {name: value} and is called again with them."""
    run_id = record(lambda: steps.price("155660.00", surcharge_pct="9.1"))
    report = handoff.replay(run_id, "hf-1", times=2)
    assert (report.ok, report.original_reproduced, report.errors) == (2, 2, {})


def test_errors_are_counted_per_exception_type(store):
    """A replay that raises is recorded as an error and counted by type; the other replays still run."""

    def call() -> None:
        with pytest.raises(ValueError):
            steps.always_fails(steps.REPORT)

    run_id = record(call)
    report = handoff.replay(run_id, "hf-1", times=3)
    assert (report.ok, report.distinct_outputs, report.errors) == (0, 0, {"ValueError": 3})
    statuses = [h["status"] for h in get_run(connect(store), report.replay_run_id)["handoffs"]]
    assert statuses == ["error", "error", "error"]


def test_render_without_replay_is_refused(store):
    """A render= step that declares no replay= cannot have its arguments rebuilt: one clear error."""
    run_id = record(lambda: steps.rendered_only(steps.REPORT, 20))
    with pytest.raises(ReplayError) as caught:
        handoff.replay(run_id, "hf-1", times=2)
    assert str(caught.value) == (
        "step rendered renders its input with render= and declares no replay= to rebuild its arguments "
        "from the stored input; add replay= to the step, or give --target module:function"
    )


def test_render_with_replay_rebuilds_the_arguments(store):
    """replay= turns the stored (rendered) input back into the call's (args, kwargs)."""
    run_id = record(lambda: steps.rendered_with_replay(steps.REPORT, 20))
    report = handoff.replay(run_id, "hf-1", times=2)
    assert (report.ok, report.original_reproduced) == (2, 2)


def test_a_tool_step_needs_allow_side_effects(store):
    """A tool step is replayed only when side effects are allowed."""
    run_id = record(lambda: steps.post("INV-88214"))
    with pytest.raises(ReplayError, match="^ledger is a tool step: replaying it repeats its side effects"):
        handoff.replay(run_id, "hf-1", times=1)
    report = handoff.replay(run_id, "hf-1", times=1, allow_side_effects=True)
    assert (report.ok, report.original_reproduced) == (1, 1)


def test_a_step_defined_in_a_function_cannot_be_imported(store):
    """A closure's path names <locals>: the replay says so and asks for a target instead of guessing."""
    inner = steps.make_closure()
    run_id = record(lambda: inner(steps.REPORT))
    with pytest.raises(ReplayError) as caught:
        handoff.replay(run_id, "hf-1", times=1)
    assert str(caught.value) == (
        "tests.replays.steps:make_closure.<locals>.inner is defined inside a function and cannot be imported; "
        "give --target module:function"
    )


def test_an_unknown_handoff_is_not_found(store):
    """Replaying a handoff id the run does not have raises HandoffNotFound before anything is imported."""
    run_id = record(lambda: steps.compress(steps.REPORT))
    with pytest.raises(HandoffNotFound):
        handoff.replay(run_id, "hf-9")


def test_decoration_records_the_import_path_and_argument_mapping(store):
    """@handoff.step records where its function lives and how its input maps to its arguments, in the config."""
    run_id = record(lambda: (steps.compress(steps.REPORT), steps.price("1.00", "9.1")))
    rows = get_run(connect(store), run_id)["handoffs"]
    assert [json.loads(h["config"])["replay"] for h in rows] == [
        {"callable": "tests.replays.steps:compress", "input": "single"},
        {"callable": "tests.replays.steps:price", "input": "mapping"},
    ]


def test_pseudonyms_in_the_stored_input_are_counted(store):
    """The replayed input is the scrubbed one: the report says how many pseudonyms it holds."""
    run_id = record(
        lambda: steps.compress("Ask ops@northwind-freight.com or billing@northwind-freight.com\nper 7.2(b)")
    )
    report = handoff.replay(run_id, "hf-1", times=1)
    assert report.pseudonyms == 2


def test_a_coroutine_step_replays_from_inside_a_running_event_loop(store):
    """handoff.replay of an async step works where a loop already runs (a notebook), on a loop of its own."""
    run_id = record(lambda: asyncio.run(steps.compress_async(steps.REPORT)))

    async def from_a_notebook():
        return handoff.replay(run_id, "hf-1", times=2)

    report = asyncio.run(from_a_notebook())
    assert (report.ok, report.original_reproduced) == (2, 2)


def test_replay_runs_never_trip_the_circuit_breaker(store):
    """Replaying a faulty step from three sessions is an engineer investigating: no page; three real failures are one."""
    from datetime import timedelta

    from handoff.queries.health import CircuitBreaker, check_and_record, failing_results
    from handoff.store import open_store

    run_id = record(lambda: steps.compress(steps.REPORT))
    replays = [handoff.replay(run_id, "hf-1", times=2).replay_run_id for _ in range(3)]
    handoff.flush()
    done = check_and_record(
        open_store(store), connect(store), CircuitBreaker(threshold_runs=3), since=timedelta(hours=1)
    )
    failed = {r.run_id for r in done.results if r.status == "fail"}
    assert failed == {run_id, *replays}  # the replays' own checks are recorded and shown
    assert done.trips == []
    assert {row["run_id"] for row in failing_results(connect(store), since=timedelta(hours=1))} == {run_id}

    more = [record(lambda: steps.compress(steps.REPORT)) for _ in range(2)]
    again = check_and_record(
        open_store(store), connect(store), CircuitBreaker(threshold_runs=3), since=timedelta(hours=1)
    )
    assert [set(trip.run_ids) for trip in again.trips] == [{run_id, *more}]
