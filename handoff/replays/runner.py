"""``handoff.replay``: call a recorded step again on its stored input, N times, and score the outputs.

The replays are recorded through the configured recorder (``handoff.configure``) as handoffs of
a new run named ``replay`` whose attributes say which handoff it replays (``replay_of``); the
original run is only read. The original is read from the configured store.
"""

from __future__ import annotations

from typing import Any

from handoff.capture.lineage import ROOT
from handoff.capture.recorder import flush, get_recorder
from handoff.capture.replayable import REPLAY_KEY
from handoff.capture.runs import run
from handoff.capture.spec import StepSpec
from handoff.errors import ReplayError
from handoff.model import TEXT
from handoff.replays.calls import ReplayCall, run_calls
from handoff.replays.models import ModelPlan, recorded_call
from handoff.replays.original import Original, load_original
from handoff.replays.report import ReplayReport, count_pseudonyms, kept_counts, output_figures
from handoff.replays.targets import Target, decode_input, load_target


def replay(
    run_id: str,
    handoff_id: str,
    times: int = 20,
    target: str | None = None,
    *,
    concurrency: int = 1,
    model: str | None = None,
    allow_side_effects: bool = False,
) -> ReplayReport:
    """Replay handoff ``handoff_id`` of run ``run_id`` ``times`` times on its stored input.

    Imports the step's function by the path recorded at decoration time (or ``target``,
    ``module:function``, to try a fix) and calls it; this runs that module's code. Model calls
    recorded by the OpenAI and Anthropic adapters are sent again from the stored request body
    (``model`` replaces the model named in it). Steps of kind ``tool`` need
    ``allow_side_effects=True``. Raises :class:`~handoff.errors.ReplayError` (or ``RunNotFound``,
    ``HandoffNotFound``, ``ContentGone``) with a one-line message; ``ValueError`` for bad counts.
    """
    if times < 1 or concurrency < 1:
        raise ValueError("times and concurrency must be at least 1")
    store, con = _open_views()
    original = load_original(store, con, run_id, handoff_id)
    _refuse_side_effects(original, allow_side_effects)
    plan = _plan(original, target, model)
    with run("replay", replay_of=original.ref, step=original.row["to_step"], target=plan.path) as replay_run:
        calls = plan.call(times, concurrency)
    flush()
    return _report(original, plan.path, model, replay_run.run_id or "", calls)


def _open_views() -> tuple[Any, Any]:
    from handoff.config import current_settings
    from handoff.queries import connect
    from handoff.store import open_store

    store = open_store(current_settings().store)
    return store, connect(store)


def _refuse_side_effects(original: Original, allowed: bool) -> None:
    if original.row["kind"] == "tool" and not allowed:
        raise ReplayError(
            f"{original.row['to_step']} is a tool step: replaying it repeats its side effects; "
            "pass --allow-side-effects (allow_side_effects=True) to do it anyway",
            run_id=original.row["run_id"],
            handoff_id=original.row["handoff_id"],
        )


class FunctionPlan:
    """A replay that imports a function and calls it on the decoded stored input."""

    def __init__(self, original: Original, target: Target) -> None:
        self.original = original
        self.target = target
        self.path = target.path
        self.spec = replay_spec(original, target.path, target.render_output)

    def call(self, times: int, concurrency: int) -> list[ReplayCall]:
        """Run the calls (see :func:`handoff.replays.calls.run_calls`)."""
        original, target = self.original, self.target
        stored = (original.input, original.input_content_type or TEXT)
        target.arguments(decode_input(original.input, original.input_content_type))  # refuse before any call

        def invoke() -> Any:
            args, kwargs = target.arguments(decode_input(original.input, original.input_content_type))
            return target.fn(*args, **kwargs)

        return run_calls(
            self.spec, stored, invoke, shape=target.shape, render=target.render_output, times=times,
            concurrency=concurrency,
        )  # fmt: skip


def replay_spec(original: Original, path: str, render_output: Any, model: str | None = None) -> StepSpec:
    """The spec every replayed call is recorded with: the original's names, kind and config, marked as a replay."""
    row = original.row
    config = dict(original.config)
    config[REPLAY_KEY] = {**(config.get(REPLAY_KEY) or {}), "callable": path, "of": original.ref}
    if model is not None:
        config["model"] = model
    attributes = {**(row.get("attributes") or {}), "replay_of": original.ref}
    return StepSpec(row["to_step"], row["from_step"], row["kind"], ROOT, config, attributes, True, None, render_output)


def _plan(original: Original, target: str | None, model: str | None) -> FunctionPlan | ModelPlan:
    described = original.config.get(REPLAY_KEY) or {}
    step = original.row["to_step"]
    model_call = recorded_call(original) if target is None else None
    if model_call is not None:
        return ModelPlan(original, *model_call, model, replay_spec)
    if target is None and described.get("input") == "render":
        raise ReplayError(
            f"step {step} renders its input with render= and declares no replay= to rebuild its arguments "
            "from the stored input; add replay= to the step, or give --target module:function",
            run_id=original.row["run_id"],
            handoff_id=original.row["handoff_id"],
        )
    path = target or described.get("callable")
    if not path:
        raise ReplayError(
            f"handoff {original.row['handoff_id']} to {step} was recorded without an import path "
            "(by handoff.record, or before steps recorded one); give --target module:function",
            run_id=original.row["run_id"],
            handoff_id=original.row["handoff_id"],
        )
    if model is not None:
        raise ReplayError(
            f"--model applies to model calls recorded by the OpenAI and Anthropic adapters, not to {step}"
        )
    return FunctionPlan(original, load_target(path))


def _report(
    original: Original, path: str, model: str | None, replay_run_id: str, calls: list[ReplayCall]
) -> ReplayReport:
    row = original.row
    same_digests = row.get("digest_alg") in (None, get_recorder().digest_alg)
    ok, distinct, reproduced, errors = output_figures(calls, row.get("output_sha256") if same_digests else None)
    return ReplayReport(
        run_id=row["run_id"],
        handoff_id=row["handoff_id"],
        step=row["to_step"],
        replays=len(calls),
        replay_run_id=replay_run_id,
        target=path,
        ok=ok,
        distinct_outputs=distinct,
        original_reproduced=reproduced,
        errors=errors,
        constraints=kept_counts(original.lost, calls),
        pseudonyms=count_pseudonyms(original.input),
        model=model,
        replay_handoff_ids=[call.handoff_id for call in calls if call.handoff_id],
    )
