"""Canonical atom values: the same fact gives the same token however a rewrite spells it (docs/constraints.md)."""

from __future__ import annotations

import pytest

from handoff.analysis.constraints import compare_constraints, extract_constraints, lost_constraints, stored_tokens
from handoff.analysis.constraints.numerals import parse_number
from handoff.analysis.constraints.reading import Reading, read_text
from handoff.analysis.constraints.values import atom_carried


def _atoms(text: str) -> list[str]:
    return [t for t in extract_constraints(text) if not t.startswith(("negation:", "qualifier:", "comparison:"))]


@pytest.mark.parametrize(
    ("upstream", "downstream"),
    [
        # German and French number formats, then the same facts written the US way.
        (
            "Dosis 437,5 mg; Thrombozyten >= 150.000/µl; Gewicht 81,2 kg; Gebühr 2,5 %",
            "dose 437.5 mg; platelets >= 150,000/µL; weight 81.2 kg; fee 2.5%",
        ),
        ("Fret maritime : 3 725,40 USD, frais 1 240,00 €", "Ocean freight: USD 3,725.40, fees EUR 1,240.00"),
        ("Betrag EUR 27.315,75 bis 14.07.2026", "amount €27,315.75 by July 14, 2026"),
        # Day-first and month-first dates, told apart by the text's other dates.
        ("window 04/05/2026 to 28/05/2026", "window 05/04/2026 to 05/28/2026"),
        ("Liefertermin 7. August 2026", "delivery on 7 August 2026"),
        ("vence el 9 de octubre de 2026", "due 2026-10-09"),
        ("le 3 février 2027", "on Feb 3, 2027"),
        # Clock times with a stated zone are the same instant in any zone.
        ("cut-over at 07:15 UTC", "cut-over at 08:15 CET"),
        ("call at 3:30 pm EST", "call at 20:30Z"),
        ("enlèvement 09h00-11h30", "pick-up 9:00 am-11:30 am"),
        # Basis points and percentage points are percentages; MEZ is CET.
        ("spread of 50 bp over SONIA", "spread of 0.5 percentage points over SONIA"),
        ("margin 2.25% over SONIA", "margin 225 bp over SONIA"),
        ("Abrechnung um 17:30 MEZ", "settlement at 16:30 UTC"),
    ],
)
def test_reformatted_atoms_give_the_same_tokens(upstream, downstream):
    """A locale reformat, a date order change or a zone conversion keeps every atomic token."""
    assert _atoms(upstream) == _atoms(downstream)
    assert _atoms(upstream)


def test_ambiguous_numbers_are_read_by_the_text_s_decimal_mark():
    """``1.500`` is fifteen hundred in a text with decimal commas and one and a half in one with decimal points."""
    assert "number:1500" in _atoms("Neutrophile mindestens 1.500/µl, Kreatinin 0,9 mg/dl")
    assert "number:1.5" in _atoms("ratio above 1.500 and temperature 36.6")
    assert parse_number("1.850,00", decimal_comma=False) == parse_number("1,850.00", decimal_comma=True)


def test_text_reading_votes_on_unambiguous_spellings():
    """The reading follows the spellings that say their own convention."""
    assert read_text("Start 11.03.2026, Dosis 612,5 mg, Kontrolle 01/04/2026") == Reading(
        decimal_comma=True, day_first=True
    )
    assert read_text("Invoice of $2,450.00 due 03/31/2026") == Reading(decimal_comma=False, day_first=False)
    assert read_text("") == Reading()


def test_different_facts_keep_different_tokens():
    """Reformatting rules do not merge different values: another date, zone, currency or day count stays a loss."""
    assert lost_constraints("due 04/05/2026 (and 28/05/2026)", "due 2026-04-05 (and 2026-05-28)")[0].token == (
        "date:2026-05-04"
    )
    assert [c.token for c in lost_constraints("at 09:00 UTC", "at 09:00 CET")] == ["time:09:00Z"]
    assert [c.token for c in lost_constraints("fee €1,500", "fee $1,500")] == ["money:EUR1500.00"]
    assert [c.token for c in lost_constraints("reply in 10 business days", "reply in 10 days")] == [
        "unit:10 business days"
    ]


