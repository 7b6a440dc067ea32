"""The content words of a text, so negations and qualifiers are compared by meaning, not spelling.

A text's *terms* are its content words, stemmed in the text's language (English, Spanish, French
or German, told apart by their stop words, from spaCy's lists; stems by
``snowballstemmer``), stop words left out. A term that stands near a negation (``not``,
``never``, ``no``, ``without``, ``false``, ``rather than``, ``nunca``, ``nicht``…) in the same
clause is also marked *negated* (a JSON ``"refundable": false`` negates its key), and so is the
base of an English ``un-``/``non-`` word (``unsent`` negates *sent*, checked against the
``english-words`` list); one near a condition (``unless``, ``only``, ``except``, ``salvo``,
``außer``…) *conditioned*. The writer stores them as one token (:func:`terms_token`: the counts
of both kinds of cue, then each stem as a 6-hex-digit BLAKE2b hash with its marks), so a check
run on digest rows after retention has dropped the content can still tell whether the words of
an upstream condition reached the downstream text, and with which polarity, without the stored
row spelling them out.

``terms`` is not a constraint class: nothing is ever reported lost as a ``terms`` token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from hashlib import blake2b

from handoff.analysis.constraints.tokens import CONSTRAINTS_VERSION

#: The class of the one per-text terms token; not a constraint class.
TERMS_CLASS = "terms"

#: Languages a text's words are stemmed in, by ISO 639-1 code: their Snowball stemmer names.
LANGUAGES = {"en": "english", "es": "spanish", "fr": "french", "de": "german"}

# Negation cues per language: a stop-words list holds them too, so they are looked up first.
_NEGATION_CUES = {
    "en": frozenset(
        "not never no cannot without nor none neither nobody nothing false rather instead "
        "prohibited forbidden banned barred disallowed off-limits".split()
    ),
    "es": frozenset(
        "no nunca sin ni jamás ningún ninguna ninguno nadie nada prohibido prohibida prohibidos prohibidas".split()
    ),
    "fr": frozenset("ne pas jamais sans aucun aucune ni personne rien interdit interdite interdits interdites".split()),
    "de": frozenset("nicht nie niemals kein keine keinen keinem keiner keines ohne weder verboten untersagt".split()),
}
# Condition cues: what opens an exception, a condition or a scope ("unless", "only if", "salvo").
_CONDITION_CUES = {
    "en": frozenset(
        "if unless except excluding only provided subject whichever until save "
        "exception exceptions excl excl. ex before after once when whenever while".split()
    ),
    "es": frozenset(
        "si salvo excepto solo sólo únicamente siempre sujeto hasta excluidos excluido "
        "excepción antes después cuando mientras".split()
    ),
    "fr": frozenset(
        "si sauf excepté uniquement seulement hors réserve jusqu lorsque exclu exclus exception avant après quand".split()
    ),
    "de": frozenset(
        "wenn falls außer ausgenommen nur sofern vorbehaltlich bis ausschließlich ausnahme vor nach sobald während".split()
    ),
}
# Restrictions: a prohibition restated with one keeps its polarity ("do not authorise disposal
# before the inventory" = "disposal may be authorised only after it"), so the words near one are
# marked negated too (not counted as negations: a translation's count compares real ones).
_RESTRICTION_CUES = {
    "en": frozenset("only solely exclusively unless except".split()),
    "es": frozenset("solo sólo únicamente exclusivamente salvo excepto".split()),
    "fr": frozenset("uniquement seulement exclusivement sauf excepté".split()),
    "de": frozenset("nur ausschließlich außer ausgenommen".split()),
}
# Words that state a refusal, an exclusion or a stop without a negation ("verbal changes are
# refused" = "are not accepted", "shipping is free" = "no charge"): the words near one are marked
# negated, as a negation's are, but they are not counted as negations (a translation compares those).
_REFUSAL_CUES = {
    "en": frozenset(
        "refuse refused refuses rejected reject rejects declined decline declines denied deny denies excluded "
        "exclude excludes exempt waived waive waives prohibit prohibits forbid forbids ban bans block blocked "
        "blocks bars disabled disable ineligible avoid avoids stop stops cease ceases refrain".split()
    ),
    "es": frozenset(
        "rechazado rechazada rechazados rechazadas rechaza rechazan excluido excluida excluidos excluidas "
        "excluye exento exenta prohíbe prohíben bloqueado bloqueada denegado denegada "
        "evite evitar".split()
    ),
    "fr": frozenset(
        "refusé refusée refusés refusées refuse refusent rejeté rejetée rejetés exclu exclue exclus exclues "
        "exempt exempté bloqué bloquée évitez éviter".split()
    ),
    "de": frozenset("abgelehnt ablehnen ausgeschlossen befreit gesperrt verweigert vermeiden".split()),
}
# Words of permission and of necessity: within a class, one meaning ("car hire is not approved" =
# ``"car_hire_allowed": false``; "bridging is not needed" = "no bridging required"). A word of a class
# is stored with its own stem and its class, so a phrase written with another word of the class meets it.
_MODAL_CLASSES = {
    "en": {
        "=allow": "allow allowed allows permit permits permitted permissible approved authorised authorized "
        "accepted eligible entitled",
        "=require": "need needs needed require requires required necessary mandatory compulsory obligatory",
    },
    "es": {
        "=allow": "permitido permitida permitidos permitidas autorizado autorizada admitido admitida",
        "=require": "necesario necesaria requerido requerida obligatorio obligatoria",
    },
    "fr": {
        "=allow": "autorisé autorisée autorisés permis permise admis admise",
        "=require": "nécessaire nécessaires requis requise obligatoire obligatoires",
    },
    "de": {
        "=allow": "erlaubt zulässig gestattet genehmigt",
        "=require": "erforderlich notwendig nötig verpflichtend vorgeschrieben",
    },
}
_MODAL = {
    lang: {w: c for c, words in classes.items() for w in words.split()} for lang, classes in _MODAL_CLASSES.items()
}
_CONTRACTED_NOT = re.compile(r"n[’']t$")
_WORD = re.compile(r"[^\W\d_][^\W_]*(?:['’-][^\W_]+)*")  # snake_case keys are words apart
_VERSION_FIELD = re.compile(r"v\d+")
# A clause ends at these; a full stop only before a space or the end (``7.2(b)`` is one word).
# A colon after "Exception" or "Condition" labels the clause it opens, so it does not end one.
# The mark comes first and its conditions after it, so `re` skips ahead to marks instead of trying
# the look-behinds at every character.
_CLAUSE_END = re.compile(
    r"[;!?\n:.](?:(?<=[;!?\n])|(?<=:)(?<!exception:)(?<!exceptions:)(?<!condition:)"
    r"(?![\"'\s]*(?:false|none|null|no)\b)|(?<=\.)(?=\s|$))",
    re.IGNORECASE,
)
# How far a negation or condition reaches: the words before it (its subject) and after it, in its clause.
_CUE_BEFORE = 4
_CUE_AFTER = 8
_HASH_BYTES = 3
_STEM_LETTERS = 5


@dataclass(frozen=True)
class Terms:
    """The terms of one text: its language, every stem's hash, those seen negated or conditioned, and the cue counts."""

    lang: str
    words: frozenset[str]
    negated: frozenset[str]
    conditioned: frozenset[str] = frozenset()
    negations: int = 0
    conditions: int = 0
    #: The constraints version whose stem hashing wrote it (``v3`` in the token; none before that).
    version: int = 2


