"""Tables for the silent-failure signals: verification coverage (``handoff health``) and output collapse (``handoff alerts``)."""

from __future__ import annotations

from typing import Any

import click

from handoff.cli._render import markdown_table, print_table


def _emit(rows: list[list[Any]], columns: list[str], as_markdown: bool, title: str | None = None) -> None:
    if as_markdown:
        click.echo(markdown_table(columns, rows))
    else:
        print_table(columns, rows, title=title)


def print_collapses(collapses: list, as_markdown: bool) -> None:
    """Print one row per output-collapse alert (nothing when there is none)."""
    if not collapses:
        return
    columns = ["step", "alert", "severity", "outputs", "median", "baseline median", "ratio", "under baseline p10"]
    rows = [
        [
            c.step,
            c.check,
            c.severity,
            c.outputs,
            f"{c.median:g} {c.unit}",
            f"{c.baseline_median:g} {c.unit}",
            f"{c.ratio:.2f}",
            f"{c.below_low} of {c.outputs}",
        ]
        for c in collapses
    ]
    _emit(rows, columns, as_markdown)


def print_coverage(coverage: list, as_markdown: bool) -> None:
    """Print verification coverage per verifier step and a line for each that broke (nothing without verifiers).

    Coverage has one decimal: 1,927 of 1,930 runs is 99.8%, not a reassuring 100%.
    """
    if not coverage:
        return
    columns = ["verifier", "runs", "verified", "pass", "fail", "broken", "no verdict", "coverage"]
    rows = [
        [v.step, v.runs, v.verified, v.passed, v.failed, v.broken, v.unverdicted, f"{v.coverage:.1%}"] for v in coverage
    ]
    _emit(rows, columns, as_markdown, title="verification")
    for v in coverage:
        if v.broken or v.unverdicted:
            click.echo(("- " if as_markdown else "") + v.summary())


def coverage_json(v) -> dict:
    """One verifier step's coverage as ``handoff health --json`` prints it."""
    return {
        "step": v.step,
        "runs": v.runs,
        "verified": v.verified,
        "pass": v.passed,
        "fail": v.failed,
        "broken": v.broken,
        "no_verdict": v.unverdicted,
        "coverage": round(v.coverage, 4),
    }