def test_layout_is_not_a_constraint():
    """Chat stamps, e-mail header dates and attribution lines, page stamps and inline list labels give no tokens."""
    transcript = "[09:41] Dana (Ops): restart the worker\n[Tue 09:43] Lee: done, page 2 of 9 of the runbook"
    assert _atoms(transcript) == []
    mail = (
        "Date: Wed, 8 Apr 2026 16:20 +0200\n"
        "Sent: Tuesday, 7 April 2026 09:02\n"
        "> On Mon, 6 Apr 2026 at 18:11, Sam Ortiz <sam@example.org> wrote:\n"
        "> please ship on 2026-04-20"
    )
    assert _atoms(mail) == ["date:2026-04-20"]
    assert _atoms("Date: 2026-04-15\nTotal: 3 pallets") == ["date:2026-04-15", "unit:3 pallets"]
    assert _atoms("Optionen: (1) Kapazität erhöhen, (2) warten. Leave: 1) Jonas, 2) Mei") == []
    assert _atoms("keep (max 3) and 12) more") == ["number:12", "number:3"]


def test_field_names_are_not_identifiers():
    """Keys, enum values and columns without digits are not constraints; an identifier with digits still is."""
    payload = '{"refund_status": "in_review", "ticket_ref": "sup_88213_eu", "due_date": "2026-05-02"}'
    assert _atoms(payload) == ["date:2026-05-02", "id:sup_88213_eu"]
    assert _atoms("order_id,ship_date,qty\nPO-7731,2026-05-03,12") == ["date:2026-05-03", "id:PO-7731", "number:12"]


@pytest.mark.parametrize(
    ("upstream", "downstream"),
    [
        ("infuse over 45 min", "infuse over 0.75 h"),
        ("a 14-day grace period", "a grace period of 2 weeks"),
        ("limit 3 GiB", "limit 3072 MiB"),
        ("route of 2.5 km", "route of 2,500 m"),
        ("max 1.2 g per day", "max 1,200 mg per day"),
        ("store at 20 °C", "store at 68 °F"),
        ("crate of 1,370 kg", "crate of 3,020 lb"),
        ("Frist 15 Tage", "deadline 15 days"),
        ("retain 2 years", "retain 24 months"),
    ],
)
def test_converted_quantities_give_the_same_token(upstream, downstream):
    """A quantity converted within its dimension (pint), rounded as a reader accepts, keeps its token."""
    assert [t for t in _atoms(upstream) if t.startswith("unit:")] == [
        t for t in _atoms(downstream) if t.startswith("unit:")
    ]
    assert any(t.startswith("unit:") for t in _atoms(upstream))


def test_different_quantities_stay_different():
    """Business days are not days or weeks, a month is not 30 days, and 1.8 mg is not 2 mg."""
    assert _atoms("within 10 business days") != _atoms("within 2 weeks")
    assert _atoms("within 10 working days") == _atoms("within 10 business days")
    assert _atoms("renew after 1 month") != _atoms("renew after 30 days")
    assert _atoms("dose 1.8 mg") != _atoms("dose 2 mg")
    assert _atoms("5 kVA") != _atoms("5 kW")


def test_values_marked_superseded_are_not_constraints():
    """A value the text corrects, withdraws or supersedes is not a constraint; the value in force is."""
    text = (
        "Settle at USD 9,310.00 (not the USD 9,870.00 on the draft). "
        "Unit price €3.15; the earlier quote of €3.40 is withdrawn. The credit is £1,120, not £1,210."
    )
    assert _atoms(text) == ["money:EUR3.15", "money:GBP1120.00", "money:USD9310.00"]
    assert _atoms("Use db-eu-7, not the legacy db-eu-2.") == ["id:db-eu-2", "id:db-eu-7"]


