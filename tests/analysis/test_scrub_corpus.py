"""The held-out split of the labelled scrub corpus, recorded the way a user runs the recorder (``-s`` prints the table)."""

from __future__ import annotations

import pytest

from tests.analysis.eval_scrub import NAMES_AND_ADDRESSES, SECRETS, evaluate, table

pytestmark = pytest.mark.slow


def _ratio(score, kinds) -> float:
    planted = sum(score.planted[k] for k in kinds)
    return sum(score.removed[k] for k in kinds) / planted


def test_heldout_corpus_meets_the_floors():
    """Names, pattern PII and secrets are removed and business values kept on texts nobody tuned on."""
    score = evaluate("heldout")
    print("\n" + table(score))
    pattern = tuple(k for k in score.planted if k not in NAMES_AND_ADDRESSES + SECRETS)
    assert _ratio(score, NAMES_AND_ADDRESSES) >= FLOORS["names"]
    assert _ratio(score, pattern) >= FLOORS["pattern"]
    assert _ratio(score, SECRETS) >= FLOORS["secrets"]
    assert score.kept / score.keep_total >= FLOORS["kept"]
    assert score.clean_unchanged / score.clean_total >= FLOORS["clean"]


# A little below the figures measured when the split last grew (held-out at b4342dc with s9, a pass
# scored once and never tuned on: names and addresses 461 / 513 = 0.899, pattern PII 412 / 421 = 0.979,
# secrets 218 / 230 = 0.948, kept 2268 / 2315 = 0.980, PII-free unchanged 32 / 49 = 0.653).
FLOORS = {"names": 0.88, "pattern": 0.96, "secrets": 0.93, "kept": 0.975, "clean": 0.60}
