"""The retention policy: ordered tiers, what each keeps, and overrides per step or run.

A policy is a TOML file::

    [[tier]]
    name = "full"
    max_age = "30d"
    keeps = ["content", "constraints", "digests", "timings", "tokens", "attributes"]

    [[tier]]
    name = "digest"
    max_age = "365d"
    keeps = ["constraints", "digests", "timings", "tokens"]

    [[override]]            # errored runs keep their content for 90 days
    run_status = "error"
    tier = "full"
    max_age = "90d"

A row lives in the first tier whose ``max_age`` it has not reached; past the last tier it is
gone. Age is counted in whole UTC days of the row's ``dt=`` partition: a partition is past
``max_age`` once its last instant is at least that old. An override changes one tier's
``max_age`` for the rows it matches (``to_step``, ``from_step``, ``kind``, ``run_status``,
``run_attributes``); when several match, the longest wins.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from handoff.durations import parse_duration

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: What a tier can keep, and the ``handoffs`` columns each group covers. Identity columns
#: (ids, steps, kind, status, model, ts, trace ids) are always kept.
GROUPS: dict[str, tuple[str, ...]] = {
    "content": ("input_ref", "output_ref"),
    "constraints": ("input_constraints", "output_constraints", "constraints_version"),
    "digests": ("input_sha256", "output_sha256", "digest_alg", "input_bytes", "output_bytes"),
    "timings": ("duration_ms",),
    "tokens": ("input_tokens", "output_tokens", "tokens_estimated"),
    "attributes": ("attributes", "config", "error_message"),
}

#: Row fields an override may match on.
MATCH_FIELDS = ("to_step", "from_step", "kind", "run_status", "run_attributes")


@dataclass(frozen=True)
class Tier:
    """One tier: rows younger than ``max_age_days`` keep the column groups in ``keeps``."""

    name: str
    max_age_days: int
    keeps: frozenset[str]

    def keeps_content(self) -> bool:
        """Tell whether rows in this tier keep their stored content."""
        return "content" in self.keeps


@dataclass(frozen=True)
class Override:
    """A longer (or shorter) ``max_age_days`` for tier ``tier`` on rows matching ``match``."""

    tier: str
    max_age_days: int
    match: Mapping[str, Any] = field(default_factory=dict)

    def matches(self, row: Mapping[str, Any]) -> bool:
        """Tell whether a handoff row (with ``run_status``/``run_attributes`` joined in) matches."""
        for name, wanted in self.match.items():
            if name == "run_attributes":
                have = row.get("run_attributes") or {}
                if any(have.get(key) != str(value) for key, value in wanted.items()):
                    return False
            elif row.get(name) != wanted:
                return False
        return True


@dataclass(frozen=True)
class Policy:
    """Ordered tiers plus overrides; see the module docstring for the rules."""

    tiers: tuple[Tier, ...]
    overrides: tuple[Override, ...] = ()
    source: str = "default"

    def rank(self, tier_name: str | None) -> int:
        """Return the position of a tier by name (unknown names count as the first tier)."""
        names = [tier.name for tier in self.tiers]
        return names.index(tier_name) if tier_name in names else 0

    def boundaries_days(self) -> list[int]:
        """Return every distinct age, in days, at which some row changes tier."""
        ages = {tier.max_age_days for tier in self.tiers} | {o.max_age_days for o in self.overrides}
        return sorted(ages)

    def horizon_days(self) -> int:
        """Return the age past which nothing but pinned runs is kept, in any table."""
        return max(self.boundaries_days())

    def tier_for(self, row: Mapping[str, Any], age_days: int) -> int | None:
        """Return the index of the tier a row of this age belongs in, or ``None`` when it is gone."""
        for index, tier in enumerate(self.tiers):
            if age_days < self._max_age(tier, row):
                return index
        return None

    def _max_age(self, tier: Tier, row: Mapping[str, Any]) -> int:
        ages = [o.max_age_days for o in self.overrides if o.tier == tier.name and o.matches(row)]
        return max(ages) if ages else tier.max_age_days

    def needs_runs(self) -> bool:
        """Tell whether any override matches on run fields (so the job must read the runs table)."""
        return any(name.startswith("run_") for o in self.overrides for name in o.match)

    def digest(self) -> str:
        """Return a short hash of the rules (not the source): a changed policy makes the job rescan."""
        return hashlib.sha256(
            json.dumps(self.to_dict()["tiers"] + self.to_dict()["overrides"], sort_keys=True).encode()
        ).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        """Return the effective policy as plain data (for ``retention show --json`` and reports)."""
        tiers = [{"name": t.name, "max_age_days": t.max_age_days, "keeps": sorted(t.keeps)} for t in self.tiers]
        overrides = [{**asdict(o), "match": dict(o.match)} for o in self.overrides]
        return {"source": self.source, "tiers": tiers, "overrides": overrides}


DEFAULT_TOML = """\
# 30 days of full content, then 12 months of digests, token counts and timings, then gone.
[[tier]]
name = "full"
max_age = "30d"
keeps = ["content", "constraints", "digests", "timings", "tokens", "attributes"]