def test_no_longer_retires_only_a_value_right_after_it():
    """ "no longer EUR 500" retires that amount; "no longer than 320 m" is a bound and "must no
    longer be used after 1 May" a prohibition: their values stay constraints."""
    assert _atoms("The fee is no longer EUR 500; it is EUR 450.") == ["money:EUR450.00"]
    assert _atoms("Trains no longer than 320 m are allowed.") == ["unit:320 m"]
    assert _atoms("Units must no longer be used after 1 May 2026.") == ["date:2026-05-01"]


def test_amounts_keep_their_currency_and_digits():
    """Any ISO currency code is read, and a price below a cent keeps its digits."""
    assert _atoms("guarantee of PLN 4,800,000") == ["money:PLN4800000.00"]
    assert _atoms("£0.0042 per page") == ["money:GBP0.0042"]
    assert _atoms("£0.029 per page") != _atoms("£29 per page")


def _lost(upstream: str, downstream: str) -> list[str]:
    return [f.token for f in compare_constraints(stored_tokens(upstream), stored_tokens(downstream))]


def test_keys_ending_in_a_unit_symbol_give_quantities_and_compound_units_stay_numbers():
    """``max_train_length_m: 320`` is 320 m (carried by "no longer than 320 m"); ``mic_mg_l`` and
    ``speed_km_h`` end in a compound unit's last part, and a one-letter key is no unit."""
    record = (
        '{"max_train_length_m": 320, "max_axle_load_t": 20.5, "ttl_s": 30, "mic_mg_l": 16, "speed_km_h": 40, "t": 5}'
    )
    assert _atoms(record) == ["number:16", "number:40", "number:5", "unit:20500 kg", "unit:30 s", "unit:320 m"]
    assert _lost('{"max_train_length_m": 320}', "Trains may be no longer than 320 m.") == []


def test_pressures_are_quantities_compared_across_units():
    """bar, mbar, Pa, kPa, MPa and psi are one dimension: 32 psi is 2.2 bar, not 3 bar."""
    assert _atoms("Withdraw any set reading below 180 bar.") == ["unit:18000000 Pa"]
    assert _lost("inflate to 32 psi", "inflate to 2.2 bar") == []
    assert _lost("inflate to 32 psi", "inflate to 3 bar") == ["unit:221000 Pa"]
    assert _atoms("the bar opens at 6") == ["number:6"]


def test_keys_that_name_a_unit_give_quantities():
    """A JSON, YAML or config value whose key names its unit is that quantity; the key is no identifier."""
    config = '{"retry_window_minutes": 45, "p95_budget_ms": 800, "min_share_pct": 12}\nshutdownDelaySeconds 20'
    assert _atoms(config) == ["percent:12", "unit:20 s", "unit:45 min", "unit:800 ms"]
    assert _atoms("retry window: 45 minutes, budget 0.8 s") == ["unit:45 min", "unit:800 ms"]


def test_a_value_stated_with_less_context_downstream_is_carried():
    """A table cell or JSON value carries the amount, quantity, rate or date it states; another unit or currency does not."""
    assert atom_carried("money:GBP412600.00", frozenset(["number:412600"]))
    assert atom_carried("number:412600", frozenset(["money:GBP412600.00"]))
    assert atom_carried("percent:99.9", frozenset(["number:0.999"]))
    assert atom_carried("number:0.095", frozenset(["percent:9.5"]))
    assert atom_carried("date:--03-18", frozenset(["date:2026-03-18"]))
    assert atom_carried("date:2026-03-18", frozenset(["date:--03-18"]))
    assert not atom_carried("date:2026-03-18", frozenset(["date:2025-03-18"]))
    assert not atom_carried("unit:9 h", frozenset(["unit:9 d", "number:9"]))
    assert not atom_carried("money:USD1500.00", frozenset(["money:EUR1500.00", "number:1500"]))
    assert not atom_carried("number:412600", frozenset(["number:412800"]))


