"""Scrub PII and secrets from content before it touches disk, with consistent keyed pseudonyms.

Every finding becomes ``<TYPE:xxxxxx>``, the first six hex digits of HMAC-SHA256 of the
value under the scrub key, so one email is one token in every handoff and run and diffs
still line up. Amounts, percentages, dates, clause references, invoice numbers, versions,
digests and run ids are data, not PII: they survive.

Speed comes from doing little: cheap single-line prefilters run over the whole text, only
the lines they hit are analyzed by Presidio (restricted to the entities that hit), and each
analyzed line is cached, because prompt templates repeat across runs. Presidio and spaCy
are imported on first use and loaded once per process, with a blank English pipeline
unless a NER model is named: nothing is ever downloaded.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import hmac
import json
import logging
import os
import re
import secrets as _random
import threading
from collections.abc import Iterable
from typing import Any, NamedTuple

from handoff.secrets import SECRET_ENTITIES

__all__ = ["DEFAULT_ENTITIES", "NER_ENTITIES", "PII_ENTITIES", "Finding", "ScrubError", "Scrubber"]

logger = logging.getLogger("handoff.scrub")

PII_ENTITIES: tuple[str, ...] = (
    "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "IP_ADDRESS", "US_SSN", "CRYPTO",
)  # fmt: skip
NER_ENTITIES: tuple[str, ...] = ("PERSON", "LOCATION")
DEFAULT_ENTITIES: tuple[str, ...] = PII_ENTITIES + SECRET_ENTITIES
_KNOWN_ENTITIES = frozenset(DEFAULT_ENTITIES + NER_ENTITIES)

_LINE_CACHE_SIZE = 65536
_MULTILINE_ENTITIES = frozenset({"PRIVATE_KEY"})
_PEM_BLOCK = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"|(?:(?:\\n|\r?\n)[A-Za-z0-9+/=:\- ]+)+)"
)
_QUERY_KEYS = r"token|access_token|refresh_token|id_token|auth_token|api_key|apikey|client_secret|secret|password|sig|signature|x-amz-signature|x-amz-credential|session_?id|code_verifier"

# A prefilter is a necessary condition for its entity, matched within one line: a line no
# prefilter hits cannot hold a finding, so Presidio never sees it.
_PREFILTERS: dict[str, re.Pattern[str]] = {
    "EMAIL_ADDRESS": re.compile(r"\w@\w"),
    "PHONE_NUMBER": re.compile(r"\+?\(?\d[\d \-.()]{5,20}\d"),
    "CREDIT_CARD": re.compile(r"\d(?:[ \-]?\d){12,18}"),
    "IBAN_CODE": re.compile(r"(?i)\b[a-z]{2}\d{2}[ \-]?[a-z0-9]{4}[ \-]?[a-z0-9]{4}"),
    "IP_ADDRESS": re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|::|(?:[0-9a-fA-F]{1,4}:){3}"),
    "US_SSN": re.compile(r"\b\d{3}[\- .]\d{2}[\- .]\d{4}\b"),
    "CRYPTO": re.compile(r"(?<![a-zA-Z0-9])(?:bc1|[13])[a-zA-HJ-NP-Z0-9]{25,59}"),
    "PRIVATE_KEY": re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY"),
    "AWS_ACCESS_KEY": re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16}"),
    "AWS_SECRET_KEY": re.compile(r"(?i)aws_?secret|secret_?access"),
    "API_KEY": re.compile(r"sk-|_live_|_test_"),
    "GITHUB_TOKEN": re.compile(r"gh[pousr]_|github_pat_"),
    "SLACK_TOKEN": re.compile(r"xox[abposr]-"),
    "JWT": re.compile(r"eyJ"),
    "AUTH_TOKEN": re.compile(r"(?i)authorization|bearer|api-key|auth-token"),
    "PASSWORD": re.compile(r"(?i)pass|pwd"),
    "SECRET": re.compile(r"(?i)secret|token|api_?key|private_?key|credential"),
    "URL_CREDENTIAL": re.compile(r"://[^\s/@]+@|[?&;](?i:" + _QUERY_KEYS + r")="),
    "PERSON": re.compile(r"[A-Z][a-z]"),
    "LOCATION": re.compile(r"[A-Z][a-z]"),
}
_PHONE_MIN_DIGITS = 7

# Data that looks like PII to a pattern: a PII finding whose whole text is one of these survives.
_KEEP_PATTERNS = re.compile(
    r"""
      [$€£]?\s?-?\d{1,3}(?:,\d{3})+(?:\.\d+)?           # amounts with thousands separators
    | [$€£]?-?\d+(?:\.\d+)?\s?%?                        # plain numbers, amounts, percentages
    | \d{4}-\d{2}-\d{2}(?:[T\s]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?)?   # ISO dates and timestamps
    | \d{1,2}[/.]\d{1,2}[/.]\d{2,4}                     # dates like 11/29/2026
    | \d+(?:\.\d+){1,2}(?:\([a-z0-9]+\))*               # clause references 7.2(b), 7.2.1 (never 4 parts: IPs)
    | v?\d+\.\d+\.\d+(?:[\-+][0-9A-Za-z.\-]+)?          # versions
    | [A-Z]{2,6}(?:-\d{2,})+                            # invoice and order numbers INV-88214, PO-2026-0441
    | [0-9a-f]{32,}|[0-9A-F]{32,}                       # hex digests
    | run_[0-9A-HJKMNP-TV-Z]{26}                        # run ids
    """,
    re.VERBOSE,
)
_SECRET_JSON_KEYS = re.compile(
    r"(?i)password|passwd|passphrase|pwd|secret|token|api_?key|apikey|private_?key|authorization|credential|cookie|session_?id"
)
_PASSWORD_JSON_KEYS = re.compile(r"(?i)password|passwd|passphrase|pwd")

_engine_lock = threading.Lock()
_engines: dict[str | None, Any] = {}
_process_key_lock = threading.Lock()
_process_key: bytes | None = None


class ScrubError(Exception):
    """Scrubbing failed for a payload: the caller must withhold the content, never store it raw."""


class Finding(NamedTuple):
    """One detected value: its entity type, character span, score, the recognizer that found it and the text."""

    entity: str
    start: int
    end: int
    score: float
    recognizer: str
    text: str


class Scrubber:
    """Redacts PII and secrets with consistent keyed pseudonyms ``<TYPE:xxxxxx>`` (HMAC-SHA256 of the
    value under the key, first 6 hex chars).

    ``entities`` limits what is detected (default: :data:`DEFAULT_ENTITIES`, plus PERSON and
    LOCATION when ``spacy_model`` names an installed spaCy NER pipeline); ``allow`` holds
    regexes for values that must survive; ``recognizers`` adds patterns as dicts with
    ``name``, ``entity``, ``regex`` and ``score``. Bad arguments raise ``ValueError``.
    A Scrubber is safe to share between threads.
    """

    def __init__(
        self,
        key: bytes | str | None = None,
        *,
        entities: Iterable[str] | None = None,
        allow: Iterable[str] = (),
        recognizers: Iterable[dict] = (),
        spacy_model: str | None = None,
        score_threshold: float = 0.5,
    ) -> None:
        self._key = _resolve_key(key)
        self._spacy_model = spacy_model or None
        self._custom = [_custom_spec(spec) for spec in recognizers]
        self._entities = _resolve_entities(entities, self._spacy_model, self._custom)
        self._allow = [_compile_allow(pattern) for pattern in allow]
        self._threshold = float(score_threshold)
        self._prefilters = _prefilters_for(self._entities, self._custom)
        self._analyze_segment = functools.lru_cache(maxsize=_LINE_CACHE_SIZE)(self._analyze_segment_uncached)
        self._pseudonym = functools.lru_cache(maxsize=_LINE_CACHE_SIZE)(self._pseudonym_uncached)
        self._custom_recognizers: list | None = None

    @classmethod
    def from_env(cls) -> Scrubber:
        """Build a Scrubber from HANDOFF_SCRUB_KEY, HANDOFF_SPACY_MODEL, HANDOFF_SCRUB_ENTITIES and
        HANDOFF_SCRUB_ALLOW (comma lists); a bad value is logged and its default used."""
        entities = _env_list("HANDOFF_SCRUB_ENTITIES")
        allow = _env_list("HANDOFF_SCRUB_ALLOW") or ()
        model = os.environ.get("HANDOFF_SPACY_MODEL") or None
        try:
            _resolve_entities(entities, model, [])
        except ValueError as exc:
            logger.warning("ignoring HANDOFF_SCRUB_ENTITIES: %s", exc)
            entities = None
        valid_allow = [pattern for pattern in allow if _valid_regex(pattern, "HANDOFF_SCRUB_ALLOW")]
        return cls(os.environ.get("HANDOFF_SCRUB_KEY") or None, entities=entities, allow=valid_allow, spacy_model=model)

    @property
    def entities(self) -> tuple[str, ...]:
        """The entity types this scrubber detects."""
        return self._entities

    def analyze(self, text: str) -> list[Finding]:
        """Return the findings in ``text`` that would be redacted, in order, without overlaps."""
        try:
            return self._findings(text)
        except ScrubError:
            raise
        except Exception as exc:
            raise ScrubError(f"analysis failed: {type(exc).__name__}: {exc}") from exc

    def scrub_text(self, text: str) -> str:
        """Return ``text`` with every finding replaced by its pseudonym; raises ScrubError on failure."""
        pieces, cursor = [], 0
        for finding in self.analyze(text):
            pieces.append(text[cursor : finding.start])
            pieces.append(self._pseudonym(finding.entity, finding.text))
            cursor = finding.end
        pieces.append(text[cursor:])
        return "".join(pieces)

    def scrub_bytes(self, data: bytes, content_type: str) -> bytes:
        """Scrub a payload by content type: JSON string values (and values under secret keys) are
        scrubbed and re-serialized canonically; text is scrubbed as UTF-8; octet-stream that is not
        UTF-8 is returned as is."""
        media = content_type.split(";", 1)[0].strip().lower()
        if media == "application/json" or media.endswith("+json"):
            return self._scrub_json_bytes(data)
        if media == "application/octet-stream":
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                return data
            return self.scrub_text(text).encode("utf-8")
        return self.scrub_text(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")

    def pseudonym(self, entity: str, value: str) -> str:
        """Return the token ``<ENTITY:xxxxxx>`` that ``value`` becomes under this scrubber's key."""
        return self._pseudonym(entity, value)

    def _pseudonym_uncached(self, entity: str, value: str) -> str:
        digest = hmac.new(self._key, value.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
        return f"<{entity}:{digest[:6]}>"

    def _findings(self, text: str) -> list[Finding]:
        findings: list[Finding] = []
        for start, end, entities in _segments(text, self._prefilters):
            for rel in self._analyze_segment(text[start:end], entities):
                findings.append(Finding(rel.entity, rel.start + start, rel.end + start, rel.score, rel.recognizer, rel.text))
        return _without_overlaps(findings)

    def _analyze_segment_uncached(self, segment: str, entities: frozenset[str]) -> tuple[Finding, ...]:
        results = _engine(self._spacy_model).analyze(
            text=segment,
            language="en",
            entities=sorted(entities),
            score_threshold=0.0,
            ad_hoc_recognizers=self._ad_hoc_recognizers(entities),
        )
        found = [_to_finding(result, segment) for result in results]
        return tuple(_without_overlaps([f for f in found if self._keeps_finding(f)]))

    def _ad_hoc_recognizers(self, entities: frozenset[str]) -> list | None:
        if not self._custom:
            return None
        if self._custom_recognizers is None:
            from handoff.secrets import build_secret_recognizers

            self._custom_recognizers = build_secret_recognizers(tuple(self._custom))
        wanted = [r for r in self._custom_recognizers if r.supported_entities[0] in entities]
        return wanted or None

    def _keeps_finding(self, finding: Finding) -> bool:
        if not finding.text.strip() or any(p.fullmatch(finding.text) for p in self._allow):
            return False
        if finding.entity in SECRET_ENTITIES:
            return finding.score >= min(self._threshold, 0.5)
        if _KEEP_PATTERNS.fullmatch(finding.text.strip()):
            return False
        if finding.entity == "PHONE_NUMBER":
            return finding.score >= min(self._threshold, 0.4) and _looks_like_phone(finding.text)
        return finding.score >= self._threshold

    def _scrub_json_bytes(self, data: bytes) -> bytes:
        try:
            document = json.loads(data)
        except (UnicodeDecodeError, ValueError):
            return self.scrub_bytes(data, "application/octet-stream")
        scrubbed = self._scrub_json_value(document)
        return json.dumps(scrubbed, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")

    def _scrub_json_value(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {self.scrub_text(str(k)): self._scrub_json_value(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub_json_value(item, key) for item in value]
        if isinstance(value, str):
            secret_entity = _secret_key_entity(key, value) if key is not None else None
            return self._pseudonym(secret_entity, value) if secret_entity else self.scrub_text(value)
        return value


def _segments(text: str, prefilters: dict[str, re.Pattern[str]]) -> list[tuple[int, int, frozenset[str]]]:
    """Return the merged line spans (start, end, entities) that some prefilter hits."""
    hits: dict[tuple[int, int], set[str]] = {}
    for entity, pattern in prefilters.items():
        for match in pattern.finditer(text):
            if entity == "PHONE_NUMBER" and sum(c.isdigit() for c in match.group()) < _PHONE_MIN_DIGITS:
                continue
            span = _pem_span(text, match.start()) if entity in _MULTILINE_ENTITIES else _line_span(text, match.start())
            hits.setdefault(span, set()).add(entity)
    return _merge_spans(hits)


def _line_span(text: str, pos: int) -> tuple[int, int]:
    end = text.find("\n", pos)
    return text.rfind("\n", 0, pos) + 1, len(text) if end < 0 else end


def _pem_span(text: str, pos: int) -> tuple[int, int]:
    match = _PEM_BLOCK.match(text, pos)
    start, _ = _line_span(text, pos)
    return start, _line_span(text, match.end() - 1)[1] if match else _line_span(text, pos)[1]


def _merge_spans(hits: dict[tuple[int, int], set[str]]) -> list[tuple[int, int, frozenset[str]]]:
    merged: list[tuple[int, int, set[str]]] = []
    for (start, end), entities in sorted(hits.items()):
        if merged and start < merged[-1][1]:
            last_start, last_end, last_entities = merged[-1]
            merged[-1] = (last_start, max(end, last_end), last_entities | entities)
        else:
            merged.append((start, end, set(entities)))
    return [(start, end, frozenset(entities)) for start, end, entities in merged]


def _without_overlaps(findings: list[Finding]) -> list[Finding]:
    """Keep the strongest of overlapping findings (score, then length), in text order."""
    ranked = sorted(findings, key=lambda f: (-f.score, -(f.end - f.start), f.start))
    starts: list[int] = []
    kept: list[Finding] = []
    for finding in ranked:
        index = bisect.bisect_left(starts, finding.start)
        clashes_before = index > 0 and kept[index - 1].end > finding.start
        clashes_after = index < len(kept) and kept[index].start < finding.end
        if not (clashes_before or clashes_after):
            starts.insert(index, finding.start)
            kept.insert(index, finding)
    return kept


def _to_finding(result: Any, text: str) -> Finding:
    metadata = result.recognition_metadata or {}
    recognizer = metadata.get("recognizer_name") or type(result).__name__
    return Finding(result.entity_type, result.start, result.end, round(result.score, 2), recognizer, text[result.start : result.end])


def _looks_like_phone(text: str) -> bool:
    digits = sum(c.isdigit() for c in text)
    return digits >= 10 or text.lstrip().startswith(("+", "("))


def _secret_key_entity(key: str, value: str) -> str | None:
    if not _SECRET_JSON_KEYS.search(key) or not value.strip() or value.startswith("<"):
        return None
    if _PASSWORD_JSON_KEYS.search(key):
        return "PASSWORD"
    if key.lower().endswith("tokens") or len(value) < 8 or value.replace(".", "").isdigit():
        return None
    return "SECRET"


def _resolve_key(key: bytes | str | None) -> bytes:
    if key is None:
        return _random_process_key()
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not key:
        raise ValueError("scrub key must not be empty")
    return key


def _random_process_key() -> bytes:
    global _process_key
    with _process_key_lock:
        if _process_key is None:
            _process_key = _random.token_bytes(32)
            logger.warning(
                "no scrub key configured (HANDOFF_SCRUB_KEY): using a random key for this process; "
                "pseudonyms will not match across processes"
            )
        return _process_key


def _resolve_entities(entities: Iterable[str] | None, spacy_model: str | None, custom: list) -> tuple[str, ...]:
    if entities is None:
        chosen = list(DEFAULT_ENTITIES) + (list(NER_ENTITIES) if spacy_model else [])
    else:
        chosen = [e.strip().upper() for e in entities if e.strip()]
        unknown = sorted(set(chosen) - _KNOWN_ENTITIES)
        if unknown:
            raise ValueError(f"unknown scrub entities: {', '.join(unknown)} (known: {', '.join(sorted(_KNOWN_ENTITIES))})")
        if not spacy_model and set(chosen) & set(NER_ENTITIES):
            raise ValueError("PERSON and LOCATION need a spaCy NER model (HANDOFF_SPACY_MODEL)")
    chosen += [spec.entity for spec in custom]
    return tuple(dict.fromkeys(chosen))


def _custom_spec(config: dict) -> Any:
    from handoff.secrets import SecretSpec

    missing = {"name", "entity", "regex"} - set(config)
    if missing:
        raise ValueError(f"custom recognizer needs {', '.join(sorted(missing))}: {config!r}")
    pattern = _compile_allow(config["regex"])
    group = 1 if pattern.groups else 0
    regex = config["regex"] if group else f"({config['regex']})"
    return SecretSpec(str(config["name"]), str(config["entity"]).upper(), regex, float(config.get("score", 0.8)), 1)


def _prefilters_for(entities: tuple[str, ...], custom: list) -> dict[str, re.Pattern[str]]:
    prefilters = {entity: _PREFILTERS[entity] for entity in entities if entity in _PREFILTERS}
    for spec in custom:
        prefilters.setdefault(spec.entity, re.compile(spec.regex, spec.flags))
    return prefilters


def _compile_allow(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"bad regex {pattern!r}: {exc}") from exc


def _valid_regex(pattern: str, variable: str) -> bool:
    try:
        re.compile(pattern)
    except re.error as exc:
        logger.warning("ignoring %s pattern %r: %s", variable, pattern, exc)
        return False
    return True


def _env_list(name: str) -> list[str] | None:
    raw = os.environ.get(name)
    return [item.strip() for item in raw.split(",") if item.strip()] if raw else None


def _engine(spacy_model: str | None) -> Any:
    """Return the process-wide Presidio AnalyzerEngine for ``spacy_model``, building it once."""
    engine = _engines.get(spacy_model)
    if engine is None:
        with _engine_lock:
            engine = _engines.get(spacy_model)
            if engine is None:
                engine = _engines[spacy_model] = _build_engine(spacy_model)
    return engine


def _build_engine(spacy_model: str | None) -> Any:
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry

    from handoff.secrets import build_secret_recognizers

    recognizers = _pii_recognizers() + build_secret_recognizers()
    if spacy_model:
        from presidio_analyzer.predefined_recognizers import SpacyRecognizer

        recognizers.append(SpacyRecognizer(supported_entities=list(NER_ENTITIES)))
    registry = RecognizerRegistry(recognizers=recognizers, supported_languages=["en"])
    return AnalyzerEngine(registry=registry, nlp_engine=_nlp_engine(spacy_model), supported_languages=["en"])


def _pii_recognizers() -> list:
    from presidio_analyzer.predefined_recognizers import (
        CreditCardRecognizer,
        CryptoRecognizer,
        EmailRecognizer,
        IbanRecognizer,
        IpRecognizer,
        PhoneRecognizer,
        UsSsnRecognizer,
    )

    email = EmailRecognizer()
    # Presidio validates email domains with tldextract's module default, which fetches the
    # public suffix list over HTTP; ours reads only the snapshot bundled with tldextract.
    email.validate_result = _has_public_suffix
    phone = PhoneRecognizer(context=["phone", "tel", "telephone", "mobile", "cell", "call", "fax", "reach", "contact", "number", "sms"])
    return [email, phone, CreditCardRecognizer(), IbanRecognizer(), IpRecognizer(), UsSsnRecognizer(), CryptoRecognizer()]


@functools.lru_cache(maxsize=1)
def _offline_tld_extractor() -> Any:
    import tldextract

    return tldextract.TLDExtract(cache_dir=None, suffix_list_urls=(), fallback_to_snapshot=True)


def _has_public_suffix(email: str) -> bool:
    return _offline_tld_extractor()(email).fqdn != ""


def _nlp_engine(spacy_model: str | None) -> Any:
    """A Presidio NLP engine over an installed spaCy pipeline, or a blank English one; never downloads."""
    import spacy
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    if spacy_model:
        if not spacy.util.is_package(spacy_model):
            raise ScrubError(f"spaCy model {spacy_model!r} is not installed (pip install it; nothing is downloaded at run time)")
        nlp = spacy.load(spacy_model, disable=["parser"])
    else:
        nlp = spacy.blank("en")
        nlp.add_pipe(_lowercase_lemma_component())
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": spacy_model or "blank:en"}])
    engine.nlp = {"en": nlp}  # loaded here, so Presidio never calls load() (which may download)
    return engine


def _lowercase_lemma_component() -> str:
    """Register (once) a component giving blank-pipeline tokens a lowercase lemma, for context words."""
    from spacy.language import Language

    name = "handoff_lowercase_lemma"
    if not Language.has_factory(name):
        Language.component(name, func=_set_lowercase_lemmas)
    return name


def _set_lowercase_lemmas(doc: Any) -> Any:
    for token in doc:
        token.lemma_ = token.lower_
    return doc
