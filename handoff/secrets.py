"""What the scrubber looks for, and the Presidio engine that finds it.

Secrets: credentials that leak into prompts, logs and tool payloads. Each :class:`SecretSpec`
is a regular expression whose group is the secret itself, so ``password=hunter2`` becomes
``password=<PASSWORD:…>`` and the key name stays readable.

Prefilters: for every entity, a gate that is a necessary condition on one line (no ``@``, no
email), so most lines never reach Presidio.

The engine: one Presidio ``AnalyzerEngine`` per process (per spaCy model), built on first use
with Presidio's pattern recognizers for PII, the secret recognizers, and PERSON/LOCATION when
an installed spaCy NER model is named. Nothing here downloads anything: email domains are
checked against the public suffix list bundled with tldextract, and without a NER model no
spaCy pipeline is loaded at all. This module imports Presidio only inside functions.
"""

from __future__ import annotations

import bisect
import functools
import re
import threading
import warnings
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

__all__ = [
    "GATES", "KEYWORDS", "NER_ENTITIES", "PII_ENTITIES", "PREFILTER_PATTERNS", "SECRET_ENTITIES", "SECRET_SPECS",
    "Prefilter", "SecretSpec", "analyzer_engine", "build_secret_recognizers", "digit_count", "has_public_suffix",
    "nlp_engine", "phone_shaped",
]  # fmt: skip

PII_ENTITIES: tuple[str, ...] = (
    "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "IP_ADDRESS", "US_SSN", "CRYPTO",
)  # fmt: skip
NER_ENTITIES: tuple[str, ...] = ("PERSON", "LOCATION")
_PHONE_MIN_DIGITS = 7
_CONTEXT_WINDOW_TOKENS = 40
_engine_lock = threading.Lock()
_engines: dict[str | None, Any] = {}

_ASSIGN = r"""["']?\s*[:=]\s*"""
_TOKEN_CHARS = r"[A-Za-z0-9\-._~+/]"
# Key names are bounded ({0,40}): unbounded runs backtrack quadratically on long dotted tokens.
_SECRET_KEY_NAMES = r"[A-Za-z0-9_.\-]{0,40}(?:secret|token|api_?key|apikey|private_?key|credentials?)[A-Za-z0-9_]{0,40}"
_PASSWORD_KEY_NAMES = r"[A-Za-z0-9_.\-]{0,40}(?:password|passwd|passphrase|pwd)[A-Za-z0-9_]{0,40}"
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
    SecretSpec("AuthHeaderRecognizer", "AUTH_TOKEN", r"(?i:\b(?:set-)?cookie" + _ASSIGN + r")([^\r\n\"']{8,})", 0.85),
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
    SecretSpec("UrlCredentialRecognizer", "URL_CREDENTIAL", r"\b[a-zA-Z][a-zA-Z0-9+.\-]{0,20}://([^\s/:@\"']+:[^\s/@\"']+)@", 0.95),
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


_WORD = re.compile(r"\w+|[^\w\s]")
_STOPWORDS = frozenset("a an and are as at be by for from has have in is it its of on or that the this to was were will with".split())
_DATE_PREFIX = re.compile(r"\d{4}[\-/.]\d{1,2}[\-/.]\d{1,2}|\d{1,2}[\-/.]\d{1,2}[\-/.]\d{4}")
_IPV6_HINT = re.compile(r"::|(?:[0-9a-fA-F]{1,4}:){3}")
_FOUR_DIGIT_GROUPS = re.compile(r"\d{4}(?:[ \-]\d{4}){2,}(?:[ \-]\d{1,4})?")
_LONG_NUMBER = re.compile(r"\d[\d \-.()/]{5,}\d")
_IPV4_LIKE = re.compile(r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}")
_PHONE_CANDIDATE = re.compile(r"(?<![\w.+\-])\+?\(?\d[\d \-.()]{5,40}\d(?!\w)")  # not inside a word or digest
PREFILTER_PATTERNS: dict[str, re.Pattern[str]] = {
    "EMAIL_ADDRESS": re.compile(r"@\w"),
    "CREDIT_CARD": re.compile(r"\d(?:[ \-]?\d){12,18}"),
    "US_SSN": re.compile(r"\b\d{3}[\- .]\d{2}[\- .]\d{4}\b"),
    "CRYPTO": re.compile(r"(?<![a-zA-Z0-9])(?:bc1|[13])[a-zA-HJ-NP-Z0-9]{25,59}"),
    "AWS_ACCESS_KEY": re.compile(r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16}"),
    "URL_CREDENTIAL": re.compile(r"://[^\s/@]+@|[?&;](?i:" + _QUERY_KEYS + r")="),
}


