"""Systematic misreadings of faithful rewrites, one family per test: each example is new, not from the corpus."""

from __future__ import annotations

from handoff.analysis.constraints import lost_tokens, stored_tokens


def lost(upstream: str, downstream: str) -> list[str]:
    """The tokens compare_constraints finds lost or changed between two texts, as the writer stores them."""
    return lost_tokens(stored_tokens(upstream), stored_tokens(downstream))


def test_a_key_ending_in_min_after_a_word_of_time_counts_minutes():
    """``_min`` closing a key whose words name a stretch of time is its unit, not a minimum."""
    up = '{"job": "nightly-export", "retry_delay_min": 15, "queue_wait_time_min": 40, "workers_min": 3}'
    assert "unit:15 min" in stored_tokens(up) and "unit:40 min" in stored_tokens(up)
    down = "The nightly export retries after 15 minutes, jobs may queue for 40 minutes, and at least 3 workers run."
    assert lost(up, down) == []
    # a key whose words name no time keeps "_min" as its minimum
    assert "comparison:>= number:3" in stored_tokens(up)
    assert lost(up, down.replace("at least 3 workers", "3 workers")) == ["comparison:>= number:3"]


def test_a_bound_key_opening_an_object_bounds_its_first_number():
    """``"cap": {"currency": …, "value": N}`` states the cap on N, as ``capped at`` did upstream."""
    up = "Overtime is paid at 150% and the monthly overtime pay is capped at GBP 1,800; travel is capped at 20% of it."
    down = (
        '{"overtime": {"rate_pct": 150, "monthly_cap": {"currency": "GBP", "amount": 1800}}, '
        '"travel_limit": {"pct_of_overtime": 20}}'
    )
    assert lost(up, down) == []
    # the object's later numbers are not bounded by its key
    assert "comparison:<= number:3" not in stored_tokens('{"cap": {"value": 10, "days": 3}}')


def test_from_x_to_y_after_a_verb_of_change_is_an_old_and_a_new_value_not_a_range():
    """``grows from 20 to 35 seats`` states a change; a rewrite giving the new value as such carries it."""
    up = "The pilot grows from 20 to 35 seats in May, and the budget from EUR 4,000 to EUR 6,500."
    assert not [t for t in stored_tokens(up) if t.startswith("comparison:")]
    down = "In May the pilot goes to 35 seats (was 20) and its budget to EUR 6,500 (was EUR 4,000)."
    assert lost(up, down) == []
    # without a verb of change, "from 18 to 65" is still a range
    assert "comparison:>= number:18" in stored_tokens("Applicants from 18 to 65 are eligible.")


def test_a_text_in_a_language_that_groups_with_dots_reads_its_undecided_numbers_so():
    """With no spelling that decides the decimal mark, a German, Spanish or French text groups thousands with dots."""
    up = "Each pallet holds at most 1,500 kg and the depot stores 12,000 pallets."
    de = "Jede Palette trägt höchstens 1.500 kg, und das Lager fasst 12.000 Paletten."
    es = "Cada palé admite como máximo 1.500 kg y el almacén guarda 12.000 palés."
    assert lost(up, de) == [] and lost(up, es) == []
    # an English text keeps reading a dot as a decimal point
    assert "unit:1.5 kg" in stored_tokens("The sample weighs 1.500 kg.")


def test_clause_keywords_in_spanish_and_german_and_annex_for_appendix_are_the_same_reference():
    """A translated clause keyword names the same clause; an appendix translated as an annex is the same attachment."""
    up = "Under Article 9 and Clause 4.1, the forms in Appendix C are mandatory."
    assert lost(up, "Según el artículo 9 y la cláusula 4.1, los formularios del anexo C son obligatorios.") == []
    assert lost(up, "Nach Artikel 9 und Klausel 4.1 sind die Formulare in Anhang C verpflichtend.") == []
    assert lost(up, "Selon l'article 9 et la clause 4.1, les formulaires de l'annexe C sont obligatoires.") == []
    assert lost(up, "Under Article 9 and Clause 4.1, the forms in Appendix D are mandatory.") == ["clause:appendix.c"]