@lru_cache(maxsize=4)
def _stop_words(lang: str) -> frozenset[str]:
    # spaCy's lists (a few hundred words each; the scrubber has loaded spaCy already): the
    # stop-words package's English list also holds content words ("sent", "affected").
    from importlib import import_module

    return frozenset(import_module(f"spacy.lang.{lang}.stop_words").STOP_WORDS)


@lru_cache(maxsize=4)
def _stemmer(lang: str):
    import snowballstemmer

    return snowballstemmer.stemmer(LANGUAGES[lang])


@lru_cache(maxsize=65536)
def _stem_hash(lang: str, word: str) -> str:
    # A stem's first letters are what derived words share ("deferred"/"deferral" -> "defer"/"deferr",
    # "remediated"/"remediation"): comparing those is the light synonym matching we can afford.
    stem = _stemmer(lang).stemWord(word)[:_STEM_LETTERS]
    return blake2b(stem.encode(), digest_size=_HASH_BYTES).hexdigest()


@lru_cache(maxsize=1)
def _stop_word_langs() -> dict[str, frozenset[str]]:
    """Each stop word of any language: the languages whose list has it."""
    langs: dict[str, set[str]] = {}
    for lang in LANGUAGES:
        for word in _stop_words(lang):
            langs.setdefault(word, set()).add(lang)
    return {word: frozenset(found) for word, found in langs.items()}


def detect_language(words: list[str]) -> str:
    """The language of lower-cased ``words``: the one whose stop words they use most, a word shared
    by several languages counting for each by a share; on a tie the language with the shorter
    list (English's)."""
    langs = _stop_word_langs()
    score = dict.fromkeys(LANGUAGES, 0.0)
    for word in words:
        for lang in langs.get(word, ()):
            score[lang] += 1 / len(langs[word])
    best = max(score, key=lambda lang: (score[lang], -len(_stop_words(lang))))
    return best if score[best] > 0 else "en"


