"""The scrubber's fast paths find exactly what the slower forms they replaced found."""

from __future__ import annotations

import random

import pytest

from handoff.analysis.scrub import credentials
from handoff.analysis.scrub.windows import ascii_folded, keyword_windows

_PIECES = [
    "pass",
    "token",
    "key",
    "mr",
    "mrs",
    "dr",
    "tel",
    "\n",
    " ",
    "x",
    "é",
    "ſ",
    "\u212a",
    "ı",
    "İ",
    "Σ",
    "ß",
    "𝔘",
]


def _texts(seed: int, count: int = 3000) -> list[str]:
    rng = random.Random(seed)
    return [
        "".join(
            "".join(c.upper() if rng.random() < 0.3 else c for c in rng.choice(_PIECES))
            for _ in range(rng.randint(0, 14))
        )
        for _ in range(count)
    ]


def _find_windows(lower, keywords, before, after, text=None, line_bound=False):
    """keyword_windows as it was: a str.find loop per keyword."""
    spans = []
    for keyword in keywords:
        position = lower.find(keyword)
        while position >= 0:
            if text is not None and position and text[position - 1].isalpha() and not text[position].isupper():
                position = lower.find(keyword, position + 1)
                continue
            end = min(len(lower), position + len(keyword) + after)
            if line_bound:
                line_end = lower.find("\n", position + len(keyword), end)
                end = end if line_end < 0 else line_end
            spans.append((max(0, position - before), end))
            position = lower.find(keyword, position + 1)
    spans.sort()
    merged = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@pytest.mark.parametrize("keywords", [("mr", "mrs", "dr"), ("tel", "key", "key"), ("ss", "s"), ()])
def test_keyword_windows_match_a_find_loop(keywords: tuple[str, ...]) -> None:
    """One automaton pass finds every occurrence a find loop per keyword found, overlapping ones too."""
    for text in _texts(1, 800):
        lower = text.lower()
        if len(lower) != len(text):
            continue
        for before, after, word_start, line_bound in ((0, 3, False, False), (2, 5, True, True), (9, 0, True, False)):
            source = text if word_start else None
            assert keyword_windows(lower, keywords, before, after, source, line_bound) == _find_windows(
                lower, keywords, before, after, source, line_bound
            )


def test_an_empty_keyword_occurs_everywhere_as_find_has_it() -> None:
    """No cue list holds one, but an empty keyword still gives the windows a find loop gave."""
    for text in _texts(3, 200):
        lower = text.lower()
        assert keyword_windows(lower, ("", "x"), 1, 2) == _find_windows(lower, ("", "x"), 1, 2)


def test_hint_lines_match_the_case_insensitive_pattern() -> None:
    """The credential hint lines by str.find are the lines the (?im) pattern matched, odd case folds too."""
    for text in _texts(2):
        assert credentials._hint_lines(text) == [m.start() for m in credentials._HINT_LINE.finditer(text)]


def test_ascii_folded_refuses_the_letters_that_fold_oddly() -> None:
    """Lower-case finds stand in for (?i) only where no letter folds to ASCII from outside it."""
    assert ascii_folded("Pass Token") == "pass token"
    assert ascii_folded("Crème brûlée Σ") == "crème brûlée σ"
    for odd in ("ſecret", "\u212aey", "İd", "pıd"):
        assert ascii_folded(odd) is None


def test_keyword_windows_take_lone_surrogates() -> None:
    """Bytes decoded with surrogateescape hold lone surrogates, which the automaton cannot encode."""
    lower = "pass \udcff token\nmr x"
    assert keyword_windows(lower, ("token", "mr"), 2, 3) == _find_windows(lower, ("token", "mr"), 2, 3)


def test_street_hints_never_hide_a_street() -> None:
    """has_street skips a slow street form only on lines without its words: same answer as running all."""
    from handoff.analysis.scrub import addresses

    rng = random.Random(4)
    words = [*addresses._PREFIX_HINTS, *addresses._SUFFIX_HINTS, "Calle", "STRASSE", "Av.", "C/.", "ſtr.", "Rue"]
    words += ["12", "48", "Flat 3", "Alcalá", "de", "\t", "İ", "ı", "\u212a", "Elm", "Street"]
    for _ in range(5000):
        line = " ".join(
            "".join(c.upper() if rng.random() < 0.2 else c for c in rng.choice(words)) for _ in range(rng.randint(1, 7))
        )
        every_form = addresses._DIGIT.search(line) is not None and any(p.search(line) for p in addresses._STREETS)
        assert addresses.has_street.__wrapped__(line) == every_form, line


def test_ip_recognizer_skipping_patterns_finds_what_presidio_finds() -> None:
    """The IP recognizer skips patterns whose literal a text lacks: same results, scores, order and ids."""
    from presidio_analyzer.predefined_recognizers import IpRecognizer

    from handoff.analysis.scrub.engine import _ip_recognizer

    gated, stock = _ip_recognizer(), IpRecognizer()
    stock._id = gated.id
    texts = [
        "from 10.1.2.3 and 192.168.0.1/24 ok\nnext",
        "a ::1 b fe80::1%eth0 ::ffff:10.0.0.1 c 0.0.0.0 2001:db8::/32",
        "no address here, version 3.11.9 at 12:30",
        "1.2.3.4 then 999.1.1.1",
        "",
    ]
    for text in texts:
        found = [(r.start, r.end, r.score, r.recognition_metadata) for r in gated.analyze(text, ["IP_ADDRESS"])]
        expected = [(r.start, r.end, r.score, r.recognition_metadata) for r in stock.analyze(text, ["IP_ADDRESS"])]
        assert found == expected, text