def test_a_date_without_its_year_is_the_same_day():
    """'report due October 2' carries 2026-10-02, and a year-less date is carried by the full one, not by another day."""
    upstream, downstream = (
        "Audit on 21 September 2026; report by 2 October 2026",
        "Audit 2026-09-21, report due October 2",
    )
    assert compare_constraints(stored_tokens(upstream), stored_tokens(downstream)) == []
    assert compare_constraints(stored_tokens("board meets on 28 May"), stored_tokens("board: 2026-05-28")) == []
    assert compare_constraints(stored_tokens("due 3 April"), stored_tokens("due 2026-04-30")) != []


def test_a_table_restating_amounts_under_a_currency_header_loses_nothing():
    """Prose amounts restated as numbers in a table whose header names the currency are carried."""
    upstream = "Gross loss £218,400, less savings of £19,250, leaves £199,150; the excess is £2,500."
    downstream = (
        "| Item | Amount (GBP) |\n|---|---|\n| Gross loss | 218,400 |\n| Savings | -19,250 |\n"
        "| Net | 199,150 |\n| Excess | 2,500 |"
    )
    assert compare_constraints(stored_tokens(upstream), stored_tokens(downstream)) == []
    changed = downstream.replace("199,150", "199,510")
    assert [f.token for f in compare_constraints(stored_tokens(upstream), stored_tokens(changed))] == [
        "money:GBP199150.00"
    ]


def test_areas_multipliers_and_ops_durations():
    """Areas convert, a multiplier before a counted noun counts, and an attached "m" is minutes."""
    assert _atoms("warehouse of 9,000 sq ft") == _atoms("warehouse of 836 m²")
    assert _atoms("2.5 acres") != _atoms("2.5 ha")
    assert _atoms("backfill 320 million rows") == ["unit:320000000 rows"]
    assert _atoms("alert for: 20m") == _atoms("alert after 20 minutes") == ["unit:20 min"]
    assert _atoms("cable of 20 m") == ["unit:20 m"]


def test_a_converted_quantity_rounded_by_the_writer_is_carried():
    """A conversion rounded as a reader would (5 km = 3.1 miles, 40 lb = 18 kg, 100 °F = 38 °C) loses nothing; 1.8 mg -> 2 mg is lost."""
    upstream, downstream = "route 5 km, parcel 40 lb, fever 100 °F", "route 3.1 miles, parcel 18 kg, fever 38 °C"
    assert compare_constraints(stored_tokens(upstream), stored_tokens(downstream)) == []
    assert [f.token for f in compare_constraints(stored_tokens("dose 1.8 mg"), stored_tokens("dose 2 mg"))] == [
        "unit:0.0000018 kg"
    ]
    assert atom_carried("unit:90 d", frozenset(["unit:91 d"])) is False


def test_times_share_the_zone_written_after_them():
    """In "08:00-18:00 CET" or "00:00, 06:00 and 12:00 UTC" every time is in the zone written once."""
    assert _atoms("open 08:00-18:00 CET") == _atoms("open 07:00 UTC to 17:00 UTC") == ["time:07:00Z", "time:17:00Z"]
    assert _atoms("jobs at 00:00, 06:00 and 12:00 UTC") == ["time:00:00Z", "time:06:00Z", "time:12:00Z"]
    assert _atoms("arrive 21:45 (CET)") == ["time:20:45Z"]