@lru_cache(maxsize=1)
def _english_words() -> frozenset[str]:
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2"], lower=True))


_NEGATABLE_ENDINGS = ("ed", "able", "ible")
_NEGATING_PREFIX = re.compile(r"(?:un|non-?)(?=[a-z]{4})")


def negated_word(word: str, lang: str) -> str | None:
    """The word an English ``un-``/``non-`` word negates (``unsent`` -> ``sent``), or ``None``."""
    if lang != "en" or (m := _NEGATING_PREFIX.match(word)) is None:
        return None
    rest = word[m.end() :]
    if word in _stop_words(lang):
        return None
    # A participle or "-able" word is negated whole even when the list lacks it ("unremediated").
    return rest if rest in _english_words() or (len(rest) >= 6 and rest.endswith(_NEGATABLE_ENDINGS)) else None


def is_negation(word: str, lang: str) -> bool:
    """Whether lower-cased ``word`` negates what follows it in ``lang`` (``don't`` does in English)."""
    return word in _NEGATION_CUES[lang] or (lang == "en" and _CONTRACTED_NOT.search(word) is not None)


def is_condition(word: str, lang: str) -> bool:
    """Whether lower-cased ``word`` opens a condition, exception or scope in ``lang``."""
    return word in _CONDITION_CUES[lang]


def stem_hashes(words: list[str], lang: str) -> list[str]:
    """The hashes of the content words among lower-cased ``words`` (stop words and negations left
    out), a word of permission or necessity also as its class (``permitted`` -> ``=allow``)."""
    return [h for word in words for h in _word_hashes(lang, word)]


@lru_cache(maxsize=65536)
def _word_hashes(lang: str, word: str) -> tuple[str, ...]:
    """:func:`stem_hashes` of one word, remembered: a text's words repeat, within it and across texts."""
    stops = _stop_words(lang)
    modal = _MODAL[lang]
    hashes = []
    for part in word.split("-"):  # a hyphenated word is its parts ("syringe-feed" meets "syringe-fed" in "syringe")
        if (cls := modal.get(part)) is not None:
            hashes.append(_stem_hash(lang, cls))
        if len(part) > 1 and part not in stops and not is_negation(part, lang) and not is_condition(part, lang):
            # No stemmer changes a run of digits, so a serial number's stem is its first letters as they
            # are: hashing those hits the cache where each serial (``SHP-0000417``) would miss it.
            hashes.append(_stem_hash(lang, part[:_STEM_LETTERS] if part.isdigit() and part.isascii() else part))
    return tuple(hashes)


@lru_cache(maxsize=65536)
def _word_cues(lang: str, word: str) -> tuple[tuple[str, ...] | None, str | None, bool]:
    """What one word tells :func:`find_terms`: the hashes of the word an ``un-`` word negates (or
    ``None``), the kind of cue it is (``"negated"``, ``"conditioned"`` or ``None``) and whether it
    restricts."""
    base = negated_word(word, lang)
    kind = "negated" if is_negation(word, lang) else "conditioned" if is_condition(word, lang) else None
    if kind is None and word in _REFUSAL_CUES[lang]:
        return None if base is None else tuple(stem_hashes([base], lang)), "refused", False
    return (
        None if base is None else tuple(stem_hashes([base], lang)),
        kind,
        kind is not None and word in _RESTRICTION_CUES[lang],
    )


# Prompts repeat their clauses (a system prompt, a tool schema) from text to text: a short
# clause's words and terms are remembered, in caches emptied when full.
_CLAUSE_CACHE_ENTRIES = 65536
_CLAUSE_CACHE_CHARS = 256  # longer clauses (and their words) are read every time
_CLAUSE_WORDS: dict[str, tuple[str, ...]] = {}
_CLAUSE_TERMS: dict[
    tuple[str, tuple[str, ...]], tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], int, int]
] = {}


def _remember(cache: dict, key: object, value: object) -> None:
    if len(cache) >= _CLAUSE_CACHE_ENTRIES:
        cache.clear()
    cache[key] = value


def _clause_words(clause: str) -> tuple[str, ...]:
    """The lower-cased words of one clause."""
    words = _CLAUSE_WORDS.get(clause)
    if words is None:
        words = tuple(_words(clause))
        if len(clause) <= _CLAUSE_CACHE_CHARS:
            _remember(_CLAUSE_WORDS, clause, words)
    return words


