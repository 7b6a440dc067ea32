"""Table columns whose header names an entity: every cell below a ``name``, ``dob``, ``passport``,
``phone`` or ``address`` header (CSV, TSV, semicolon lists and Markdown tables).

A header is a line of short cells without digits; the rows under it, up to a blank line or a line
with a different number of cells, are read cell by cell (double quotes respected). Person cells
go through :func:`~handoff.analysis.scrub.people.name_span`, so a ``name`` column of products
keeps its values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from handoff.analysis.scrub.fields import DATE
from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.labels import Label, label_of
from handoff.analysis.scrub.people import name_span

_SEPARATORS = (",", "\t", "|", ";")
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
        span = _value_span(value, label)
        if span is not None:
            s, e = start + span[0], start + span[1]
            yield Finding(
                label.entity,
                offset + s,
                offset + e,
                0.85,
                "TableColumnRecognizer",
                line[s:e],
            )


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
