"""Secret recognizers: credentials that leak into prompts, logs and tool payloads.

Each :class:`SecretSpec` is a regular expression whose ``group`` is the secret itself, so
``password=hunter2`` becomes ``password=<PASSWORD:…>`` and the key name stays readable.
The specs are plain data (no Presidio import); :func:`build_secret_recognizers` wraps
them as Presidio recognizers and is only called when the scrubber loads its engine.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["SECRET_ENTITIES", "SECRET_SPECS", "SecretSpec", "build_secret_recognizers"]

_ASSIGN = r"""["']?\s*[:=]\s*"""
_TOKEN_CHARS = r"[A-Za-z0-9\-._~+/]"
_SECRET_KEY_NAMES = r"[A-Za-z0-9_.\-]*(?:secret|token|api_?key|apikey|private_?key|credentials?)[A-Za-z0-9_]*"
_PASSWORD_KEY_NAMES = r"[A-Za-z0-9_.\-]*(?:password|passwd|passphrase|pwd)[A-Za-z0-9_]*"
_QUERY_KEYS = (
    r"token|access_token|refresh_token|id_token|auth_token|api_key|apikey|client_secret|"
    r"secret|password|sig|signature|x-amz-signature|x-amz-credential|session_?id|code_verifier"
)


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
    SecretSpec("AwsAccessKeyRecognizer", "AWS_ACCESS_KEY", r"\b((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16})\b", 0.95),
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
        r"(?i:\bauthorization" + _ASSIGN + r"[\"']?(?:bearer|basic|token|digest|apikey)?\s*)(" + _TOKEN_CHARS + r"{8,}=*)",
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
    SecretSpec("UrlCredentialRecognizer", "URL_CREDENTIAL", r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://([^\s/:@\"']+:[^\s/@\"']+)@", 0.95),
    SecretSpec(
        "UrlCredentialRecognizer",
        "URL_CREDENTIAL",
        r"[?&;](?i:" + _QUERY_KEYS + r")=([^&\s#\"'<>]{4,})",
        0.9,
    ),
)

SECRET_ENTITIES: tuple[str, ...] = tuple(dict.fromkeys(spec.entity for spec in SECRET_SPECS))


def secret_spans(spec: SecretSpec, pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    """Return the (start, end) spans of the secret values that ``pattern`` (compiled from ``spec``) finds in ``text``."""
    spans = []
    for match in pattern.finditer(text):
        span = _secret_span(spec, match)
        if span is not None and _is_secret_value(text[span[0] : span[1]]):
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


def build_secret_recognizers(specs: tuple[SecretSpec, ...] = SECRET_SPECS) -> list:
    """Return Presidio recognizers for ``specs``, one per recognizer name and entity."""
    from presidio_analyzer import LocalRecognizer, RecognizerResult

    class SecretPatternRecognizer(LocalRecognizer):
        """A Presidio recognizer that reports only the secret group of each pattern."""

        def __init__(self, name: str, entity: str, group_specs: list[SecretSpec]) -> None:
            self._specs = [(spec, re.compile(spec.regex, spec.flags)) for spec in group_specs]
            super().__init__(supported_entities=[entity], name=name, supported_language="en")

        def load(self) -> None:
            """Nothing to load: the patterns are compiled in ``__init__``."""

        def analyze(self, text: str, entities: list[str], nlp_artifacts=None) -> list:
            """Return one result per secret value found in ``text``."""
            metadata = {RecognizerResult.RECOGNIZER_NAME_KEY: self.name, RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id}
            return [
                RecognizerResult(self.supported_entities[0], start, end, spec.score, recognition_metadata=dict(metadata))
                for spec, pattern in self._specs
                for start, end in secret_spans(spec, pattern, text)
            ]

    grouped: dict[tuple[str, str], list[SecretSpec]] = {}
    for spec in specs:
        grouped.setdefault((spec.name, spec.entity), []).append(spec)
    return [SecretPatternRecognizer(name, entity, group) for (name, entity), group in grouped.items()]
