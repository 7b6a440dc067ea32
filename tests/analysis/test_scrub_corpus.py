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


# A little below the figures measured when the split last grew (held-out with s12, a pass scored twice and
# never tuned on: names and addresses 818 / 913 = 0.896, pattern PII 747 / 761 = 0.982, secrets 465 / 481 = 0.967,
# kept 4565 / 4656 = 0.980, PII-free unchanged 60 / 89 = 0.674).
FLOORS = {"names": 0.88, "pattern": 0.96, "secrets": 0.93, "kept": 0.975, "clean": 0.60}
