"""Prefilters: for every entity, a cheap necessary condition on one line, so most lines never reach Presidio.

A line no prefilter passes cannot hold a finding (no ``@``, no email).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from handoff.analysis.scrub.patterns import (
    IPV4_LIKE,
    PHONE_CANDIDATE,
    PHONE_MIN_DIGITS,
    QUERY_KEYS,
    digit_count,
    phone_shaped,
)

_IPV6_HINT = re.compile(r"::|(?:[0-9a-fA-F]{1,4}:){3}")
_LONG_NUMBER = re.compile(r"\d[\d \-.()/]{5,}\d")
PREFILTER_PATTERNS: dict[str, re.Pattern[str]] = {
    "EMAIL_ADDRESS": re.compile(r"@\w"),
    "CREDIT_CARD": re.compile(r"\d(?:[ \-]?\d){12,18}"),
    "US_SSN": re.compile(r"\b\d{3}[\- .]\d{2}[\- .]\d{4}\b"),
    "CRYPTO": re.compile(r"(?<![a-zA-Z0-9])(?:bc1|[13])[a-zA-HJ-NP-Z0-9]{25,59}"),
    "AWS_ACCESS_KEY": re.compile(r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16}"),
    # Presidio's IBAN pattern (case-insensitive): a country code, two check digits, then 9 to 30 more characters.
    "IBAN_CODE": re.compile(r"[A-Za-z]{2}[ \-]?\d{2}(?:[ \-]?[A-Za-z0-9]){9}"),
    "URL_CREDENTIAL": re.compile(r"://[^\s/@]+@|[?&;](?i:" + QUERY_KEYS + r")="),
}


def _ip_gate(line: str, lower: str, digits: int, long_number: bool) -> bool:
    if long_number and "." in line and IPV4_LIKE.search(line):
        return True
    return line.count(":") >= 2 and _IPV6_HINT.search(line) is not None


def _phone_gate(line: str, lower: str, digits: int, long_number: bool) -> bool:
    return long_number and any(phone_shaped(m.group()) for m in PHONE_CANDIDATE.finditer(line))


# A prefilter is a necessary condition for its entity on one line: a line no prefilter passes
# cannot hold a finding, so Presidio never sees it. Keyword entities need one of their words
# (lowercase) on the line; the others pass a gate on (line, lowercase line, digit count, whether
# a long number is on the line) and then, where there is one, a cheap pattern. Cards, SSNs,
# phone numbers, IPv4 addresses and IBAN account parts all hold a long number: seven or more
# characters of digits and separators, which most lines (amounts, dates, ids) do not.
KEYWORDS: dict[str, tuple[str, ...]] = {
    "PRIVATE_KEY": ("private key",),
    "AWS_SECRET_KEY": ("secret",),
    "API_KEY": ("sk-", "_live_", "_test_"),
    "GITHUB_TOKEN": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "SLACK_TOKEN": ("xox",),
    "JWT": ("eyj",),
    "AUTH_TOKEN": ("authorization", "bearer", "api-key", "auth-token", "cookie"),
    "PASSWORD": ("pass", "pwd"),
    "SECRET": ("secret", "token", "key", "credential"),
}
GATES: dict[str, Callable[[str, str, int, bool], bool]] = {
    "EMAIL_ADDRESS": lambda line, lower, digits, long_number: "@" in line,
    "PHONE_NUMBER": _phone_gate,
    "CREDIT_CARD": lambda line, lower, digits, long_number: long_number and digits >= 13,
    "IBAN_CODE": lambda line, lower, digits, long_number: long_number and digits >= 8,
    "IP_ADDRESS": _ip_gate,
    "US_SSN": lambda line, lower, digits, long_number: long_number and digits >= 9,
    "CRYPTO": lambda line, lower, digits, long_number: digits >= 1 and len(line) >= 26,
    "AWS_ACCESS_KEY": lambda line, lower, digits, long_number: len(line) >= 20,
    "URL_CREDENTIAL": lambda line, lower, digits, long_number: "=" in line or "@" in line,
    "PERSON": lambda line, lower, digits, long_number: True,
    "LOCATION": lambda line, lower, digits, long_number: True,
}


class Prefilter:
    """Tells which of ``entities`` could have a finding on a line, cheaply; ``custom`` maps
    configured entities to their own regexes, which serve as their prefilters."""

    def __init__(self, entities: Iterable[str], custom: Iterable[tuple[str, re.Pattern[str]]] = ()) -> None:
        wanted = frozenset(entities)
        self._entities_by_word: dict[str, frozenset[str]] = {}
        for entity, words in KEYWORDS.items():
            for word in words if entity in wanted else ():
                self._entities_by_word[word] = self._entities_by_word.get(word, frozenset()) | {entity}
        words = "|".join(map(re.escape, sorted(self._entities_by_word, key=len, reverse=True)))
        self._any_word = re.compile(words).search if words else None
        self._gates = [(e, GATES[e], PREFILTER_PATTERNS.get(e)) for e in sorted(wanted) if e in GATES]
        self._custom = list(custom)

    def __call__(self, line: str) -> frozenset[str]:
        """The entities whose necessary condition holds on ``line``."""
        lower = line.lower()
        digits = digit_count(line)
        long_number = digits >= PHONE_MIN_DIGITS and _LONG_NUMBER.search(line) is not None
        found = set()
        if self._any_word and self._any_word(lower):  # one search rejects most lines; then every word counts
            found.update(e for word, entities in self._entities_by_word.items() if word in lower for e in entities)
        found.update(
            e
            for e, gate, pattern in self._gates
            if gate(line, lower, digits, long_number) and (pattern is None or pattern.search(line))
        )
        found.update(entity for entity, pattern in self._custom if pattern.search(line))
        return frozenset(found)