def test_a_reference_after_replaces_is_named_and_a_value_after_replacing_is_superseded():
    """``replaces Section 4`` names the section it amends; ``replacing the EUR 900`` retires the amount."""
    up = "This note replaces Section 4 of the handbook. The fee is now EUR 750, replacing the EUR 900 quoted earlier."
    assert "clause:4" in stored_tokens(up) and "money:EUR900.00" not in stored_tokens(up)
    assert lost(up, "Section 4 of the handbook is amended: the fee is EUR 750.") == []


def test_metric_unit_words_in_spanish_french_and_german_are_quantities():
    """``metros``, ``mètres``, ``Liter``, ``toneladas``: the quantity a translation states, not a bare number."""
    up = "Keep the tank at least 30 m from the well; it holds 2,000 L and weighs 3 t empty."
    es = "Mantenga el depósito al menos a 30 metros del pozo; contiene 2.000 litros y pesa 3 toneladas vacío."
    de = "Der Tank muss mindestens 30 Meter vom Brunnen entfernt sein; er fasst 2.000 Liter und wiegt leer 3 Tonnen."
    assert lost(up, es) == [] and lost(up, de) == []


def test_not_closer_than_is_at_least_that_distance():
    """``closer than`` is a strict upper cue, so ``do not park closer than 8 m`` is ``no closer than 8 m`` (``>=``)."""
    assert "comparison:>= unit:8 m" in stored_tokens("Do not park closer than 8 m to the hydrant.")
    assert lost("Park no closer than 8 m to the hydrant.", "Do not park closer than 8 m to the hydrant.") == []


def test_a_bound_before_withdrawn_says_what_is_withdrawn_and_is_kept():
    """``tyres with less than 3 mm of tread are withdrawn`` withdraws the tyres; the 3 mm limit stands."""
    up = "Tyres with less than 3 mm of tread are withdrawn from service."
    assert "comparison:< unit:0.003 m" in stored_tokens(up)
    assert lost(up, "Take tyres out of service when the tread is under 3 mm.") == []
    # a value that is itself withdrawn is still superseded
    assert "money:USD4.10" not in stored_tokens("The v2 price of $4.10 is withdrawn.")


def test_a_value_with_a_tolerance_is_the_range_it_allows():
    """``12 mm ± 0.5 mm`` and ``11.5–12.5 mm`` state one range, either way round; the tolerance is no fact of its own."""
    up = "Bore diameter 12 mm ± 0.5 mm; store at 4 °C ± 2 °C."
    down = "Bore diameter 11.5–12.5 mm; store at 2–6 °C."
    assert lost(up, down) == [] and lost(down, up) == []
    assert lost(up, "Bore diameter 11.5–13 mm; store at 2–6 °C.") == ["comparison:<= unit:0.0125 m", "unit:0.0125 m"]


def test_a_value_named_as_a_limit_after_a_cue_states_that_limit():
    """``fell under the 12-hour minimum`` states a minimum of 12 hours; ``below`` compares the rest time with it."""
    up = "Crew rest: min 12 h; bags: max 23 kg."
    down = "Last night's crew rest of 10 h fell under the 12 h minimum; one bag was over the 23 kg maximum."
    assert lost(up, down) == []
    assert "comparison:<= unit:3 d" in stored_tokens("Réponse en 3 jours au plus.")


def test_clause_numbers_do_not_vote_for_a_decimal_point_and_a_tie_goes_to_the_language():
    """``article 12.4`` is no decimal: a French text with one decimal comma still reads ``2,75 %`` as 2.75%."""
    fr = "Le taux est majoré de 2,75 % l'an, conformément à l'article 12.4 du contrat."
    assert "percent:2.75" in stored_tokens(fr)
    assert lost("The rate is increased by 2.75% a year, under clause 12.4 of the agreement.", fr) == []


def test_a_french_elision_before_a_condition_word_counts_the_condition():
    """``jusqu'à``, ``lorsqu'il``: the elided word is a condition cue of its own, so a translation keeps its condition."""
    up = "Keep the boxes sealed until the auditor arrives."
    assert lost(up, "Gardez les cartons fermés jusqu'à l'arrivée de l'auditeur.") == []


