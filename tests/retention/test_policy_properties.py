"""Property tests over whole retention policy files: any document parses to a safe policy or is refused.

The field-level properties (every ``max_age`` text) are in test_hostile.py; these feed complete
TOML documents, built from the policy's own keys and from arbitrary ones, with values of every
TOML type, and arbitrary text, to the parser a cron job runs.
"""

from __future__ import annotations

import json
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from handoff.retention.policy import GROUPS, MATCH_FIELDS, MAX_AGE_DAYS, Policy, parse_policy

KNOWN_KEYS = ("name", "max_age", "keeps", "tier", "match", *MATCH_FIELDS)
AGES = st.one_of(
    st.sampled_from(["30d", "12mo", "365d", "1y", "2w", "0d", "-5d", "5", "30 days", "9999999999d", "90 d"]),
    st.integers(min_value=-10, max_value=10**12),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
SCALARS = st.one_of(
    st.text(max_size=20),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
)
VALUES = st.one_of(
    SCALARS,
    AGES,
    st.lists(st.one_of(st.sampled_from(sorted(GROUPS)), st.text(max_size=10)), max_size=4),
)
KEYS = st.one_of(st.sampled_from(KNOWN_KEYS), st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=10))
TABLE = st.dictionaries(KEYS, VALUES, max_size=5)
DOCUMENT = st.fixed_dictionaries(
    {"tier": st.lists(TABLE, max_size=4), "override": st.lists(TABLE, max_size=3)},
    optional={"extra": SCALARS},
)


GROUP_NAMES = sorted(GROUPS)
HOSTILE = st.one_of(AGES, st.sampled_from(["0d", "-5d", "5", "36526d", "1.5d", "12h"]))


@st.composite
def mostly_valid_documents(draw):
    """A policy close to a real one (ordered tiers, shrinking keeps, overrides naming a tier), then mutated."""
    days = sorted(draw(st.sets(st.integers(min_value=1, max_value=MAX_AGE_DAYS), min_size=1, max_size=3)))
    names = draw(
        st.lists(st.text(min_size=1, max_size=8).filter(str.strip), min_size=len(days), max_size=len(days), unique=True)
    )
    keeps = list(GROUP_NAMES)
    tiers = []
    for name, age in zip(names, days):
        tiers.append({"name": name, "max_age": f"{age}d", "keeps": list(keeps)})
        keeps = keeps[: draw(st.integers(min_value=0, max_value=len(keeps)))]
    overrides = [
        {
            "tier": draw(st.sampled_from(names)),
            "max_age": f"{draw(st.integers(1, MAX_AGE_DAYS))}d",
            draw(st.sampled_from(MATCH_FIELDS[:4])): draw(st.text(max_size=8)),
        }
        for _ in range(draw(st.integers(min_value=0, max_value=2)))
    ]
    doc = {"tier": tiers, "override": overrides}
    mutated = draw(st.booleans())
    if mutated:  # one hostile change: a bad age, a stray key, a wrong type
        table = draw(st.sampled_from(tiers + overrides))
        table[draw(KEYS)] = draw(st.one_of(HOSTILE, VALUES))
    return doc, mutated


def toml_value(value: object) -> str:
    """Render one value as TOML (JSON string escapes are TOML basic-string escapes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")  # TOML forbids a raw DEL


def toml_document(doc: dict) -> str:
    """Render a generated document: top-level scalars, then arrays of tables."""
    lines = [f"{key} = {toml_value(value)}" for key, value in doc.items() if key not in ("tier", "override")]
    for section in ("tier", "override"):
        for table in doc[section]:
            lines.append(f"[[{section}]]")
            lines.extend(f"{toml_value(key)} = {toml_value(value)}" for key, value in table.items())
    return "\n".join(lines) + "\n"


def assert_safe_or_refused(text: str) -> Policy | None:
    """The parser either returns a policy that keeps everything at least a day or raises one line."""
    try:
        policy = parse_policy(text, source="policy.toml")
    except ValueError as exc:
        message = str(exc)
        assert message.startswith("bad retention policy policy.toml: ") and "\n" not in message
        return None
    assert isinstance(policy, Policy) and policy.tiers
    ages = [tier.max_age_days for tier in policy.tiers] + [o.max_age_days for o in policy.overrides]
    assert all(isinstance(age, int) and 1 <= age <= MAX_AGE_DAYS for age in ages)
    assert all(tier.keeps <= set(GROUPS) for tier in policy.tiers)
    assert {o.tier for o in policy.overrides} <= {tier.name for tier in policy.tiers}
    return policy


@settings(max_examples=300, deadline=None)
@given(DOCUMENT)
def test_any_policy_document_parses_to_a_safe_policy_or_one_error_line(doc):
    """A cron job given any policy file either gets tiers of 1 day to a century or refuses in one line."""
    assert_safe_or_refused(toml_document(doc))


@settings(max_examples=300, deadline=None)
@given(mostly_valid_documents())
def test_a_policy_that_parses_keeps_exactly_the_ages_it_names(case):
    """A valid policy means what it says (each tier's age as written); one hostile change is refused or harmless."""
    doc, mutated = case
    policy = assert_safe_or_refused(toml_document(doc))
    written = [tier.get("max_age") for tier in doc["tier"]]
    if policy is not None and all(isinstance(age, str) and age.endswith("d") for age in written):
        assert [tier.max_age_days for tier in policy.tiers] == [int(age[:-1]) for age in written]
    if not mutated:
        assert policy is not None, "an unmutated, well-formed policy must parse"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_as_a_policy_is_refused_in_one_line_or_parsed_safely(text):
    """Arbitrary bytes in the policy file never raise anything but a one-line ValueError."""
    assert_safe_or_refused(text)
