"""The detectors that run without Presidio and find values inside one line: labelled fields,
national id formats, cards, postal address lines, secrets, wallets, cued and gazetteer names.

Pure :mod:`re` plus the gazetteer. They run on batches of new lines and their findings are
cached per line (:mod:`~handoff.analysis.scrub.lines`, which also holds the detectors that need
several lines); Presidio's recognizers still run on the lines the prefilter passes (see
:class:`~handoff.analysis.scrub.Scrubber`).
"""

from __future__ import annotations

import re

from handoff.analysis.scrub.addresses import addresses, street_postcode_towns
from handoff.analysis.scrub.aliases import email_named, handles, script_glosses
from handoff.analysis.scrub.credentials import credential_values
from handoff.analysis.scrub.cues import WROTE
from handoff.analysis.scrub.fields import (
    dates_of_birth,
    labelled_addresses,
    labelled_names,
    labelled_phones,
    national_ids,
)
from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.identifiers import card_numbers, national_id_formats
from handoff.analysis.scrub.keyed import keyed_tokens
from handoff.analysis.scrub.people import cued_names, gazetteer_names, name_runs, preposition_names
from handoff.analysis.scrub.tokens import secret_tokens, wallet_addresses
from handoff.analysis.scrub.windows import aligned_lower


def local_findings(text: str, entities: frozenset[str]) -> list[Finding]:
    """The findings of the detectors that look at one line at a time (may overlap)."""
    found: list[Finding] = []
    lower = aligned_lower(text)
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
        found += addresses(text, context=False)
        found += street_postcode_towns(text)
    if "SECRET" in entities:
        found += (f for f in secret_tokens(text) if f.entity in entities)
        found += keyed_tokens(text)
        found += (f for f in credential_values(text, lower) if f.entity in entities)
    if "CRYPTO" in entities and "0x" in text:
        found += wallet_addresses(text)
    capital = _has_capital(text)
    if "PERSON" in entities and not capital and _WROTE.search(lower):
        found += cued_names(text, lower, sign_off=False)  # "10:14 meera iyer wrote:", all in lower case
    if "PERSON" in entities and capital:
        runs = name_runs(text)
        found += labelled_names(text, lower)
        found += cued_names(text, lower, sign_off=False)
        found += gazetteer_names(text, runs)
        found += script_glosses(text)
        found += email_named(text, runs)
        found += preposition_names(text, runs)
    if "PERSON" in entities and ("=" in text or ":" in text or "(" in text or "by " in text):
        found += handles(text)
    return found


_DIGIT = re.compile(r"\d")
_WROTE = re.compile(r"[ \t]" + WROTE + r"[ \t]*:")
_CAPITAL = re.compile(r"[A-Z\u00c0-\u024f\u0370-\u052f]")


def _has_capital(text: str) -> bool:
    return _CAPITAL.search(text) is not None
