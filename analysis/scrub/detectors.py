"""The detectors that run on a whole text without Presidio: labelled fields, table columns,
person names (with their later mentions) and postal addresses.

They need the whole text, not one line: a sign-off names the person on the next line, a table
header names the entity of every cell below it, and a name found once is removed everywhere.
Pure :mod:`re` plus the gazetteer; Presidio's recognizers still run on the lines the prefilter
passes (see :class:`~handoff.analysis.scrub.Scrubber`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from handoff.analysis.scrub.addresses import addresses
from handoff.analysis.scrub.fields import (
    dates_of_birth,
    labelled_addresses,
    labelled_names,
    labelled_phones,
    national_ids,
)
from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.identifiers import card_numbers, national_id_formats
from handoff.analysis.scrub.people import (
    cued_names,
    gazetteer_names,
    mentions,
    name_runs,
)
from handoff.analysis.scrub.tables import table_cells
from handoff.analysis.scrub.tokens import secret_tokens, wallet_addresses


def text_findings(text: str, entities: frozenset[str], known_names: Iterable[str] = ()) -> list[Finding]:
    """Every finding of the whole-text detectors for ``entities`` in ``text`` (may overlap).

    ``known_names`` are names found elsewhere in the same payload (other JSON values): their
    mentions in ``text`` are found too.
    """
    found: list[Finding] = []
    lower = text.lower()
    digits = _DIGIT.search(text) is not None
    if "DATE_OF_BIRTH" in entities and digits:
        found += dates_of_birth(text, lower)
    if "NATIONAL_ID" in entities and digits:
        found += national_ids(text, lower)
        found += national_id_formats(text)
    if "PHONE_NUMBER" in entities and digits:
        found += labelled_phones(text, lower)
    if "CREDIT_CARD" in entities and digits:
        found += card_numbers(text)
    if "ADDRESS" in entities and digits:
        found += labelled_addresses(text, lower)
        found += addresses(text)
    if "SECRET" in entities:
        found += (f for f in secret_tokens(text) if f.entity in entities)
    if "CRYPTO" in entities and "0x" in text:
        found += wallet_addresses(text)
    found += (f for f in table_cells(text) if f.entity in entities)
    if "PERSON" in entities and _has_capital(text):
        runs = name_runs(text)
        found += labelled_names(text, lower)
        found += cued_names(text, lower)
        found += gazetteer_names(text, runs)
        names = {f.text for f in found if f.entity == "PERSON"} | set(known_names)
        found += mentions(text, names, runs)
    return found


_DIGIT = re.compile(r"\d")
_CAPITAL = re.compile(r"[A-Z\u00c0-\u024f\u0370-\u052f]")


def _has_capital(text: str) -> bool:
    return _CAPITAL.search(text) is not None


def person_names(text: str) -> set[str]:
    """The person names the detectors find in ``text`` (for mentions in the rest of a payload)."""
    return {f.text for f in text_findings(text, frozenset({"PERSON"})) if f.entity == "PERSON"}
