"""Comparing constraints by meaning: negations, qualifiers and list items on stored tokens alone."""

from __future__ import annotations

from handoff.analysis.constraints import (
    TERMS_CLASS,
    Finding,
    compare_constraints,
    find_written,
    lost_tokens,
    stored_tokens,
    tokens_version,
)


def lost_classes(upstream: str, downstream: str) -> list[str]:
    """The tokens compare_constraints finds lost between two texts, as the writer stores them."""
    return lost_tokens(stored_tokens(upstream), stored_tokens(downstream))


def test_a_reworded_prohibition_is_carried():
    """A prohibition restated in other words, order and inflection is not reported lost."""
    up = "Operators must not restart the primary database during business hours."
    down = "Restarting the primary database is never allowed during business hours."
    assert lost_classes(up, down) == []


def test_a_negation_written_as_false_or_with_un_is_carried():
    """A JSON ``false`` and an ``un-`` word negate like ``not``: the prohibition is carried."""
    assert lost_classes("Opened cartridges are not returnable.", '{"opened_cartridges_returnable": false}') == []
    assert lost_classes("Leave the reminders not sent until Monday.", "The reminders stay unsent until Monday.") == []
    assert lost_classes("Leave the reminders not sent until Monday.", "The reminders are sent until Monday.") == [
        "negation:not sent"
    ]


def test_a_dropped_not_is_a_lost_negation():
    """The same words without their negation lose the prohibition."""
    up = "Operators must not restart the primary database during business hours."
    down = "Operators restart the primary database during business hours."
    assert lost_classes(up, down) == ["negation:not restart the primary database"]


def test_a_dropped_exception_is_a_lost_qualifier_and_a_kept_one_is_carried():
    """``unless …`` is carried when its words stand in a condition downstream, lost when they are gone."""
    up = "Refunds are issued within the week unless the parcel was opened."
    carried = "Refunds go out within the week, except when the parcel has been opened."
    dropped = "Refunds are issued within the week."
    assert lost_classes(up, carried) == []
    assert lost_classes(up, dropped) == ["qualifier:unless the parcel was opened"]


def test_whichever_and_only_where_are_conditions_that_can_be_lost():
    """``whichever comes first`` and ``only where …`` are qualifiers: kept when restated, lost when dropped."""
    up = "The warranty ends after 5 years or 100,000 km, whichever comes first, and covers rust only where the paint was intact."
    kept = "Rust is covered only where the paint was intact; the warranty ends at 5 years or 100,000 km, whichever comes first."
    dropped = "The warranty ends after 5 years or 100,000 km and covers rust."
    assert lost_classes(up, kept) == []
    assert lost_classes(up, dropped) == ["qualifier:only if the paint was intact", "qualifier:whichever comes first"]


def test_a_translated_negation_is_carried_and_a_dropped_one_lost():
    """Across languages a negation is carried while the downstream negates as often as the upstream."""
    up = "Do not share the access badge with visitors."
    assert lost_classes(up, "No compartas la tarjeta de acceso con visitantes.") == []
    assert lost_classes(up, "Comparte la tarjeta de acceso con visitantes.") == ["negation:not share the access badge"]


def test_dropping_one_item_of_an_enumeration_loses_that_item():
    """Each enumerated item is one constraint: the dropped one is named, the reordered ones are carried."""
    up = "Exceptions: (a) fraud reports, (b) duplicate charges and (c) damaged goods."
    down = "Exceptions are damaged goods and fraud reports."
    assert lost_classes(up, down) == ["list_item:duplicate charges"]
    assert [c.text for c in find_written(up) if c.cls == "list_item"] == [
        "fraud reports",
        "duplicate charges",
        "damaged goods",
    ]


def test_bullet_items_are_compared_by_their_words():
    """Bullets turned into prose lose nothing; a bullet whose words are gone is lost."""
    up = (
        "Bring to the interview:\n- passport or national identity card\n- signed offer letter\n- bank account details\n"
    )
    down = "Please bring your signed offer letter, your bank account details and a passport or identity card."
    assert lost_classes(up, down) == []
    assert lost_classes(up, "Please bring your signed offer letter and a passport or identity card.") == [
        "list_item:bank account details"
    ]


