"""Negations and qualifiers: a trigger phrase bound to the few words it governs.

``no more than 3 retries`` is ``qualifier:at most 3 retries``; objects are capped at a few
content words, and atomic constraints inside them appear in normalized form.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator

from handoff.analysis.constraints.bounds import CUE_WORDS, find_bounds
from handoff.analysis.constraints.tokens import Constraint
from handoff.analysis.constraints.vocabulary import (
    ARTICLES,
    NEGATION_WORDS,
    NEGATIONS,
    OBJECT_WORDS,
    QUALIFIERS,
    STOP_WORDS,
    UNCOUNTED,
    trie_pattern,
)
from handoff.analysis.constraints.windows import WIDEN_MAX

# Qualifier triggers beyond the shared vocabulary: exceptions and scopes the corpus rules name.
MORE_QUALIFIERS = {
    "whichever": "whichever",
    # "the greater of £9,000 and 70%" = "£9,000 or 70%, whichever is greater": the choice's direction rides in its head
    "the greater of": "whichever greater",
    "the higher of": "whichever greater",
    "the larger of": "whichever greater",
    "the lesser of": "whichever lesser",
    "the lower of": "whichever lesser",
    "the smaller of": "whichever lesser",
    "the earlier of": "whichever earlier",
    "the later of": "whichever later",
    "only where": "only if",
    "only for": "only for",
    "only on": "only for",
    "only in": "only for",
    "pro rata": "pro rata",
}
_QUALIFIER_TRIGGERS = {**QUALIFIERS, **MORE_QUALIFIERS}
_PHRASE_BODY = f"({trie_pattern([*_QUALIFIER_TRIGGERS, *NEGATION_WORDS])})(?![a-z0-9])"
#: The first word of every trigger and comparison cue: a piece of text holding none of them
#: before a value has no phrase there (what the piece cache's fast path relies on).
TRIGGER_HEADS = frozenset(phrase.split()[0] for phrase in (*_QUALIFIER_TRIGGERS, *NEGATION_WORDS)) | CUE_WORDS
# Triggers are matched in lower-cased text after a space: punctuation that can open a word
# (``(no``, ``**never``, a line break) is first turned into spaces, so one pattern with a
# literal first character, which `re` finds fastest, sees them all.
_PHRASE_AFTER_SPACE = re.compile(" " + _PHRASE_BODY)
_OPENERS = '\t\n\r([{"“‘*_/>—–-'
_PHRASE_AT_START = re.compile(_PHRASE_BODY)
_GAP_PATTERN = r"[*_]*(?:[ \t]+|[ \t]*\r?\n[ \t]*(?=[a-z*_]))[*_]*"  # markdown emphasis is not a word
_WORD_PATTERN = r"[A-Za-z0-9][\w'’-]*"
_GAP = re.compile(_GAP_PATTERN)
_WORD = re.compile(_WORD_PATTERN)
# Runs of plain words after a trigger: the common case, handled without a loop over matches.
_RUN_WORDS = 8
_WORD_RUN = re.compile(rf"(?:{_GAP_PATTERN}{_WORD_PATTERN}){{1,{_RUN_WORDS}}}")
_SENTENCE_END = frozenset('.;:!?,)]}"”')


def _atom_word(atom: Constraint) -> str:
    """How an atomic constraint reads inside a phrase token: its value, ``%`` kept for percents."""
    value = atom.token.split(":", 1)[1]
    return value + "%" if atom.cls == "percent" else value


def _object(text: str, pos: int, atoms_at: dict[int, Constraint], atom_starts: list[int]) -> tuple[list[str], int]:
    """The few words a negation or qualifier governs, starting at ``pos``; and where they end.

    Up to three content words; stop words end the object once it has one, auxiliaries and
    articles ride along uncounted, an atomic constraint or the end of a sentence ends it.
    """
    run = _WORD_RUN.match(text, pos)
    if run is None or "_" in run.group():
        return _object_with_atoms(text, pos, atoms_at)
    plain = run.group().replace("*", " ")
    words: list[str] = []
    ends: list[int] = []
    counted, seen = 0, 0
    for raw in plain.split():
        word = raw.lower()
        if counted and word in STOP_WORDS:
            break
        seen = plain.find(raw, seen) + len(raw)
        words.append(word)
        ends.append(pos + seen)
        counted += word not in UNCOUNTED
        if counted == OBJECT_WORDS:
            break
    else:  # the run ran out: the object may go on past it, with an atom or more words
        if len(ends) == _RUN_WORDS or _atom_within(text, pos, run.end(), atom_starts, past_gap=True):
            return _object_with_atoms(text, pos, atoms_at)
    if ends and _atom_within(text, pos, ends[-1], atom_starts, past_gap=False):
        return _object_with_atoms(text, pos, atoms_at)
    while words and words[-1] in UNCOUNTED:
        words.pop()
    return words, ends[len(words) - 1] if words else pos


def _atom_within(text: str, start: int, end: int, atom_starts: list[int], past_gap: bool) -> bool:
    """Whether an atom starts inside ``text[start:end]`` (or, with ``past_gap``, right after it)."""
    i = bisect_left(atom_starts, start)
    if i == len(atom_starts) or atom_starts[i] - end > WIDEN_MAX:
        return False
    gap = _GAP.match(text, end) if past_gap else None
    return atom_starts[i] <= (gap.end() if gap else end)


def _object_with_atoms(text: str, pos: int, atoms_at: dict[int, Constraint]) -> tuple[list[str], int]:
    """:func:`_object` word by word, for objects that contain an atomic constraint."""
    words: list[tuple[str, int]] = []  # each word with where it ends
    counted, end = 0, pos
    while counted < OBJECT_WORDS and (gap := _GAP.match(text, end)):
        word, stop_after, end = _next_word(text, gap.end(), atoms_at)
        if word is None or (counted and word in STOP_WORDS):
            break
        words.append((word, end))
        counted += word not in UNCOUNTED
        if stop_after:
            break
    while words and words[-1][0] in UNCOUNTED:
        words.pop()
    return [word for word, _end in words], words[-1][1] if words else pos


def _next_word(text: str, pos: int, atoms_at: dict[int, Constraint]) -> tuple[str | None, bool, int]:
    """The word at ``pos`` (an atom counts as one word and ends the object), whether it ends a sentence."""
    atom = atoms_at.get(pos)
    if atom is not None:
        return _atom_word(atom), True, atom.end
    m = _WORD.match(text, pos)
    if m is None:
        return None, True, pos
    return m.group().lower(), text[m.end() : m.end() + 1] in _SENTENCE_END, m.end()


def _is_denominator(written: str, words: list[str]) -> bool:
    """Whether ``per`` + these words is a rate's unit (``per annum``, ``per sq ft``), not a basis.

    A basis names what it follows (``per the rebate schedule``, ``per 7.2(b)``, ``per SP-12``):
    an article, a value or a capitalized name; a rate's unit is plain lower-case words, and the
    rate itself (``4% per annum``) is its own constraint.
    """
    return not any(word in ARTICLES for word in words) and written.islower() and not any(c.isdigit() for c in written)


def _quantity_after(text: str, pos: int, atoms_at: dict[int, Constraint]) -> bool:
    """Whether a quantity or percentage follows ``pos``: ``per 500 g``, ``per 0.1 pp`` is a rate's unit, not a basis."""
    gap = _GAP.match(text, pos)
    atom = atoms_at.get(gap.end() if gap else pos)
    return atom is not None and atom.cls in ("unit", "percent")