def test_pseudonyms_of_people_and_phones_are_not_identifiers():
    """Scrubbed names, addresses and phones give no token (a summary names people as it likes); e-mail pseudonyms do."""
    scrubbed = "Hi <PERSON:d4d3ce>, reply to <EMAIL_ADDRESS:2fa340> or call <PHONE_NUMBER:2d7d0b> at <ADDRESS:0c11aa>"
    assert _atoms(scrubbed) == ["id:<EMAIL_ADDRESS:2fa340>"]
    header = "<PERSON:ae2be1>: Fri, 20 Mar 2026 16:47 +0000\nMeeting: Fri, 20 Mar 2026 at 14:00"
    assert _atoms(header) == ["date:2026-03-20", "time:14:00"]


def test_numbers_written_in_words_are_numbers():
    """Written numbers in English, German, French and Spanish equal their digits; articles are not numbers."""
    assert (
        _atoms("Three pallets and twenty-five boxes")
        == _atoms("3 pallets and 25 boxes")
        == [
            "number:25",
            "unit:3 pallets",
        ]
    )
    for text in ("vierzig Kartons", "quarante cartons", "cuarenta cajas", "forty cartons"):
        assert _atoms(text) == ["number:40"]
    assert _atoms("one of the agencies, someone, done") == []
    assert compare_constraints(stored_tokens("two replicas"), stored_tokens("2 replicas")) == []
    assert compare_constraints(stored_tokens("3 reviewers"), stored_tokens("three reviewers")) == []


def test_a_rewrite_may_name_the_zone_of_a_time_but_not_drop_it():
    """'03:00' restated as '03:00 UTC' is carried; '17:00 CET' restated as '17:00' is not."""
    assert (
        compare_constraints(stored_tokens("backup window 03:00-03:30"), stored_tokens("backup 03:00-03:30 UTC")) == []
    )
    assert [f.token for f in compare_constraints(stored_tokens("by 17:00 CET"), stored_tokens("by 17:00"))] != []


def test_e_mail_senders_recipients_and_subjects_are_layout():
    """From, To, Cc and Subject lines of an e-mail give no tokens; the same values in the body do."""
    mail = "From: Ana <ana@example.org>\nTo: <EMAIL_ADDRESS:1a2b3c>\nSubject: RE: PO-7731 short\n\nShip PO-7731 on 2026-05-04."
    assert _atoms(mail) == ["date:2026-05-04", "id:PO-7731"]
    assert _atoms("To do: 3 items") == ["unit:3 items"]


def test_clause_references_carried_by_article_or_bare_number():
    """'clause 21.3' = 'Art. 21.3' = a bare '21.3' among the clauses; '7.2(b)' is not carried by '7.2'."""
    assert atom_carried("clause:21.3", frozenset(["clause:art.21.3"]))
    assert atom_carried("clause:18.4", frozenset(["number:18.4"]))
    assert not atom_carried("clause:7.2(b)", frozenset(["number:7.2", "clause:7.2"]))
    assert not atom_carried("clause:15", frozenset(["number:15"]))


def test_a_multiple_written_with_x_is_its_number():
    """'4.25x EBITDA' states 4.25 as '4.25 times' does; '3x3' and '0x1f' are not multiples."""
    assert compare_constraints(stored_tokens("net debt 1.1 times EBITDA"), stored_tokens("net debt 1.1x EBITDA")) == []
    assert _atoms("a 3x3 grid, flag 0x1f") == []


def test_a_bare_number_is_carried_by_what_its_column_or_key_counts():
    """A CSV or JSON number is carried by the quantity, date or amount its header or key names, not by a chance match."""
    up = "drug,dose_mg,interval_h\namoxicillin,250,12\n"
    assert compare_constraints(stored_tokens(up), stored_tokens("Amoxicillin 0.25 g every 12 hours.")) == []
    payout = '{"amount": 1416506, "currency": "usd", "arrival_date": 1773273600, "fixed_until": 2027}'
    down = "A payout of $14,165.06 arrives on 12 March 2026; prices are fixed until 31 December 2027."
    assert compare_constraints(stored_tokens(payout), stored_tokens(down)) == []
    assert [
        f.token for f in compare_constraints(stored_tokens("Keep the 2 latest results."), stored_tokens("Keep 2 g."))
    ] == ["number:2"]