def test_bounds_are_the_same_whatever_words_or_symbols_state_them():
    """``at least``, ``minimum``, ``≥`` and ``or more`` are one bound, on a value in any unit."""
    up = "Keep at least 3 replicas and answer within 2 hours; refunds over $500 need sign-off."
    down = "Run 3 replicas or more. Answer in 120 minutes at most. Sign-off needed for refunds > $500."
    assert [t for t in stored_tokens(up) if t.startswith("comparison:")] == [
        "comparison:<= unit:2 h",
        "comparison:> money:USD500.00",
        "comparison:>= unit:3 replicas",
    ]
    assert lost_classes(up, down) == []


def test_a_postfix_bound_may_follow_the_values_noun():
    """``12 doses or more`` and ``7 jours au maximum`` bound their value like ``at least 12 doses``."""
    assert lost_classes("Give at least 12 doses.", "Give 12 doses or more.") == []
    assert lost_classes("Reply within 7 days.", "Répondre en 7 jours au maximum.") == []


def test_a_bound_with_another_direction_is_changed_and_a_dropped_one_lost():
    """``≥`` turned into ``>`` is reported changed with the new token; the bare value alone loses the bound."""
    up = "Each batch needs at least 40 samples."
    assert compare_constraints(stored_tokens(up), stored_tokens("Each batch needs more than 40 samples.")) == [
        Finding("comparison:>= number:40", "changed", "comparison:> number:40")
    ]
    assert lost_classes(up, "Each batch needs 40 samples.") == ["comparison:>= number:40"]


def test_a_deadline_is_carried_by_the_same_date_however_it_is_introduced():
    """``no later than`` a date is carried by ``by`` that date; ``no earlier than`` it is a changed bound."""
    up = "File the claim no later than 30 April 2027."
    assert lost_classes(up, "File the claim by 2027-04-30.") == []
    assert compare_constraints(stored_tokens(up), stored_tokens("File the claim no earlier than 2027-04-30.")) == [
        Finding("comparison:<= date:2027-04-30", "changed", "comparison:>= date:2027-04-30")
    ]


def test_a_rates_unit_is_no_qualifier_but_a_basis_is():
    """``per hour`` belongs to its rate (its own constraint); ``per the municipal tariff`` is a basis."""
    tokens = stored_tokens("Parking costs €3 per hour, billed per the municipal tariff.")
    assert [t for t in tokens if t.startswith("qualifier:")] == ["qualifier:per the municipal tariff"]


def test_the_terms_token_is_stored_hashed_and_never_reported():
    """The writer stores one terms token that spells no word of the text, and no finding is ever about it."""
    tokens = stored_tokens("Never disclose the quarterly forecast.")
    terms = [t for t in tokens if t.startswith(TERMS_CLASS + ":")]
    assert len(terms) == 1
    assert "forecast" not in terms[0] and terms[0].startswith("terms:v3 en 1 0 ")
    assert all(not f.token.startswith(TERMS_CLASS) for f in compare_constraints(tokens, []))


def test_version_1_tokens_compare_phrases_by_identical_token():
    """Rows written before terms existed still compare: a phrase is carried only by the same token."""
    up = ["negation:not restart the primary", "number:3"]
    assert lost_tokens(up, ["negation:not restart the primary", "number:3"]) == []
    assert lost_tokens(up, ["number:3"]) == ["negation:not restart the primary"]


def test_version_2_terms_are_not_compared_with_this_versions_stems():
    """A version 2 row (whole-stem hashes, no ``v`` mark) compares phrases by identical token, never by wrong hashes."""
    up_text = "Do not restart the primary until the replica has caught up."
    reworded = "Restarting the primary is not allowed until the replica has caught up."
    current = stored_tokens(up_text), stored_tokens(reworded)
    assert tokens_version(current[0]) == 3
    assert [f.token for f in compare_constraints(*current)] == []
    # The same rows as version 2 wrote them: the terms token without its version mark.
    old = [[t.replace("terms:v3 ", "terms:", 1) for t in side] for side in current]
    assert (tokens_version(old[0]), tokens_version(old[1])) == (2, 2)
    lost = [f.token for f in compare_constraints(*old)]
    assert lost and all(token.startswith(("negation:", "qualifier:")) for token in lost)
    assert [f.token for f in compare_constraints(old[0], old[0])] == []