def _ip_gate(line: str, lower: str, digits: int, long_number: bool) -> bool:
    if long_number and "." in line and _IPV4_LIKE.search(line):
        return True
    return line.count(":") >= 2 and _IPV6_HINT.search(line) is not None


def _phone_gate(line: str, lower: str, digits: int, long_number: bool) -> bool:
    return long_number and any(phone_shaped(m.group()) for m in _PHONE_CANDIDATE.finditer(line))


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
        long_number = digits >= _PHONE_MIN_DIGITS and _LONG_NUMBER.search(line) is not None
        found = set()
        if self._any_word and self._any_word(lower):  # one search rejects most lines; then every word counts
            found.update(e for word, entities in self._entities_by_word.items() if word in lower for e in entities)
        found.update(
            e for e, gate, pattern in self._gates if gate(line, lower, digits, long_number) and (pattern is None or pattern.search(line))
        )
        found.update(entity for entity, pattern in self._custom if pattern.search(line))
        return frozenset(found)


def digit_count(text: str) -> int:
    """The number of ASCII digits in ``text`` (bytes.translate: several times faster than str's)."""
    encoded = text.encode("utf-8", "surrogatepass")
    return len(encoded) - len(encoded.translate(None, b"0123456789"))


def phone_shaped(text: str) -> bool:
    """A phone number starts with ``+`` or an area code in parentheses, or has ten digits or more
    (at most eleven when written without separators)."""
    digits = digit_count(text)
    if digits < _PHONE_MIN_DIGITS or _DATE_PREFIX.match(text) or _IPV4_LIKE.search(text):
        return False
    if text.startswith(("+", "(")):
        return True
    return 10 <= digits <= 11 or (digits >= 10 and not text.isdigit())  # 13 bare digits: an epoch-ms timestamp


def analyzer_engine(spacy_model: str | None) -> Any:
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

    recognizers = _pii_recognizers() + build_secret_recognizers()
    if spacy_model:
        from presidio_analyzer.predefined_recognizers import SpacyRecognizer

        recognizers.append(SpacyRecognizer(supported_entities=list(NER_ENTITIES)))
    registry = RecognizerRegistry(recognizers=recognizers, supported_languages=["en"])
    with warnings.catch_warnings():
        # Presidio warns that a NoOpNlpEngine yields no tokens; our subclass does yield them.
        warnings.filterwarnings("ignore", message="LemmaContextAwareEnhancer cannot use context", category=UserWarning)
        return AnalyzerEngine(
            registry=registry,
            nlp_engine=nlp_engine(spacy_model),
            supported_languages=["en"],
            context_aware_enhancer=_context_enhancer(),
        )


def _context_enhancer() -> Any:
    """Presidio's lemma context enhancer, applied in place and in time linear in the text.

    The stock enhancer deep-copies every result, then for each result scans the token list
    from the start and the keyword list linearly: quadratic on long texts with many results
    (40 KB of IPv6-like text took six seconds). Results are fresh from each ``analyze`` call,
    so they are changed in place; the match token is found by bisection; context words are
    looked for within ``_CONTEXT_WINDOW_TOKENS`` tokens. Same context words, same boost.
    """
    from presidio_analyzer import EntityRecognizer, RecognizerResult
    from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer

    class BoundedLemmaContextEnhancer(LemmaContextAwareEnhancer):
        def enhance_using_context(self, text, raw_results, nlp_artifacts, recognizers, context=None):
            by_id = {recognizer.id: recognizer for recognizer in recognizers if recognizer.context}
            changeable = [
                (result, by_id[rid])
                for result in raw_results
                if result.score < EntityRecognizer.MAX_SCORE
                and (rid := (result.recognition_metadata or {}).get(RecognizerResult.RECOGNIZER_IDENTIFIER_KEY)) in by_id
            ]
            if changeable and nlp_artifacts is not None and nlp_artifacts.tokens:
                words = _ContextWords(nlp_artifacts, self.context_prefix_count, self.context_suffix_count)
                extra = [word.lower() for word in context or []]
                for result, recognizer in changeable:
                    self._boost(result, words.around(result.start) + extra, recognizer.context)
            return raw_results

        def _boost(self, result, surrounding, context_words) -> None:
            supportive = self._find_supportive_word_in_context(surrounding, context_words, self.context_matching_mode)
            if supportive:
                boosted = max(result.score + self.context_similarity_factor, self.min_score_with_context_similarity)
                result.score = min(boosted, EntityRecognizer.MAX_SCORE)
                result.analysis_explanation.set_supportive_context_word(supportive)
                result.analysis_explanation.set_improved_score(result.score)

    return BoundedLemmaContextEnhancer()


