"""``handoff demo``: record the reference incident (INV-88214) and show it."""

from __future__ import annotations

import click

from handoff.cli._common import errors_as_click, open_views
from handoff.cli._options import store_option


@click.command()
@store_option
@click.option(
    "--flush-timeout",
    type=click.FloatRange(min=0),
    default=600.0,
    show_default=True,
    help="Seconds to wait for the records to reach the store; past it, say how many did not and exit 1.",
)
def demo(store_url: str | None, flush_timeout: float) -> None:
    """Run the INV-88214 pipeline (and a few clean invoices) into the store and show its run.

    The pipeline is real and instrumented; the model calls are deterministic stand-ins. The
    compressor between validate and price drops "surcharge base is the rebated subtotal per
    7.2(b)", and the pricer overcharges: total $171,312.00 instead of $169,825.06.

    Example:

        handoff demo --store ./.handoff && handoff runs list
    """
    from handoff.cli.runs import render_run
    from handoff.config import resolve_store
    from handoff.demo import run_demo
    from handoff.queries.runs import get_run

    with errors_as_click():
        runs = run_demo(resolve_store(store_url), flush_timeout_s=flush_timeout)
        _store, con = open_views(resolve_store(store_url))
        run = get_run(con, runs["INV-88214"])
    click.echo(f"recorded {len(runs)} runs; INV-88214 is {runs['INV-88214']}\n")
    render_run(run)
    run_id = runs["INV-88214"]
    click.echo(
        "\nNext, find the failing edge (compression alert, constraint loss, the diff, other runs hit):\n"
        "  handoff alerts --since 1h\n"
        f"  handoff check {run_id}\n"
        f"  handoff diff {run_id} hf-2 hf-4\n"
        f"  handoff blast-radius {run_id} hf-3"
    )
