"""Business and device identifiers that look like phones, cards or addresses survive the default scrubber."""

from __future__ import annotations

import pytest

from handoff.analysis.scrub import Scrubber


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber("business-ids-tests")


def test_product_and_device_codes_are_not_phones_or_cards(scrubber):
    """An NDC drug code, an IMEI and a part number with a short last group stay verbatim."""
    text = (
        "| NDC | Product |\n|---|---|\n| 0002-8215-01 | Humalog KwikPen |\n| 61958-2501-1 | Veklury vial |\n"
        "Handset IMEI 49-015420-323751-8 returned under RMA; spare kit 77120-0455-3."
    )
    assert scrubber.scrub_text(text) == text


def test_cards_grouped_as_printed_are_still_removed(scrubber):
    """Cards in groups of four, Amex 4-6-5, or ungrouped are removed; the grouping rule keeps only oddly grouped ids."""
    text = "Visa 4929 1307 4385 4320, Amex 3714-496353-98431, raw 5105105105105100."
    out = scrubber.scrub_text(text)
    for value in ("4929 1307 4385 4320", "3714-496353-98431", "5105105105105100"):
        assert value not in out
    assert out.count("<CREDIT_CARD:") == 3


def test_a_log_timestamp_before_a_word_is_not_a_house_number(scrubber):
    """ "...T06:41:17Z HANGAR gate" in a log is not a street address ("gate" is Norwegian for street)."""
    text = "2026-05-02T06:41:17Z HANGAR gate B12 opened by ops-console\n2026-05-02T06:42:03Z UPS gate closed"
    assert scrubber.scrub_text(text) == text


def test_street_names_with_a_lettered_house_number_are_addresses(scrubber):
    """ "Gyldenløves gate 17C, 4611 Kristiansand" is a home address, a lettered number included."""
    text = "Ship the replacement to: Gyldenløves gate 17C, 4611 Kristiansand"
    assert "Gyldenløves gate 17C" not in scrubber.scrub_text(text)


def test_single_letter_prefixed_words_are_not_surnames(scrubber):
    """ "S-Bahn" and "E-Class" after a name-like word are names of things, not a person's surname."""
    text = "Meet at Hackescher Markt S-Bahn, then take the Mercedes E-Class to Tegel."
    assert scrubber.scrub_text(text) == text


def test_network_ranges_barcodes_and_airport_codes_survive(scrubber):
    """A CIDR range, a Luhn-valid EAN after its label and "533 via LHR" stay; a host IP and a card still go."""
    text = (
        "allow 172.16.0.0/12 and fd00::/8; host 172.16.4.9 blocked\n"
        '{"ean": "4006381333931", "card": "4222222222222"}\n'
        "Flight BA 533 via LHR USD 986"
    )
    out = scrubber.scrub_text(text)
    assert "172.16.0.0/12" in out and "fd00::/8" in out and "172.16.4.9" not in out
    assert '"ean": "4006381333931"' in out and "4222222222222" not in out
    assert out.endswith("Flight BA 533 via LHR USD 986")


def test_a_barcode_inside_its_xml_element_survives(scrubber):
    """ "<GTIN>4012345678925</GTIN>" is a barcode though its 13 digits pass Luhn as an old Visa would;
    the same digits without a barcode label are still removed as a card."""
    text = "<Item><GTIN>4012345678925</GTIN><Qty>12</Qty></Item>\npaid with 4012345678925"
    out = scrubber.scrub_text(text)
    assert out.startswith("<Item><GTIN>4012345678925</GTIN><Qty>12</Qty></Item>\n")
    assert not out.endswith("4012345678925")


def test_a_number_labelled_as_a_version_or_build_is_no_phone(scrubber):
    """A ten-digit number after a version, build or revision label (``TOOL_VERSION: …``) is a release number."""
    text = "    SDK_VERSION: 1690012345\n    build 7712049981 is green"
    assert scrubber.scrub_text(text) == text


def test_an_ssh_git_remote_is_no_email_address(scrubber):
    """``git@host:org/repo.git`` is an SSH remote of a service user, not a mailbox: it stays; a person's
    mailbox stays an e-mail address."""
    text = "Remote: git@code.example.internal:platform/ledger.git (mirror of origin)"
    assert scrubber.scrub_text(text) == text
    assert "ops-team@acme.example" not in scrubber.scrub_text("write to ops-team@acme.example: thanks")


def test_business_registry_numbers_after_their_label_are_not_phones(scrubber):
    """An Australian Business Number, a KvK number and a company number keep their digits; a phone label still wins."""
    text = "Harbourside Roasters Pty Ltd, ABN 62 418 907 335; KvK 40123456-0042; company no. 0987 654 321\nCall 0987 654 321"
    out = scrubber.scrub_text(text)
    assert "ABN 62 418 907 335" in out and "company no. 0987 654 321" in out
    assert out.endswith("Call <PHONE_NUMBER:" + out.split("<PHONE_NUMBER:")[1]) and out.count("0987 654 321") == 1