def test_a_year_month_and_a_zone_offset_are_no_numbers():
    """``2026-02`` is a month of a year, ``UTC+8`` and ``UTC-5`` name zones, ``22:00 SGT`` is 14:00 UTC."""
    assert _atoms('"period": "2026-02"') == ["date:2026-02"]
    assert _atoms("Berth at 22:00 SGT (UTC+8); the agent works in UTC-5.") == ["time:14:00Z"]


def test_a_clause_is_carried_by_a_part_of_it():
    """``§ 288`` is carried by ``Section 288(2)``; ``7.2(b)`` is still not carried by ``7.2``."""
    assert (
        compare_constraints(
            stored_tokens("Interest: § 288 BGB applies."), stored_tokens("Interest: Section 288(2) BGB applies.")
        )
        == []
    )
    assert [
        f.token
        for f in compare_constraints(stored_tokens("Clause 7.2(b) applies."), stored_tokens("Clause 7.2 applies."))
    ] == ["clause:7.2(b)"]


@pytest.mark.parametrize(
    ("upstream", "downstream"),
    [
        ("the deposit is capped at 50% of the rent", "the deposit is capped at half the rent"),
        ("refund 100% of the charges if cancelled", "refund all of the charges if cancelled"),
        ("cut the order by 25% if stock runs low", "cut the order by a quarter if stock runs low"),
        ("about 66.7% of seats are taken", "about two thirds of seats are taken"),
        ("el 50% del importe", "la mitad del importe"),
        ("die Kosten zu 50% tragen", "die Hälfte der Kosten tragen"),
    ],
)
def test_a_share_written_as_a_fraction_carries_its_percentage(upstream: str, downstream: str) -> None:
    assert lost_constraints(upstream, downstream) == []


def test_fraction_words_that_are_no_share_are_not_percentages() -> None:
    for text in (
        "notify a third party",
        "in the first half of March",
        "In the First Half of March",
        "at half past nine",
        "billed once a quarter.",
        "All of this applies from day one.",
        "ALL. Half of the fee is due.",  # the half is a share, the shouted ALL is not
        "Status: All — see below.",
    ):
        assert not [t for t in extract_constraints(text) if t.startswith("percent:100")], text
        assert [t for t in extract_constraints(text) if t.startswith("percent:")] in ([], ["percent:50"]), text
    assert lost_constraints("capped at 50% of the rent", "capped at a third of the rent") != []


def _lost_atoms(upstream: str, downstream: str) -> list[str]:
    found = compare_constraints(stored_tokens(upstream), stored_tokens(downstream))
    return [f.token for f in found if f.token.startswith(("date:", "comparison:"))]


def test_a_slashed_date_no_other_date_orders_carries_either_reading():
    """``05/09/2026`` alone is 5 September or May 9: it carries either named date, and no third one."""
    assert _lost_atoms("payment received 5 September 2026", "payment received on 05/09/2026") == []
    assert _lost_atoms("payment received May 9, 2026", "payment received on 05/09/2026") == []
    assert _lost_atoms("pay no later than 9 May 2026", "pay by 05/09/2026") == []
    assert _lost_atoms("payment received on 05/09/2026", "payment received 9 May 2026") == []
    assert _lost_atoms("payment received 6 September 2026", "payment received on 05/09/2026") == ["date:2026-09-06"]
    # A day above 12 in another slashed date fixes the order for all of them.
    assert _lost_atoms("from 05/09/2026 to 19/09/2026", "from 9 May 2026 to 19 September 2026") == ["date:2026-09-05"]


