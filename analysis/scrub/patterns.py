"""What counts as a secret or a phone number: the secret patterns and the entity lists.

Secrets are credentials that leak into prompts, logs and tool payloads. Each :class:`SecretSpec`
is a regular expression whose group is the secret itself, so ``password=hunter2`` becomes
``password=<PASSWORD:…>`` and the key name stays readable. Pure data and :mod:`re`: the
Presidio recognizers built from these live in :mod:`handoff.analysis.scrub.engine`.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from handoff.analysis.scrub.credentials import credential_key, is_secret_value

PII_ENTITIES: tuple[str, ...] = (
    "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "IP_ADDRESS", "US_SSN", "CRYPTO",
)  # fmt: skip
NER_ENTITIES: tuple[str, ...] = ("PERSON", "LOCATION")
# Found by the whole-text detectors (handoff.analysis.scrub.detectors), no NER model needed.
TEXT_ENTITIES: tuple[str, ...] = ("PERSON", "ADDRESS", "DATE_OF_BIRTH", "NATIONAL_ID")
PHONE_MIN_DIGITS = 7

_ASSIGN = r"""["']?\s*[:=]\s*"""
_TOKEN_CHARS = r"[A-Za-z0-9\-._~+/]"
# Key names are bounded ({0,40}): unbounded runs backtrack quadratically on long dotted tokens.
_SECRET_KEY_NAMES = (
    r"[A-Za-z0-9_.\-]{0,40}(?:secret|token|api[_ \-]?key|apikey|private_?key|credentials?)[A-Za-z0-9_]{0,40}"
)
_PASSWORD_KEY_NAMES = r"[A-Za-z0-9_.\-]{0,40}(?:password|passwd|passphrase|pwd)[A-Za-z0-9_]{0,40}"
QUERY_KEYS = (
    r"token|access_token|refresh_token|id_token|auth_token|api_key|apikey|client_secret|"
    r"secret|password|sig|signature|x-amz-signature|x-amz-credential|session_?id|code_verifier"
)


_KEY_AT_END = re.compile(r"([A-Za-z0-9_.\-]+)[\"']?\s*[:=]\s*[\"']?$")


class SecretSpec(NamedTuple):
    """One secret pattern: the recognizer ``name``, its ``entity``, the regex and the group holding the secret."""

    name: str
    entity: str
    regex: str
    score: float
    group: int = 1
    flags: int = 0


SECRET_SPECS: tuple[SecretSpec, ...] = (
    SecretSpec(
        "PrivateKeyRecognizer",
        "PRIVATE_KEY",
        r"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:(?:\\n|\r?\n)[A-Za-z0-9+/=:\- ]+)+))",
        1.0,
    ),
    SecretSpec(
        "AwsAccessKeyRecognizer", "AWS_ACCESS_KEY", r"\b((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16})\b", 0.95
    ),
    SecretSpec(
        "AwsSecretKeyRecognizer",
        "AWS_SECRET_KEY",
        r"(?i:aws_?secret|secret_?access_?key)[^\n]{0,40}?(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        0.9,
    ),
    SecretSpec("ApiKeyRecognizer", "API_KEY", r"(?<![\w-])(sk-(?:ant-|proj-)?[A-Za-z0-9][A-Za-z0-9_\-]{19,})", 0.9),
    SecretSpec("ApiKeyRecognizer", "API_KEY", r"\b((?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,})", 0.9),
    SecretSpec(
        "GitHubTokenRecognizer",
        "GITHUB_TOKEN",
        r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        0.95,
    ),
    SecretSpec("SlackTokenRecognizer", "SLACK_TOKEN", r"\b(xox[abposr]-[A-Za-z0-9][A-Za-z0-9\-]{9,250})", 0.95),
    SecretSpec("JwtRecognizer", "JWT", r"\b(eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})", 0.95),
    SecretSpec(
        "AuthHeaderRecognizer",
        "AUTH_TOKEN",
        r"(?i:\bauthorization"
        + _ASSIGN
        + r"[\"']?(?:bearer|basic|token|digest|apikey)?\s*)("
        + _TOKEN_CHARS
        + r"{8,}=*)",
        0.9,
    ),
    SecretSpec("AuthHeaderRecognizer", "AUTH_TOKEN", r"(?i:\bbearer\s+)(" + _TOKEN_CHARS + r"{16,}=*)", 0.85),
    SecretSpec(
        "AuthHeaderRecognizer",
        "AUTH_TOKEN",
        r"(?i:\b(?:x-api-key|x-auth-token|api-key)" + _ASSIGN + r"[\"']?)(" + _TOKEN_CHARS + r"{12,}=*)",
        0.85,
    ),
    SecretSpec(
        "PasswordRecognizer",
        "PASSWORD",
        r"(?i:\b" + _PASSWORD_KEY_NAMES + _ASSIGN + r")(?:\"([^\"\n]{3,})\"|'([^'\n]{3,})'|([^\s\"',;}<]{3,}))",
        0.85,
        group=0,
    ),
    SecretSpec(
        "SecretAssignmentRecognizer",
        "SECRET",
        r"(?i:\b" + _SECRET_KEY_NAMES + _ASSIGN + r")(?:\"([^\"\n]{8,})\"|'([^'\n]{8,})'|([^\s\"',;&}<]{8,}))",
        0.7,
        group=0,
    ),
    SecretSpec(
        "UrlCredentialRecognizer",
        "URL_CREDENTIAL",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{0,20}://[^\s/:@\"']*:([^\s/@\"']+)@",  # the password; the user stays
        0.95,
    ),
    SecretSpec(
        "UrlCredentialRecognizer",
        "URL_CREDENTIAL",
        r"[?&;](?i:" + QUERY_KEYS + r")=([^&\s#\"'<>]{4,})",
        0.9,
    ),
)

SECRET_ENTITIES: tuple[str, ...] = tuple(dict.fromkeys(spec.entity for spec in SECRET_SPECS))


def secret_spans(spec: SecretSpec, pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    """Return the (start, end) spans of the secret values that ``pattern`` (compiled from ``spec``) finds in ``text``."""
    spans = []
    keyed = spec.name in ("PasswordRecognizer", "SecretAssignmentRecognizer")
    for match in pattern.finditer(text):
        span = _secret_span(spec, match)
        if span is None or not _is_secret_value(text[span[0] : span[1]]):
            continue
        if keyed:  # the key must name the credential itself ("token_url", "password_policy" do not)
            key = _KEY_AT_END.search(text, match.start(), span[0])
            name = key.group(1) if key else ""
            if not credential_key(name) or not is_secret_value(text[span[0] : span[1]], name):
                continue
        spans.append(span)
    return spans


def _secret_span(spec: SecretSpec, match: re.Match[str]) -> tuple[int, int] | None:
    """Return the span of the secret group; ``group=0`` means the first alternative group that matched."""
    if spec.group:
        return match.span(spec.group)
    for index in range(1, (match.lastindex or 0) + 1):
        if match.group(index) is not None:
            return match.span(index)
    return None


def _is_secret_value(value: str) -> bool:
    """Reject placeholders and values that are already pseudonyms or plain numbers of a few digits."""
    stripped = value.strip()
    if stripped.startswith("<") or stripped.startswith("${") or stripped.startswith("{{"):
        return False
    return not (stripped.isdigit() and len(stripped) < 8) and set(stripped) - set("*x.•-") != set()


_DATE_PREFIX = re.compile(r"\d{4}[\-/.]\d{1,2}[\-/.]\d{1,2}|\d{1,2}[\-/.]\d{1,2}[\-/.]\d{4}")
_ISO_DATE = re.compile(r"(?<!\d)(?:19|20)\d{2}-[01]\d-[0-3]\d(?!\d)")  # "week 15 (2026-04-06": a date, no phone
# The label right before a number that makes it a business id, not a phone: "AWB 4471902836",
# "claim 26-0412-884107", "guía 8055123456", "tkt_numbers":["075-4401928374", "expires=1774000000".
ID_LABEL_BEFORE = re.compile(
    r"(?i)(?<![a-z])(?:order|invoice|inv|claim|ticket|tkt|tracking|awb|air[ ]?way[ ]?bill|waybill|slip|gu[ií]a|shipment|parcel|"
    r"consignment|pro|bol|ref|reference|case|booking|reservation|confirmation|pnr|transaction|txn|receipt|serial|sn|s/n|"
    r"sku|ean|upc|gtin|isbn|ndc|lot|batch|rma|po|declaration|dp|permit|licen[cs]e|account|acct|iban|contract|"
    r"expires|exp|ts|timestamp|epoch|imei|imeisv|meid|iccid|vin|asset|part|duns|id|version|ver|build|revision|"
    r"rev|changelist|mpn|abn|acn|ein|siren|siret|kvk|crn|uen|gstin|company|doc|document|belnr|beleg)"
    r"(?:[ _\-]?(?:no|nos|number|numbers|num|ids?|#|n°|nº))?s?\.?"
    r"[\"']?[ \t]*[:=#]?[ \t]*\[?[ \t]*[\"']?[ \t]*(?:(?:n[°º]|no\.?|#)[ \t]*)?$"
)
IPV4_LIKE = re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}")
PHONE_CANDIDATE = re.compile(r"(?<![\w.+\-])\+?\(?\d[\d \-.()]{5,40}\d(?!\w)")  # not inside a word or digest


def digit_count(text: str) -> int:
    """The number of ASCII digits in ``text`` (bytes.translate: several times faster than str's)."""
    encoded = text.encode("utf-8", "surrogatepass")
    return len(encoded) - len(encoded.translate(None, b"0123456789"))


def phone_shaped(text: str) -> bool:
    """A phone number starts with ``+`` or an area code in parentheses, or has ten digits or more
    (at most eleven when written without separators)."""
    digits = digit_count(text)
    if digits < PHONE_MIN_DIGITS or _DATE_PREFIX.match(text) or _ISO_DATE.search(text) or IPV4_LIKE.search(text):
        return False
    if ".." in text or _OPEN_GROUP_END.search(text):
        return False  # "26-0871..26-0874": a range of ids; "431902125 (8": a number and a bracketed count
    if text.startswith(("+", "(")):
        return True
    if _PRODUCT_CODE_GROUPS.search(text) or _COMPACT_DATE_HOUR.fullmatch(text):
        return False
    return 10 <= digits <= 11 or (digits >= 10 and not text.isdigit())  # 13 bare digits: an epoch-ms timestamp


_OPEN_GROUP_END = re.compile(r"\([^)]*$")
# A bare run of ten digits that reads as a date and an hour (2026061900: a forecast model run, a partition).
_COMPACT_DATE_HOUR = re.compile(r"20[0-4]\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?:[01]\d|2[0-3])")


# A short last group after a long one ends product and device codes, never a national phone number:
# NDC "0169-4060-12", IMEI "35-209900-176148-1" (phones end "45 67" or "555-0134").
_PRODUCT_CODE_GROUPS = re.compile(r"\d{4,}[ \-.]\d{1,2}$")