def test_per_a_quantity_is_a_rates_unit_not_a_basis():
    """``EUR 0.40 per 100 km`` is a rate; its denominator, restated as ``for every 100 km``, is no lost qualifier."""
    up = "Mileage is reimbursed at EUR 0.40 per 100 km, and the penalty is 2% per 0.5 pp of shortfall."
    down = "Mileage: EUR 0.40 for every 100 km. Penalty: 2% for each 0.5 percentage point of shortfall."
    assert lost(up, down) == []
    assert "qualifier:per 4.2" in stored_tokens("Refunds are handled per 4.2 of the contract.")


def test_a_clock_before_a_colon_ending_a_label_is_a_clock():
    """``Closed 23:00 to 05:15: use platform 2`` closes until 05:15; the colon is punctuation, not seconds."""
    up = "The station is closed from 23:00 to 05:15. Use platform 2 meanwhile."
    down = "Closed 23:00 to 05:15: use platform 2."
    assert "time:05:15" in stored_tokens(down)
    assert lost(up, down) == []


def test_an_underscored_key_with_digits_is_a_field_name_not_an_identifier():
    """``"weeks_1_4": 120`` names its value; a rewrite that states the value in prose has lost nothing."""
    up = '{"dose_mg": {"weeks_1_4": 120, "week_5_on": 80}, "release": "rel_2026_03"}'
    assert "id:rel_2026_03" in stored_tokens(up)
    assert lost(up, "Give 120 mg in weeks 1 to 4 and 80 mg from week 5 (release rel_2026_03).") == []


def test_every_gender_and_number_of_a_prohibition_word_is_a_negation():
    """``interdites``, ``prohibidas``: a translated prohibition in the feminine plural keeps the count of negations."""
    up = "Drinks are not allowed in the rooms."
    assert lost(up, "Les boissons sont interdites dans les chambres.") == []
    assert lost(up, "Las bebidas están prohibidas en las habitaciones.") == []


def test_a_spanish_or_french_range_of_clocks_shares_its_zone():
    """``de 06:00 a 14:00 UTC`` and ``de 6 h à 14 h UTC``: both clocks are UTC, as ``06:00–14:00 UTC`` is."""
    up = "The hotline is staffed 06:00-14:00 UTC."
    assert lost(up, "La línea está atendida de 06:00 a 14:00 UTC.") == []
    assert lost(up, "La ligne est assurée de 6 h à 14 h UTC.") == []


def test_one_after_a_bounds_cue_is_the_number_one():
    """``no more than one standby pump`` bounds a count of 1, as ``max_standby_pumps: 1`` does."""
    up = "max_standby_pumps: 1\nmin_operators: 1"
    assert lost(up, "No more than one standby pump may run, with at least one operator on site.") == []
    assert lost(up, "Au plus une pompe de secours peut tourner, avec au moins un opérateur sur place.") == []
    assert "number:1" not in stored_tokens("One of the pumps is on standby.")


def test_a_unit_price_may_be_written_to_the_tenth_of_a_cent():
    """``$2.389/gal`` and ``from £0.245 to £0.262 per kWh`` are prices to a tenth of a cent, not thousands."""
    up = "Diesel is $2.3890 per gallon; the tariff goes from £0.2450 to £0.2620 per kWh."
    down = "Diesel: $2.389/gal. Tariff: from £0.245 to £0.262 per kWh."
    assert lost(up, down) == []
    assert "money:EUR1500.00" in stored_tokens("Rent: EUR 1.500 per month.")


def test_a_number_restated_in_parentheses_is_one_number_with_the_unit_after_it():
    """``within fourteen (14) days`` is a bound of 14 days, as ``within 14 days`` is."""
    up = "The buyer may reject the goods within fourteen (14) days and the warranty lasts three (3) years."
    down = "Rejection window: within 14 days. Warranty: 3 years."
    assert lost(up, down) == [] and lost(down, up) == []


def test_a_qualifier_made_of_a_percentage_is_carried_by_that_percentage_and_a_condition():
    """``subject to 12% retention`` keeps its value downstream as ``12%`` with a condition: carried."""
    up = "Each stage payment is subject to 12% retention until handover."
    down = "Stage payments: hold back 12% unless and until handover is signed off."
    assert lost(up, down) == []