def test_a_bound_restated_with_its_unit_or_currency_is_carried():
    """A bound on a bare number is carried by the same bound on that value with its currency or unit."""
    up = "approval:\n  max_amount_usd: 25000\n  approvers: 2\n"
    assert lost_classes(up, "Two approvers sign off amounts of at most $25,000.") == []
    assert lost_classes(up, "Two approvers sign off amounts of at least $25,000.") == ["comparison:<= number:25000"]


def test_at_or_below_is_an_inclusive_bound():
    """``at or below 2.75x`` is ``≤ 2.75``, so ``≤ 2.75x`` carries it and ``below 2.75x`` changes it."""
    up = "The step-down applies while leverage is at or below 2.75x."
    assert lost_classes(up, "The step-down applies while leverage stays ≤ 2.75x.") == []
    findings = compare_constraints(
        stored_tokens(up), stored_tokens("The step-down applies while leverage is below 2.75x.")
    )
    assert [(f.token, f.status) for f in findings] == [("comparison:<= number:2.75", "changed")]


def test_no_later_than_a_lead_time_is_at_least_that_lead_time():
    """``no later than 48 hours before`` an event bounds the lead time from below, as ``at least 2 days before`` does."""
    up = "Final guest numbers reach the caterer no later than 48 hours before the dinner."
    assert lost_classes(up, "Final guest numbers reach the caterer at least 2 days before the dinner.") == []
    assert lost_classes(up, "Final guest numbers reach the caterer within 2 days before the dinner.") == [
        "comparison:>= unit:2 d"
    ]


def test_a_prohibition_restated_as_a_restriction_is_carried():
    """``do not release the deposit before …`` restated with ``only after`` keeps its polarity; dropped, it is lost."""
    up = "Do not release the deposit before the inspection report is signed."
    assert lost_classes(up, "The deposit may be released only after the inspection report is signed.") == []
    assert lost_classes(up, "Release the deposit; the inspection report gets signed later.") == [
        "negation:not release the deposit"
    ]


def test_a_negated_strict_bound_is_the_inclusive_bound_the_other_way():
    """``never more than 40%`` is ``at most 40%``, ``must not fall below 2.5`` is ``at least 2.5``."""
    up = "The fee is never more than 40% of the rent, and the ratio must not fall below 2.5."
    assert lost_classes(up, "The fee is capped at 40% of the rent; the ratio is at least 2.5.") == []
    assert lost_classes(up, "The fee is over 40% of the rent; the ratio is at least 2.5.") == [
        "comparison:<= percent:40"
    ]


def test_a_condition_restated_with_before_or_as_an_exception_is_carried():
    """``until …`` restated with ``before …`` and ``except that …`` restated as an ``Exception:`` stay conditions."""
    assert lost_classes("No launch until the audit is signed.", "No launch before the audit is signed.") == []
    assert (
        lost_classes(
            "The fee is due monthly, except that no fee applies to charities.",
            "Fee: monthly. Exception: charities pay no fee.",
        )
        == []
    )
    assert lost_classes("No launch until the audit is signed.", "Launch; the audit gets signed.") == [
        "negation:no launch",
        "qualifier:until the audit is signed",
    ]


def test_un_participles_and_hyphenated_words_carry_a_negation():
    """``unpatched`` negates ``patched`` even outside the word list, and ``tube-feed`` meets ``tube-fed`` in ``tube``."""
    assert (
        lost_classes(
            "Servers not reprovisioned by Friday are shut down.",
            "Any server still unreprovisioned on Friday is shut down.",
        )
        == []
    )
    assert lost_classes("Don't tube-feed the patient tonight.", "The patient is not to be tube-fed tonight.") == []


def test_a_json_none_negates_a_long_key():
    """``"penalty_after_first_year_months": "none"`` negates *penalty*, four words before the cue."""
    up = "Prepayment is allowed without penalty after the first year."
    assert lost_classes(up, '{"prepayment_allowed": true, "penalty_after_first_year": "none"}') == []


