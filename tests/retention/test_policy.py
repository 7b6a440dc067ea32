"""The retention policy file: tiers, what they keep, overrides, and the age rule."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest

from handoff.retention.policy import age_days, default_policy, load_policy, parse_policy

POLICY = """
[[tier]]
name = "full"
max_age = "30d"

[[tier]]
name = "digest"
max_age = "365d"
keeps = ["digests", "timings", "tokens", "constraints"]

[[override]]
run_status = "error"
tier = "full"
max_age = "90d"

[[override]]
to_step = "orchestrator.compress_v3"
tier = "full"
max_age = "60d"

[[override]]
run_attributes = { legal = "hold" }
tier = "digest"
max_age = "730d"
"""


def test_default_policy_is_30_days_full_then_365_days_digest():
    """Without a policy file, content lives 30 days and digests, tokens, timings and constraints a year."""
    data = default_policy().to_dict()
    assert data["tiers"] == [
        {
            "name": "full",
            "max_age_days": 30,
            "keeps": ["attributes", "constraints", "content", "digests", "timings", "tokens"],
        },
        {"name": "digest", "max_age_days": 365, "keeps": ["constraints", "digests", "timings", "tokens"]},
    ]
    assert data["overrides"] == []


def test_a_row_moves_tier_by_whole_days_of_its_partition():
    """A day partition reaches age N once its last instant is N days old, not before."""
    now = datetime(2026, 11, 29, 3, 17, tzinfo=timezone.utc)
    assert age_days(date(2026, 10, 29), now) == 30
    assert age_days(date(2026, 10, 30), now) == 29
    policy = default_policy()
    assert [policy.tier_for({}, age) for age in (0, 29, 30, 364, 365)] == [0, 0, 1, 1, None]


def test_overrides_match_run_status_step_and_run_attributes(tmp_path):
    """Errored runs, one step and held runs get their own ages; the longest matching age wins."""
    path = tmp_path / "retention.toml"
    path.write_text(POLICY, encoding="utf-8")
    policy = load_policy(path)
    errored = {"run_status": "error", "to_step": "orchestrator.compress_v3"}
    assert policy.tier_for(errored, 89) == 0
    assert policy.tier_for({"to_step": "orchestrator.compress_v3"}, 59) == 0
    assert policy.tier_for({"to_step": "orchestrator.compress_v3"}, 60) == 1
    assert policy.tier_for({"to_step": "price"}, 30) == 1
    assert policy.tier_for({"run_attributes": {"legal": "hold"}}, 729) == 1
    assert policy.tier_for({"run_attributes": {"legal": "no"}}, 365) is None
    assert policy.boundaries_days() == [30, 60, 90, 365, 730]
    assert policy.tiers[0].keeps_content() and not policy.tiers[1].keeps_content()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[tier]]\nname = "full"\n', "every [[tier]] needs name and max_age"),
        (
            '[[tier]]\nname = "a"\nmax_age = "30d"\n[[tier]]\nname = "b"\nmax_age = "10d"\n',
            "tier 'b' must be older than 'a'",
        ),
        ('[[tier]]\nname = "a"\nmax_age = "30d"\nkeeps = ["secrets"]\n', "tier 'a' keeps unknown 'secrets'"),
        ('[[tier]]\nname = "a"\nmax_age = "36h"\n', "max_age '36h' must be a whole number of days"),
        ('[[tier]]\nname = "a"\nmax_age = "soon"\n', "bad duration 'soon'"),
        (
            '[[tier]]\nname = "a"\nmax_age = "30d"\n[[override]]\ntier = "a"\nmax_age = "9d"\nmodel = "x"\n',
            "override matches on",
        ),
        ("[[tier]\n", "bad retention policy <string>"),
        ("", "no [[tier]] defined"),
    ],
)
def test_a_bad_policy_is_refused_with_the_reason(text, message):
    """A policy mistake stops the job before it touches the store, naming what is wrong."""
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse_policy(text)


def test_a_missing_policy_file_is_a_one_line_error(tmp_path):
    """Pointing at a policy file that does not exist fails with its path."""
    with pytest.raises(ValueError, match="cannot read retention policy .*nope.toml"):
        load_policy(tmp_path / "nope.toml")
