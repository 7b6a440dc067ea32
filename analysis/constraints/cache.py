"""The piece cache: tokens remembered per piece of text no constraint can cross.

Prompts repeat lines, paragraphs and table cells across handoffs and runs. A text is cut at
``|`` and at the line breaks :data:`NEWLINE_CUT` allows (the argument for each cut is in the
comment above it); each distinct piece is extracted once and remembered, and a text's tokens
are the union of its pieces' tokens. ``tests/analysis/test_constraints_cache.py`` checks that
union against the whole-text scan on every corpus.
"""

from __future__ import annotations

import itertools
import re
import threading
from bisect import bisect_right
from collections.abc import Callable

from handoff.analysis.constraints.phrases import TRIGGER_HEADS
from handoff.analysis.constraints.reading import Reading, read_text

# Where a text can be cut without changing its tokens. A piece keeps the separator on each side
# as context (lookbehinds, list markers and lookaheads see one character past an edge), and:
# - "|" is never part of a match, a trigger or an object: a table cell is a piece;
# - a line break is a cut when nothing can continue across it. Atoms continue only into a word
#   character or one of ``%,&–-+*``, or, after a digit, into a unit, code, month, zone, am/pm or
#   percent word, none of which starts with L, Q, R, V, W, X or Y; no atom or object continues
#   past ``]};:!?``, nor past ``.)%`` into a capitalized word (after "Sec." or "p.m." only a
#   reference, a zone or a digit could follow). Trigger phrases ("no more than") continue only
#   from a letter, across spaces and openers, into a letter.
# Whole blocks between cuts at blank lines (a system prompt, a tool schema) are remembered too,
# once all of their pieces were known: a repeated block then costs one look-up.
_OPENER_CLASS = '(\\[{"“‘*_/>—–-'
_ATOM_STOP = r"(?=\s*(?:[^\w\s%,&–+*-]|\Z))"
NEWLINE_CUT = re.compile(
    r"\n(?:(?<=[\]};:!?]\n)"  # no atom, object or trigger goes on after one of these
    r"|(?<=[.)%]\n)(?=\s*[A-Z][a-z])"  # a capitalized word is no reference, zone or connector
    rf"|(?<=[^\s\w{_OPENER_CLASS}]\n){_ATOM_STOP}"
    r"|(?<=[0-9]\n)(?=\s*(?:[^\w\s%,&–+*-]|[LQRVWXY]|\Z))"
    rf"|{_ATOM_STOP}(?=[\s{_OPENER_CLASS}]*(?:[^\w\s{_OPENER_CLASS}]|\d|\Z)))"
)
PIECE_CACHE_ENTRIES = 65536
PIECE_CACHE_CHARS = 8_000_000  # all remembered pieces together, so memory stays in the tens of MB
_PIECE_CACHE_MAX_CHARS = 16384  # longer pieces are extracted every time rather than remembered
_FIRST = "\x00"  # key prefix of a text's first piece, which has no separator before it


