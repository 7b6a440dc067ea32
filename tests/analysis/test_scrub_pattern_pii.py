"""Dates of birth next to birth cues in many languages and layouts, and national id numbers of several
countries (labelled, or by format and check digits through python-stdnum), written for these tests from
issue 12's categories; and business numbers and dates that must stay."""

from __future__ import annotations

import pytest

from handoff.analysis.scrub import Scrubber

FOUND = [
    ('Patient DOB 02-Mar-1984, seen today.', '02-Mar-1984'),
    ('Geboren am 17.08.1979 in Graz', '17.08.1979'),
    ('nata il 03/05/1969 a Bari', '03/05/1969'),
    ('Fecha nac.: 12/05/1990', '12/05/1990'),
    ('生年月日: 1985年4月12日', '1985年4月12日'),
    ('생년월일 1990년 3월 5일', '1990년 3월 5일'),
    ('Дата рождения: 04.11.1975', '04.11.1975'),
    ('birth_date=19840302', '19840302'),
    ('date of birth: the 2nd of March 1984', '2nd of March 1984'),
    ('urodzona 21.09.1988 w Krakowie', '21.09.1988'),
    ('Tanggal lahir: 17-08-1992', '17-08-1992'),
    ('SIN 046 454 286 on file', '046 454 286'),
    ('Her SIN is 046-454-286.', '046-454-286'),
    ('Aadhaar: 2341 2341 2346', '2341 2341 2346'),
    ('UID 2341-2341-2346 verified', '2341-2341-2346'),
    ('numéro de sécurité sociale : 2 84 05 75 123 456 72', '2 84 05 75 123 456 72'),
    ('INSEE 284057512345672 (salarié)', '284057512345672'),
    ('Steuer-ID 36 574 261 809', '36 574 261 809'),
    ('Steueridentifikationsnummer: 36574261809', '36574261809'),
    ('BSN 111222333', '111222333'),
    ('codice fiscale RSSMRA85T10A562S', 'RSSMRA85T10A562S'),
    ('CPF 390.533.447-05', '390.533.447-05'),
    ('DNI 12345678Z', '12345678Z'),
    ('NIE X1234567L', 'X1234567L'),
    ('NINO: AB 12 34 56 C', 'AB 12 34 56 C'),
    ('SSN 536-22-1234', '536-22-1234'),
    ('Sozialversicherungsnummer 1234 010180', '1234 010180'),
]  # fmt: skip
KEPT = [
    'PO 123-456-789 shipped 2024-03-01',
    'Invoice total 1 234 567 EUR; order 4471-9028-3619 placed',
    'Released on 12/05/2024 as v2.3.1',
    'Build 20240302 deployed to prod',
]  # fmt: skip


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber("pattern-pii-tests")


@pytest.mark.parametrize(("text", "value"), FOUND, ids=[str(i) for i in range(len(FOUND))])
def test_birth_dates_and_national_ids_are_removed(scrubber, text, value):
    """A date of birth after a birth cue, or a national id number, does not survive scrubbing."""
    out = scrubber.scrub_text(text)
    assert value not in out
    assert "<DATE_OF_BIRTH:" in out or "<NATIONAL_ID:" in out or "<US_SSN:" in out or "<PHONE_NUMBER:" in out


@pytest.mark.parametrize("text", KEPT, ids=[str(i) for i in range(len(KEPT))])
def test_business_numbers_and_dates_are_unchanged(scrubber, text):
    """Order and invoice numbers, release dates and build numbers come back exactly as written."""
    assert scrubber.scrub_text(text) == text


def test_fictional_international_phone_is_removed(scrubber):
    """A number written in international form is a phone even in a range set aside for fiction."""
    assert scrubber.scrub_text("sms.send to=+44 7700 900514 template=OUT").startswith("sms.send to=<PHONE_NUMBER:")


