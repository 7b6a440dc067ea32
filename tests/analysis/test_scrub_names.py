"""Person names the default scrubber finds from cues in running text, and places it leaves alone."""

from __future__ import annotations

import pytest

from handoff.analysis.scrub import Scrubber


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber("names-tests")


def _left(scrubber: Scrubber, text: str, values: tuple[str, ...]) -> list[str]:
    out = scrubber.scrub_text(text)
    return [value for value in values if value in out]


def test_a_surname_with_a_possessive_or_an_honorific_suffix_is_the_same_person(scrubber):
    """Once a text names someone, "Nakamura's" and "Nakamura-san" later in it are removed too."""
    text = (
        "Dr. Haruto Nakamura joined the call at 10:02.\n"
        "Nakamura-san will review the draft; Nakamura's notes on clause 4.1 are attached."
    )
    out = scrubber.scrub_text(text)
    assert "Nakamura" not in out
    assert "-san will review" in out and "'s notes on clause 4.1" in out


def test_a_mention_after_a_sentence_opening_word_is_removed(scrubber):
    """A known name after an inflected verb ("Asked Tendai"), and with a surname after it, is still that person."""
    text = "Tendai Mutasa called about PO-7781.\nAsked Tendai to resend it. Later: I'm Tendai, any news?"
    assert _left(scrubber, text, ("Tendai", "Mutasa")) == []


def test_relatives_self_introductions_and_speakers_in_brackets_are_people(scrubber):
    """Names the gazetteer lacks are removed after a kin word, "I'm", before "here", and as "(Name):"."""
    text = (
        "My husband Tafadzwa will collect the parcel.\n"
        "Hello, I'm Siddharth from billing. I'm Happy to help with INV-5521.\n"
        "Thandiwe here, following up on the refund.\n"
        "Escalation note (Radek): customer called twice."
    )
    out = scrubber.scrub_text(text)
    assert _left(scrubber, text, ("Tafadzwa", "Siddharth", "Thandiwe", "Radek")) == []
    assert "I'm Happy to help with INV-5521." in out


def test_full_names_after_by_to_and_from_are_people(scrubber):
    """Who signed, approved or received something is a person when a full name follows."""
    text = (
        "Approved by: Lindiwe Dlamini-Khumalo, Finance.\n"
        "Countersigned for the lessor by Eoghan MacAoidh.\n"
        "Transfer the file from Ebere Nnamdi to Tariq Mahmood."
    )
    values = ("Lindiwe Dlamini-Khumalo", "Eoghan MacAoidh", "Ebere Nnamdi", "Tariq Mahmood")
    assert _left(scrubber, text, values) == []


def test_places_and_firms_after_prepositions_survive(scrubber):
    """Towns, countries and firm names after "from", "to", "via" or "by" are business values, not people."""
    text = (
        "Freight from Ciudad Juárez to Porto Alegre via Santa Cruz de Tenerife, then to New Zealand.\n"
        "Prepared by KPMG Audit; approved by Finance Committee."
    )
    assert scrubber.scrub_text(text) == text


def test_table_columns_with_qualified_or_numbered_headers_hold_names(scrubber):
    """A "Signatory (buyer)" column and a CSV whose header also has "score_30d" still mark their name cells."""
    markdown = "| Ref | Signatory (buyer) | Signed |\n|---|---|---|\n| C-104 | Wairimu Kamau-Njoroge | 2026-02-03 |"
    csv = "acct,holder_name,usage_30d,owner_agent\nA-1,Thanaphon Srisawat,12.5,Duangjai P.\n"
    out = scrubber.scrub_text(markdown + "\n\n" + csv)
    assert _left(scrubber, markdown + "\n\n" + csv, ("Wairimu Kamau-Njoroge", "Thanaphon Srisawat")) == []
    assert "| C-104 |" in out and "usage_30d" in out


def test_a_surname_that_is_also_a_business_word_is_a_name_under_a_label(scrubber):
    """ "Park" is a business word and a Korean surname: in a claimant column "Min-jun Park" is a person."""
    text = "claim,claimant,reserve\nCL-9,Min-jun Park,1200.00\nCL-10,Seo-yeon Hall,80.00\n"
    assert _left(scrubber, text, ("Min-jun Park", "Seo-yeon Hall")) == []
    assert scrubber.scrub_text("Meet at Olympic Park, gate 4.") == "Meet at Olympic Park, gate 4."


def test_json_given_names_in_a_list_and_first_last_fields_are_removed(scrubber):
    """FHIR-style ``"given": ["…"]`` and ``"first"``/``"last"`` fields holding known names are removed."""
    text = (
        '{"name":[{"family":"Wanjiku","given":["Nyambura"]}],"legal":{"first":"Obinna","last":"Eze"},"last":"Monday"}'
    )
    out = scrubber.scrub_text(text)
    assert _left(scrubber, text, ("Wanjiku", "Nyambura", "Obinna")) == []
    assert '"last":"Monday"' in out


