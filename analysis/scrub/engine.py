"""The Presidio engine that finds PII and secrets, built once per process (per spaCy model).

One ``AnalyzerEngine`` with Presidio's pattern recognizers for PII, the secret recognizers of
:mod:`handoff.analysis.scrub.patterns`, and PERSON/LOCATION when an installed spaCy NER model
is named. Nothing here downloads anything: email domains are checked against the public
suffix list bundled with tldextract, and without a NER model no spaCy pipeline is loaded at
all. This module imports Presidio only inside functions.
"""

from __future__ import annotations

import bisect
import functools
import re
import threading
import warnings
from typing import Any

from handoff.analysis.scrub.findings import ScrubError
from handoff.analysis.scrub.patterns import (
    NER_ENTITIES,
    PHONE_CANDIDATE,
    SECRET_SPECS,
    SecretSpec,
    digit_count,
    phone_shaped,
    secret_spans,
)

_CONTEXT_WINDOW_TOKENS = 40
_engine_lock = threading.Lock()
_engines: dict[str | None, Any] = {}


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
            metadata = {
                RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
            }
            return [
                RecognizerResult(
                    self.supported_entities[0], start, end, spec.score, recognition_metadata=dict(metadata)
                )
                for spec, pattern in self._specs
                for start, end in secret_spans(spec, pattern, text)
            ]

    grouped: dict[tuple[str, str], list[SecretSpec]] = {}
    for spec in specs:
        grouped.setdefault((spec.name, spec.entity), []).append(spec)
    return [SecretPatternRecognizer(name, entity, group) for (name, entity), group in grouped.items()]


_WORD = re.compile(r"\w+|[^\w\s]")
_STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was were will with".split()
)
_FOUR_DIGIT_GROUPS = re.compile(r"\d{4}(?:[ \-]\d{4}){2,}(?:[ \-]\d{1,4})?")


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
                and (rid := (result.recognition_metadata or {}).get(RecognizerResult.RECOGNIZER_IDENTIFIER_KEY))
                in by_id
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
        before = [lemma for lemma in reversed(self._lemmas[low : index + 1]) if lemma in self._keywords][
            : self._prefix + 1
        ]
        after = [lemma for lemma in self._lemmas[index : index + _CONTEXT_WINDOW_TOKENS] if lemma in self._keywords][
            : self._suffix + 1
        ]
        return list(set(before + after))


def _pii_recognizers() -> list:
    from presidio_analyzer import Pattern
    from presidio_analyzer.predefined_recognizers import (
        CreditCardRecognizer,
        CryptoRecognizer,
        EmailRecognizer,
        IbanRecognizer,
        UsSsnRecognizer,
    )

    # Presidio's email pattern with the local part bounded to 64 characters (RFC 5321): its
    # unbounded run backtracks quadratically on long dotted tokens (100 KB took over a minute).
    bounded = [Pattern(p.name, p.regex.replace("{0,}", "{0,62}"), p.score) for p in EmailRecognizer.PATTERNS]
    email = EmailRecognizer(patterns=bounded)
    # Presidio validates email domains with tldextract's module default, which fetches the
    # public suffix list over HTTP; ours reads only the snapshot bundled with tldextract.
    email.validate_result = has_public_suffix
    card = CreditCardRecognizer()
    presidio_card_check = card.validate_result
    card.validate_result = lambda text: presidio_card_check(text) and _card_length_ok(text)
    return [
        email,
        _phone_recognizer(),
        card,
        IbanRecognizer(),
        _ip_recognizer(),
        UsSsnRecognizer(),
        CryptoRecognizer(),
    ]


# A literal every match of each of Presidio's IP patterns holds: a pattern whose literal is not in the
# text cannot match there. IPv6's pattern is most of the recognizer's time, and log text has no colon.
_IP_PATTERN_NEEDS = {"IPv4_mapped": "::", "IPv4_embedded": ":", "IPv4": ".", "IPv6": ":", "IPv6_unspecified": "::"}


