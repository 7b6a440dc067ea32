"""Scrub PII and secrets from content before it touches disk, with consistent keyed pseudonyms.

Every finding becomes ``<TYPE:xxxxxx>``, the first six hex digits of HMAC-SHA256 of the
value under the scrub key, so one email is one token in every handoff and run and diffs
still line up. Amounts, percentages, dates, clause references, invoice numbers, versions,
digests and run ids are data, not PII: they survive.

Speed comes from doing little. Text is scanned line by line; a line seen before takes its
findings from a cache (prompt templates repeat across runs); a new line goes through cheap
prefilters (:mod:`~handoff.analysis.scrub.prefilter`: no ``@``, no email), and only lines some
prefilter passes reach Presidio, in batches, restricted to the entities that passed. Presidio
is imported on first use and loaded once per process (see :mod:`handoff.analysis.scrub.engine`);
nothing is ever downloaded.
"""

from __future__ import annotations

import bisect
import collections
import contextlib
import functools
import hashlib
import hmac
import ipaddress
import itertools
import json
import os
import re
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from handoff.analysis.scrub.aliases import user_is_named
from handoff.analysis.scrub.detectors import local_findings
from handoff.analysis.scrub.engine import analyzer_engine, build_secret_recognizers
from handoff.analysis.scrub.findings import (
    Finding,
    ScrubError,
    shifted,
    to_finding,
    without_overlaps,
)
from handoff.analysis.scrub.identifiers import BARCODE_BEFORE, is_card_number
from handoff.analysis.scrub.labels import label_of
from handoff.analysis.scrub.lines import EMPTY, LineScan, context_findings, line_starts, scan_lines
from handoff.analysis.scrub.patterns import ID_LABEL_BEFORE, NER_ENTITIES, PII_ENTITIES, TEXT_ENTITIES, phone_shaped
from handoff.analysis.scrub.people import name_span
from handoff.analysis.scrub.prefilter import Prefilter
from handoff.analysis.scrub.pseudonyms import normalized
from handoff.analysis.scrub.settings import (
    compile_allow,
    custom_spec,
    env_entities,
    logger,
    resolve_entities,
    resolve_key,
    spacy_model_installed,
    split_regex_list,
    valid_regex,
)
from handoff.analysis.scrub.tables import outside_thing_cells, thing_cells

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
    | \d{1,3}(?:\.\d{1,3}){3}/(?:[0-9]|[12]\d|30)        # IPv4 network ranges 10.40.0.0/16, not one host
    | [0-9a-fA-F:]*::?[0-9a-fA-F:]*/(?:\d|[1-9]\d|1[01]\d|12[0-6])  # IPv6 prefixes 2001:db8::/32
    """,
    re.VERBOSE,
)
_SECRET_JSON_KEYS = re.compile(
    r"(?i)password|passwd|passphrase|pwd|secret|token|api_?key|apikey|private_?key|authorization|credential|cookie|session_?id"
)
_PASSWORD_JSON_KEYS = re.compile(r"(?i)password|passwd|passphrase|pwd")


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
        self._key = resolve_key(key)
        self._spacy_model = spacy_model or None
        if self._spacy_model and not spacy_model_installed(self._spacy_model):
            raise ValueError(
                f"spaCy model {self._spacy_model!r} is not installed (pip install it; nothing is downloaded)"
            )
        self._custom = [custom_spec(spec) for spec in recognizers]
        self._entities = resolve_entities(entities, self._spacy_model, self._custom)
        self._allow = [compile_allow(pattern) for pattern in allow]
        self._threshold = float(score_threshold)
        self._text_entities = frozenset(self._entities)
        # Presidio sees only what the whole-text detectors do not cover (PERSON too when a NER model is named).
        presidio = [e for e in self._entities if e not in TEXT_ENTITIES or (e == "PERSON" and self._spacy_model)]
        self._prefilter = Prefilter(
            presidio, [(spec.entity, re.compile(spec.regex, spec.flags)) for spec in self._custom]
        )
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
        model_from_env: bool = True,
    ) -> Scrubber:
        """Build a Scrubber from HANDOFF_SCRUB_KEY, HANDOFF_SPACY_MODEL, HANDOFF_SCRUB_ENTITIES and
        HANDOFF_SCRUB_ALLOW (comma lists; commas inside ``{m,n}``, ``[...]`` and ``(...)`` stay in
        their regex). A bad environment value is logged and its default used. Arguments given here
        (``key`` from ``handoff.configure(scrub_key=...)``, flags of ``handoff scrub-test``) win over
        the environment, and bad ones raise ``ValueError``."""
        model = spacy_model or (_env_model() if model_from_env else None)
        entities = list(entities) if entities is not None else env_entities(model)
        allow = list(allow) or [
            p for p in split_regex_list(os.environ.get("HANDOFF_SCRUB_ALLOW", "")) if valid_regex(p)
        ]
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

    def _scrub_text(self, text: str, known_names: Iterable[str] = ()) -> str:
        findings = self._findings(text, known_names)
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
        key = normalized(entity, value)
        digest = hmac.new(self._key, key.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()
        return f"<{entity}:{digest[:6]}>"

    def _findings(self, text: str, known_names: Iterable[str] = ()) -> list[Finding]:
        lines = text.split("\n")
        starts = line_starts(lines)
        findings, scans = self._line_findings(text, lines, starts)
        things = thing_cells(text, lines, starts)
        findings = outside_thing_cells(findings, things)
        names = {f.text for f in findings if f.entity == "PERSON"}
        names.update(known_names)
        extra = context_findings(text, starts, lines, scans, self._text_entities, names)
        findings += outside_thing_cells([f for f in extra if self._allowed(f)], things)
        return without_overlaps(findings) if findings else findings

    def _allowed(self, finding: Finding) -> bool:
        return bool(finding.text.strip()) and not any(p.fullmatch(finding.text) for p in self._allow)

    def _line_findings(self, text: str, lines: list[str], starts: list[int]) -> tuple[list[Finding], list[LineScan]]:
        """The findings of every line (private key blocks analyzed whole) and each line's scan."""
        regions = _regions(text, "PRIVATE_KEY" in self._entities)
        if len(regions) == 1:
            scans = self._scan_lines(lines)
        else:
            scans = [EMPTY] * len(lines)
            for start, end, is_key_block in regions:
                first, last = bisect.bisect_left(starts, start), bisect.bisect_right(starts, end)
                if not is_key_block:
                    scans[first:last] = self._scan_lines(lines[first:last])
        findings = [f for start, scan in zip(starts, scans) if scan.findings for f in shifted(scan.findings, start)]
        for start, end, is_key_block in regions if len(regions) > 1 else ():
            if is_key_block:
                block = text[start:end]
                entities = frozenset({"PRIVATE_KEY"}).union(*map(self._prefilter, block.split("\n")))
                findings += shifted(without_overlaps(self._analyze_segment(block, entities)), start)
                findings += shifted([f for f in local_findings(block, self._text_entities) if self._allowed(f)], start)
        return findings, scans

    def _scan_lines(self, lines: list[str]) -> list[LineScan]:
        """A scan per line: repeated lines come from the cache, the others are analyzed in batches."""
        found = [self._lines.get(line) for line in lines]
        missing = list(dict.fromkeys(line for line, hit in zip(lines, found) if hit is None))
        if missing:
            wanted = {line: self._prefilter(line) for line in missing}
            presidio = self._analyze_lines([line for line in missing if wanted[line]], wanted)
            fresh: dict[str, LineScan] = {}
            for line, scan in zip(missing, scan_lines(missing, self._text_entities)):
                own = tuple(f for f in scan.findings if self._allowed(f))
                fresh[line] = LineScan(presidio.get(line, ()) + own, scan.runs, scan.street, scan.header, scan.sign_off)
                self._lines.put(line, fresh[line])
            found = [fresh[line] if hit is None else hit for line, hit in zip(lines, found)]
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
                    per_line[index] += shifted((finding,), -starts[index])
            found.update((line, tuple(without_overlaps(line_findings))) for line, line_findings in zip(batch, per_line))
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
        findings = map(to_finding, results, itertools.repeat(segment))
        return [
            f
            for f in findings
            if self._keeps_finding(f)
            and not _url_userinfo(segment, f)
            and not _labelled_business_id(segment, f)
            and not _not_personal(segment, f)
        ]

    def _ad_hoc_recognizers(self, entities: frozenset[str]) -> list | None:
        if not self._custom:
            return None
        if self._custom_recognizers is None:
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
        strings = list(_json_strings(document))
        self._prime(value for _key, value in strings)
        names = {
            f.text
            for _key, value in strings
            for f in self._findings(value, _labelled_name(_key, value))
            if f.entity == "PERSON"
        }
        scrubbed = self._scrub_json_value(document, None, frozenset(names))
        return json.dumps(scrubbed, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")

    def _prime(self, texts: Iterable[str]) -> None:
        """Analyze the new lines of many short texts in one batch, so scrubbing each then hits the cache."""
        lines = (line for text in texts if "-----BEGIN" not in text for line in text.split("\n"))
        self._scan_lines([line for line in dict.fromkeys(lines) if len(line) <= _MAX_CACHED_LINE])

    def _scrub_json_value(self, value: Any, key: str | None, names: frozenset[str]) -> Any:
        if isinstance(value, dict):
            return {self._scrub_text(str(k), names): self._scrub_json_value(v, str(k), names) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub_json_value(item, key, names) for item in value]
        if isinstance(value, str):
            entity = self._json_field_entity(key, value) if key is not None else None
            if entity:
                return self._pseudonym(entity, value)
            span = _labelled_span(key, value)
            if span is None:
                return self._scrub_text(value, names)
            start, end = span
            return value[:start] + self._pseudonym("PERSON", value[start:end]) + self._scrub_text(value[end:], names)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            entity = self._json_number_entity(key, value)
            return self._pseudonym(entity, str(value)) if entity else value
        return value

    def _json_field_entity(self, key: str, value: str) -> str | None:
        """The entity a JSON string value is by its key alone: a secret, a labelled id, phone or birth date."""
        entity = _secret_key_entity(key, value)
        if entity:
            return entity
        label = label_of(key)
        if (
            label is None
            or label.entity not in self._text_entities | {"PHONE_NUMBER"}
            or label.entity in ("PERSON", "ADDRESS")
        ):
            return None
        digits = sum(c.isdigit() for c in value)
        return label.entity if digits >= 5 and len(value) <= 40 and not value.startswith("<") else None

    def _json_number_entity(self, key: str | None, value: int | float) -> str | None:
        """The entity a JSON number is: a card number (any key), or a password, id or phone by its key."""
        if isinstance(value, int) and "CREDIT_CARD" in self._entities and is_card_number(str(value)):
            return "CREDIT_CARD"
        if key and _PASSWORD_JSON_KEYS.search(key):
            return "PASSWORD"  # {"pin_password": 123456} is still a password
        label = label_of(key) if key else None
        if label is not None and label.entity in ("NATIONAL_ID", "PHONE_NUMBER") and len(str(value)) >= 6:
            return label.entity
        return None


_NANP = re.compile(r"\d{3}[\-. ]\d{3}[\-. ]\d{4}")  # "212.280.2695" is a phone even after "order"


def _labelled_business_id(segment: str, finding: Finding) -> bool:
    """A phone-shaped number right after a business-id label ("AWB 4471902836", "claim 26-0412-884107"),
    or a Luhn-valid number right after a barcode label ("ean": "4006381333931")."""
    if finding.entity == "CREDIT_CARD":
        return BARCODE_BEFORE.search(segment, max(0, finding.start - 24), finding.start) is not None
    if finding.entity != "PHONE_NUMBER" or finding.text.startswith(("+", "(")) or _NANP.fullmatch(finding.text):
        return False
    return ID_LABEL_BEFORE.search(segment, max(0, finding.start - 40), finding.start) is not None


def _json_strings(value: Any, key: str | None = None) -> Iterator[tuple[str | None, str]]:
    """Every key and string value in a JSON document (as ``(key, string)``), except values a secret key
    replaces whole."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield None, str(k)
            yield from _json_strings(v, str(k))
    elif isinstance(value, list):
        for item in value:
            yield from _json_strings(item, key)
    elif isinstance(value, str) and not (key is not None and _secret_key_entity(key, value)):
        yield key, value


def _labelled_span(key: str | None, value: str) -> tuple[int, int] | None:
    """Where a JSON value holds a person's name by its key (``"signatory": "Hannah Schmidt"``), or None."""
    label = label_of(key) if key else None
    if label is None or label.entity != "PERSON":
        return None
    return name_span(value, strong=label.strong)


def _labelled_name(key: str | None, value: str) -> frozenset[str]:
    """The person's name a JSON value holds by its key, as a set of at most one name."""
    span = _labelled_span(key, value)
    return frozenset({value[span[0] : span[1]]}) if span else frozenset()


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
    (by entry count or by total characters held), in O(1) each.

    Every line is admitted at once (``_prime`` analyzes a batch's lines and then scrubs each text
    from the cache). Reads take no lock (a dict lookup is atomic); writers serialize so eviction
    stays consistent.
    """

    def __init__(self, max_entries: int, max_chars: int = _LINE_CACHE_CHARS) -> None:
        self._max_entries = max_entries
        self._max_chars = max_chars
        self._chars = 0
        self._entries: collections.OrderedDict[str, tuple[Finding, ...]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, line: str) -> tuple[Finding, ...] | None:
        return self._entries.get(line)

    def put(self, line: str, findings: tuple[Finding, ...]) -> None:
        if len(line) > _MAX_CACHED_LINE:
            return
        with self._lock:
            if line in self._entries:
                return
            while self._entries and (
                len(self._entries) >= self._max_entries or self._chars + len(line) > self._max_chars
            ):
                oldest, _findings = self._entries.popitem(last=False)
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


def _env_model() -> str | None:
    """HANDOFF_SPACY_MODEL, or None (logged as an error) when it names a model that is not installed."""
    name = os.environ.get("HANDOFF_SPACY_MODEL") or None
    if name and not spacy_model_installed(name):
        logger.error("ignoring HANDOFF_SPACY_MODEL=%r: not installed (pip install it)", name)
        return None
    return name


_USERINFO = re.compile(r"://(?:[^\s/@]*:)?$")


def _url_userinfo(segment: str, finding: Finding) -> bool:
    """An "e-mail" that is a URL's user or password and host (``postgres://app:s3cr3t@db.example.net``,
    a Sentry DSN ``https://<key>@o1.ingest.sentry.io``): the URL credential and token recognizers take
    the password or key; the host stays. Also ``curl -F file=@upload.edi``, a file reference."""
    return finding.entity == "EMAIL_ADDRESS" and (
        "=@" in finding.text or _USERINFO.search(segment, max(0, finding.start - 200), finding.start) is not None
    )


_SCP_PATH = re.compile(r":[\w~/.]")


_PIECE_ENTITIES = frozenset(("US_SSN", "UK_NHS", "US_ITIN"))
_PIECE_OF_LONGER = re.compile(r"[-.]\d")


def _not_personal(segment: str, finding: Finding) -> bool:
    """An address no person has (``0.0.0.0``, ``127.0.0.1``, ``::1``: a listen or loopback address), the
    ``user@host:path`` of an SSH remote whose user names no one (``git@…:org/repo.git``), or a
    number that is a path segment of a URL (``…/awb/176-12345671/status``: an air waybill, not a phone)."""
    if finding.entity == "IP_ADDRESS":
        try:
            address = ipaddress.ip_address(finding.text.strip("[]"))
        except ValueError:
            return False
        return address.is_unspecified or address.is_loopback
    if finding.entity == "EMAIL_ADDRESS" and _SCP_PATH.match(segment, finding.end):
        return not user_is_named(finding.text.split("@", 1)[0])  # git@host:repo.git: an SSH remote, no mailbox
    if finding.entity in _PIECE_ENTITIES and _PIECE_OF_LONGER.match(segment, finding.end):
        return True  # "978-83-8191" of the ISBN 978-83-8191-442-6: a piece of a longer number is no SSN
    if finding.entity == "PHONE_NUMBER" and not finding.text.startswith("+"):
        before = segment[finding.start - 1 : finding.start] if finding.start else ""
        after = segment[finding.end : finding.end + 1]
        if before == "/" and after in ("/", "?", "#"):
            line_start = segment.rfind("\n", 0, finding.start) + 1
            word_start = max(segment.rfind(" ", line_start, finding.start), line_start)
            return "://" in segment[word_start : finding.start]
    return False


def _secret_key_entity(key: str, value: str) -> str | None:
    if not _SECRET_JSON_KEYS.search(key) or not value.strip() or value.startswith("<"):
        return None
    if _PASSWORD_JSON_KEYS.search(key):
        return "PASSWORD"
    if key.lower().endswith("tokens") or len(value) < 8 or value.replace(".", "").isdigit():
        return None
    return "SECRET"