def test_a_list_items_bound_cue_is_no_content_word():
    """``- Maximum 2 pets aboard`` restated ``- No more than two animals aboard`` keeps the item's one other word."""
    up = "Boarding rules:\n- Maximum 2 pets aboard\n- Lifejackets worn on deck\n- Check in 2 hours before sailing"
    down = "Boarding rules:\n- No more than two animals aboard\n- Lifejackets worn on deck\n- Check in 2 hours before sailing"
    assert [t for t in lost(up, down) if t.startswith("list_item:")] == []


def test_the_days_of_a_list_or_range_share_the_month_written_once():
    """``on 6 and 13 May 2026`` states two dates, as the ISO list does; ``8–12 June`` starts on the 8th."""
    up = '{"sessions": ["2026-05-06", "2026-05-13"], "exam_window": {"from": "2026-06-08", "to": "2026-06-12"}}'
    down = "Sessions on 6 and 13 May 2026; the exam window is 8–12 June 2026."
    assert lost(up, down) == [] and lost(down, up) == []


def test_bounds_in_spanish_french_and_german_without_a_preposition_are_bounds():
    up = "Storage is EUR 0.35 per kg per day, minimum EUR 45 per AWB; damage must be reported within 48 hours."
    es = "Almacenaje EUR 0,35 por kg y día, mínimo EUR 45 por AWB; los daños se notifican en un plazo de 48 horas."
    fr = "Stockage 0,35 EUR par kg et par jour, minimum 45 EUR par AWB ; signalez tout dommage dans les 48 heures."
    assert lost(up, es) == [] and lost(up, fr) == []
    assert "comparison:< unit:156 months" in stored_tokens("Los menores de 13 años no pueden comprarlo.")
    assert "comparison:<= unit:2000 m" in stored_tokens("Im Umkreis von 2 km dürfen keine Vögel sein.")
    # the cue still has to be there: a bare value is a lost bound
    assert lost(up, es.replace("mínimo EUR 45", "EUR 45")) == ["comparison:>= money:EUR45.00"]


def test_a_key_that_names_a_bound_in_several_words_is_a_bound():
    up = "The branch closes no earlier than 1 June 2027, and costs must not exceed $1.85 million."
    down = '{"branch_closure_not_before": "2027-06-01", "not_to_exceed_usd": 1850000}'
    assert lost(up, down) == []
    assert "comparison:<= percent:68" in stored_tokens('{"personnel_cost_cap_pct_of_budget": 68%}')
    assert "comparison:>= number:84" in stored_tokens('{"cup_score_min_points_sca": 84}')


def test_label_words_limit_cap_and_at_the_earliest_are_bounds():
    assert "comparison:<= money:GBP40000.00" in stored_tokens("Credit limit £40,000; orders over it are held.")
    assert "comparison:>= unit:3 h" in stored_tokens("AVI ULDs are built at the earliest 3 hours before departure.")
    assert "comparison:<= unit:36300 kg" in stored_tokens("Gross weight per truck: 36,287 kg (80,000 lb) or less.")


def test_a_range_with_articles_between_its_ends_is_a_range():
    tokens = stored_tokens("Acepte solo si la humedad está entre el 9,5 % y el 12,5 %.")
    assert {"comparison:>= percent:9.5", "comparison:<= percent:12.5"} <= set(tokens)


def test_whichever_comes_first_is_carried_by_any_wording_of_the_same_choice():
    up = "Metered access ends after 26 checkouts or 24 months, whichever comes first."
    assert lost(up, "Metered access ends after 26 checkouts or 24 months, whichever is reached first.") == []
    assert lost(up, "Metered access ends at the earlier of 26 checkouts or 24 months.") == []
    assert lost(up, "Metered access ends after 26 checkouts or 24 months, whichever is later.") == [
        "qualifier:whichever comes first"
    ]
    fee = "The fee is £9,000 or 70% of net receipts, whichever is greater."
    assert lost(fee, "The fee is the greater of £9,000 and 70% of net receipts.") == []
    assert lost(fee, "The fee is £9,000 plus 70% of net receipts.") == ["qualifier:whichever is greater"]


def test_until_a_date_is_carried_by_the_date_in_any_wording():
    up = "Price validity: fixed until 30 June 2027."
    assert lost(up, "Prices are held through 30 June 2027.") == []
    assert lost(up, "Prices are fixed.") == ["date:2027-06-30", "qualifier:until 2027-06-30"]