class PieceCache:
    """Tokens per distinct piece of text, bounded and shared by threads.

    Two generations approximate LRU: hits are served from either and promoted to the young one;
    when the young one fills, the old one is dropped. At most ``entries`` pieces and about
    ``chars`` characters of them are kept. ``find`` is the whole-text scan a new piece goes through.
    """

    def __init__(self, entries: int, chars: int, find: Callable[[str, Reading], list]) -> None:
        self._find = find
        self._half, self._half_chars = max(1, entries // 2), max(1, chars // 2)
        self._young: dict[str, tuple[str, ...]] = {}
        self._old: dict[str, tuple[str, ...]] = {}
        self._young_chars = 0
        self._lock = threading.Lock()

    def tokens(self, text: str) -> list[str]:
        """The tokens of ``text`` as the union over its blocks and pieces, extracting only unknown pieces."""
        found: set[str] = set()
        reading = read_text(text)  # pieces are read as their whole text reads numbers and dates
        for lo, hi, key in _blocks(text):
            key = reading.key + key
            with self._lock:
                hit = self._young.get(key)
                if hit is None and (hit := self._old.get(key)) is not None:
                    self._young[key] = hit
                    self._young_chars += len(key)
            if hit is None:
                hit, all_known = self._pieces_tokens(text, lo, hi, reading)
                if all_known:
                    self._remember({key: hit})
            found.update(hit)
        return sorted(found)

    def _pieces_tokens(self, text: str, lo: int, hi: int, reading: Reading) -> tuple[tuple[str, ...], bool]:
        """The tokens of the block ``text[lo:hi + 1]`` from its pieces, and whether all were known."""
        pieces = _piece_keys(text, lo, hi)
        keys, direct = (pieces, []) if reading.decimal_comma else _split_money_cells(pieces)
        keys = [reading.key + key for key in keys]
        missing: list[str] = []
        with self._lock:
            young, old = self._young, self._old
            hits = list(map(young.get, keys))
            if None in hits:
                for key in itertools.compress(keys, [hit is None for hit in hits]):
                    hit = old.get(key)
                    if hit is None:
                        missing.append(key)
                    else:
                        young[key] = hit
                        self._young_chars += len(key)
                        hits.append(hit)
        if missing:
            skip = len(reading.key)
            scanned = {
                reading.key + piece: found
                for piece, found in _scan_pieces([key[skip:] for key in missing], self._find, reading).items()
            }
            hits += scanned.values()
            self._remember(scanned)
        return tuple(set(itertools.chain(direct, itertools.chain.from_iterable(filter(None, hits))))), not (
            missing or direct
        )

    def _remember(self, extracted: dict[str, tuple[str, ...]]) -> None:
        with self._lock:
            for key, piece_tokens in extracted.items():
                if len(key) <= _PIECE_CACHE_MAX_CHARS:
                    self._young[key] = piece_tokens
                    self._young_chars += len(key)
            if len(self._young) >= self._half or self._young_chars >= self._half_chars:
                self._old, self._young, self._young_chars = self._young, {}, 0

    def clear(self) -> None:
        """Forget every piece."""
        with self._lock:
            self._young, self._old, self._young_chars = {}, {}, 0


def _blocks(text: str) -> list[tuple[int, int, str]]:
    """``(lo, hi, key)`` of the blocks of ``text``, cut at blank lines where :data:`NEWLINE_CUT` allows.

    A block runs from the cut at ``lo`` (or the text's start) to the cut at ``hi`` (or its end);
    its key is ``text[lo:hi + 1]``, prefixed with :data:`_FIRST` for the text's first block.
    """
    bounds, lo = [], 0
    at = text.find("\n\n")
    while at != -1:
        if NEWLINE_CUT.match(text, at):
            bounds.append((lo, at))
            lo = at
        at = text.find("\n\n", at + 1)
    bounds.append((lo, len(text)))
    return [(lo, hi, text[lo : hi + 1] if lo else _FIRST + text[: hi + 1]) for lo, hi in bounds]


def _piece_keys(text: str, lo: int = 0, hi: int | None = None) -> list[str]:
    """The pieces of the block ``text[lo:hi + 1]``, each with its separators; a text's first one
    prefixed with :data:`_FIRST`.

    Lines are cut where :data:`NEWLINE_CUT` allows, then at every ``|``.
    """
    hi = len(text) if hi is None else hi
    cuts = []
    for m in NEWLINE_CUT.finditer(text, lo + 1 if lo else 0):
        if m.start() >= hi:
            break
        cuts.append(m.start())
    cuts.append(hi)
    keys: list[str] = []
    start = lo
    for cut in cuts:
        line = text[start : cut + 1]  # with the line break before and after, where there are ones
        if "|" not in line:
            if len(line) > (start > 0) + (cut < len(text)):  # some text between the separators
                keys.append(line if start else _FIRST + line)
        else:
            cells = line.split("|")
            first, last = cells[0], cells[-1]
            if len(first) > 1 or (start == 0 and first):
                keys.append(first + "|" if start else _FIRST + first + "|")
            keys += ["|" + cell + "|" for cell in cells[1:-1] if cell]
            if last:
                keys.append("|" + last)
        start = cut
    return keys


def _split_money_cells(keys: list[str]) -> tuple[list[str], list[str]]:
    """``(other keys, tokens)``: the tokens of the money cells among ``keys``, read directly."""
    candidates = [key for key in keys if "$" in key and "\x00" not in key]  # NUL ends a candidate below
    if not candidates:
        return keys, []
    # One match per candidate, each ending at its NUL: a money cell, or anything else.
    cells = _MONEY_CELLS.findall("\x00".join(candidates) + "\x00")
    tokens = [
        f"money:USD{whole.replace(',', '')}.{cents:0<2}"
        for cell, word, whole, cents in cells
        if cell and word not in _TRIGGER_HEADS
    ]
    if not tokens:
        return keys, []
    read = {key for key, (cell, word, _whole, _cents) in zip(candidates, cells) if cell and word not in _TRIGGER_HEADS}
    return [key for key in keys if key not in read], tokens


# A table cell holding one dollar amount, maybe after a plain word: ``| unit  $1,232.63 |``.
# Nothing in it but the amount can match (no letter group, hex run, colon, slash, code or
# multiplier), so its only token is the amount's, written as ``_money_value`` writes it (no
# grouping, two decimals; leading zeros are left to the scan); a trigger word before it
# (``| per $5 |``) makes a phrase, so such cells are left to the scan too.
_MONEY_CELLS = re.compile(
    r"([|\n][ \t]*(?:([a-z]+)[ \t]+)?\$([1-9]\d{0,2}(?:,\d{3})*|0)(?:\.(\d{1,2}))?[ \t]*[|\n]?\x00)|[^\x00]*\x00"
)
_TRIGGER_HEADS = TRIGGER_HEADS


def _scan_pieces(keys: list[str], find: Callable[[str, Reading], list], reading: Reading) -> dict[str, tuple[str, ...]]:
    """Tokens of pieces of any shape, found in one pass (``find``: the whole-text scan) over the pieces joined by ``|``.

    A first piece goes first, where it has no separator before it, as in its text; the others keep
    the order they come in, so a piece's neighbours (and so its tokens) never depend on the hash seed.
    """
    unique = sorted(dict.fromkeys(keys), key=lambda key: not key.startswith(_FIRST))
    texts = [key[1:] if key.startswith(_FIRST) else key for key in unique]
    starts, at = [], 0
    for piece in texts:
        starts.append(at)
        at += len(piece) + 1
    per_piece: list[set[str]] = [set() for _ in unique]
    for constraint in find("|".join(texts), reading):
        per_piece[bisect_right(starts, constraint.start) - 1].add(constraint.token)
    return {key: tuple(tokens) for key, tokens in zip(unique, per_piece)}
