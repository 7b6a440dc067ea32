"""`handoff scrub-test`: what the scrubber would redact and why, on a file or stdin."""

from __future__ import annotations

import json

from click.testing import CliRunner

from handoff.cli import main
from tests.analysis.test_scrub import KEY, token


def test_scrub_test_cli_lists_findings_with_entity_score_and_recognizer(tmp_path):
    """`handoff scrub-test FILE` prints one line per finding (position, entity, score, recognizer, text) and a summary."""
    path = tmp_path / "ticket.txt"
    path.write_text(
        "mail li.chen@fabrikam.de or call +1 415-555-0134\ninvoice INV-88214 $172,000.00 on 2026-11-29\npassword=hunter2xyz\n"
    )
    result = CliRunner().invoke(main, ["scrub-test", str(path)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        '1:6 EMAIL_ADDRESS score=1.00 recognizer=EmailRecognizer "li.chen@fabrikam.de"',
        '1:34 PHONE_NUMBER score=0.85 recognizer=LabelledPhoneRecognizer "+1 415-555-0134"',
        '3:10 PASSWORD score=0.90 recognizer=CredentialKeyRecognizer "hunter2xyz"',
        "3 findings: EMAIL_ADDRESS 1, PASSWORD 1, PHONE_NUMBER 1",
    ]


def test_scrub_test_cli_reads_stdin_prints_scrubbed_text_and_reports_bad_flags(monkeypatch):
    """`handoff scrub-test - --scrubbed` shows the stored form, `--json` the findings; a bad entity is a one-line error, exit 1."""
    monkeypatch.setenv("HANDOFF_SCRUB_KEY", KEY)
    result = CliRunner().invoke(main, ["scrub-test", "-", "--scrubbed"], input="ip 203.0.113.42 v2.3.1\n")
    assert (result.exit_code, result.output) == (0, f"ip {token('IP_ADDRESS', '203.0.113.42')} v2.3.1\n")
    as_json = CliRunner().invoke(main, ["scrub-test", "-", "--json"], input="ip 203.0.113.42 v2.3.1\n")
    assert json.loads(as_json.output) == [
        {
            "entity": "IP_ADDRESS",
            "start": 3,
            "end": 15,
            "score": 0.95,
            "recognizer": "IpRecognizer",
            "text": "203.0.113.42",
        }
    ]
    bad = CliRunner().invoke(main, ["scrub-test", "-", "--entities", "NOPE"], input="x")
    assert bad.exit_code == 1
    assert bad.output.splitlines()[0].startswith("Error: unknown scrub entities: NOPE")
