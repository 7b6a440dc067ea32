"""Things in table columns and fields that are named after people (books, firms, serial numbers), a
firm in a person's column, one-word names after a cue that addresses a person, and the cues, labels
and secret shapes of more languages and tools. Every example is new, not from the corpus."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handoff.analysis.scrub import Scrubber


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber("things-and-cues-tests")


def _left(scrubber: Scrubber, text: str, values: tuple[str, ...]) -> list[str]:
    out = scrubber.scrub_text(text)
    return [value for value in values if value in out]


def test_cells_under_a_thing_header_keep_their_names_and_serials(scrubber):
    """A book, a product, a serial number or a company column holds things named after people and
    numbers of phone shape; the person and phone columns of the same table are still scrubbed."""
    text = (
        "isbn13,book,publisher,buyer_name,buyer_phone,scanner_serial\n"
        "9780141439518,Oliver Twist,Penguin,Siobhan McAllister,+44 7700 900123,4022915573\n"
        "9780553213119,Moby Dick,Bantam,Tunde Bakare,+44 7700 900456,3011207781\n"
    )
    out = scrubber.scrub_text(text)
    assert "Oliver Twist" in out and "Moby Dick" in out and "4022915573" in out and "3011207781" in out
    assert "Siobhan" not in out and "Tunde Bakare" not in out and "900123" not in out
    fields = '{"show": "Casa Lucia", "company": "Abbott & Reyes Events", "host_name": "Mariana Quispe"}'
    assert _left(scrubber, fields, ("Casa Lucia", "Abbott & Reyes Events", "Mariana Quispe")) == [
        "Casa Lucia",
        "Abbott & Reyes Events",
    ]
    # a title is free text (a meeting, a ticket): a person in it is still removed
    assert _left(scrubber, '{"title": "1:1 with Siobhan McAllister"}', ("Siobhan McAllister",)) == []


def test_a_firm_in_a_person_column_is_kept(scrubber):
    text = "job_id,customer,kwp\nSC-1,Lindqvist Family Dental PC,48.4\nSC-2,Okonjo Plumbing Supplies,12.0\nSC-3,Nadia Haddad,6.2\n"
    out = scrubber.scrub_text(text)
    assert "Lindqvist Family Dental PC" in out and "Okonjo Plumbing Supplies" in out and "Nadia Haddad" not in out
    assert _left(scrubber, "Present: Aroha Te Rangi (chair)", ("Aroha Te Rangi", "Aroha")) == []


def test_one_word_that_is_also_an_english_word_is_a_name_after_an_honorific_or_a_personal_greeting(scrubber):
    assert _left(scrubber, "Dear Dr Lee,\n\nthe results are attached.", ("Lee",)) == []
    assert _left(scrubber, "Hi Grace, the invoice is attached.", ("Grace",)) == []
    assert _left(scrubber, "Mr Park will sign on Friday.", ("Park",)) == []
    # not after a thank-you or a bare word: "Thanks Bank", "Dear Customer"
    assert _left(scrubber, "Thanks Bank of Ireland for the quick reply. Dear Customer,", ("Bank", "Customer")) == [
        "Bank",
        "Customer",
    ]


def test_kin_greetings_and_sign_offs_of_more_languages(scrubber):
    assert _left(scrubber, "Ihr Mann Dariusz hatte gestern angerufen.", ("Dariusz",)) == []
    assert _left(scrubber, "Votre mari Mathieu a appelé hier.", ("Mathieu",)) == []
    assert _left(scrubber, "Muchas gracias,\nRocío", ("Rocío",)) == []
    assert _left(scrubber, "Merci beaucoup,\nLéonie Gauthier", ("Léonie Gauthier",)) == []


def test_driving_licences_in_other_languages_and_keys_with_a_region(scrubber):
    text = 'Numer prawa jazdy: 05512/19/2231\nFührerscheinnummer: J0105R5BF12\n"drivers_licence_vic": "082215347"'
    assert _left(scrubber, text, ("05512/19/2231", "J0105R5BF12", "082215347")) == []


def test_password_flags_of_mqtt_and_sql_tools_and_webhook_signatures_are_secrets(scrubber):
    text = (
        "mosquitto_sub -h mq.internal -p 8883 -u sensor-7 -P 'Zk4qWm8vTr2Lp9xa' -t plant/+/temp\n"
        "sqlcmd -S db01 -U sa -P Gh7#kd92LmQz -Q 'select 1'\n"
        "Stripe-Signature: t=1780000000,v1=5f0c9e3d1a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d\n"
    )
    out = scrubber.scrub_text(text)
    assert "Zk4qWm8vTr2Lp9xa" not in out and "Gh7#kd92LmQz" not in out and "5f0c9e3d1a2b" not in out
    assert "-p 8883" in out and "mq.internal" in out


def test_codes_machine_accounts_departments_and_pieces_of_longer_numbers_are_kept(scrubber):
    text = (
        "Reporter: OPS-NIGHT-C\n"
        '{"user": "billing-bot", "owner": "deploy-svc"}\n'
        "To: Harrogate Reception <frontdesk@spa-harrogate.example>\n"
        "Reorder ISBN 978-84-376-0494-7 before Friday.\n"
    )
    assert _left(
        scrubber, text, ("OPS-NIGHT-C", "billing-bot", "deploy-svc", "Harrogate Reception", "978-84-376-0494-7")
    ) == [
        "OPS-NIGHT-C",
        "billing-bot",
        "deploy-svc",
        "Harrogate Reception",
        "978-84-376-0494-7",
    ]
    # the same fields with people in them are still scrubbed, and a whole SSN is one
    people = 'Reporter: MARIE-CLAIRE DUBOIS\n{"user": "kwame.asante"}\nSSN 219-09-9999 on file.'
    assert _left(scrubber, people, ("MARIE-CLAIRE DUBOIS", "kwame.asante", "219-09-9999")) == []


def test_names_in_hangul_as_chat_speakers_and_korean_sign_offs_clergy_and_letter_openings(scrubber):
    text = "Rest stop at the marina.\n\n김도윤  10:41 AM\n안녕하세요 — the van is here\n\n> 하은 드림\n"
    assert _left(scrubber, text, ("김도윤", "하은")) == []
    assert _left(scrubber, "Acompanhado pelo Padre Evaristo na missa.", ("Evaristo",)) == []
    assert _left(scrubber, "Witam Zosia,\n\nthe keys are at reception.", ("Zosia",)) == []
    # an opening line to a team or a customer is no name
    assert _left(scrubber, "Hi Team,\nthe keys are at reception.", ("Team",)) == ["Team"]


def test_a_founder_and_a_trade_after_an_ampersand_is_a_firm_in_a_person_column(scrubber):
    text = "client_name,lease_id\nAbbott & Reyes Catering,LS-2291\nNoor & Sami Haddad,LS-2292\n"
    out = scrubber.scrub_text(text)
    # a couple in one person cell is two people
    assert "Abbott & Reyes Catering" in out and "Noor" not in out and "Sami" not in out and "Haddad" not in out


def test_a_couple_in_a_json_or_form_field_is_two_people(scrubber):
    text = '{"customer": "Noor & Sami Haddad", "ref": "X1"}\nTenants: Ana and Luis Ruiz\n{"customer": "Hartmann & Söhne GmbH"}'
    assert _left(scrubber, text, ("Noor", "Sami", "Haddad", "Ana", "Luis", "Ruiz", "Hartmann & Söhne GmbH")) == [
        "Hartmann & Söhne GmbH"
    ]


def test_horses_races_rooms_instruments_and_sites_named_after_people_are_things(scrubber):
    text = (
        "| horse | race |\n|---|---|\n| Sir Dermot's Promise | Sir Patrick Dunne Stakes |\n"
        "Conference in the Lady Margaret Suite; tray TR-9: Spencer Wells forceps x 6.\n"
        "Managers for Manchester Deansgate and Leeds Kirkgate joined.\n"
    )
    kept = ("Sir Dermot's Promise", "Patrick Dunne Stakes", "Lady Margaret Suite", "Spencer Wells", "Leeds Kirkgate")
    assert _left(scrubber, text, kept) == list(kept)
    # a person after the same cues is still a person
    assert (
        _left(
            scrubber,
            "Sir Patrick Dunne will present the trophy. Dr Sydney Omondi will call.",
            ("Patrick Dunne", "Omondi"),
        )
        == []
    )


def test_ranges_of_ids_document_numbers_date_keys_and_a_huggingface_token(scrubber):
    text = (
        "casks 26-0871..26-0874 filled; SAP doc 5100048812 posted; s/n 431902118 to 431902125 (8 units)\n"
        '{"usage_date_key": 20260531, "hf": "hf_kQ2wE9rT5yU1iO7pA3sD8fG4hJ6kL0zX2cV9b"}\n'
    )
    out = scrubber.scrub_text(text)
    assert "26-0871..26-0874" in out and "5100048812" in out and "431902125" in out and "20260531" in out
    assert "hf_kQ2wE9rT5yU1iO7pA3sD8fG4hJ6kL0zX2cV9b" not in out


def test_a_name_introducing_itself_after_a_greeting_to_someone_else(scrubber):
    assert _left(scrubber, "G'day Tui, Anjali here from Member Services.", ("Anjali",)) == []


def test_a_mailbox_before_a_colon_is_an_ssh_remote_only_when_its_user_names_no_one(scrubber):
    """A machine word in a handle keeps the handle itself (``billing-bot``) but does not turn a person's
    mailbox before a colon into an SSH remote (the check that leaves ``git@github.com:org/repo`` alone)."""
    out = scrubber.scrub_text("Write to olga.bot@northwind.example:inbox/2026 or clone git@github.com:acme/repo.git")
    assert "olga.bot@northwind.example" not in out and "git@github.com:acme/repo.git" in out


def test_horses_races_and_vessels_in_their_own_columns_and_keys_are_things(scrubber):
    text = "meeting,race,horse,jockey\nDeauville,Prix Jean Prat,Queen Maeve's Folly,Ronan Whelan\n"
    out = scrubber.scrub_text(text + '{"horse": "Kilbeggan Lass", "vessel": "Marie Celeste"}')
    assert "Prix Jean Prat" in out and "Kilbeggan Lass" in out and "Marie Celeste" in out and "Ronan Whelan" not in out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.sampled_from(
                ["book,buyer_name,serial", '"show": "Casa Lucia"', "Oliver Twist,Ana Ruiz,4022915573", "\ud800"]
            ),
        ),
        max_size=6,
    )
)
def test_thing_cells_lie_inside_the_text_and_scrubbing_any_text_never_raises(scrubber, parts):
    """Hostile text (lone surrogates, thing headers and fields in any order) never breaks the thing scan."""
    from handoff.analysis.scrub.lines import line_starts
    from handoff.analysis.scrub.tables import thing_cells

    text = "\n".join(parts)
    lines = text.split("\n")
    cells = thing_cells(text, lines, line_starts(lines))
    assert all(0 <= start <= end <= len(text) for start, end in cells)
    assert isinstance(scrubber.scrub_text(text), str)