def _ip_recognizer() -> Any:
    """Presidio's IpRecognizer, which skips on a text the patterns that need a literal it lacks.

    The remaining patterns run in a recognizer of the same name and id that holds only them (built
    once per subset), so the results, their order and their context words are the stock ones.
    """
    from presidio_analyzer.predefined_recognizers import IpRecognizer

    class GatedIpRecognizer(IpRecognizer):
        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None, regex_flags: Any = None) -> list:
            wanted = tuple(p for p in self.patterns if _IP_PATTERN_NEEDS.get(p.name, "") in text)
            if len(wanted) == len(self.patterns):
                return super().analyze(text, entities, nlp_artifacts, regex_flags)
            return self._running(wanted).analyze(text, entities, nlp_artifacts, regex_flags) if wanted else []

        @functools.lru_cache(maxsize=32)  # noqa: B019 - one recognizer per process, never freed anyway
        def _running(self, patterns: tuple) -> IpRecognizer:
            subset = IpRecognizer(patterns=list(patterns), context=self.context, name=self.name)
            subset._id = self._id
            return subset

    return GatedIpRecognizer(name="IpRecognizer")


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
                for match in PHONE_CANDIDATE.finditer(text)
                if phone_shaped(match.group())
                for start, end, region in _phone_spans(match.group(), regions, self.leniency)
            ]

        def _result(self, start: int, end: int, region: str) -> RecognizerResult:
            metadata = {
                RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
            }
            explanation = self._get_analysis_explanation(region)
            return RecognizerResult(self.supported_entities[0], start, end, self.SCORE, explanation, metadata)

    context = ["phone", "tel", "telephone", "mobile", "cell", "call", "fax", "reach", "contact", "number", "sms"]
    return CandidatePhoneRecognizer(context=context, name="PhoneRecognizer")


def _card_length_ok(text: str) -> bool:
    """Only old Visa cards have 13 digits; another 13-digit number passing Luhn is an EAN-13 barcode."""
    digits = [c for c in text if c.isdigit()]
    return len(digits) != 13 or digits[0] == "4"


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
    spans = {
        (m.start, m.end): region
        for region in regions
        for m in phonenumbers.PhoneNumberMatcher(candidate, region, leniency=leniency)
    }
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
        if region is None and phonenumbers.is_possible_number(number):
            return main_region or "ZZ"  # "+44 7700 900514": written as a phone, in a range set aside for fiction
    return None


@functools.lru_cache(maxsize=1)
def _offline_tld_extractor() -> Any:
    import tldextract

    return tldextract.TLDExtract(cache_dir=None, suffix_list_urls=(), fallback_to_snapshot=True)


_FILE_SUFFIXES = frozenset(
    "png jpg jpeg gif svg webp ico js ts py json yaml yml txt md css html pdf zip gz tar csv xml log lock toml ini cfg sh "
    "exe dll so".split()
)


def has_public_suffix(email: str) -> bool:
    """Presidio's email validation (the domain ends in a public suffix, from tldextract's bundled list), also
    accepting the special-use and private top-level names mail is addressed to (``.example``, ``.internal``)."""
    if _offline_tld_extractor()(email).fqdn != "":
        return True
    tld = email.rsplit(".", 1)[-1].lower() if "." in email.rsplit("@", 1)[-1] else ""
    return tld.isalpha() and 2 <= len(tld) <= 24 and tld not in _FILE_SUFFIXES


def nlp_engine(spacy_model: str | None) -> Any:
    """A Presidio NLP engine over an installed spaCy NER pipeline, or a model-free tokenizer; never downloads."""
    if not spacy_model:
        return _token_nlp_engine()
    import spacy
    from presidio_analyzer.nlp_engine import SpacyNlpEngine

    if not spacy.util.is_package(spacy_model):
        raise ScrubError(
            f"spaCy model {spacy_model!r} is not installed (pip install it; nothing is downloaded at run time)"
        )
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
            lambda self: [
                lemma for lemma in self.lemmas if lemma not in _STOPWORDS and (lemma[0].isalnum() or lemma[0] == "_")
            ]
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