def test_a_bound_on_a_quantity_is_carried_by_a_key_that_names_the_bound_and_its_unit():
    """``at least 65 years`` = ``"applicant_min_age_years": 65``; ``"uptime_min_pct_per_month": 99.5`` = ``at least 99.5%``."""
    assert lost_classes("Applicants must be at least 65 years old.", '{"applicant_min_age": 65}') == []
    assert lost_classes("Uptime of at least 99.5% per month.", '{"uptime_min_pct_per_month": 99.5}') == []
    assert lost_classes("Uptime of at least 99.5% per month.", '{"uptime_pct_per_month": 99.5}') == [
        "comparison:>= percent:99.5"
    ]


def test_a_range_is_two_bounds_and_cutting_one_side_loses_it():
    """``between 6 and 24 replicas`` carries ``min 6 / max 24`` and loses its top when cut to ``at least 6``."""
    up = "Run between 6 and 24 replicas."
    assert lost_classes(up, "replicas: min 6, max 24") == []
    assert lost_classes(up, "Run 6–24 replicas.") == []
    assert lost_classes(up, "Run at least 6 replicas.") == ["comparison:<= unit:24 replicas", "unit:24 replicas"]


def test_a_negation_a_few_words_before_a_strict_cue_makes_it_inclusive():
    """``may not be claimed for more than 12 days`` is ``<= 12 days`` in English, Spanish and German alike."""
    up = "Storage may not be charged for more than 12 days."
    assert lost_classes(up, '{"storage_charge_max_days": 12}') == []
    assert lost_classes(up, "El almacenaje no se cobra nunca por más de 12 días.") == []
    assert lost_classes(up, "Lagergeld wird zu keinem Zeitpunkt für mehr als 12 Tage berechnet.") == []


def test_a_negation_restated_with_a_derived_word_is_carried():
    """``cannot be deferred`` is carried by ``no deferral is possible``: derived words share a stem's first letters."""
    up = "The place cannot be deferred to next year."
    assert lost_classes(up, "No deferral of the place to next year is possible.") == []
    assert lost_classes(up, "The place moves to next year.") == ["negation:not be deferred"]


def test_from_a_higher_to_a_lower_value_is_a_change_not_a_range():
    """``reduce from 40 mg to 20 mg`` states two doses, no bounds; ``from €500 up to €2,000`` is a range."""
    assert [
        t for t in stored_tokens("Reduce furosemide from 40 mg to 20 mg daily.") if t.startswith("comparison:")
    ] == []
    assert lost_classes("Band B: from €500 up to €2,000.", '{"band": "B", "min_eur": 500, "max_eur": 2000}') == []


def test_a_negated_permission_or_necessity_is_carried_by_another_word_of_its_kind():
    """ "not approved" = ``allowed: false``, "not needed" = "no … required"; the polarity still counts."""
    up = "The traveller flies economy. Car hire is not approved for this trip, and the hotel is capped at three nights."
    kept = '{"traveller_class": "economy", "car_hire_allowed": false, "note": "the hotel is capped at three nights"}'
    flipped = '{"traveller_class": "economy", "car_hire_allowed": true, "note": "the hotel is capped at three nights"}'
    assert lost_classes(up, kept) == []
    assert lost_classes(up, flipped) == ["negation:not approved"]
    up = "Bridging with heparin is not needed before the surgery. He takes warfarin daily."
    assert lost_classes(up, "No heparin bridging is required before the surgery. He takes warfarin daily.") == []
    assert lost_classes(up, "Heparin bridging is required before the surgery. He takes warfarin daily.") == [
        "negation:not needed"
    ]


def test_not_before_and_not_after_are_bounds():
    """ "not before 3 h after" is "no earlier than 3 hours after"; "not after 5 May" is "no later than"."""
    up = "Delayed rights start no earlier than 3 hours after the final whistle."
    assert lost_classes(up, "Delayed: not before 3 h after the final whistle.") == []
    assert lost_classes(up, "Delayed: before 3 h after the final whistle.") != []
    assert lost_classes("Submit no later than 5 May 2026.", "Submit not after 5 May 2026.") == []
    assert lost_classes("mindestens 2 Personen je Arbeitsstelle", "wenigstens zwei Personen je Arbeitsstelle") == []