def test_a_refusal_word_carries_a_prohibition():
    up = "Patients must not eat or drink after midnight."
    assert lost(up, "Patients should avoid eating or drinking after midnight.") == []
    assert lost(up, "Patients should keep eating or drinking after midnight.") == ["negation:not eat"]


def test_a_table_number_is_carried_by_the_same_quantity_stated_at_three_significant_digits():
    up = "uld_id,max_gross_kg\nPMC31207CV,6804"
    assert lost(up, "PMC31207CV may weigh up to 6,804 kg.") == []
    assert lost(up, "PMC31207CV may weigh up to 6,840 kg.") == ["number:6804"]


def test_or_older_a_trailing_plus_and_a_strict_word_ending_a_key_are_bounds():
    assert "comparison:>= number:50" in stored_tokens("O negative is acceptable for females 50 and older.")
    assert "comparison:>= number:23" in stored_tokens("The renter and any extra driver must be aged 23+.")
    assert "comparison:> number:5" in stored_tokens('{"hand_count_required_if_difference_above": 5}')
    assert "comparison:> number:1000" in stored_tokens('{"single_expense_above_usd_needing_approval": 1000}')
    # not a phone number, a sum or a word that starts like a bound, nor a string the key's bound is not about
    assert not [t for t in stored_tokens("call +44 20 7946 0000, 2+2 offer") if t.startswith("comparison:")]
    assert not [
        t for t in stored_tokens('{"overtime": 12, "credit_if_below_target": "10% of fee"}') if "comparison" in t
    ]
    up = "Drivers must be at least 23 years old."
    assert lost(up, "Drivers: aged 23+.") == []
    assert lost(up, "Drivers: aged 23.") == ["comparison:>= unit:276 months"]


def test_a_key_with_pct_is_a_percentage_whatever_its_last_part():
    assert [t for t in stored_tokens("discount_pct_off_bar: 18") if not t.startswith("terms:")] == ["percent:18"]
    assert "unit:1800000 Pa" in stored_tokens("pressure_bar: 18")


def test_a_fractional_or_large_number_is_carried_by_a_quantity_that_states_it_in_another_unit():
    up = '{"group": "O-", "days_of_stock": 1.8}'
    assert lost(up, "O- has 1.8 days of stock.") == []
    assert lost(up, "O- has 2.8 days of stock.") == ["number:1.8"]
    assert lost('{"stock_hours": 43.5}', "Stock lasts 2,610 minutes.") == []


def test_a_bound_word_naming_what_it_bounds_before_the_value_is_a_bound():
    assert "comparison:<= unit:3 h" in stored_tokens("The maximum stay is 3 hours, and no return within 2 hours.")
    assert "comparison:>= money:EUR500.00" in stored_tokens("Minimum order value: EUR 500.")
    up = "max_stay_h: 3"
    assert lost(up, "The maximum stay is 3 hours.") == []
    assert lost(up, "The stay is 3 hours.") == ["comparison:<= unit:3 h"]


def test_an_id_beside_a_quantity_does_not_take_its_unit():
    tokens = stored_tokens("MV ORIENT PEARL (IMO 9588123, 199.9 m LOA, draught 10.8 m)")
    assert "number:9588123" in tokens and "unit:200 m" in tokens
    assert {"unit:1 d", "unit:2 d", "unit:3 d"} <= set(stored_tokens("Checks at 24, 48 and 72 hours."))


def test_bounds_of_exceeding_limiting_and_labelled_maxima_in_french_spanish_and_german():
    assert "comparison:> unit:25 °C" in stored_tokens(
        "Ne pas déplacer les ruches lorsque la température dépasse 25 °C."
    )
    assert "comparison:> number:20" in stored_tokens("Si el viento supera los 20 nudos, se pide un tercer remolcador.")
    assert "comparison:<= money:GBP5000.00" in stored_tokens("La responsabilité est limitée à 5 000 £ par cheval.")
    assert "comparison:<= unit:8.5 kg" in stored_tokens("Das maximale Siebgewicht beträgt 8,5 kg.")
    assert "comparison:<= number:64" in stored_tokens("Charge maximale par remorque : 64 ruches.")