def test_numbers_after_call_ring_and_national_phone_words_are_phones(scrubber):
    """ "call 010-5512-9087", "Numer telefonu: 601 234 567" and "(fijo) 93 412 55 80" are phone numbers."""
    text = "Please call 010-5512-9087 tonight.\nNumer telefonu: 601 234 567\nFijo: 93 412 55 80"
    out = scrubber.scrub_text(text)
    for value in ("010-5512-9087", "601 234 567", "93 412 55 80"):
        assert value not in out
    assert out.startswith("Please call <PHONE_NUMBER:")


def test_birth_dates_after_b_dot_and_with_french_ordinals_are_removed(scrubber):
    """ "b. 1958-02-11" (born) and "née le 1er mai 1981" are dates of birth; "7.2(b). 2026-03-01" is not."""
    text = "Signer b. 1958-02-11 (age 68); sa sœur, née le 1er mai 1981.\nPer 7.2(b). 2026-03-01 applies."
    out = scrubber.scrub_text(text)
    assert "1958-02-11" not in out and "1er mai 1981" not in out
    assert out.endswith("Per 7.2(b). 2026-03-01 applies.")


def test_listen_and_loopback_addresses_file_uploads_and_url_path_numbers_are_not_personal():
    scrubber = Scrubber("pattern-pii-extra")
    text = (
        "[server]\nbind = 0.0.0.0:9090\nhealth = http://127.0.0.1:9091/ready\n"
        "curl -F upload=@MANIFEST_20260611_0930.csv https://edi.example.net/in\n"
        "GET https://track.example.com/v1/shipments/312-55501234/events\n"
    )
    assert scrubber.scrub_text(text) == text
    out = scrubber.scrub_text("client 203.0.113.77 from ops@example.org, call +44 7700 900612")
    assert "203.0.113.77" not in out and "ops@example.org" not in out and "7700 900612" not in out


def test_african_national_id_cards_after_their_label_are_removed():
    scrubber = Scrubber("pattern-pii-ids")
    text = "Applicant: Ghana Card GHA-004417293-6, Huduma Namba 29817364; Omang 503218764; order NRC-2026 ships"
    out = scrubber.scrub_text(text)
    assert "GHA-004417293-6" not in out and "29817364" not in out and "503218764" not in out
    assert "NRC-2026 ships" in out


def test_a_street_name_that_starts_like_a_month_is_still_a_street(scrubber):
    """ "14 rue des Marronniers" and "9 Mayfield Court" are streets: only a month name or its abbreviation
    ("30 March 2026") makes a date of an anchor."""
    text = "Livraison : 14 rue des Marronniers, 69002 Lyon. Old flat: 9 Mayfield Court, Leeds LS6 2AX."
    out = scrubber.scrub_text(text)
    assert "14 rue des Marronniers, 69002 Lyon" not in out and "9 Mayfield Court" not in out


def test_an_address_cell_does_not_run_into_the_cells_before_it(scrubber):
    """In a table row the address is its own cell: the tracking number cell before it stays."""
    text = "| tracking | name | address |\n|---|---|---|\n| 7TRK00412290001 | Lucía Moreno | Calle Real 12, 2º izq., 28004 Madrid |"
    out = scrubber.scrub_text(text)
    assert "7TRK00412290001" in out and "Calle Real 12" not in out


def test_a_pps_number_key_and_a_korean_or_japanese_phone_label_are_read(scrubber):
    """A JSON ``pps_number`` key names an Irish PPS number; "휴대폰:" and "電話:" label phone numbers."""
    text = '{"pps_number": "2345678TW"}\n휴대폰: 010-5512-8830\n電話: 03-5412-7789'
    out = scrubber.scrub_text(text)
    assert "2345678TW" not in out and "010-5512-8830" not in out and "03-5412-7789" not in out


def test_a_quantity_before_a_product_named_after_a_street_is_no_house_number(scrubber):
    """ "6x Abbey Road Amber" is six of a beer: a lower-case x after a number is a quantity; "14a Church Road"
    is still a street and number."""
    text = "Order: 6x Abbey Road Amber, 12x Baker Street Porter. Deliver to 14a Church Road, London N1 2AB."
    out = scrubber.scrub_text(text)
    assert "6x Abbey Road Amber, 12x Baker Street Porter" in out and "14a Church Road" not in out
