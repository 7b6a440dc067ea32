"""Numbers that identify a person or a card by their format alone, validated by their check digits:
card numbers in any grouping (also bare JSON integers), Spanish DNI/NIE, Italian codice fiscale,
Brazilian CPF, UK National Insurance numbers, Chinese resident ids, Mexican CURP and RFC."""

from __future__ import annotations

import re
from collections.abc import Iterator

from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.patterns import ID_LABEL_BEFORE

_CARD = re.compile(r"\d(?:[ \-]?\d){12,18}(?![\w\-]|\.\d)|\d{4}\.\d{4}\.\d{4}\.\d{1,7}(?![\w\-]|\.\d)")
_CARD_PREFIX = re.compile(r"4|5[1-5]|2[2-7]|3[47]|3[0689]|6(?:011|5|4[4-9]|22)|35")
_FORMATS = (
    (re.compile(r"\d(?<![\w-]\d)\d{7}[ -]?[A-HJ-NP-TV-Z](?![\w-])"), "dni"),
    (re.compile(r"[XYZ](?<![\w-][XYZ])[ -]?\d{7}[ -]?[A-HJ-NP-TV-Z](?![\w-])"), "nie"),
    (
        re.compile(r"[A-Z](?<![\w-][A-Z])[A-Z]{5}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z](?![\w-])"),
        "cf",
    ),
    (re.compile(r"\d(?<![\w.-]\d)\d{2}\.\d{3}\.\d{3}-\d{2}(?![\w-])"), "cpf"),
    (
        re.compile(
            r"[A-CEGHJ-PR-TW-Z](?<![\w-][A-CEGHJ-PR-TW-Z])(?<!B(?=G)|G(?=B)|K(?=N)|N(?=K)|N(?=T)|T(?=N)|Z(?=Z))"
            r"[A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![\w-])"
        ),
        "nino",
    ),
    (
        re.compile(
            r"[1-9](?<![\w-][1-9])\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dX](?![\w-])"
        ),
        "cn",
    ),
    (
        re.compile(r"[A-Z](?<![\w-][A-Z])[AEIOUX][A-Z]{2}\d{6}[HM][A-Z]{5}[A-Z\d]\d(?![\w-])"),
        "curp",
    ),
    (re.compile(r"[A-ZÑ&](?<![\w-][A-ZÑ&])[A-ZÑ&]{3}\d{6}[A-Z\d]{3}(?![\w-])"), "rfc"),
    # Canada SIN 046 454 286, Aadhaar 2341 2341 2346, France NIR 1 84 12 75 123 456 78, German IdNr 36 574 261 809
    (re.compile(r"\d(?<![\w.\-/]\d)\d{2}([ \-])\d{3}\1\d{3}(?![\w\-/]|[ .\-]\d)"), "sin"),
    (re.compile(r"[2-9](?<![\w.\-/][2-9])\d{3}([ \-])\d{4}\1\d{4}(?![\w\-/]|[ .\-]\d)"), "aadhaar"),
    (
        re.compile(
            r"[12](?<![\w.\-/][12]) ?\d{2} ?(?:0[1-9]|1[0-2]|[2-9]\d) ?(?:\d{2}|2[AB]) ?\d{3} ?\d{3} ?\d{2}(?![\w\-/]|[ .]\d)"
        ),
        "nir",
    ),
    (re.compile(r"\d(?<![\w.\-/]\d)\d \d{3} \d{3} \d{3}(?![\w\-/]|[ .]\d)"), "idnr"),
)
# A cheap necessary condition per format (no lookbehind first, so re skips ahead fast).
_GATES = {
    "digits7": re.compile(r"\d{7}"),
    "letters": re.compile(r"[A-ZÑ&]{4}\d{2}"),
    "cpf": re.compile(r"\d{3}\.\d{3}\.\d{3}-"),
    "nino": re.compile(r"[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]"),
    "grouped": re.compile(r"\d{3}[ \-]\d{3}"),
}
_GATE_OF = {
    "dni": "digits7",
    "nie": "digits7",
    "cn": "digits7",
    "cf": "letters",
    "curp": "letters",
    "rfc": "letters",
    "cpf": "cpf",
    "nino": "nino",
    "sin": "grouped",
    "aadhaar": "grouped",
    "nir": "grouped",
    "idnr": "grouped",
}
_WEAK = frozenset({"sin", "aadhaar", "idnr"})
_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def luhn_ok(digits: str) -> bool:
    """Whether the digit string passes the Luhn check."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        d = int(char)
        total += d if index % 2 == 0 else (d * 2 - 9 if d > 4 else d * 2)
    return total % 10 == 0


def is_card_number(value: str) -> bool:
    """13 to 19 digits of a card issuer's prefix passing the Luhn check, however grouped."""
    digits = "".join(c for c in value if c.isdigit())
    if len(digits) == 13 and digits[0] != "4":  # only old Visa cards have 13 digits; else an EAN-13 barcode
        return False
    return (
        13 <= len(digits) <= 19 and _CARD_PREFIX.match(digits) is not None and luhn_ok(digits) and len(set(digits)) > 2
    )