class _ContextWords:
    """The keyword lemmas around a character offset, as Presidio's enhancer collects them
    (``prefix`` words before the match token, ``suffix`` after, the token itself in both)."""

    def __init__(self, nlp_artifacts: Any, prefix: int, suffix: int) -> None:
        self._ends = [index + len(token) for index, token in zip(nlp_artifacts.tokens_indices, nlp_artifacts.tokens)]
        self._lemmas = [lemma.lower() for lemma in nlp_artifacts.lemmas]
        self._keywords = set(nlp_artifacts.keywords)
        self._prefix, self._suffix = prefix, suffix

    def around(self, start: int) -> list[str]:
        index = min(bisect.bisect_right(self._ends, start), len(self._ends) - 1)  # first token ending after start
        low = max(0, index - _CONTEXT_WINDOW_TOKENS)
        before = [lemma for lemma in reversed(self._lemmas[low : index + 1]) if lemma in self._keywords][: self._prefix + 1]
        after = [lemma for lemma in self._lemmas[index : index + _CONTEXT_WINDOW_TOKENS] if lemma in self._keywords][: self._suffix + 1]
        return list(set(before + after))


def _pii_recognizers() -> list:
    from presidio_analyzer import Pattern
    from presidio_analyzer.predefined_recognizers import (
        CreditCardRecognizer,
        CryptoRecognizer,
        EmailRecognizer,
        IbanRecognizer,
        IpRecognizer,
        UsSsnRecognizer,
    )

    # Presidio's email pattern with the local part bounded to 64 characters (RFC 5321): its
    # unbounded run backtracks quadratically on long dotted tokens (100 KB took over a minute).
    bounded = [Pattern(p.name, p.regex.replace("{0,}", "{0,62}"), p.score) for p in EmailRecognizer.PATTERNS]
    email = EmailRecognizer(patterns=bounded)
    # Presidio validates email domains with tldextract's module default, which fetches the
    # public suffix list over HTTP; ours reads only the snapshot bundled with tldextract.
    email.validate_result = has_public_suffix
    return [email, _phone_recognizer(), CreditCardRecognizer(), IbanRecognizer(), IpRecognizer(), UsSsnRecognizer(), CryptoRecognizer()]


def _phone_recognizer() -> Any:
    """Presidio's PhoneRecognizer, run on phone-shaped candidates instead of whole texts.

    Stock Presidio runs phonenumbers' matcher over the whole text once per region (eight of
    them), which costs about a millisecond per line. Here each candidate is parsed once when
    it is international (``+…``) and once per region otherwise; a candidate that holds more
    digits than one number (and is no card number) goes to the stock matcher. Results are
    cached per candidate.
    """
    from presidio_analyzer import RecognizerResult
    from presidio_analyzer.predefined_recognizers import PhoneRecognizer

    class CandidatePhoneRecognizer(PhoneRecognizer):
        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list:
            regions = tuple(self.supported_regions)
            return [
                self._result(match.start() + start, match.start() + end, region)
                for match in _PHONE_CANDIDATE.finditer(text)
                if phone_shaped(match.group())
                for start, end, region in _phone_spans(match.group(), regions, self.leniency)
            ]

        def _result(self, start: int, end: int, region: str) -> RecognizerResult:
            metadata = {RecognizerResult.RECOGNIZER_NAME_KEY: self.name, RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id}
            explanation = self._get_analysis_explanation(region)
            return RecognizerResult(self.supported_entities[0], start, end, self.SCORE, explanation, metadata)

    context = ["phone", "tel", "telephone", "mobile", "cell", "call", "fax", "reach", "contact", "number", "sms"]
    return CandidatePhoneRecognizer(context=context, name="PhoneRecognizer")


def _is_card_number(text: str) -> bool:
    """13 to 19 digits passing the Luhn check (what Presidio's credit card recognizer validates)."""
    digits = [int(c) for c in text if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = sum(d if i % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2) for i, d in enumerate(reversed(digits)))
    return total % 10 == 0