@pytest.mark.parametrize(
    ("upstream", "downstream"),
    [
        ("the tour costs S$145 per person", "the tour costs SGD 145 per person"),
        ("fee A$90, cap C$1,200", "fee AUD 90, cap CAD 1,200"),
        ("rinse for 45 minutes", "rinse for three quarters of an hour"),
        ("poll the queue every 60 seconds", "poll the queue every minute"),
        ("rotate the key every 60 minutes", "rotate the key every hour"),
        ("dilute in 330 mL of water", "diluer dans 33 cL d'eau"),
        ("the office opens at 09:00", "le bureau ouvre à 9 h"),
        ("deliveries between 07:00 and 11:00 only", "livraisons entre 7 h et 11 h uniquement"),
        ("staffed 06:00–14:00 UTC", "présence de 6 h – 14 h UTC"),
    ],
)
def test_money_durations_volumes_and_clocks_written_another_way(upstream: str, downstream: str) -> None:
    assert _lost_values(upstream, downstream) == []


def _lost_values(upstream: str, downstream: str) -> list[str]:
    found = compare_constraints(stored_tokens(upstream), stored_tokens(downstream))
    return [f.token for f in found if f.token.split(":", 1)[0] in ("money", "unit", "time", "percent", "date")]


def test_a_prefixed_dollar_is_not_a_us_dollar_and_a_duration_in_hours_is_no_clock():
    assert _lost_values("the tour costs $145 per person", "the tour costs S$145 per person") == ["money:USD145.00"]
    assert "unit:9 h" in extract_constraints("la visite dure 9 h")
    assert "unit:9 h" in extract_constraints("pendant 9 h, puis repos")
    assert _lost_values("poll the queue every 90 seconds", "poll the queue every minute") == ["unit:90 s"]
    assert extract_constraints("invoices are sent each month") == []
    assert _lost_values("rinse for 40 minutes", "rinse for three quarters of an hour") == ["unit:40 min"]


def test_a_currency_code_before_a_duration_or_dose_is_no_amount():
    """``INR 4 h after the dose`` is the clotting ratio measured after 4 hours, not 4 rupees."""
    assert "money:INR4.00" not in extract_constraints("repeat INR 4 h after the dose")
    assert _lost_values("repeat INR 4 hours after the dose", "repeat INR 4 h after the dose") == []
    assert "money:INR4500.00" in extract_constraints("a fee of INR 4,500 per visit")


@pytest.mark.parametrize(
    ("upstream", "downstream"),
    [
        ("probability of collision 2.4e-4, above the threshold of 1e-4.", "Pc 2.4×10⁻⁴ exceeds the 1×10⁻⁴ threshold"),
        ("a failure rate of 3.2E-05 per hour", "a failure rate of 0.000032 per hour"),
        ("seed 3 x 10^6 cells", "seed 3000000 cells"),
    ],
)
def test_scientific_notation_is_one_number_in_any_spelling(upstream: str, downstream: str) -> None:
    assert _lost(upstream, downstream) == []


def test_scientific_notation_keeps_its_exponent_and_is_no_range():
    """1e-4 is not 1e-5; "10-4" without a caret or superscript is no exponent."""
    assert _lost("cancel if Pc drops below 1e-5", "cancel if Pc drops below 1e-4") == [
        "comparison:< number:0.00001",
        "number:0.00001",
    ]
    assert _atoms("a ratio of 2.4 × 10-4") == ["number:10", "number:2.4", "number:4"]


def test_a_compound_written_number_is_read_whole():
    """ "twenty-one" and "twenty one" are 21, not 20 (a trailing "one" was taken for an article)."""
    assert _lost("cover no more than 21 nights", "cover a maximum of twenty-one nights") == []
    assert _lost("for 21 nights", "for twenty one nights") == []


def test_micrometres_are_lengths():
    """250 µm is 0.25 mm; a bound on it is the same bound."""
    assert (
        _lost("Replace any bolt showing pitting deeper than 0.25 mm.", "Any bolt pitted more than 250 µm is replaced.")
        == []
    )
    assert _lost("Use a 5 micron filter.", "Use a 0.005 mm filter.") == []