# How issuers print card numbers: groups of four (the last may be shorter), Amex 4-6-5, Diners 4-6-4.
_CARD_GROUPS = re.compile(r"\d{4}(?:([ \-.])\d{4})*(?:\1\d{1,4})?|\d{4}([ \-])\d{6}\2\d{4,5}")


def card_grouped(value: str) -> bool:
    """Whether ``value`` is grouped as card numbers are printed (or not grouped at all); an IMEI
    ``35-209900-176148-1`` or a 2-3-4-7 serial is not a card."""
    return value.isdigit() or _CARD_GROUPS.fullmatch(value) is not None


BARCODE_BEFORE = re.compile(
    r"(?i)\b(?:ean|ean13|gtin|gtin13|upc|barcode|isbn|imei)[\"']?[ \t]*[:=#>]?[ \t]*[\"']?[ \t]*$"
)


def card_numbers(text: str) -> Iterator[Finding]:
    """Card numbers grouped as cards are printed (spaces, dashes, none) that pass the Luhn check."""
    for match in _CARD.finditer(text):
        if match.start() and (text[match.start() - 1].isalnum() or text[match.start() - 1] in "_-.+/"):
            continue
        if BARCODE_BEFORE.search(text, max(0, match.start() - 24), match.start()):
            continue  # "ean": "4006381333931" or <GTIN>4006381333931 is a barcode even where it passes Luhn
        if card_grouped(match.group()) and is_card_number(match.group()):
            yield Finding(
                "CREDIT_CARD",
                match.start(),
                match.end(),
                0.9,
                "CardNumberRecognizer",
                match.group(),
            )


def national_id_formats(text: str) -> Iterator[Finding]:
    """National id numbers whose format and check digits identify them without a label."""
    gates = {gate: pattern.search(text) is not None for gate, pattern in _GATES.items()}
    for pattern, kind in _FORMATS:
        if not gates[_GATE_OF[kind]]:
            continue
        for match in pattern.finditer(text):
            if kind in _WEAK and ID_LABEL_BEFORE.search(text, max(0, match.start() - 40), match.start()):
                continue  # "PO 123-456-789": a business id whose digits happen to pass a mod-10 check
            if _VALID[kind](re.sub(r"[ \-.]", "", match.group())):
                yield Finding(
                    "NATIONAL_ID",
                    match.start(),
                    match.end(),
                    0.85,
                    f"NationalIdFormat:{kind}",
                    match.group(),
                )


def _stdnum(module: str, value: str) -> bool:
    """``value`` passes python-stdnum's format and check-digit validation for ``module`` ("ca.sin")."""
    import importlib

    return importlib.import_module(f"stdnum.{module}").is_valid(value)


def _dni_ok(value: str) -> bool:
    return _DNI_LETTERS[int(value[:8]) % 23] == value[8]


def _nie_ok(value: str) -> bool:
    return _dni_ok(str("XYZ".index(value[0])) + value[1:])


def _cpf_ok(value: str) -> bool:
    digits = [int(c) for c in value]
    if len(set(digits)) == 1:
        return False
    for n in (9, 10):
        check = sum(d * w for d, w in zip(digits[:n], range(n + 1, 1, -1))) * 10 % 11 % 10
        if check != digits[n]:
            return False
    return True


def _cn_ok(value: str) -> bool:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    check = "10X98765432"[sum(int(c) * w for c, w in zip(value[:17], weights)) % 11]
    return check == value[17]


_VALID = {
    "dni": _dni_ok,
    "nie": _nie_ok,
    "cf": lambda value: _stdnum("it.codicefiscale", value),
    "cpf": _cpf_ok,
    "nino": lambda value: True,
    "cn": _cn_ok,
    "curp": lambda value: 1 <= int(value[6:8]) <= 12 and 1 <= int(value[8:10]) <= 31,
    "sin": lambda value: _stdnum("ca.sin", value),
    "aadhaar": lambda value: _stdnum("in_.aadhaar", value),
    "nir": lambda value: _stdnum("fr.nir", value),
    "idnr": lambda value: _stdnum("de.idnr", value),
    "rfc": lambda value: 1 <= int(value[6:8]) <= 12 and 1 <= int(value[8:10]) <= 31,
}
