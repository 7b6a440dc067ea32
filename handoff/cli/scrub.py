"""``handoff scrub-test FILE|-``: show what the scrubber would redact, and why, for tuning."""

from __future__ import annotations

import collections
import json
import os
import secrets

import click

from handoff.cli._options import json_option


@click.command("scrub-test")
@click.argument("source", metavar="FILE|-", type=click.File("rb"))
@click.option(
    "--json-payload", "as_json_payload", is_flag=True, help="Treat the input as a JSON payload (scrub string values)."
)
@click.option(
    "--entities", default=None, metavar="LIST", help="Comma list of entity types (env HANDOFF_SCRUB_ENTITIES)."
)
@click.option(
    "--allow", multiple=True, metavar="REGEX", help="A value that must survive (repeatable; env HANDOFF_SCRUB_ALLOW)."
)
@click.option("--spacy-model", default=None, metavar="NAME", help="Installed spaCy NER model for PERSON and LOCATION.")
@click.option(
    "--threshold", default=0.5, show_default=True, type=click.FloatRange(0, 1), help="Minimum score to redact."
)
@click.option("--scrubbed", is_flag=True, help="Print the scrubbed text instead of the findings.")
@json_option
def scrub_test(
    source,
    as_json_payload: bool,
    entities: str | None,
    allow: tuple[str, ...],
    spacy_model: str | None,
    threshold: float,
    scrubbed: bool,
    as_json: bool,
) -> None:
    """Show what would be redacted in FILE (or stdin) and why: entity, score, recognizer.

    Findings print as `LINE:COLUMN ENTITY score=S recognizer=NAME text` (the raw text is shown:
    this runs on your terminal, nothing is stored). Pseudonyms use HANDOFF_SCRUB_KEY when set.

    Example:

        printenv | handoff scrub-test - --allow 'build-\\d+'
    """
    from handoff.analysis.scrub import Scrubber, ScrubError

    data = source.read()
    try:
        scrubber = _scrubber(Scrubber, entities, allow, spacy_model, threshold)
        if scrubbed:
            content_type = "application/json" if as_json_payload else "text/plain; charset=utf-8"
            output = scrubber.scrub_bytes(data, content_type).decode("utf-8", "replace")
            click.echo(output, nl=not output.endswith("\n"))
            return
        text = data.decode("utf-8", "replace")
        findings = scrubber.analyze(text)
    except (ScrubError, ValueError) as exc:
        raise click.ClickException(str(exc).splitlines()[0]) from None
    if as_json:
        click.echo(json.dumps([f._asdict() for f in findings], indent=2, ensure_ascii=False))
        return
    for finding in findings:
        click.echo(_finding_line(text, finding))
    click.echo(_summary(findings))


def _scrubber(scrubber_cls, entities: str | None, allow: tuple[str, ...], spacy_model: str | None, threshold: float):
    """Build the scrubber the writer would build (same environment), with the flags winning."""
    key = os.environ.get("HANDOFF_SCRUB_KEY") or secrets.token_bytes(32)  # a key of its own: no warning
    entity_list = entities.split(",") if entities else None
    return scrubber_cls.from_env(
        key, entities=entity_list, allow=allow, spacy_model=spacy_model, score_threshold=threshold
    )


def _finding_line(text: str, finding) -> str:
    line = text.count("\n", 0, finding.start) + 1
    column = finding.start - (text.rfind("\n", 0, finding.start) + 1) + 1
    shown = finding.text if len(finding.text) <= 60 else finding.text[:57] + "..."
    found = f"{finding.entity} score={finding.score:.2f} recognizer={finding.recognizer}"
    return f"{line}:{column} {found} {json.dumps(shown, ensure_ascii=False)}"


def _summary(findings: list) -> str:
    if not findings:
        return "no findings"
    counts = collections.Counter(f.entity for f in findings)
    by_entity = ", ".join(f"{entity} {count}" for entity, count in sorted(counts.items()))
    return f"{len(findings)} finding{'s' if len(findings) != 1 else ''}: {by_entity}"
