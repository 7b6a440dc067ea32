"""Names in lists of people and in log lines, and the named things (rivers, ships, firms, heroes in a
patch note, key ids) that the default scrubber must leave as they are."""

from __future__ import annotations

import pytest

from handoff.analysis.scrub import Scrubber


@pytest.fixture(scope="module")
def scrubber() -> Scrubber:
    return Scrubber("lists-and-things-tests")


def _left(scrubber: Scrubber, text: str, values: tuple[str, ...]) -> list[str]:
    out = scrubber.scrub_text(text)
    return [value for value in values if value in out]


def test_every_name_in_a_minutes_attendance_list_is_removed_and_role_titles_stay(scrubber):
    """ "Present:", "Apologies:" and "Attendees:" open lists of people: the field detector itself names each
    person in them (not only the first), and a bare role title in the list stays."""
    from handoff.analysis.scrub.fields import labelled_names
    from handoff.analysis.scrub.windows import aligned_lower

    text = (
        "Present: Mereana Tuhiwai (secretary), Oskar Lindqvist, Deputy Chair; Nomvula Dlamini and Piet Joubert.\n"
        "Apologies: Ifeanyi Chukwuma.\n"
        "Attendees: Saoirse Ní Dhuibhir; Vice-President\n"
    )
    found = sorted(f.text for f in labelled_names(text, aligned_lower(text)))
    people = ["Ifeanyi Chukwuma", "Mereana Tuhiwai", "Nomvula Dlamini", "Oskar Lindqvist", "Piet Joubert"]
    assert found == sorted([*people, "Saoirse Ní Dhuibhir"])
    out = scrubber.scrub_text(text + "Action SR-118 closed.")
    assert "(secretary)" in out and "Deputy Chair" in out and "Vice-President" in out and "SR-118" in out


def test_login_names_in_syslog_and_user_fields_are_people(scrubber):
    """A login built from initials and a (double) surname, or a given name and surname run together, is removed
    wherever the log line puts it: after sudo, in a user field, in a home path."""
    text = (
        "Jun 02 07:41:09 web-03 sudo: tyamamoto : TTY=pts/0 ; PWD=/home/tyamamoto ; COMMAND=/bin/systemctl\n"
        "2026-06-02T07:44:10Z INFO login ok username=jrodriguezlopez branch=NORTH\n"
        "2026-06-02T07:45:00Z INFO login ok user=amaraokafor\n"
        "2026-06-02T07:46:00Z INFO job ok user=backup_svc host=db-02"
    )
    out = scrubber.scrub_text(text)
    assert _left(scrubber, text, ("tyamamoto", "jrodriguezlopez", "amaraokafor")) == []
    assert "user=backup_svc" in out and "web-03" in out


def test_rivers_ships_and_firms_named_after_people_are_not_people(scrubber):
    """A river, a ship after its prefix and a firm after its founder's name keep their names."""
    text = (
        '{"gauge": "2210", "riverName": "River Wharfe", "vessel": "MV Grace Darling"}\n'
        "Cable lay by CSV Ingrid Haugen resumes at 06:00.\n"
        "Customer: Lindqvist & Söhne GmbH, plant 4\n"
        "approved_by=OPS-DUTY-07"
    )
    out = scrubber.scrub_text(text)
    for kept in ("River Wharfe", "MV Grace Darling", "CSV Ingrid Haugen", "Lindqvist & Söhne GmbH", "OPS-DUTY-07"):
        assert kept in out


def test_a_bulleted_list_of_fields_is_no_chat_and_a_key_id_is_no_secret(scrubber):
    """ "- Brightblade Vex: damage 140 → 128" lists a character, "Carrier: DHL" is a field, and a signing key's
    id is its name, not the key; a private key id and a real speaker are still scrubbed."""
    text = (
        "## Balance\n- Brightblade Vex: damage 140 → 128\n- Storm Wardens: cooldown 9 s\n"
        "Carrier: DHL Paket\n"
        "signing:\n  key_id: relay-signing-2026-07\n"
        '  "private_key_id": "9c1e7a2b4d6f8a0c2e4b6d8f0a1c3e5b7d9f1a2c"\n'
        "Ngozi Eze: I'll ship the hotfix tonight"
    )
    out = scrubber.scrub_text(text)
    for kept in ("Brightblade Vex", "Storm Wardens", "Carrier: DHL", "relay-signing-2026-07"):
        assert kept in out
    assert "9c1e7a2b4d6f8a0c2e4b6d8f0a1c3e5b7d9f1a2c" not in out and "Ngozi Eze" not in out


def test_a_compact_date_and_hour_is_no_phone_but_a_labelled_number_is(scrubber):
    """2026061900 (a model run) stays; the same digits after a phone label are a phone."""
    out = scrubber.scrub_text('"model_run": "2031111518", "forecast": "ok"\nphone: 2031111518')
    assert out.count("2031111518") == 1 and '"model_run": "2031111518"' in out