def test_a_name_glossed_in_another_script_is_removed_in_both(scrubber):
    """ "SUZUKI Takumi (鈴木 拓海)" and "김민준 (Kim Min-jun)" are one person each, both spellings removed."""
    text = (
        "Signed by: SUZUKI Takumi (鈴木 拓海), Director\nSubscriber: 김민준 (Kim Min-jun)\nToyota Motor (トヨタ自動車)"
    )
    out = scrubber.scrub_text(text)
    assert _left(scrubber, text, ("SUZUKI", "鈴木 拓海", "김민준", "Kim Min-jun")) == []
    assert "Toyota Motor (トヨタ自動車)" in out


def test_a_name_spelled_by_an_email_address_in_the_text_is_a_person(scrubber):
    """A JSON name the gazetteer lacks is a person when the record's e-mail spells it ("kebede.alemu@…")."""
    text = '{"role":"Buyer","name":"Tsion Kebede Alemu","email":"tsion.alemu@example.org"}'
    assert _left(scrubber, text, ("Tsion Kebede Alemu",)) == []
    catalogue = '{"name":"Kuehnel Vertriebs Schrank","email":"info@schrank.example"}'
    assert "Kuehnel Vertriebs Schrank" in scrubber.scrub_text(catalogue)


def test_thai_honorifics_and_japanese_name_suffixes_mark_people(scrubber):
    """ "Khun Ratchanee" and "Kobayashi-san" are people; the suffix stays readable."""
    text = "Khun Ratchanee approved the PO. The plant team under Kobayashi-san ships Friday."
    out = scrubber.scrub_text(text)
    assert _left(scrubber, text, ("Ratchanee", "Kobayashi")) == []
    assert "-san ships Friday" in out


def test_an_assistant_speaking_in_a_transcript_is_not_a_person(scrubber):
    """ "Claude:" and "Gemini:" speaker labels in an LLM transcript stay; a person's speaker label does not."""
    text = "User: summarize Q3\nClaude: Revenue grew 12%.\nGemini: agreed.\nAmara Nwachukwu: thanks both"
    out = scrubber.scrub_text(text)
    assert "\nClaude: Revenue grew 12%.\nGemini: agreed.\n" in out and "Amara Nwachukwu" not in out


def test_user_names_built_from_a_persons_name_are_removed(scrubber):
    """ "username=kdabrowski", a shell prompt "anand@host:~$", "TODO(wojcik)" and "by t.nakamura" name people."""
    text = (
        "[vpn]\nusername=kdabrowski\n"
        "anand@build-07:~$ make release\n"
        "# TODO(wojcik): drop the retry\n"
        "approved by t.nakamura at 10:02\n"
        "user=admin owner=root TODO(later) by default"
    )
    out = scrubber.scrub_text(text)
    assert _left(scrubber, text, ("kdabrowski", "anand@", "TODO(wojcik)", "t.nakamura")) == []
    assert out.endswith("user=admin owner=root TODO(later) by default")


def test_a_sign_off_on_the_same_line_and_a_chat_mention_are_people(scrubber):
    """ "Pozdrawiam, Radoslaw" ends a message on its line; "@Radoslaw" later mentions the same person."""
    text = "Looks fine to me. Pozdrawiam, Radoslaw\n[10:02] bot: @Radoslaw the build is green"
    assert _left(scrubber, text, ("Radoslaw",)) == []


def test_message_header_fields_are_labels_not_speakers(scrubber):
    """'Date:' opening a quoted e-mail's header line stays (it is also a surname in the name lists); the sender goes."""
    text = "From: Keiko Tanaka <k.tanaka@sakura-logistics.example>\nDate: Wed, 11 Mar 2026 16:02:11 +0900\nSubject: pallet count\n"
    out = scrubber.scrub_text(text)
    assert "\nDate: Wed, 11 Mar 2026 16:02:11 +0900\nSubject: pallet count\n" in out
    assert "Keiko" not in out


def test_a_firm_in_a_name_field_and_upper_case_codes_are_not_people(scrubber):
    """ "name": "Whitaker & Sons" is a firm and "MIA TXNREF" an upper-case code (its second word no name
    at all); a person in the same field and an upper-case full name are still removed."""
    firm = '[{"ticker": "WHS", "name": "Whitaker & Sons", "last": "18.40"}]'
    assert scrubber.scrub_text(firm) == firm
    code = "2026-11-02 09:14:55 MIA TXNREF batch posted, 40 lines"
    assert scrubber.scrub_text(code) == code
    people = '{"name": "Whitaker Gonzalez"}\nSIGNED: MARIA GONZALEZ'
    assert _left(scrubber, people, ("Whitaker Gonzalez", "MARIA GONZALEZ")) == []