[[tier]]
name = "digest"
max_age = "365d"
keeps = ["constraints", "digests", "timings", "tokens"]
"""


def default_policy() -> Policy:
    """Return the default policy: 30 days full, then 365 days digest, then gone."""
    return parse_policy(DEFAULT_TOML, source="default")


def load_policy(path: str | Path | None = None) -> Policy:
    """Read a policy file; ``None`` means the default policy. Raise ``ValueError`` on a bad file."""
    if path is None:
        return default_policy()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read retention policy {path}: {exc.strerror or exc}") from exc
    return parse_policy(text, source=str(path))


def parse_policy(text: str, *, source: str = "<string>") -> Policy:
    """Parse policy TOML; raise ``ValueError`` naming the problem."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"bad retention policy {source}: {exc}") from exc
    unknown = set(data) - {"tier", "override"}
    if unknown:
        raise ValueError(f"bad retention policy {source}: unknown section {sorted(unknown)[0]!r}")
    tiers = tuple(_parse_tier(item, source) for item in data.get("tier", []))
    if not tiers:
        raise ValueError(f"bad retention policy {source}: no [[tier]] defined")
    _check_order(tiers, source)
    names = {tier.name for tier in tiers}
    overrides = tuple(_parse_override(item, names, source) for item in data.get("override", []))
    return Policy(tiers, overrides, source)


def _days(value: Any, source: str) -> int:
    if isinstance(value, int):
        return value
    days = parse_duration(str(value)) / timedelta(days=1)
    if days != int(days) or days <= 0:
        raise ValueError(f"bad retention policy {source}: max_age {value!r} must be a whole number of days")
    return int(days)


def _parse_tier(item: Mapping[str, Any], source: str) -> Tier:
    if "name" not in item or "max_age" not in item:
        raise ValueError(f"bad retention policy {source}: every [[tier]] needs name and max_age")
    keeps = frozenset(item.get("keeps", GROUPS))
    bad = keeps - set(GROUPS)
    if bad:
        raise ValueError(
            f"bad retention policy {source}: tier {item['name']!r} keeps unknown {sorted(bad)[0]!r} (one of {', '.join(GROUPS)})"
        )
    return Tier(str(item["name"]), _days(item["max_age"], source), keeps)


def _check_order(tiers: tuple[Tier, ...], source: str) -> None:
    for before, after in zip(tiers, tiers[1:]):
        if after.max_age_days <= before.max_age_days:
            raise ValueError(f"bad retention policy {source}: tier {after.name!r} must be older than {before.name!r}")
        if not after.keeps <= before.keeps:
            raise ValueError(f"bad retention policy {source}: tier {after.name!r} keeps more than {before.name!r}")


def _parse_override(item: Mapping[str, Any], tier_names: set[str], source: str) -> Override:
    if item.get("tier") not in tier_names or "max_age" not in item:
        raise ValueError(
            f"bad retention policy {source}: every [[override]] needs max_age and tier (one of {', '.join(sorted(tier_names))})"
        )
    match = {key: value for key, value in item.items() if key not in ("tier", "max_age")}
    bad = set(match) - set(MATCH_FIELDS)
    if bad or not match:
        raise ValueError(
            f"bad retention policy {source}: override matches on {', '.join(MATCH_FIELDS)}; got {sorted(bad) or 'nothing'}"
        )
    return Override(str(item["tier"]), _days(item["max_age"], source), match)


def age_days(day: date, now: datetime) -> int:
    """Return how many whole days old a ``dt=`` partition is at ``now`` (its last instant counts)."""
    return (now.date() - day).days - 1
