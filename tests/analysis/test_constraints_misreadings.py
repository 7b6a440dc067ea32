"""Systematic misreadings of faithful rewrites, one family per test: each example is new, not from the corpus."""

from __future__ import annotations

from handoff.analysis.constraints import lost_tokens, stored_tokens


def lost(upstream: str, downstream: str) -> list[str]:
    """The tokens compare_constraints finds lost or changed between two texts, as the writer stores them."""
    return lost_tokens(stored_tokens(upstream), stored_tokens(downstream))


def test_a_key_ending_in_min_after_a_word_of_time_counts_minutes():
    """``_min`` closing a key whose words name a stretch of time is its unit, not a minimum."""
    up = '{"job": "nightly-export", "retry_delay_min": 15, "queue_wait_time_min": 40, "workers_min": 3}'
    assert "unit:15 min" in stored_tokens(up) and "unit:40 min" in stored_tokens(up)
    down = "The nightly export retries after 15 minutes, jobs may queue for 40 minutes, and at least 3 workers run."
    assert lost(up, down) == []
    # a key whose words name no time keeps "_min" as its minimum
    assert "comparison:>= number:3" in stored_tokens(up)
    assert lost(up, down.replace("at least 3 workers", "3 workers")) == ["comparison:>= number:3"]
