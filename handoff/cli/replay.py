"""``handoff replay``: call a recorded step again on its stored input and count what each replay kept."""

from __future__ import annotations

import click

from handoff.cli._common import errors_as_click, open_existing_store
from handoff.cli._options import json_option, markdown_option, store_option
from handoff.cli._render import markdown_table, print_json, print_table


@click.command("replay")
@click.argument("run_id")
@click.argument("handoff_id")
@click.option("--times", default=20, show_default=True, type=click.IntRange(1, 10_000), help="Replay this many times.")
@click.option(
    "--target", default=None, metavar="MODULE:FUNCTION", help="Call this function instead of the step (to try a fix)."
)
@click.option(
    "--concurrency", default=1, show_default=True, type=click.IntRange(1, 64), help="At most this many calls at once."
)
@click.option("--model", default=None, help="For recorded OpenAI/Anthropic calls: send them to this model instead.")
@click.option("--allow-side-effects", is_flag=True, help="Replay a step of kind tool (it repeats its side effects).")
@store_option
@json_option
@markdown_option
def replay_command(
    run_id: str,
    handoff_id: str,
    times: int,
    target: str | None,
    concurrency: int,
    model: str | None,
    allow_side_effects: bool,
    store_url: str | None,
    as_json: bool,
    as_markdown: bool,
) -> None:
    """Call a recorded step again on its stored input, N times, and report what each replay kept.

    This imports and runs your code: the step's module, by the path recorded when it was
    decorated (module:qualname), or --target. Run it where that code imports (the current
    directory is on the import path). Replays are recorded as a new run linked to the original
    (attribute replay_of); the original run is not changed. The input is the stored one, so it is
    scrubbed: the report says how many pseudonyms it holds. Model calls recorded by the OpenAI
    and Anthropic adapters are sent again from the stored request body through the SDK's client,
    configured from its environment (OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_...).

    Example:

        handoff replay run_01M8M3N8TR2VBNJXMY910ZK6GC hf-3 --times 20 --target handoff.demo:compress_v4
    """
    import handoff
    from handoff.config import resolve_store

    with errors_as_click():
        open_existing_store(store_url)
        handoff.configure(store=resolve_store(store_url))
        report = handoff.replay(
            run_id, handoff_id, times, target, concurrency=concurrency, model=model,
            allow_side_effects=allow_side_effects,
        )  # fmt: skip
    if as_json:
        print_json(report.to_dict())
    elif as_markdown:
        click.echo(render_markdown(report))
    else:
        render_text(report)


def _kept(kept: int, replays: int) -> str:
    return f"kept in {kept} of {replays}"


def _summary(report) -> list[str]:
    errors = ", ".join(f"{name} {count}" for name, count in report.errors.items()) or "none"
    return [
        f"replayed {report.run_id} {report.handoff_id} (→ {report.step}) {report.replays} times with {report.target}"
        + (f" on model {report.model}" if report.model else ""),
        f"replay run {report.replay_run_id}  (handoff runs show {report.replay_run_id})",
        f"input: the stored (scrubbed) input, {report.pseudonyms} pseudonym{'s' if report.pseudonyms != 1 else ''}",
        f"outputs: {report.ok} returned, {report.distinct_outputs} distinct, "
        f"{report.original_reproduced} equal to the original output (by digest)",
        f"errors: {errors}",
    ]


def render_text(report) -> None:
    """Print the report for a person on a terminal."""
    for line in _summary(report):
        click.echo(line)
    if not report.constraints:
        click.echo("the original lost no constraint: nothing to count")
        return
    click.echo("")
    print_table(
        ["lost constraint", "class", "kept"],
        [[item.text, item.constraint_class, _kept(item.kept, report.replays)] for item in report.constraints],
    )


def render_markdown(report) -> str:
    """The report as Markdown for an incident ticket."""
    lines = [f"- {line}" for line in _summary(report)]
    if report.constraints:
        rows = [
            [f"`{item.text}`", item.constraint_class, _kept(item.kept, report.replays)] for item in report.constraints
        ]
        lines += ["", markdown_table(["lost constraint", "class", "kept"], rows)]
    return "\n".join(lines)
