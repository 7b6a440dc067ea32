"""The default scrubber on names, addresses, labelled ids, more secret shapes and normalized pseudonyms."""

from __future__ import annotations

import json

import pytest

import handoff
from handoff.analysis.scrub import Scrubber

KEY = "test-key"


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber(KEY)


def test_names_addresses_and_birth_dates_are_removed_without_a_model(scrubber):
    """A user relies on names, a home address and a labelled date of birth never reaching the store by default."""
    text = (
        "Dear Maria,\nthe tenant Frau Małgorzata Zielińska-Nowak moves out of Hauptstraße 12, 10115 Berlin.\n"
        "DOB: 1984-07-02\nKind regards,\nOluwaseun Adeyemi"
    )
    out = scrubber.scrub_text(text)
    for value in (
        "Maria",
        "Małgorzata Zielińska-Nowak",
        "Hauptstraße 12, 10115 Berlin",
        "1984-07-02",
        "Oluwaseun Adeyemi",
    ):
        assert value not in out
    assert out.startswith("Dear <PERSON:") and "\nDOB: <DATE_OF_BIRTH:" in out


def test_business_names_survive(scrubber):
    """Company, brand and place names that contain people's names are business values and stay verbatim."""
    text = (
        "Ship the Calvin Klein order via Northwind Freight from our Rotterdam warehouse to the Van Gogh Museum; "
        "Johnson & Johnson pays INV-88214."
    )
    assert scrubber.scrub_text(text) == text


def test_one_person_written_two_ways_is_one_pseudonym(scrubber):
    """Pseudonyms are keyed on the normalized value: case and spacing of a name, e-mail case and phone format do not matter."""
    assert scrubber.pseudonym("PERSON", "Maria  López") == scrubber.pseudonym("PERSON", "MARIA LÓPEZ")
    assert scrubber.pseudonym("EMAIL_ADDRESS", "Ana.Ruiz@Example.com") == scrubber.pseudonym(
        "EMAIL_ADDRESS", "ana.ruiz@example.com"
    )
    assert scrubber.pseudonym("PHONE_NUMBER", "+44 20 7946 0958") == scrubber.pseudonym("PHONE_NUMBER", "+442079460958")
    assert scrubber.pseudonym("CREDIT_CARD", "4111-1111-1111-1111") == scrubber.pseudonym(
        "CREDIT_CARD", "4111111111111111"
    )


def test_card_number_as_a_json_integer_is_removed(scrubber):
    """A card number given as a bare JSON integer is replaced like one written as text."""
    data = json.dumps({"card_number": 2221156342206488, "amount_usd": 214.9}).encode()
    stored = json.loads(scrubber.scrub_bytes(data, "application/json"))
    assert stored == {
        "amount_usd": 214.9,
        "card_number": scrubber.pseudonym("CREDIT_CARD", "2221156342206488"),
    }


def test_secret_shapes_are_removed(scrubber):
    """Secrets in env files, CLI flags, connection strings and base64 Basic auth are replaced, their key names kept."""
    text = (
        "SMTP_PASS=Munic1pal-Mail-88\n"
        "crmctl login --password 'C0ntr@sena#Ventas26'\n"
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=B1gh+4fgh93y/axJwxHsN3vWLSqLOkvu0pEMn0nDSVr6ckDsOATyUDhVFQ==\n"
        'LEGACY_AUTH="Basic Y2l0eXBheS10YXg6V2F0M3JCaWxsIzIwMjY="'
    )
    out = scrubber.scrub_text(text)
    for secret in (
        "Munic1pal-Mail-88",
        "C0ntr@sena#Ventas26",
        "B1gh+4fgh93y",
        "Y2l0eXBheS10YXg6V2F0M3JCaWxsIzIwMjY=",
    ):
        assert secret not in out
    assert out.startswith("SMTP_PASS=<") and "AccountKey=<" in out


def test_a_spacy_model_that_is_not_installed_is_an_error():
    """Naming a spaCy model that is not installed fails loudly instead of withholding every payload."""
    with pytest.raises(ValueError, match="not installed"):
        handoff.configure(spacy_model="en_core_web_nonexistent_model")
    with pytest.raises(ValueError, match="not installed"):
        Scrubber(KEY, spacy_model="en_core_web_nonexistent_model")


def test_addresses_of_more_countries_are_removed(scrubber):
    """Greek, Norwegian and Korean home addresses, and a labelled Mexican one before a sentence, are removed."""
    text = (
        "Deliver to Πατησίων 112, 112 57 Αθήνα today.\n"
        "Ny adresse: Bryggekaien 7, 4306 Sandnes\n"
        "주소: 부산광역시 해운대구 센텀중앙로 55, 1203호 (48058)\n"
        "Home address: Av. Río Churubusco 1924, Col. Country Club, 04220 Ciudad de México. RFC MOGA8503129K1."
    )
    out = scrubber.scrub_text(text)
    for value in ("Πατησίων 112, 112 57", "Bryggekaien 7, 4306 Sandnes", "센텀중앙로 55", "Av. Río Churubusco 1924"):
        assert value not in out
    assert "Ciudad de México. RFC <NATIONAL_ID:" not in out and "RFC <NATIONAL_ID:" in out


def test_numbered_business_phrases_before_a_year_are_not_addresses(scrubber):
    """ "Release 12, 2026 Roadmap" and "Tier 2, 4500 Units" are not a street and a postcode."""
    text = "Release 12, 2026 Roadmap; Windows 11, 2024 Update; Tier 2, 4500 Units"
    assert scrubber.scrub_text(text) == text


def test_hungarian_addresses_with_the_street_type_as_its_own_word_are_removed(scrubber):
    text = "Számlázási cím: 1054 Budapest, Szabadság tér 7. 3. em. 2.\nSzállítás: Dózsa György út 112, 6720 Szeged"
    out = scrubber.scrub_text(text)
    assert "Szabadság tér 7" not in out and "Dózsa György út 112" not in out