@functools.lru_cache(maxsize=16384)  # the same customers' numbers recur across runs
def _phone_spans(candidate: str, regions: tuple[str, ...], leniency: int) -> tuple[tuple[int, int, str], ...]:
    """(start, end, region) of the valid numbers in ``candidate``, one phone-shaped run of digits."""
    import phonenumbers

    if digit_count(candidate) <= 15:
        region = _valid_phone_region(phonenumbers, candidate, regions)
        return ((0, len(candidate), region),) if region else ()
    if _is_card_number(candidate) or _FOUR_DIGIT_GROUPS.fullmatch(candidate):  # cards and IBAN account parts
        return ()
    # Several numbers in a row: let phonenumbers' matcher (what stock Presidio runs) split them.
    spans = {(m.start, m.end): region for region in regions for m in phonenumbers.PhoneNumberMatcher(candidate, region, leniency=leniency)}
    return tuple((start, end, region) for (start, end), region in sorted(spans.items()))


def _valid_phone_region(phonenumbers: Any, candidate: str, regions: tuple[str, ...]) -> str | None:
    """The region where ``candidate`` is a valid number (international form: parsed once), else None."""
    for region in (None,) if candidate.startswith("+") else regions:
        try:
            number = phonenumbers.parse(candidate, region)
        except phonenumbers.NumberParseException:
            continue
        # Country code 1 spans two dozen regions; try its main one before scanning them all.
        main_region = phonenumbers.region_code_for_country_code(number.country_code)
        if phonenumbers.is_valid_number_for_region(number, main_region):
            return main_region
        if phonenumbers.is_valid_number(number):
            return phonenumbers.region_code_for_number(number)
    return None


@functools.lru_cache(maxsize=1)
def _offline_tld_extractor() -> Any:
    import tldextract

    return tldextract.TLDExtract(cache_dir=None, suffix_list_urls=(), fallback_to_snapshot=True)


def has_public_suffix(email: str) -> bool:
    """Presidio's email validation (the domain ends in a public suffix), from tldextract's bundled list."""
    return _offline_tld_extractor()(email).fqdn != ""


def nlp_engine(spacy_model: str | None) -> Any:
    """A Presidio NLP engine over an installed spaCy NER pipeline, or a model-free tokenizer; never downloads."""
    if not spacy_model:
        return _token_nlp_engine()
    import spacy
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    if not spacy.util.is_package(spacy_model):
        from handoff.scrub import ScrubError

        raise ScrubError(f"spaCy model {spacy_model!r} is not installed (pip install it; nothing is downloaded at run time)")
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": spacy_model}])
    engine.nlp = {"en": spacy.load(spacy_model, disable=["parser"])}  # loaded here: Presidio's load() may download
    return engine


def _token_nlp_engine() -> Any:
    """Presidio's model-free engine, plus word tokens and lowercase lemmas so context words still count.

    spaCy's blank English pipeline would give the same tokens, but adds every unseen token
    (each email, id, digest) to its vocabulary for the life of the process, and that costs
    more than the recognizers on text that does not repeat. Tokens are computed on first use:
    only the context enhancer reads them, and only for results a context word can raise.
    """
    from presidio_analyzer.nlp_engine import NlpArtifacts, NoOpNlpEngine

    class LazyTokenArtifacts(NlpArtifacts):
        def __init__(self, text: str, nlp_engine: Any, language: str) -> None:  # no super(): nothing computed yet
            self.entities, self.scores, self.nlp_engine, self.language = [], [], nlp_engine, language
            self._text = text

        @functools.cached_property
        def _words(self) -> tuple[list[str], list[int]]:
            matches = list(_WORD.finditer(self._text))
            return [m.group() for m in matches], [m.start() for m in matches]

        tokens = property(lambda self: self._words[0])
        tokens_indices = property(lambda self: self._words[1])
        lemmas = functools.cached_property(lambda self: [token.lower() for token in self.tokens])
        keywords = functools.cached_property(
            lambda self: [lemma for lemma in self.lemmas if lemma not in _STOPWORDS and (lemma[0].isalnum() or lemma[0] == "_")]
        )

    class TokenNlpEngine(NoOpNlpEngine):
        engine_name = "handoff_tokens"

        def process_text(self, text: str, language: str) -> NlpArtifacts:
            return LazyTokenArtifacts(text, self, language)

        def is_stopword(self, word: str, language: str) -> bool:
            return word.lower() in _STOPWORDS

        def is_punct(self, word: str, language: str) -> bool:
            return not any(c.isalnum() for c in word)

    engine = TokenNlpEngine(models=[{"lang_code": "en", "model_name": "tokens"}])
    engine.load()
    return engine
