"""Comparing the constraints of two texts by what they state: the one function every check uses.

:func:`compare_constraints` takes the stored tokens of an upstream and a downstream text and
says which upstream constraints the downstream lost. It reads tokens only, never content, so the
transform and edge checks, ``handoff diff`` and blast radius give the same answer on digest rows
as on full ones, and ``python -m tests.analysis.eval_constraints --fast`` scores exactly it.

- An atomic constraint (number, percent, money, date, time, clause, id, unit) is carried when its
  canonical token is downstream (the tokens already say ``1.5 g`` and ``1,500 mg`` the same way),
  or the same value with less context (a table cell under "Amount (GBP)", a year-less date:
  :func:`~handoff.analysis.constraints.values.atom_carried`).
- A comparison (``comparison:>= unit:3 replicas``, :mod:`~handoff.analysis.constraints.bounds`)
  is carried by the same token; a downstream comparison on the same value with another operator
  makes it ``changed`` (``≥ 3`` → ``> 3``), and none at all ``lost`` (``at least 3`` → ``3``),
  except a deadline (``<=`` a date or time), which ``by``/``due`` with the same date carries.
- Any other negation or qualifier is carried when at least half of its content words (stemmed,
  any order, stop words ignored) are among the downstream text's terms
  (:mod:`~handoff.analysis.constraints.meaning`) and, for a negation, one of them is negated
  there too: ``do not refund before the investigation closes`` is carried by ``refunds are
  never issued before the investigation is closed``, not by ``refund before it closes``; a
  condition or exception (``unless``, ``only if``, ``except``, ``whichever``…) likewise needs one
  near a condition word. Across languages (a Spanish summary of an English contract) stems do not
  meet: a negation is carried while the downstream has as many negations as the upstream, a
  condition while it has as many conditions, and other qualifiers and list items are not compared.
- A list item is carried when at least half of its content words are among the downstream terms.

Tokens written before version 2 have no terms, and version 2's terms hashed whole stems where
version 3 hashes their first five letters: phrases of such rows are carried only by an identical
token, as version 1 compared them (:func:`comparable_terms`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from handoff.analysis.constraints.bounds import CUE_WORDS
from handoff.analysis.constraints.meaning import TERMS_CLASS, Terms, parse_terms, stem_hashes
from handoff.analysis.constraints.phrases import MORE_QUALIFIERS
from handoff.analysis.constraints.tokens import CONSTRAINTS_VERSION, Constraint
from handoff.analysis.constraints.values import atom_carried
from handoff.analysis.constraints.vocabulary import NEGATIONS, QUALIFIERS

PHRASE_CLASSES = ("negation", "qualifier")
#: Qualifier heads that state a bound on the values they govern.
BOUND_HEADS = frozenset(("at least", "at most", "no later than", "no earlier than"))
#: Qualifier heads that name a basis: the word ``base`` itself must reach the downstream text
#: (``rebated subtotal`` restated as an amount is not "the base is the rebated subtotal").
BASIS_HEADS = frozenset(("base is", "based on"))
#: Qualifier heads that open a condition or exception: carried only with a condition downstream.
CONDITION_HEADS = frozenset(
    ("only if", "only for", "unless", "except", "excluding", "provided that", "subject to", "until", "whichever")
)
#: Qualifier heads that bound a date or time: carried by the same date or time downstream, in any
#: wording ("valid until 30 June 2027" = "fixed through 30 June 2027"; "no later than Friday 26
#: February" = "by 26 February"). ``before``/``after`` stay strict: swapping them changes the fact.
DEADLINE_HEADS = frozenset(("until", "no later than"))
_DATED = re.compile(r"\d{4}-\d\d-\d\d|--\d\d-\d\d|\d\d:\d\d")
# The direction of a choice between values: "whichever comes first" = "whichever is reached first" = "the earlier of".
_CHOICE_DIRECTIONS = {
    "earlier": ("first", "earlier", "earliest", "sooner", "soonest"),
    "later": ("later", "last", "latest"),
    "greater": ("greater", "greatest", "higher", "highest", "larger", "largest", "more", "bigger", "maximum"),
    "lesser": ("lesser", "least", "lower", "lowest", "smaller", "smallest", "less", "fewer", "minimum"),
}
_CHOICE = {word: direction for direction, words in _CHOICE_DIRECTIONS.items() for word in words}
_HEADS = sorted({*QUALIFIERS.values(), *MORE_QUALIFIERS.values(), *NEGATIONS.values(), "not"}, key=len, reverse=True)
_SHARE_CARRIED = 0.5
_VALUE = re.compile(r"\d")


@dataclass(frozen=True)
class Finding:
    """One upstream constraint the downstream did not carry: its token and ``lost`` or ``changed``.

    ``downstream`` is the downstream token that now states a changed fact (empty when lost).
    """

    token: str
    status: str = "lost"
    downstream: str = ""


@dataclass(frozen=True)
class Phrase:
    """A negation or qualifier token taken apart: class, canonical head, values and content words."""

    cls: str
    head: str
    values: frozenset[str]
    words: tuple[str, ...]


def parse_phrase(token: str) -> Phrase | None:
    """``qualifier:at least 3 replicas`` -> its parts; ``None`` for a token that is no phrase."""
    cls, _, value = token.partition(":")
    if cls not in PHRASE_CLASSES:
        return None
    head = next((h for h in _HEADS if value == h or value.startswith(h + " ")), value.split(" ", 1)[0])
    rest = value[len(head) :].split()
    # A word right after a value is its unit ("60 months"): part of the value, not a content word.
    in_value = [
        bool(_VALUE.search(word)) or (i > 0 and bool(_VALUE.search(rest[i - 1]))) for i, word in enumerate(rest)
    ]
    values = frozenset(word for word, valued in zip(rest, in_value) if valued)
    return Phrase(cls, head, values, tuple(word for word, valued in zip(rest, in_value) if not valued))


class _Downstream:
    """The downstream side, indexed once for every upstream token compared against it."""

    def __init__(self, tokens: Iterable[str]) -> None:
        self.tokens = frozenset(tokens)
        self.terms = comparable_terms(self.tokens)
        self.phrases = [p for p in map(parse_phrase, self.tokens) if p is not None]
        self.bounds: dict[str, list[str]] = {}
        bounded: dict[str, set[str]] = {}
        for token in sorted(self.tokens):
            if token.startswith("comparison:"):
                op, atom = token[len("comparison:") :].split(" ", 1)
                self.bounds.setdefault(atom, []).append(token)
                bounded.setdefault(op, set()).add(atom)
        self.bounded = {op: frozenset(atoms) for op, atoms in bounded.items()}
        self.values = {
            word
            for token in self.tokens
            if not token.startswith(TERMS_CLASS + ":")
            for word in token.split(":", 1)[-1].split()
        }
        # a phrase writes a percentage with its sign ("subject to 30%"), an atom without ("percent:30")
        self.values.update(token[len("percent:") :] + "%" for token in self.tokens if token.startswith("percent:"))

    def bounds_value(self, op: str, atom: str) -> bool:
        """Whether a downstream bound with operator ``op`` states the value of ``atom`` (any class)."""
        atoms = self.bounded.get(op)
        return bool(atoms) and atom_carried(atom, atoms)

    def carries_choice(self, phrase: Phrase) -> bool | None:
        """Whether a choice between values ("whichever comes first") is stated downstream with the
        same direction, in any wording; ``None`` when the upstream phrase names no direction."""
        direction = _choice_direction(phrase)
        if direction is None:
            return None
        return any(p.head.startswith("whichever") and _choice_direction(p) == direction for p in self.phrases)

    def carries_bound(self, phrase: Phrase) -> bool:
        return any(p.head == phrase.head and p.values == phrase.values for p in self.phrases)

    def carries_words(self, phrase: Phrase, up: Terms) -> bool:
        terms = self.terms
        if terms is None:
            return False
        negation, condition = phrase.cls == "negation", phrase.head in CONDITION_HEADS
        if terms.lang != up.lang:  # a translation: only the number of negations and conditions is compared
            return (not negation or terms.negations >= up.negations) and (
                not condition or terms.conditions >= up.conditions
            )
        stems = set(stem_hashes(list(phrase.words), up.lang))
        if phrase.head in BASIS_HEADS and not set(stem_hashes(["base"], up.lang)) <= terms.words:
            return False
        if not stems:
            return (not negation or bool(terms.negated)) and (not condition or bool(terms.conditioned))
        if len(stems & terms.words) < _SHARE_CARRIED * len(stems):
            return False
        return (not negation or bool(stems & terms.negated)) and (not condition or bool(stems & terms.conditioned))

    def carries_item(self, token: str, up: Terms) -> bool:
        terms = self.terms
        if terms is None:
            return False
        if terms.lang != up.lang:
            return True
        # a bound's cue ("maximum 6 persons") is compared as the item's comparison, not as one of its words
        words = [word for word in token.split(":", 1)[1].split() if not _VALUE.search(word) and word not in CUE_WORDS]
        stems = set(stem_hashes(words, up.lang))
        return bool(stems) and len(stems & terms.words) >= _SHARE_CARRIED * len(stems)


def _finding(token: str, down: _Downstream, up_terms: Terms | None) -> Finding | None:
    """What became of one upstream token downstream: ``None`` when carried."""
    if token in down.tokens:
        return None
    if token.startswith("comparison:"):
        op, atom = token[len("comparison:") :].split(" ", 1)
        if down.bounds_value(op, atom):
            return None  # the same bound on the same value, stated with less context ("<= 10000" = "<= GBP 10,000")
        other = down.bounds.get(atom)
        if other:
            return Finding(token, "changed", other[0])
        if (
            op == "<="
            and atom.startswith(("date:", "time:"))
            and (atom in down.tokens or atom_carried(atom, down.tokens))
        ):
            return None  # a deadline: "no later than March 31" = "by March 31" = "due March 31"
        return Finding(token)
    return None if _carried(token, down, up_terms) else Finding(token)


def _carried(token: str, down: _Downstream, up_terms: Terms | None) -> bool:
    if atom_carried(token, down.tokens):
        return True
    if token.startswith("list_item:"):
        return up_terms is not None and down.carries_item(token, up_terms)
    phrase = parse_phrase(token)
    if phrase is None:
        return False
    if phrase.head in DEADLINE_HEADS and phrase.values and all(_DATED.search(value) for value in phrase.values):
        return phrase.values <= down.values
    if phrase.head.startswith("whichever") and (choice := down.carries_choice(phrase)) is not None:
        return choice
    if phrase.head in BOUND_HEADS and phrase.values:
        return down.carries_bound(phrase)
    if not phrase.words and not phrase.values <= down.values:  # "per 7.2(b)" is lost with its clause
        return False
    return up_terms is not None and down.carries_words(phrase, up_terms)


def _choice_direction(phrase: Phrase) -> str | None:
    """``earlier``, ``later``, ``greater`` or ``lesser`` for a ``whichever`` phrase that says which, else ``None``."""
    _, _, stated = phrase.head.partition(" ")
    if stated:
        return stated
    return next((_CHOICE[word] for word in phrase.words if word in _CHOICE), None)


def comparable_terms(tokens: Iterable[str]) -> Terms | None:
    """The ``terms`` among stored ``tokens`` if this version can compare them, else ``None``.

    Phrase words are hashed at comparison time with this version's stemming, so the terms of
    rows written by another version (or none, before version 2) cannot meet them: those rows'
    negations and qualifiers are carried only by an identical token, as version 1 compared them.
    """
    terms = parse_terms(list(tokens))
    return terms if terms is not None and terms.version == CONSTRAINTS_VERSION else None


def compare_constraints(upstream: Iterable[str], downstream: Iterable[str]) -> list[Finding]:
    """The upstream constraints ``downstream`` did not carry, in upstream token order (sorted).

    Both sides are stored token lists (``input_constraints``/``output_constraints``); the
    ``terms`` token of each, when present, is what negations and qualifiers are compared on.
    """
    up = sorted(set(upstream))
    up_terms = comparable_terms(up)
    down = _Downstream(downstream)
    found = (_finding(token, down, up_terms) for token in up if not token.startswith(TERMS_CLASS + ":"))
    return [finding for finding in found if finding is not None]


def lost_tokens(upstream: Iterable[str], downstream: Iterable[str]) -> list[str]:
    """The tokens of :func:`compare_constraints`' findings, sorted."""
    return [finding.token for finding in compare_constraints(upstream, downstream)]


def stored_tokens(text: str | bytes) -> list[str]:
    """What the writer stores for a text, sorted: :func:`extract_constraints`, its list items and its ``terms``."""
    from handoff.analysis.constraints.lists import find_items
    from handoff.analysis.constraints.meaning import terms_token
    from handoff.analysis.constraints.scanner import extract_constraints

    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    items = {item.token for item in find_items(text)}
    return sorted({*extract_constraints(text), *items, terms_token(text)})


def find_written(text: str) -> list[Constraint]:
    """Every constraint of ``text`` with where it is written: :func:`find_constraints` and its list items."""
    from handoff.analysis.constraints.lists import find_items
    from handoff.analysis.constraints.scanner import find_constraints

    return sorted([*find_constraints(text), *find_items(text)], key=lambda c: (c.start, c.end))