def _clause_terms(
    lang: str, clause: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], int, int]:
    """One clause's part of :func:`find_terms`: its hashes, those negated and those conditioned, and its cue counts."""
    found = _CLAUSE_TERMS.get((lang, clause))
    if found is not None:
        return found
    words: list[str] = []
    marked: dict[str, list[str]] = {"negated": [], "conditioned": []}
    counts = {"negated": 0, "conditioned": 0}
    hashes = [_word_hashes(lang, word) for word in clause]
    for word_hashes in hashes:
        words += word_hashes
    for i, word in enumerate(clause):
        base, kind, restricts = _word_cues(lang, word)
        if base is not None:  # "the unaffected lot" = "not affected"
            # marked, not counted: a translation compares counts of the cues every language has
            words += base
            marked["negated"] += base
        if not kind:
            continue
        near = [h for word_hashes in hashes[max(0, i - _CUE_BEFORE) : i + 1 + _CUE_AFTER] for h in word_hashes]
        if kind == "refused":  # marked negated, not counted
            marked["negated"] += near
        else:
            counts[kind] += 1
            marked[kind] += near
            if restricts:
                marked["negated"] += near
    found = (
        tuple(set(words)),
        tuple(set(marked["negated"])),
        tuple(set(marked["conditioned"])),
        counts["negated"],
        counts["conditioned"],
    )
    if sum(map(len, clause)) <= _CLAUSE_CACHE_CHARS:
        _remember(_CLAUSE_TERMS, (lang, clause), found)
    return found


# French elisions are two words: "jusqu'au" is "jusqu" (a condition) and "au", "l'accord" is "l" and "accord".
_ELISION = re.compile(r"^(c|d|j|l|m|n|s|t|qu|jusqu|lorsqu|puisqu|quoiqu|presqu)['’](?=[^\W\d_])")


def _words(text: str) -> list[str]:
    words = [m.group().lower().strip("'’-") for m in _WORD.finditer(text)]
    if "'" not in text and "’" not in text:
        return words
    return [part for word in words for part in _ELISION.sub(r"\1 ", word).split()]


def find_terms(text: str) -> Terms:
    """The :class:`Terms` of ``text``."""
    clauses = [_clause_words(clause) for clause in _CLAUSE_END.split(text)]
    lang = detect_language([word for clause in clauses for word in clause])
    words: set[str] = set()
    negated: set[str] = set()
    conditioned: set[str] = set()
    negations = conditions = 0
    for clause in clauses:
        clause_words, clause_negated, clause_conditioned, clause_negations, clause_conditions = _clause_terms(
            lang, clause
        )
        words.update(clause_words)
        negated.update(clause_negated)
        conditioned.update(clause_conditioned)
        negations += clause_negations
        conditions += clause_conditions
    return Terms(lang, frozenset(words), frozenset(negated), frozenset(conditioned), negations, conditions)


def terms_token(text: str) -> str:
    """The stored form of :func:`find_terms`, hashes sorted.

    ``terms:v<version> <lang> <negations> <conditions> <hash>[!][?] …``: ``!`` after a stem seen
    negated, ``?`` after one seen conditioned.
    """
    terms = find_terms(text)
    marked = sorted(h + "!" * (h in terms.negated) + "?" * (h in terms.conditioned) for h in terms.words)
    fields = [f"v{CONSTRAINTS_VERSION}", terms.lang, str(terms.negations), str(terms.conditions), *marked]
    return f"{TERMS_CLASS}:{' '.join(fields)}"


def parse_terms(tokens: list[str] | tuple[str, ...] | set[str] | frozenset[str]) -> Terms | None:
    """The :class:`Terms` stored among ``tokens``, or ``None`` (tokens written before version 2)."""
    for token in tokens:
        if token.startswith(TERMS_CLASS + ":"):
            fields = token[len(TERMS_CLASS) + 1 :].split(" ")
            version = int(fields.pop(0)[1:]) if _VERSION_FIELD.fullmatch(fields[0]) else 2
            lang, negations, conditions, *marked = fields
            return Terms(
                lang,
                frozenset(h.rstrip("!?") for h in marked),
                frozenset(h.rstrip("!?") for h in marked if "!" in h),
                frozenset(h.rstrip("!?") for h in marked if "?" in h),
                int(negations),
                int(conditions),
                version,
            )
    return None


def tokens_version(tokens: list[str] | tuple[str, ...] | set[str] | frozenset[str]) -> int:
    """The constraints version a stored token list was written with, as far as its ``terms`` tell (1: none)."""
    terms = parse_terms(tokens)
    return 1 if terms is None else terms.version
