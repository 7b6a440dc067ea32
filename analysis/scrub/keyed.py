"""Random-looking tokens near a word that names a credential, in any layout: ``api key: Xj4k…``,
``auth token 9f8e…`` (prose), ``--token 8d7f…``, ``?key=Rk4L…``, an XML ``key="StorageKey" value="…"``
pair and a Kubernetes ``name: API_TOKEN`` / ``value: …`` pair.

The key word only opens a window (the rest of its line, up to 80 characters); inside it a token
counts when it looks generated, in the spirit of detect-secrets' high-entropy plugins: 16 or more
characters of a base64/base62/hex alphabet mixing letters and digits, with enough Shannon entropy,
that is not a UUID, a digest named as one, a URL, a dotted name or a run of words.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.windows import aligned_lower, keyword_windows

# Words that name a credential (lower case; matched at a word start, see keyword_windows).
_KEY_WORDS = (
    "secret", "token", "password", "passwd", "passphrase", "pwd", "credential", "apikey", "api key", "api_key",
    "api-key", "api ", "api:", "access key", "access_key", "private key", "auth", "bearer", "signature", "sig=", "key=", "key:",
    "key ", "key\"", "key'", "pat ", "pat:", "pass ", "pass:", "session",
)  # fmt: skip
# Words before "key" that make it a name for a business value, not a credential.
_BUSINESS_KEY = re.compile(
    r"(?i)(?:cache|idempotency|primary|foreign|partition|sort|object|s3|row|lookup|dedup|join|composite|"
    r"natural|surrogate|unique|hash|map|dict|registry|sharding|routing|group|public|license|licence|product|"
    r"activation|serial|ssh-rsa|gpg|pgp|fingerprint)[ _\-]?key\W*$"
)
_DIGEST_WORDS = re.compile(
    r"(?i)\b(?:sha\d*|md5|digest|hash|checksum|commit|etag|crc\d*|fingerprint|build|revision|rev|image|uuid|guid|"
    r"trace|span|request|correlation|order|invoice|tracking)\b[^\n]{0,24}$"
)
_TOKEN = re.compile(r"(?<![\w+/\-.%])([A-Za-z0-9][A-Za-z0-9+/_\-.%]{14,}[A-Za-z0-9=])(?![\w+/=\-%])")
_CASE_FLIP = re.compile(r"[a-z](?=[A-Z])|[A-Z](?=[a-z])")
_CELL_COMMA = re.compile(
    r",(?! (?:[a-z]|I\b))"
)  # a comma between cells, not one in prose ("token again, I think it is …")
_UUID = re.compile(r"(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_TECH_WORDS = frozenset(
    "api url uri http https json xml yaml csv prod dev stage staging config auth oauth async sync env aws gcp "
    "azure sql app svc srv cli sdk uid uuid ops infra cdn dns tls ssl rpc grpc jwt html utf ascii".split()
)
_PAIRS = (
    # <add key="StorageKey" value="…" />, name: API_TOKEN / value: "…" (Kubernetes env), "Name"/"Value" JSON pairs
    re.compile(
        r"(?i:(?:key|name)\s*[=:]\s*[\"']?[\w.\-]*(?:key|secret|token|pass\w*|pwd|credential\w*)[\"']?"
        r"[\s,]*(?:-\s*)?value\s*[=:]\s*)[\"']?([^\s\"'<>]{6,})"
    ),
)


def keyed_tokens(text: str) -> Iterator[Finding]:
    """Generated-looking tokens on the line after a credential word, and values paired with a key named like one."""
    lower = aligned_lower(text)
    for start, end in keyword_windows(lower, _KEY_WORDS, 0, 80, text, line_bound=True):
        for match in _TOKEN.finditer(text, start, end):
            token = match.group(1)
            if looks_generated(token) and not _named_otherwise_near(text, lower, match.start(), start):
                yield Finding("SECRET", match.start(1), match.end(1), 0.87, "KeyedTokenRecognizer", token)
    if "value" in lower:
        for pattern in _PAIRS:
            for match in pattern.finditer(text):
                yield Finding("SECRET", match.start(1), match.end(1), 0.87, "KeyedTokenRecognizer", match.group(1))


def looks_generated(token: str) -> bool:
    """Whether ``token`` reads as machine-generated: letters and digits mixed (or upper and lower case
    letters alternating, ``QwErTyUiOp…``), high entropy, not a UUID, URL, name or run of words."""
    core = token.rstrip("=")
    if len(core) < 16 or _UUID.search(core) or "://" in core or core.count(".") >= 2 and "/" not in core:
        return False
    digits = sum(c.isdigit() for c in core)
    letters = sum(c.isalpha() for c in core)
    mixed_case = any(c.isupper() for c in core) and any(c.islower() for c in core)
    if letters < 4:
        return False
    if digits < 2:
        # letters only: generated when the case flips often (not camel-case words) and no words make it up
        if not mixed_case or len(_CASE_FLIP.findall(core)) < 0.3 * len(core):
            return False
        return _entropy(core) >= 3.5 and not mostly_words(core)
    if _HEX.fullmatch(core):
        return len(core) >= 32 and _entropy(core) >= 3.0
    if not mixed_case and not any(c in "+/" for c in core):
        return len(core) >= 24 and _entropy(core) >= 3.8 and not mostly_words(core)
    return _entropy(core) >= 3.5 and not mostly_words(core)


def mostly_words(token: str) -> bool:
    """``refreshTokenExpiresAt2``, ``order-2024-summary-v2``, ``INVOICE_EXPORT_Q1``: most of its letters sit
    in parts (split at case changes, digits and symbols) that are English words, common technical words
    or names; the parts of a random token are not (``wJalrXUtnFEMI…`` has runs of letters, no words)."""
    from handoff.analysis.scrub.gazetteer import fold, gazetteer

    gaz = gazetteer()
    letters = sum(c.isalpha() for c in token)
    in_words = 0
    for part in _PART.findall(token):
        folded = fold(part)
        if len(part) >= 3 and (
            folded in gaz.english
            or folded in _TECH_WORDS
            or gaz.is_common(folded)
            or gaz.is_english_stem(folded)
            or gaz.is_name(folded)
        ):
            in_words += len(part)
    return in_words > 0.6 * letters


def _named_otherwise_near(text: str, lower: str, position: int, window_start: int) -> bool:
    """:func:`_named_otherwise`, measured again from the credential word nearest before the token when the
    window (merged from several words) starts at an earlier one ("admin token …; shared secret Vq7L…")."""
    if not _named_otherwise(text, position, window_start):
        return False
    nearest = max(lower.rfind(word, window_start, position) for word in _KEY_WORDS)
    return nearest <= window_start or _named_otherwise(text, position, nearest)


def _named_otherwise(text: str, position: int, window_start: int) -> bool:
    """The token is in another cell than its credential word (a comma not followed by a lower-case word,
    a tab or bar between: "Pending Signature,<digest>"), more than 40 characters on, or follows "cache
    key", "sha256" or "order"."""
    gap = text[window_start:position]
    if len(gap) > 40 or any(c in gap for c in "|\t;") or _CELL_COMMA.search(gap):
        return True
    before = text[max(0, window_start - 24) : position]
    return _BUSINESS_KEY.search(before) is not None or _DIGEST_WORDS.search(gap) is not None


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
