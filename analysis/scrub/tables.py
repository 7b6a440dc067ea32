"""Table columns whose header names an entity: every cell below a ``name``, ``dob``, ``passport``,
``phone`` or ``address`` header (CSV, TSV, semicolon lists and Markdown tables).

A header is a line of short cells without digits; the rows under it, up to a blank line or a line
with a different number of cells, are read cell by cell (double quotes respected). Person cells
go through :func:`~handoff.analysis.scrub.people.name_span`, so a ``name`` column of products
keeps its values.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence

from handoff.analysis.scrub.fields import DATE
from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.labels import Label, label_of
from handoff.analysis.scrub.people import name_span, name_spans
from handoff.analysis.scrub.windows import occurrences

_SEPARATORS = (",", "\t", "|", ";")
_SEPARATOR_IN = re.compile(r"[,\t|;]")
_DATE = re.compile(DATE)
_RULE = re.compile(r"^[\s|:\-+]+$")


Header = tuple[str, list[Label | None]]


def table_cells(text: str) -> Iterator[Finding]:
    """Findings in the cells of labelled columns of every table in ``text``."""
    if "\n" not in text:
        return
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    index = 0
    while index < len(lines):
        header = header_of(lines[index])
        if header is None:
            index += 1
            continue
        found, index = table_rows(lines, starts, index, header)
        yield from found


def table_rows(lines: Sequence[str], starts: Sequence[int], index: int, header: Header) -> tuple[list[Finding], int]:
    """Findings in the rows under the header on line ``index``, and the index of the line after the table."""
    separator, columns = header
    found: list[Finding] = []
    index += 1
    while index < len(lines) and lines[index].strip():
        if _RULE.match(lines[index]):
            index += 1
            continue
        cells = _cells(lines[index], separator)
        if abs(len(cells) - len(columns)) > 1:
            break
        found += _row_findings(lines[index], starts[index], cells, columns)
        index += 1
    return found, index


def header_of(line: str) -> Header | None:
    """(separator, the label of each column) when ``line`` is a table header naming some entity."""
    if len(line) > 2000:
        return None
    for separator in _SEPARATORS:
        if line.count(separator) < 1 + (separator == "|"):
            continue
        names = [line[start:end].strip(" \"'*`") for start, end in _cells(line, separator)]
        if any(
            len(name) > 40 or ":" in name or _DIGIT.search(name) and not _IDENTIFIER.fullmatch(name) for name in names
        ):
            return None  # "Reported by: Bartosz Wiśniewski, Shift Supervisor" is a field, not a header
        labels = [_column_label(name) if name else None for name in names]
        if any(labels):
            return separator, labels
        return None
    return None


_DIGIT = re.compile(r"\d")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+")  # "data_gb_30d", "address_line_2"
_QUALIFIER = re.compile(r"\s*\([^()]*\)$")


def _column_label(name: str) -> Label | None:
    """The label of a column header, a trailing qualifier dropped when needed ("Signatory (counterparty)")."""
    label = label_of(name)
    if label is None and name.endswith(")"):
        label = label_of(_QUALIFIER.sub("", name))
    return label


def _cells(line: str, separator: str) -> list[tuple[int, int]]:
    """Cell spans of ``line``, double-quoted cells kept whole; Markdown's outer pipes dropped."""
    spans, start, quoted = [], 0, False
    for position, char in enumerate(line):
        if char == '"':
            quoted = not quoted
        elif char == separator and not quoted:
            spans.append((start, position))
            start = position + 1
    spans.append((start, len(line)))
    if separator == "|" and line.strip().startswith("|"):
        spans = spans[1:]
    if separator == "|" and line.strip().endswith("|"):
        spans = spans[:-1]
    return spans


def _row_findings(
    line: str, offset: int, cells: list[tuple[int, int]], columns: list[Label | None]
) -> Iterator[Finding]:
    for (start, end), label in zip(cells, columns):
        if label is None:
            continue
        while start < end and line[start] in " \"'":
            start += 1
        while end > start and line[end - 1] in " \"'":
            end -= 1
        value = line[start:end]
        spans = name_spans(value, strong=label.strong) if label.entity == "PERSON" else [_value_span(value, label)]
        for span in spans:
            if span is not None:
                s, e = start + span[0], start + span[1]
                yield Finding(label.entity, offset + s, offset + e, 0.85, "TableColumnRecognizer", line[s:e])


def _value_span(value: str, label: Label) -> tuple[int, int] | None:
    if not value:
        return None
    if label.entity == "PERSON":
        return name_span(value, strong=label.strong)
    if label.entity == "DATE_OF_BIRTH":
        return (0, len(value)) if _DATE.fullmatch(value) else None
    digits = sum(c.isdigit() for c in value)
    if label.entity in ("NATIONAL_ID", "PHONE_NUMBER"):
        return (0, len(value)) if digits >= 5 and len(value) <= 32 else None
    if label.entity == "ADDRESS":
        return (0, len(value)) if digits and len(value) >= 8 else None
    return None