def _head(m: re.Match[str]) -> tuple[str, str]:
    """The class and canonical trigger of a phrase match: ``"can't"`` -> ``("negation", "not")``."""
    raw = m[1] if m[1].isalpha() else " ".join(m[1].split())
    if raw in _QUALIFIER_TRIGGERS:
        return "qualifier", _QUALIFIER_TRIGGERS[raw]
    return "negation", NEGATIONS.get(raw, "not")


def _triggers(low: str) -> list[re.Match[str]]:
    """Every negation or qualifier trigger in ``low``, in text order."""
    for opener in _OPENERS:
        low = low.replace(opener, " ")
    first = _PHRASE_AT_START.match(low)
    found = list(_PHRASE_AFTER_SPACE.finditer(low))
    return [first, *found] if first else found


def find_phrases(text: str, low: str, atoms: list[Constraint], taken: bytearray) -> Iterator[Constraint]:
    """Comparisons, then negations and qualifiers with their objects.

    Triggers inside an atom are not phrases, and neither is a trigger that is a comparison's cue
    (``at least`` before a value is the comparison ``>=``, not a qualifier).
    """
    bounds = list(find_bounds(text, low, atoms))
    yield from bounds
    cues = bytearray(len(text))
    for bound in bounds:
        cues[bound.start : bound.end] = b"\x01" * (bound.end - bound.start)
    atoms_at = {atom.start: atom for atom in atoms}
    atom_starts = sorted(atoms_at)
    covered = 0
    for m in _triggers(low):
        start = m.start(1)
        if start < covered or taken.find(1, start, m.end()) != -1 or cues.find(1, start, m.end()) != -1:
            continue
        words, end = _object(text, m.end(), atoms_at, atom_starts)
        if words:
            cls, head = _head(m)
            covered = m.end()
            if head == "per" and (
                _is_denominator(text[m.end() : end], words) or _quantity_after(text, m.end(), atoms_at)
            ):
                continue
            yield Constraint(cls, f"{cls}:{head} {' '.join(words)}", text[start:end], start, end)
