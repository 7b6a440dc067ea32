"""Propagation: once a text names a person, every other mention of the name or of its parts
("Thanks, Lucía", "ask Okafor", "Okafor's", "Tanaka-san") is that person too (see
:mod:`~handoff.analysis.scrub.people` for how a name is first found)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.firms import firm_after
from handoff.analysis.scrub.gazetteer import fold, gazetteer
from handoff.analysis.scrub.people import NAME_WORD_SUFFIX, WORD, is_name_part, opener, trim, unknown_name_word
from handoff.analysis.scrub.vocabulary import BUSINESS_WORDS, PARTICLES


def mentions(text: str, names: Iterable[str], runs: Iterable[tuple[int, int, str]]) -> Iterator[Finding]:
    """Every mention in ``text`` of the ``names`` found and of their parts, unless it is part of a
    longer capitalized name of a thing ("Minh" in "Ho Chi Minh City")."""
    gaz = gazetteer()
    variants: set[str] = set()
    for name in names:
        variants.add(fold(name))
        variants.update(
            fold(w.rstrip("."))
            for w in WORD.findall(name)
            if len(w.rstrip(".")) >= 2 and is_name_part(gaz, w.rstrip("."))
        )
    if not variants:
        return
    for run_start, run_end, run in runs:
        folded_run, words = _run_words(run)
        if folded_run in variants:
            end = run_start + words[-1][1] if len(words) == 1 else run_end
            yield Finding("PERSON", run_start, end, 0.8, "NameMention", text[run_start:end])
            continue
        known = [w[2] in variants for w in words]
        if not any(known):
            continue
        last_known = max(i for i, k in enumerate(known) if k)
        extended = last_known
        while extended + 1 < len(words) and unknown_name_word(gaz, words[extended + 1][2]):
            extended += 1  # "Tendai Mutasa" once "Tendai" is known: the surname of the same person
        if extended > last_known and not firm_after(text, run_end):
            known[last_known + 1 : extended + 1] = [True] * (extended - last_known)
            last_known = extended
        first_known = known.index(True)
        # "Estádio José Alvalade": a name after a venue or institution word names the site, not the person
        before_ok = all(opener(gaz, w[3]) and w[2] not in BUSINESS_WORDS for w in words[:first_known])
        after_ok = all(k or w[3] in PARTICLES for w, k in zip(words[first_known:], known[first_known:]))
        if before_ok and after_ok:
            start, end = run_start + words[first_known][0], run_start + words[last_known][1]
            start, end = trim(text, start, end)
            yield Finding("PERSON", start, end, 0.8, "NameMention", text[start:end])


def lower_mentions(text: str, names: Iterable[str]) -> Iterator[Finding]:
    """Every other occurrence of a name found written in lower case ("by tomás herrera from …" once
    "tomás herrera wrote:" named him): the capitalized runs :func:`mentions` reads cannot hold it."""
    for name in names:
        if " " in name and name.islower():
            for match in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
                yield Finding("PERSON", match.start(), match.end(), 0.8, "NameMention", name)


@functools.lru_cache(maxsize=65536)
def _run_words(run: str) -> tuple[str, tuple[tuple[int, int, str, str], ...]]:
    """A run of name words folded whole, and each word's (start, end, folded without its dot, folded),
    a possessive or honorific suffix left out of the word."""
    words = []
    for w in WORD.finditer(run):
        word, end = w.group(), w.end()
        suffix = NAME_WORD_SUFFIX.search(word)
        if suffix is not None and suffix.start() >= 2:
            word, end = word[: suffix.start()], w.start() + suffix.start()
        words.append((w.start(), end, fold(word.rstrip(".")), fold(word)))
    folded = fold(run)
    if len(words) == 1 and words[0][1] < len(run):
        folded = words[0][3]
    return folded, tuple(words)