# A column whose header's last word names a thing (a book, a product, a serial, a company): its
# cells hold books named after people ("Madame Bovary"), firms ("Abbott & Costello Events") and
# serial numbers of phone shape, never a person's name or phone of their own. Not a "title" (of a
# meeting or a ticket: "1:1 with Priya Shah") nor a "description": those are free text.
_THING_WORDS = frozenset(
    "book books product products item items sku isbn ean upc gtin serial sn part model make brand show podcast "
    "album track film movie breed species vin imei company organisation organization vendor supplier merchant "
    "venue store shop school hotel publisher imprint horse horses race races ship ships vessel vessels boat yacht "
    "aircraft wine wines cask still team club event room".split()
)
_HEADER_WORDS = re.compile(r"[a-z]+")
_HEADER_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")  # "isbn13", "address_line_2"
# A JSON or YAML field: "title": "Mrs Dalloway", show: "Casa Frida".
# (a quoted key, or a YAML key opening its line: the pattern starts at a quote or a line start, which `re` finds fast)
_THING_FIELD = re.compile(
    r'(?:"([A-Za-z][\w .\-]{0,40})"|^[ \t]*(?:-[ \t]+)?([A-Za-z][\w.\-]{0,40}))[ \t]*:[ \t]*"((?:[^"\\\n]|\\.){1,200})"',
    re.MULTILINE,
)
_THING_ENTITIES = frozenset(("PERSON", "PHONE_NUMBER"))
# A thing's word in a key or a header ("inverter_serial", "Book", "make_model"): what a scan looks for first.
_THING_KEYWORDS = tuple(sorted(_THING_WORDS))


def thing_cells(text: str, lines: list[str], starts: list[int]) -> list[tuple[int, int]]:
    """Spans of the cells under a thing's column header in every table of ``text`` (split into
    ``lines`` starting at ``starts``), and of the values of quoted fields whose key names a thing
    (``"show": "Casa Frida"``), in text order."""
    hits = occurrences(text.lower(), _THING_KEYWORDS)
    if not hits:
        return []  # most texts: no key or header can name a thing
    # only the lines holding a thing's word can be a thing's header or field
    candidates = sorted({bisect_right(starts, position) - 1 for position, _end in hits})
    spans = [span for index in candidates for span in _thing_fields(lines[index], starts[index])]
    return sorted(spans + _thing_columns(lines, starts, candidates))


def _thing_fields(line: str, offset: int) -> list[tuple[int, int]]:
    if '"' not in line:
        return []
    return [
        (offset + match.start(3), offset + match.end(3))
        for match in _THING_FIELD.finditer(line)
        if (words := _HEADER_WORDS.findall((match.group(1) or match.group(2)).lower())) and words[-1] in _THING_WORDS
    ]


def _thing_columns(lines: list[str], starts: list[int], candidates: list[int]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    table_end = 0
    for header_index in candidates:
        if header_index < table_end or not _SEPARATOR_IN.search(lines[header_index]):
            continue
        header = _thing_header(lines[header_index])
        if header is None:
            continue
        separator, things = header
        index = header_index + 1
        while index < len(lines) and lines[index].strip():
            line = lines[index]
            if not _RULE.match(line):
                cells = _cells(line, separator)
                if abs(len(cells) - len(things)) > 1:
                    break
                spans += [
                    (starts[index] + start, starts[index] + end) for (start, end), thing in zip(cells, things) if thing
                ]
            index += 1
        table_end = index
    return spans


def _thing_header(line: str) -> tuple[str, list[bool]] | None:
    """(separator, whether each column holds things) for a header line with at least one thing column."""
    if len(line) > 2000:
        return None
    for separator in _SEPARATORS:
        if line.count(separator) < 1 + (separator == "|"):
            continue
        names = [line[start:end].strip(" \"'*`").lower() for start, end in _cells(line, separator)]
        if any(
            len(name) > 40 or ":" in name or _DIGIT.search(name) and not _HEADER_NAME.fullmatch(name) for name in names
        ):
            return None
        things = [bool(words := _HEADER_WORDS.findall(name)) and words[-1] in _THING_WORDS for name in names]
        return (separator, things) if any(things) else None
    return None


def outside_thing_cells(findings: list[Finding], cells: list[tuple[int, int]]) -> list[Finding]:
    """``findings`` less the persons and phones that lie inside one of the thing ``cells``."""
    if not cells:
        return findings
    ends = [end for _start, end in cells]
    kept = []
    for finding in findings:
        if finding.entity in _THING_ENTITIES and finding.recognizer != "TableColumnRecognizer":
            i = bisect_left(ends, finding.end)
            if i < len(cells) and cells[i][0] <= finding.start:
                continue
        kept.append(finding)
    return kept