def test_an_identifier_in_another_case_is_the_same_identifier():
    assert _lost("Vessels of the over-10 m fleet get 92%.", "| Over-10 m fleet | 92% |") == []
    assert _lost("Deploy to us-east-1 first.", "Deploy to US-EAST-1 first.") == []
    assert _lost("Deploy to us-east-1 first.", "Deploy to us-east-2 first.") == ["id:us-east-1"]


def test_a_year_before_a_kind_of_year_is_a_year_not_a_duration():
    """ "the 2027 quota year" is the year 2027 (carried by "2027"), not 2,027 years."""
    assert _atoms("for the 2027 quota year") == ["number:2027"]
    assert _lost("for the 2027 quota year", "| Quota year | 2027 |") == []
    assert _atoms("over 5 consecutive years") == ["unit:60 months"]


def test_si_groups_of_three_are_one_number_before_a_unit_a_currency_or_as_round_thousands():
    """ "11 709 L", "14 280 t", "2 400 000 EUR" and "500 000" are one number in any text; "rooms 101 102" is two."""
    assert _lost("the uplift is about 11,709 L", "Uplift: 9.25 t (≈ 11 709 L at 0.79 kg/L)") == []
    assert _lost("The catch is 14,280 tonnes.", "| TAC | 14 280 t |") == []
    assert _atoms("a dividend of 2 400 000 EUR") == ["money:EUR2400000.00"]
    assert _atoms("about 500 000 seeds") == ["number:500000"]
    assert _atoms("rooms 101 102 and 103") == ["number:101", "number:102", "number:103"]


def test_an_absurd_exponent_gives_no_thousand_digit_token():
    """A hostile "1e999" is not written out as a number; 6.02×10²³ still is."""
    assert all(len(t) < 64 for t in extract_constraints("the value 1e999 and 2.5E-400"))
    assert _atoms("6.02·10²³ molecules") == ["number:602000000000000000000000"]


def test_a_number_before_the_verb_may_is_no_date_in_may() -> None:
    """ "no more than 5 may be borrowed" bounds a count; "5 May" and "3 may 2026" are still dates."""
    assert extract_constraints("Members: no more than 5 may be borrowed at once.") == [
        "comparison:<= number:5",
        "number:5",
    ]
    assert extract_constraints("Delivery on 10 May, invoice of 3 may 2026.") == ["date:--05-10", "date:2026-05-03"]


def test_an_hour_before_a_decimal_amount_is_no_clock_time() -> None:
    """ "rain last 1 h 21.4 mm" is an hour and an amount of rain, not 01:21; "9 h 30" and a CSV's "04:18," are times."""
    assert "time:01:21" not in extract_constraints("rain last 1 h 21.4 mm at the gauge")
    assert extract_constraints("opens at 9 h 30 sharp; x,04:18,62") == ["number:62", "time:04:18", "time:09:30"]


def test_a_key_ending_in_a_volume_unit_gives_the_quantity() -> None:
    """``capacity_l: 28000`` is 28,000 litres and ``dose_ml: 2.5`` 2.5 mL; ``mic_mg_l`` (mg per litre) stays a number."""
    assert extract_constraints("capacity_l: 28000\ndose_ml: 2.5\nmic_mg_l: 4") == [
        "number:4",
        "unit:0.0025 L",
        "unit:28000 L",
    ]


def test_cubic_metres_are_litres_of_the_same_volume() -> None:
    """``28 m³`` and ``12 cubic metres`` are volumes, so a litre key's ``capacity_l: 28000`` meets ``28 m³``."""
    assert extract_constraints("a capacity of 28 m³; 12 cubic metres") == ["unit:12000 L", "unit:28000 L"]
    assert compare_constraints(stored_tokens("capacity_l: 28000"), stored_tokens("a capacity of 28 m³")) == []
