"""Scrubbing a text of independent lines gives what scrubbing each line alone gives: the batched
whole-text path (lines joined, keyword windows merged, cache filled) and the one-line path agree.

The lines are written for this test: each holds its own secret or business value and needs no
neighbour (no name mentioned again, no YAML parent key, no table header, no street line)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handoff.analysis.scrub import Scrubber

LINES = [
    "Runbook RB-OPS-044: restart the tariff sync after a key rotation",
    "The new operator token is in Vault; the shared secret for the Kuehne rates API is Wd8KpL3xQz7Rt2Mv9Bn4",
    "The monthly token budget is 2,400,000 for the summarizer step.",
    "The API is Hq4Zr8Xm2Lp6Tc9Vb3Nw7Ks until the vault migration ends.",
    "Use the cache key invoice-2026-03 for the lookup.",
    "password: Harbour!Gate77 for the sftp user",
    "The portal password is fjordkrane and must change monthly.",
    "auth ok for svc-billing at 2026-03-04T10:22:01Z",
    "Quote RQ-2026-88120 covers 3 pallets Rotterdam to Hamburg at EUR 418.20.",
    "export STRIPE_KEY=sk_live_51Kx8Rt2Wq4Zy6Ab8Cd0Ef2Gh4Ij6Kl8Mn0Op",
    "secret rotation is scheduled for Friday 06:00 UTC",
    'curl -H "X-Api-Key: Tm7Qw2Er9Ty4Ui6Op1As8Df3" https://rates.example.net/v2/quote',
    "The access key for the archive bucket is AKIAW4RT7QX2PLMZ9NB3 (read only).",
    "Clause 7.2(b) applies to every shipment over 1,850 kg.",
    "signature pending on PO-2026-0441",
    "The webhook secret is Zr5Xq9Lm2Wp7Kt4Vn8Bc and the retry limit is 5.",
    "token=Jx8Lq2Zm9Rt4Wv7Pk3Nb6Hc&page=2 was in the failing request",
    "build 4.12.0 shipped; the release key id is 7F3A9C21",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(LINES), min_size=2, max_size=8))
def test_a_text_of_independent_lines_scrubs_as_its_lines_do(lines: list[str]) -> None:
    whole = Scrubber("line-independence-key").scrub_text("\n".join(lines))
    alone = Scrubber("line-independence-key")
    assert whole == "\n".join(alone.scrub_text(line) for line in lines)


def test_a_token_after_a_credential_word_is_found_when_the_line_above_ends_in_a_key_word() -> None:
    # The line above opens a keyword window that ran into this line and cut it at the first line end.
    text = f"{LINES[0]}\n\n{LINES[1]}"
    assert "Wd8KpL3xQz7Rt2Mv9Bn4" not in Scrubber("k").scrub_text(text)
