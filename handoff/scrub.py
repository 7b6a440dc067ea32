"""Scrub PII and secrets from content before it touches disk, with consistent keyed pseudonyms.

Every finding becomes ``<TYPE:xxxxxx>``, the first six hex digits of HMAC-SHA256 of the
value under the scrub key, so one email is one token in every handoff and run and diffs
still line up. Amounts, percentages, dates, clause references, invoice numbers, versions,
digests and run ids are data, not PII: they survive.

Speed comes from doing little. Text is scanned line by line; a line seen before takes its
findings from a cache (prompt templates repeat across runs); a new line goes through cheap
prefilters (no ``@``, no email), and only lines some prefilter passes reach Presidio, in
batches, restricted to the entities that passed. Presidio is imported on first use and
loaded once per process (see :mod:`handoff.secrets`); nothing is ever downloaded.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import hashlib
import hmac
import itertools
import json
import logging
import os
import re
import secrets as _random
import threading
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from handoff.secrets import (
    NER_ENTITIES,
    PII_ENTITIES,
    SECRET_ENTITIES,
    Prefilter,
    SecretSpec,
    analyzer_engine,
    phone_shaped,
)

__all__ = ["DEFAULT_ENTITIES", "NER_ENTITIES", "PII_ENTITIES", "Finding", "ScrubError", "Scrubber"]

logger = logging.getLogger("handoff.scrub")

DEFAULT_ENTITIES: tuple[str, ...] = PII_ENTITIES + SECRET_ENTITIES
_KNOWN_ENTITIES = frozenset(DEFAULT_ENTITIES + NER_ENTITIES)
_PATTERN_PII = frozenset(PII_ENTITIES + NER_ENTITIES)

_LINE_CACHE_SIZE = 65536
_MAX_CACHED_LINE = 4096
_LINE_CACHE_CHARS = 16_000_000  # about 32 MB of cached lines at most
_BATCH_CHARS = 2000
_PEM_BLOCK = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"|(?:(?:\\n|\r?\n)[A-Za-z0-9+/=:\- ]+)+)"
)

# Data that looks like PII to a pattern: a PII finding whose whole text is one of these survives.
_KEEP_PATTERNS = re.compile(
    r"""
      [$€£]?\s?-?\d{1,3}(?:,\d{3})+(?:\.\d+)?           # amounts with thousands separators
    | [$€£]?-?\d{1,8}(?:\.\d+)?\s?%?                    # plain numbers, amounts, percentages (not card-long)
    | \d{4}-\d{2}-\d{2}(?:[T\s]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?)?   # ISO dates and timestamps
    | \d{1,2}[/.]\d{1,2}[/.]\d{2,4}                     # dates like 11/29/2026
    | \d{1,2}(?:\.\d{1,2}){1,2}(?:\([a-z0-9]+\))*       # clause references 7.2(b), 7.2.1 (never 4 parts: IPs)
    | v\d+(?:\.\d+)+(?:[\-+][0-9A-Za-z.\-]+)?           # versions v2.3.1, v4.12.0-rc1
    | \d{1,2}\.\d{1,3}\.\d{1,3}(?:[\-+][0-9A-Za-z.\-]+)?  # versions 3.11.9 (not 415.555.0134, a phone)
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
        self._prefilter = Prefilter(self._entities, [(spec.entity, re.compile(spec.regex, spec.flags)) for spec in self._custom])
        self._lines = _LineCache(_LINE_CACHE_SIZE)
        self._pseudonym = functools.lru_cache(maxsize=_LINE_CACHE_SIZE)(self._pseudonym_uncached)
        self._custom_recognizers: list | None = None

    @classmethod
    def from_env(
        cls,
        key: bytes | str | None = None,
        *,
        entities: Iterable[str] | None = None,
        allow: Iterable[str] = (),
        spacy_model: str | None = None,
        score_threshold: float = 0.5,
    ) -> Scrubber:
        """Build a Scrubber from HANDOFF_SCRUB_KEY, HANDOFF_SPACY_MODEL, HANDOFF_SCRUB_ENTITIES and
        HANDOFF_SCRUB_ALLOW (comma lists; commas inside ``{m,n}``, ``[...]`` and ``(...)`` stay in
        their regex). A bad environment value is logged and its default used. Arguments given here
        (``key`` from ``handoff.configure(scrub_key=...)``, flags of ``handoff scrub-test``) win over
        the environment, and bad ones raise ``ValueError``."""
        model = spacy_model or os.environ.get("HANDOFF_SPACY_MODEL") or None
        entities = list(entities) if entities is not None else _env_entities(model)
        allow = list(allow) or [p for p in _split_regex_list(os.environ.get("HANDOFF_SCRUB_ALLOW", "")) if _valid_regex(p)]
        key = key if key is not None else os.environ.get("HANDOFF_SCRUB_KEY") or None
        return cls(key, entities=entities, allow=allow, spacy_model=model, score_threshold=score_threshold)

    @property
    def entities(self) -> tuple[str, ...]:
        """The entity types this scrubber detects."""
        return self._entities

    def analyze(self, text: str) -> list[Finding]:
        """Return the findings in ``text`` that would be redacted, in order, without overlaps."""
        with _failures_as_scrub_error():
            return self._findings(text)

    def scrub_text(self, text: str) -> str:
        """Return ``text`` with every finding replaced by its pseudonym; raises ScrubError on failure."""
        with _failures_as_scrub_error():
            return self._scrub_text(text)

    def scrub_bytes(self, data: bytes, content_type: str) -> bytes:
        """Scrub a payload by content type: JSON string values (and values under secret keys) are
        scrubbed and re-serialized canonically; text is scrubbed as UTF-8; octet-stream that is not
        UTF-8 is returned as is."""
        with _failures_as_scrub_error():
            return self._scrub_bytes(data, content_type)

    def _scrub_bytes(self, data: bytes, content_type: str) -> bytes:
        media = content_type.split(";", 1)[0].strip().lower()
        if media == "application/json" or media.endswith("+json"):
            return self._scrub_json_bytes(data)
        if media == "application/octet-stream":
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                return data
            return self._scrub_text(text).encode("utf-8")
        return self._scrub_text(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")

    def pseudonym(self, entity: str, value: str) -> str:
        """Return the token ``<ENTITY:xxxxxx>`` that ``value`` becomes under this scrubber's key."""
        return self._pseudonym(entity, value)

    def _scrub_text(self, text: str) -> str:
        # Short single-line strings (JSON values, attributes) repeat most: try the cache first.
        cached = self._lines.get(text) if "\n" not in text else None
        findings = cached if cached is not None else self._findings(text)
        if not findings:
            return text
        pieces, cursor = [], 0
        for finding in findings:
            pieces.append(text[cursor : finding.start])
            pieces.append(self._pseudonym(finding.entity, finding.text))
            cursor = finding.end
        pieces.append(text[cursor:])
        return "".join(pieces)

    def _pseudonym_uncached(self, entity: str, value: str) -> str:
        digest = hmac.new(self._key, value.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
        return f"<{entity}:{digest[:6]}>"

    def _findings(self, text: str) -> list[Finding]:
        findings: list[Finding] = []
        for start, end, is_key_block in _regions(text, "PRIVATE_KEY" in self._entities):
            if is_key_block:
                block = text[start:end]
                entities = frozenset({"PRIVATE_KEY"}).union(*map(self._prefilter, block.split("\n")))
                findings += _shifted(_without_overlaps(self._analyze_segment(block, entities)), start)
                continue
            lines = text[start:end].split("\n")
            for line, found in zip(lines, self._scan_lines(lines)):
                if found:
                    findings += _shifted(found, start)
                start += len(line) + 1
        return findings

    def _scan_lines(self, lines: list[str]) -> list[tuple[Finding, ...]]:
        """Findings per line: repeated lines come from the cache, the others are analyzed in one batch."""
        found = [self._lines.get(line) for line in lines]
        missing = {line: self._prefilter(line) for line, hit in zip(lines, found) if hit is None}
        if missing:
            fresh = self._analyze_lines([line for line, entities in missing.items() if entities], missing)
            for line in missing:
                self._lines.put(line, fresh.get(line, ()))
            found = [fresh.get(line, ()) if hit is None else hit for line, hit in zip(lines, found)]
        return found

    def _analyze_lines(self, lines: list[str], entities: dict[str, frozenset[str]]) -> dict[str, tuple[Finding, ...]]:
        """Analyze ``lines`` joined into batches (one Presidio call per batch, not per line)."""
        found: dict[str, tuple[Finding, ...]] = {}
        for batch in _batches(lines):
            text = "\n".join(batch)
            starts = list(itertools.accumulate((len(line) + 1 for line in batch[:-1]), initial=0))
            per_line: list[list[Finding]] = [[] for _ in batch]
            wanted = frozenset().union(*(entities[line] for line in batch))
            for finding in self._analyze_segment(text, wanted):
                index = bisect.bisect_right(starts, finding.start) - 1
                if finding.end <= starts[index] + len(batch[index]):  # a match across lines is not a finding
                    per_line[index] += _shifted((finding,), -starts[index])
            found.update((line, tuple(_without_overlaps(line_findings))) for line, line_findings in zip(batch, per_line))
        return found

    def _analyze_segment(self, segment: str, entities: frozenset[str]) -> list[Finding]:
        """Presidio's results on ``segment`` that pass the allow-list, keep patterns and threshold (may overlap)."""
        results = analyzer_engine(self._spacy_model).analyze(
            text=segment,
            language="en",
            entities=sorted(entities),
            score_threshold=0.0,
            ad_hoc_recognizers=self._ad_hoc_recognizers(entities),
        )
        return [finding for finding in map(_to_finding, results, itertools.repeat(segment)) if self._keeps_finding(finding)]

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
        if finding.entity in _PATTERN_PII and _KEEP_PATTERNS.fullmatch(finding.text.strip()):
            return False
        if finding.entity == "PHONE_NUMBER":
            # A valid number of phone shape counts without a context word at the default threshold.
            passes = finding.score >= self._threshold or (finding.score >= 0.4 and self._threshold <= 0.5)
            return passes and phone_shaped(finding.text)
        return finding.score >= self._threshold

    def _scrub_json_bytes(self, data: bytes) -> bytes:
        try:
            document = json.loads(data)
        except (UnicodeDecodeError, ValueError):
            return self._scrub_bytes(data, "application/octet-stream")
        self._prime(_json_strings(document))
        scrubbed = self._scrub_json_value(document)
        return json.dumps(scrubbed, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")

    def _prime(self, texts: Iterable[str]) -> None:
        """Analyze the new lines of many short texts in one batch, so scrubbing each then hits the cache."""
        lines = (line for text in texts if "-----BEGIN" not in text for line in text.split("\n"))
        self._scan_lines([line for line in dict.fromkeys(lines) if len(line) <= _MAX_CACHED_LINE])

    def _scrub_json_value(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {self._scrub_text(str(k)): self._scrub_json_value(v, str(k)) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub_json_value(item, key) for item in value]
        if isinstance(value, str):
            secret_entity = _secret_key_entity(key, value) if key is not None else None
            return self._pseudonym(secret_entity, value) if secret_entity else self._scrub_text(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and key and _PASSWORD_JSON_KEYS.search(key):
            return self._pseudonym("PASSWORD", str(value))  # {"pin_password": 123456} is still a password
        return value


def _json_strings(value: Any, key: str | None = None) -> Iterator[str]:
    """Every key and string value in a JSON document, except values a secret key replaces whole."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _json_strings(v, str(k))
    elif isinstance(value, list):
        for item in value:
            yield from _json_strings(item, key)
    elif isinstance(value, str) and not (key is not None and _secret_key_entity(key, value)):
        yield value


@contextlib.contextmanager
def _failures_as_scrub_error() -> Iterator[None]:
    """Any failure while scrubbing is a ScrubError, so the writer withholds the content."""
    try:
        yield
    except ScrubError:
        raise
    except Exception as exc:
        raise ScrubError(f"scrubbing failed: {type(exc).__name__}: {exc}") from exc


class _LineCache:
    """A bounded map from line to its findings; the oldest entries go first when it is full
    (by entry count or by total characters held).

    Reads take no lock (a dict lookup is atomic); writers serialize so eviction stays consistent.
    """

    def __init__(self, max_entries: int, max_chars: int = _LINE_CACHE_CHARS) -> None:
        self._max_entries = max_entries
        self._max_chars = max_chars
        self._chars = 0
        self._entries: dict[str, tuple[Finding, ...]] = {}
        self._lock = threading.Lock()

    def get(self, line: str) -> tuple[Finding, ...] | None:
        return self._entries.get(line)

    def put(self, line: str, findings: tuple[Finding, ...]) -> None:
        if len(line) > _MAX_CACHED_LINE:
            return
        with self._lock:
            if line in self._entries:
                return
            while self._entries and (len(self._entries) >= self._max_entries or self._chars + len(line) > self._max_chars):
                oldest = next(iter(self._entries))
                del self._entries[oldest]
                self._chars -= len(oldest)
            self._entries[line] = findings
            self._chars += len(line)


def _batches(lines: list[str]) -> Iterator[list[str]]:
    batch: list[str] = []
    size = 0
    for line in lines:
        if batch and size + len(line) > _BATCH_CHARS:
            yield batch
            batch, size = [], 0
        batch.append(line)
        size += len(line) + 1
    if batch:
        yield batch


def _regions(text: str, find_key_blocks: bool) -> list[tuple[int, int, bool]]:
    """Split ``text`` into (start, end, is_key_block): private key blocks span lines, so they
    are analyzed whole; everything else is analyzed line by line."""
    if not find_key_blocks or "-----BEGIN" not in text:
        return [(0, len(text), False)]
    regions, cursor = [], 0
    for match in _PEM_BLOCK.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        end = len(text) if end < 0 else end
        if start < cursor:
            continue
        regions += [(cursor, start, False), (start, end, True)]
        cursor = end
    return regions + [(cursor, len(text), False)]


def _shifted(findings: Iterable[Finding], offset: int) -> list[Finding]:
    return [Finding(f.entity, f.start + offset, f.end + offset, f.score, f.recognizer, f.text) for f in findings]


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
    missing = {"name", "entity", "regex"} - set(config)
    if missing:
        raise ValueError(f"custom recognizer needs {', '.join(sorted(missing))}: {config!r}")
    pattern = _compile_allow(config["regex"])
    group = 1 if pattern.groups else 0
    regex = config["regex"] if group else f"({config['regex']})"
    return SecretSpec(str(config["name"]), str(config["entity"]).upper(), regex, float(config.get("score", 0.8)), 1)


def _compile_allow(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"bad regex {pattern!r}: {exc}") from exc


def _valid_regex(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error as exc:
        logger.warning("ignoring HANDOFF_SCRUB_ALLOW pattern %r: %s", pattern, exc)
        return False
    return True


def _env_entities(spacy_model: str | None) -> list[str] | None:
    entities = _env_list("HANDOFF_SCRUB_ENTITIES")
    try:
        _resolve_entities(entities, spacy_model, [])
    except ValueError as exc:
        logger.warning("ignoring HANDOFF_SCRUB_ENTITIES: %s", exc)
        return None
    return entities


def _split_regex_list(raw: str) -> list[str]:
    """Split a comma list of regexes, keeping commas inside ``{m,n}``, ``[...]``, ``(...)`` or after ``\\``."""
    items, current, depth, escaped = [], [], 0, False
    for char in raw:
        if char == "," and depth == 0 and not escaped:
            items.append("".join(current))
            current = []
            continue
        if not escaped:
            depth += (char in "([{") - (char in ")]}")
        escaped = char == "\\" and not escaped
        current.append(char)
    items.append("".join(current))
    return [item.strip() for item in items if item.strip()]


def _env_list(name: str) -> list[str] | None:
    raw = os.environ.get(name)
    return [item.strip() for item in raw.split(",") if item.strip()] if raw else None