@pytest.mark.parametrize(
    "text",
    [
        "The new terminal is Adelaide Outerharbor, berth 3.",  # a town and a word that is no name: a site
        "The Santiago Lastarria store reported 12 returns.",
        "Blend 7 is sold as Coral Echo in the EU.",  # dictionary words that name lists also hold
        "Our best seller, Hazel Darling, is back in stock.",
        "We shipped 30 units of Flora Celeste last week.",
        "PRN-2207,Braga Nova Arcada,store manager,2026-01-12",  # a site after its town
    ],
)
def test_sites_and_products_named_like_people_without_a_cue_survive(scrubber, text):
    assert scrubber.scrub_text(text) == text


def test_a_town_or_dictionary_given_name_before_a_surname_is_still_a_person(scrubber):
    text = "Contact Hamilton Okafor for the keys.\nCoral Nguyen approved it."
    assert _left(scrubber, text, ("Hamilton Okafor", "Coral Nguyen")) == []


@pytest.mark.parametrize(
    "text",
    [
        "4. Charles Heidsieck Blanc 2012, 6x75cl - GBP 540",  # a vintage year after it: a product
        '{"venue": "Stade Pierre Mauroy", "capacity": 50186}',  # a venue named after a person
        "Supplier of record: Hamilton Aerospace",  # an industry word ends it: a firm
        "Annex B: revised price schedule (Appendix D attached).",  # a document label, not a speaker
        "Customer: Our Visa payment bounced twice.",  # a sentence after the label, not a name
    ],
)
def test_vintages_venues_firms_document_labels_and_sentences_are_not_people(scrubber, text):
    assert scrubber.scrub_text(text) == text


def test_a_speaker_with_an_initial_and_a_customer_field_still_hold_names(scrubber):
    text = "Customer: Ingrid Solberg\nJohn D.: can you resend the invoice?"
    assert _left(scrubber, text, ("Ingrid Solberg",)) == []


def test_a_name_between_spaced_dashes_in_a_title_is_found_alone(scrubber):
    text = "Subject: Offer - Thiago Henrique Albuquerque Moreira - REQ-HR-5521 - please sign"
    out = scrubber.scrub_text(text)
    assert "Thiago" not in out and "Moreira" not in out and "REQ-HR-5521 - please sign" in out


def test_relatives_in_german_french_and_spanish_are_people(scrubber):
    text = (
        "Mein Mann Okwudili holt das Paket ab.\n"
        "Meine Kollegin Thandiwe Mahlangu ruft an.\n"
        "Mi esposa Itziar firmará el contrato."
    )
    assert _left(scrubber, text, ("Okwudili", "Thandiwe", "Mahlangu", "Itziar")) == []


def test_a_given_name_the_lists_lack_before_a_known_surname_is_a_person(scrubber):
    text = "The account's new owner in Pune is Murugan Krishnan (VP, Supply Chain)."
    assert _left(scrubber, text, ("Murugan Krishnan",)) == []
    assert scrubber.scrub_text("Units at Katendrecht Lofts,KL-03,3BR") == "Units at Katendrecht Lofts,KL-03,3BR"


def test_a_display_name_in_hangul_or_han_and_a_gloss_before_a_comma_are_people(scrubber):
    text = (
        "From: 최유진 Choi Yu-jin <yujin.choi@example.kr>\n"
        "Please loop in my colleague Kim Min-seo (김민서, minseo.kim@example.kr).\n"
        "Cc: 王芳 <wang.fang@example.cn>"
    )
    assert _left(scrubber, text, ("최유진", "김민서", "王芳")) == []


def test_a_chat_export_speaker_written_surname_comma_given_is_a_person(scrubber):
    text = "Wanjiku, Achieng [10:02]: the panel is at 3pm\nNote, Draft: keep this line"
    out = scrubber.scrub_text(text)
    assert "Wanjiku" not in out and "Achieng" not in out and "Note, Draft: keep this line" in out


def test_a_given_name_alone_after_with_by_or_page_is_a_person(scrubber):
    text = "Approval is pending with Adaeze.\nEscalation note by Przemysław (L2).\nIf nobody answers, page Dũng."
    assert _left(scrubber, text, ("Adaeze", "Przemysław", "Dũng")) == []
    for kept in ("Shipped with Maersk from Jordan.", "Reviewed by Legal on Monday."):
        assert scrubber.scrub_text(kept) == kept


def test_a_name_after_signed_for_a_party_in_a_form_line_is_a_person(scrubber):
    text = "Signed for the Buyer: Ainhoa Etxeberria Zubiri          Signed for the Seller: ______"
    assert _left(scrubber, text, ("Ainhoa Etxeberria Zubiri",)) == []


