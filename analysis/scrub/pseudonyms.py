"""The normalized form of a value that its pseudonym is keyed on, so one person, number or address
written two ways is one pseudonym: e-mail lower-cased, phone numbers in E.164, card and IBAN
digits only, names and addresses case- and space-folded."""

from __future__ import annotations

import functools
import re

_SPACES = re.compile(r"\s+")
_PHONE_REGIONS = (
    "US",
    "GB",
    "DE",
    "FR",
    "ES",
    "IT",
    "NL",
    "IN",
    "BR",
    "CA",
    "AU",
    "JP",
)


@functools.lru_cache(maxsize=65536)
def normalized(entity: str, value: str) -> str:
    """The form of ``value`` (an ``entity`` finding) that identifies it."""
    if entity == "EMAIL_ADDRESS":
        return value.strip().lower()
    if entity == "CREDIT_CARD":
        return "".join(c for c in value if c.isdigit())
    if entity == "IBAN_CODE":
        return "".join(c for c in value if c.isalnum()).upper()
    if entity == "PHONE_NUMBER":
        return _e164(value)
    if entity in ("PERSON", "ADDRESS", "LOCATION"):
        return _SPACES.sub(" ", value.replace(",", " ")).strip().casefold()
    return value


def _e164(value: str) -> str:
    import phonenumbers

    for region in (None,) if value.strip().startswith("+") else _PHONE_REGIONS:
        try:
            number = phonenumbers.parse(value, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_possible_number(number):
            return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    return "".join(c for c in value if c.isdigit() or c == "+")
