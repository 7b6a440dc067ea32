"""Tiered retention: the policy (:mod:`.policy`), pins (:mod:`.pins`), and the job that applies them (:mod:`.job`).

from handoff.retention import apply, load_policy
report = apply(open_store("s3://bucket/traces"), load_policy("retention.toml"))
"""

from handoff.retention.job import Plan, Report, apply, plan
from handoff.retention.pins import Pin, pin, pinned_runs, unpin
from handoff.retention.policy import Override, Policy, Tier, default_policy, load_policy, parse_policy

__all__ = [
    "Override",
    "Pin",
    "Plan",
    "Policy",
    "Report",
    "Tier",
    "apply",
    "default_policy",
    "load_policy",
    "parse_policy",
    "pin",
    "pinned_runs",
    "plan",
    "unpin",
]