def test_a_full_name_after_a_role_word_is_a_person_even_when_no_list_holds_it(scrubber):
    """A full name after a role word ("technician Tesfaye Gebremariam", "inspector …") is a person though the
    name lists lack it; a title of English words after a role word ("Chair, Deputy Vice-Provost Research") stays."""
    text = "Dispatch: technician Tesfaye Gebremariam (van 3) ETA 10:40.\n- Inspector Lwazi Mthembu-Dube signed off."
    assert _left(scrubber, text, ("Tesfaye Gebremariam", "Lwazi Mthembu-Dube")) == []
    assert "(Chair, Deputy Vice-Provost Research)" in scrubber.scrub_text(
        "Panel: Ruth Alvarez (Chair, Deputy Vice-Provost Research)."
    )
    assert scrubber.scrub_text("customer Acme Logistics called") == "customer Acme Logistics called"


def test_a_name_under_a_crew_field_and_after_closed_by_is_a_person(scrubber):
    """A YAML ``pilot:`` field names a person, and so does "Closed by:" with an initial ("R. Mokoena")."""
    text = "flight:\n  pilot: Tülin Karabağlı\n  drone: M350\nClosed by: R. Mokoena, 2026-01-04 09:00"
    assert _left(scrubber, text, ("Tülin Karabağlı", "R. Mokoena")) == []
    assert scrubber.scrub_text("pilot: Phase Two\n") == "pilot: Phase Two\n"


def test_a_writer_before_wrote_is_a_person_also_in_lower_case(scrubber):
    """A quoted message header ("10:14 agnieszka wrona wrote:") names its writer, in lower case too, and every
    other lower-case mention of that name goes with it."""
    text = (
        "2026-05-02 10:14 agnieszka wrona wrote:\nthanks, cc'd by agnieszka wrona earlier\nOn Mon, Idris Balogun wrote:"
    )
    assert _left(scrubber, text, ("agnieszka wrona", "Idris Balogun")) == []
    assert scrubber.scrub_text("the support bot wrote: done") == "the support bot wrote: done"


def test_a_short_company_form_written_as_a_name_is_a_name_and_a_diacritic_name_part_is_one(scrubber):
    """ "Hej Åsa," is a greeting to a person ("ASA", in capitals, is a company form), a dash signature
    ("today. - Ngozi") names the writer, and "Quân" of "Trần Minh Quân" is a part of the name used alone."""
    text = (
        "Contact: Trần Minh Quân\nHej Åsa,\nThe slot is held until 16:00 today. - Ngozi\n"
        "Notes: Quân plays on Tuesday. Supplier: Equinor ASA"
    )
    assert _left(scrubber, text, ("Åsa", "Ngozi", "Quân")) == []
    assert "Equinor ASA" in scrubber.scrub_text(text)


def test_a_shell_prompt_in_a_log_line_names_its_user(scrubber):
    """A prompt pasted after a log prefix ("WARN  ravi@host:~$") still gives the user's name."""
    text = "2026-03-03T08:02:51Z diag  WARN  anjali@build-laptop-3:~$ make check"
    assert _left(scrubber, text, ("anjali",)) == []


def test_whoever_signs_for_a_party_is_a_person_whatever_the_party(scrubber):
    """ "Signed for the Printer:" and "Signed on behalf of the Lender:" name a signer, also one whose given
    name is a town's ("Florencia") or whom no list holds; an empty signature line stays."""
    text = "Signed for the Printer: Florencia Quispe-Mamani\nSigned on behalf of the Lender: Tesfaye Gebremariam"
    assert _left(scrubber, text, ("Florencia Quispe-Mamani", "Tesfaye Gebremariam")) == []
    assert scrubber.scrub_text("Signed for the Printer: ______") == "Signed for the Printer: ______"


def test_a_known_name_after_a_venue_word_names_the_site(scrubber):
    """Once "Cliente: José Alvalade" names a person, "Estádio José Alvalade" later is still the stadium."""
    text = "Cliente: José Alvalade\nEvento: final (Estádio José Alvalade, 2026-09-05)"
    out = scrubber.scrub_text(text)
    assert "Estádio José Alvalade" in out and "Cliente: José Alvalade" not in out


def test_a_user_name_built_from_a_name_in_a_name_field_is_a_person(scrubber):
    """A name field holding a handle of name parts ("Display name: agnieszka.wrona") names the person; a
    handle of English words ("dark_knight") stays."""
    assert _left(scrubber, "Display name: agnieszka.wrona\n", ("agnieszka.wrona",)) == []
    assert scrubber.scrub_text("Display name: dark_knight\n") == "Display name: dark_knight\n"
