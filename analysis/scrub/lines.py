"""Line-level scanning for the whole-text detectors, so text that repeats costs a dictionary lookup.

Almost every detector of :mod:`~handoff.analysis.scrub.detectors` finds values inside one line:
a labelled field, a cue and its name, a gazetteer name, an address line, a secret. Those run
once per distinct line, on a batch of new lines joined by a separator no pattern crosses, and
what they find is kept per line (:class:`LineScan`) with what the rest of a text needs from the
line: its runs of capitalized words (for mentions), whether it holds a street (for the postcode
line below it), its table header, whether it ends with a sign-off. The few detectors that need
more than one line (:func:`context_findings`: a sign-off and the name below it, table columns,
an address split over lines, every later mention of a name) work from those cached facts.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from handoff.analysis.scrub.addresses import near_street_addresses, street_lines
from handoff.analysis.scrub.credentials import credential_blocks
from handoff.analysis.scrub.detectors import local_findings
from handoff.analysis.scrub.findings import Finding, shifted
from handoff.analysis.scrub.mentions import lower_mentions, mentions
from handoff.analysis.scrub.people import name_runs, sign_off_at, signs_off
from handoff.analysis.scrub.tables import Header, header_of, table_rows

# Joins new lines into one batch: a NUL between newlines is neither whitespace nor a word, so no
# pattern's ``\s`` or ``[^\n]`` carries a match from one line into the next.
SEPARATOR = "\n\x00\n"
_BATCH_CHARS = 20_000


class LineScan(NamedTuple):
    """What the detectors found on one line (offsets within the line) and what its neighbours need."""

    findings: tuple[Finding, ...]
    runs: tuple[tuple[int, int, str], ...]
    street: bool
    header: Header | None
    sign_off: bool


EMPTY = LineScan((), (), False, None, False)


def scan_lines(lines: Sequence[str], entities: frozenset[str]) -> list[LineScan]:
    """One :class:`LineScan` per line, the local detectors run on batches of lines."""
    scans: list[LineScan] = []
    person = "PERSON" in entities
    address = "ADDRESS" in entities
    for batch in _batches(lines):
        text = SEPARATOR.join(batch)
        starts = list(itertools.accumulate((len(line) + len(SEPARATOR) for line in batch[:-1]), initial=0))
        found: list[list[Finding]] = [[] for _ in batch]
        for finding in local_findings(text, entities):
            index = bisect.bisect_right(starts, finding.start) - 1
            if finding.end <= starts[index] + len(batch[index]):
                found[index].append(finding)
        runs: list[list[tuple[int, int, str]]] = [[] for _ in batch]
        for match in name_runs(text) if person else ():
            index = bisect.bisect_right(starts, match.start()) - 1
            runs[index].append((match.start() - starts[index], match.end() - starts[index], match.group()))
        streets = {index // 2 for index in street_lines(text)} if address else set()  # 2 rows per line
        for index, (line, start, line_found, line_runs) in enumerate(zip(batch, starts, found, runs)):
            scans.append(
                LineScan(
                    tuple(shifted(line_found, -start)),
                    tuple(line_runs),
                    index in streets,
                    header_of(line),
                    person and signs_off(line),
                )
            )
    return scans


def context_findings(
    text: str,
    starts: Sequence[int],
    lines: Sequence[str],
    scans: Sequence[LineScan],
    entities: frozenset[str],
    names: Iterable[str],
) -> list[Finding]:
    """Findings that need more than one line: a sign-off's name, table cells, an address line below a
    street, and every mention of ``names`` (found anywhere in the payload) and their parts."""
    found: list[Finding] = []
    table_end = 0
    for index, scan in enumerate(scans):
        if scan.sign_off and "PERSON" in entities:
            found += sign_off_at(text, starts[index])
        if scan.header is not None and index >= table_end:
            cells, table_end = table_rows(lines, starts, index, scan.header)
            found += (f for f in cells if f.entity in entities)
        if "ADDRESS" in entities and index and (scans[index - 1].street or (index > 1 and scans[index - 2].street)):
            found += shifted(near_street_addresses(lines[index]), starts[index])
    if "SECRET" in entities:
        found += (f for f in credential_blocks(text, lines, starts) if f.entity in entities)
    if "PERSON" in entities:
        names = set(names) | {f.text for f in found if f.entity == "PERSON"}
        if names:
            runs = [(start + s, start + e, t) for start, scan in zip(starts, scans) for s, e, t in scan.runs]
            found += mentions(text, names, runs)
            found += lower_mentions(text, names)
    return found


def _batches(lines: Sequence[str]) -> Iterable[list[str]]:
    batch: list[str] = []
    size = 0
    for line in lines:
        if batch and size + len(line) > _BATCH_CHARS:
            yield batch
            batch, size = [], 0
        batch.append(line)
        size += len(line) + len(SEPARATOR)
    if batch:
        yield batch


def text_findings(text: str, entities: frozenset[str], known_names: Iterable[str] = ()) -> list[Finding]:
    """Every finding of the whole-text detectors for ``entities`` in ``text`` (may overlap), without a cache.

    ``known_names`` are names found elsewhere in the same payload: their mentions are found too.
    """
    lines = text.split("\n")
    starts = line_starts(lines)
    scans = scan_lines(lines, entities)
    found = [f for start, scan in zip(starts, scans) for f in shifted(scan.findings, start)]
    names = {f.text for f in found if f.entity == "PERSON"} | set(known_names)
    return found + context_findings(text, starts, lines, scans, entities, names)


def person_names(text: str) -> set[str]:
    """The person names the detectors find in ``text``."""
    return {f.text for f in text_findings(text, frozenset({"PERSON"})) if f.entity == "PERSON"}


def line_starts(lines: Sequence[str]) -> list[int]:
    """The offset of each of ``lines`` in the text they were split from (on ``\\n``)."""
    return list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
