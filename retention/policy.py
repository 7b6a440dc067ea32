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

A policy is hostile input until it parses: every ``max_age`` is a string with a unit naming a
positive whole number of days (at most a century), tiers and override fields are the known
ones, and anything else is refused with one line naming the key.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, NoReturn

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
    """Parse policy TOML; raise ``ValueError`` naming the problem and the key it is in, in one line."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"bad retention policy {source}: {str(exc).splitlines()[0]}") from exc
    fail = _failer(source)
    unknown = sorted(set(data) - {"tier", "override"})
    if unknown:
        fail(f"unknown key {unknown[0]!r} (a policy has [[tier]] and [[override]] tables only)")
    tier_items = _tables(data, "tier", fail)
    if not tier_items:
        fail("no [[tier]] defined")
    tiers = tuple(_parse_tier(item, fail) for item in tier_items)
    names = [tier.name for tier in tiers]
    duplicate = next((name for name in names if names.count(name) > 1), None)
    if duplicate is not None:
        fail(f"tier name {duplicate!r} is used twice")
    _check_order(tiers, fail)
    overrides = tuple(_parse_override(item, set(names), fail) for item in _tables(data, "override", fail))
    return Policy(tiers, overrides, source)


def _failer(source: str):
    def fail(message: str) -> NoReturn:
        raise ValueError(f"bad retention policy {source}: {message}")

    return fail


def _tables(data: Mapping[str, Any], key: str, fail) -> list[Mapping[str, Any]]:
    items = data.get(key, [])
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        fail(f"{key!r} must be [[{key}]] tables, not {_shown(items)}")
    return items


#: The longest age a policy may name: a century (longer is a typo, and overflows date arithmetic).
MAX_AGE_DAYS = 36_525


def _days(value: Any, where: str, fail) -> int:
    """Read a ``max_age``: a string of a positive whole number of days with a unit (``"30d"``, ``"720h"``)."""
    if not isinstance(value, str):
        fail(f'{where} max_age must be a duration string with a unit such as "30d", not {_shown(value)}')
    try:
        days = parse_duration(value) / timedelta(days=1)
    except ValueError as exc:
        fail(f"{where} max_age: {exc}")
    if days <= 0:
        fail(f"{where} max_age {value!r} must be longer than zero")
    if days != int(days):
        fail(f"{where} max_age {value!r} must be a whole number of days")
    if days > MAX_AGE_DAYS:
        fail(f"{where} max_age {value!r} is longer than {MAX_AGE_DAYS} days")
    return int(days)


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"[:80]


_TIER_KEYS = ("name", "max_age", "keeps")


def _parse_tier(item: Mapping[str, Any], fail) -> Tier:
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        fail(
            "every [[tier]] needs name and max_age"
            if name is None
            else f"tier name must be a non-empty string, not {_shown(name)}"
        )
    where = f"tier {name!r}"
    unknown = sorted(set(item) - set(_TIER_KEYS))
    if unknown:
        fail(f"{where}: unknown key {unknown[0]!r} (a tier has {', '.join(_TIER_KEYS)})")
    if "max_age" not in item:
        fail("every [[tier]] needs name and max_age")
    keeps_value = item.get("keeps", list(GROUPS))
    if not isinstance(keeps_value, list) or not all(isinstance(group, str) for group in keeps_value):
        fail(f"{where} keeps must be a list of group names, not {_shown(keeps_value)}")
    keeps = frozenset(keeps_value)
    bad = keeps - set(GROUPS)
    if bad:
        fail(f"{where} keeps unknown {sorted(bad)[0]!r} (one of {', '.join(GROUPS)})")
    return Tier(name, _days(item["max_age"], where, fail), keeps)


def _check_order(tiers: tuple[Tier, ...], fail) -> None:
    for before, after in zip(tiers, tiers[1:]):
        if after.max_age_days <= before.max_age_days:
            fail(f"tier {after.name!r} must be older than {before.name!r}")
        if not after.keeps <= before.keeps:
            fail(f"tier {after.name!r} keeps more than {before.name!r}")


def _parse_override(item: Mapping[str, Any], tier_names: set[str], fail) -> Override:
    tier = item.get("tier")
    if not isinstance(tier, str) or tier not in tier_names or "max_age" not in item:
        known = ", ".join(repr(name) for name in sorted(tier_names))  # names are hostile text: quoted
        detail = f"; tier {_shown(tier)} is not one of them" if "tier" in item and "max_age" in item else ""
        fail(f"every [[override]] needs max_age and tier (one of {known}){detail}")
    match = {key: value for key, value in item.items() if key not in ("tier", "max_age")}
    bad = sorted(set(match) - set(MATCH_FIELDS))
    if bad or not match:
        fail(f"override matches on {', '.join(MATCH_FIELDS)}; got {bad or 'nothing'}")
    for key, value in match.items():
        _check_match_value(key, value, fail)
    return Override(tier, _days(item["max_age"], f"override for tier {tier!r}", fail), match)


def _check_match_value(key: str, value: Any, fail) -> None:
    if key == "run_attributes":
        if not isinstance(value, dict) or not value or any(isinstance(v, (dict, list)) for v in value.values()):
            fail(
                f'override run_attributes must be a table of names to values, such as {{ customer = "acme" }}, not {_shown(value)}'
            )
    elif not isinstance(value, str):
        fail(f"override {key} must be a string, not {_shown(value)}")


def age_days(day: date, now: datetime) -> int:
    """Return how many whole days old a ``dt=`` partition is at ``now`` (its last instant counts)."""
    return (now.date() - day).days - 1
