"""Which recent outputs a new input contains, found without scanning the input once per output.

Each output of at least ``ANCHORED_BYTES`` is indexed by the 8-byte words at the
``STRIDE`` offsets of a stretch in its middle. The input is sampled at every ``STRIDE``-th byte
(one C-level pass: a memoryview read as 8-byte integers). An output sitting anywhere in the input
covers one sampled position with its indexed stretch, so it shares a word with the sample: only
outputs sharing one are confirmed with ``in``. Shorter outputs (``MIN_CONTAINED_BYTES`` up to
``ANCHORED_BYTES``) are always tested, and so is every output while a run holds only a few.
An output equal to one held already (same digest: a retry, a polling loop, a fixed reply) replaces
it, so the input is never searched twice for the same bytes.
"""

from __future__ import annotations

import collections
import itertools
import struct

# How many recent outputs a run keeps for content-match parent inference.
MATCH_WINDOW = 64
# Outputs shorter than this never match by containment (a "yes" is contained in everything).
MIN_CONTAINED_BYTES = 16
#: The input is sampled every STRIDE bytes; each sample is one 8-byte word (64: about 7 µs per 10 KB
#: on the 2-core bench machine, lookups included; 1.7 µs per 1 KB).
STRIDE = 64
#: Up to this many held outputs, testing each with ``in`` (1-2.5 µs per 250-byte output, at 1 KB or
#: 10 KB alike: the search's set-up for a long needle dominates) beats sampling.
SCAN_UP_TO = 4
_WORD_BYTES = 8
#: An output this long covers a sampled word of any input it sits in, wherever it sits.
ANCHORED_BYTES = STRIDE + _WORD_BYTES - 1
_WORDS = struct.Struct(f"{STRIDE // _WORD_BYTES}Q")  # native order, as memoryview.cast("Q") reads


class OutputIndex:
    """The last ``window`` outputs of a run, answering "which of them does this input contain?".

    Not thread-safe: the owning :class:`~handoff.capture.context.RunState` holds its lock around calls.
    """

    def __init__(self, window: int = MATCH_WINDOW) -> None:
        self._window = window
        self._order: collections.deque[int] = collections.deque()
        self._entries: dict[int, tuple[int, str, bytes, str]] = {}
        self._by_sha: dict[str, int] = {}
        self._short: dict[int, None] = {}
        # Outputs are indexed only once a run holds more than SCAN_UP_TO: short runs never pay for it.
        self._pending: list[int] = []
        self._words: dict[int, frozenset[int]] = {}
        self._by_word: dict[int, set[int]] = {}
        self._keys = itertools.count()

    def add(self, seq: int, hid: str, output: bytes, sha: str = "") -> None:
        """Remember ``output`` of handoff ``hid`` (digest ``sha``); the oldest output leaves once
        ``window`` are held, and an older output with the same digest leaves at once."""
        if len(output) < MIN_CONTAINED_BYTES:
            return
        if sha and (same := self._by_sha.get(sha)) is not None:
            if self._order[-1] == same:  # the newest already: it only changes hands
                self._entries[same] = (seq, hid, output, sha)
                return
            self._order.remove(same)  # at most ``window`` keys
            self._forget(same)
        key = next(self._keys)
        self._entries[key] = (seq, hid, output, sha)
        if sha:
            self._by_sha[sha] = key
        self._order.append(key)
        if len(output) < ANCHORED_BYTES:
            self._short[key] = None
        else:
            self._pending.append(key)
        if len(self._order) > self._window:
            self._forget(self._order.popleft())

    def contained_in(self, data: bytes, after_seq: int) -> list[str]:
        """Return the ids of held outputs shorter than ``data`` and contained in it, newest first.

        Only outputs of handoffs with ``seq > after_seq`` count.
        """
        size = len(data)
        found = []
        keys = reversed(self._order) if len(self._order) <= SCAN_UP_TO else sorted(self._candidates(data), reverse=True)
        for key in keys:
            seq, hid, output, _ = self._entries[key]
            if seq > after_seq and len(output) < size and output in data:
                found.append(hid)
        return found

    def _candidates(self, data: bytes) -> set[int]:
        self._index_pending()
        keys = set(self._short)
        size = len(data)
        if self._by_word and size > ANCHORED_BYTES:
            # A list, not a set: building a set of the sampled 64-bit ints costs more than the lookups it saves.
            sample = memoryview(data)[: size - size % _WORD_BYTES].cast("Q")[:: STRIDE // _WORD_BYTES].tolist()
            by_word = self._by_word
            for word in filter(by_word.__contains__, sample):
                keys |= by_word[word]
        return keys

    def _index_pending(self) -> None:
        for key in self._pending:
            entry = self._entries.get(key)
            if entry is None:
                continue  # left the window before it was needed
            words = self._words[key] = _anchor_words(entry[2])
            for word in words:
                self._by_word.setdefault(word, set()).add(key)
        self._pending.clear()

    def _forget(self, key: int) -> None:
        sha = self._entries.pop(key)[3]
        if sha and self._by_sha.get(sha) == key:
            del self._by_sha[sha]
        self._short.pop(key, None)
        for word in self._words.pop(key, ()):
            holders = self._by_word[word]
            holders.discard(key)
            if not holders:
                del self._by_word[word]


def _anchor_words(output: bytes) -> frozenset[int]:
    """Return the 8-byte words at the ``STRIDE`` consecutive offsets of a stretch in the middle of ``output``."""
    start = (len(output) - ANCHORED_BYTES) // 2
    return frozenset(
        itertools.chain.from_iterable(_WORDS.unpack_from(output, start + shift) for shift in range(_WORD_BYTES))
    )
