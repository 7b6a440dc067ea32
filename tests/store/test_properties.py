"""Property-based tests (Hypothesis) for the parsers every command and file name relies on: durations, refs and ids."""

from __future__ import annotations

import re
from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from handoff.durations import MAX_DURATION, parse_duration
from handoff.ids import handoff_id, new_run_id
from handoff.store.layout import blob_key, content_ref, day_of_key, parse_ref, table_key

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
RUN_ID = re.compile(r"^run_[0-9A-HJKMNP-TV-Z]{26}$")
_id_text = st.text(alphabet=st.characters(categories=("L", "N"), include_characters="-_."), min_size=1, max_size=30)


@given(st.text(max_size=40))
def test_any_text_is_a_bounded_duration_or_one_value_error(text):
    """`--since`, `--grace` and policy ages either parse to 0..100 years or raise ValueError quoting the text."""
    try:
        value = parse_duration(text)
    except ValueError as exc:
        assert str(exc).startswith("bad duration ") and "\n" not in str(exc)
        return
    assert timedelta(0) <= value <= MAX_DURATION


@given(st.integers(min_value=0, max_value=36_525), st.sampled_from(sorted(UNITS)))
def test_a_whole_number_and_a_unit_parse_exactly(number, unit):
    """`90s`, `15m`, `24h`, `7d` mean exactly that many seconds, up to the century limit."""
    text = f"{number}{unit}"
    if number * UNITS[unit] > MAX_DURATION.total_seconds():
        return
    assert parse_duration(text) == timedelta(seconds=number * UNITS[unit])


@given(
    st.dates(), _id_text, st.integers(min_value=0, max_value=10**6), _id_text, _id_text, st.sampled_from(["in", "out"])
)
def test_a_content_ref_splits_back_into_its_file_and_row(day, writer, n, run_id, hf, side):
    """The ref a handoff row stores names its content file and row; parsing gives both back unchanged."""
    key = table_key("content", day.isoformat(), writer.replace("/", "-"), n)
    assert parse_ref(content_ref(key, run_id, hf, side)) == (key, f"{run_id}/{hf}/{side}")
    assert day_of_key(key) == day


@given(st.dates(), _id_text, _id_text, st.sampled_from(["in", "out"]))
def test_a_blob_ref_is_its_key_and_lives_in_its_day(day, run_id, hf, side):
    """A blob's ref is its key (no row selector), in the day partition it was written to."""
    key = blob_key(day.isoformat(), run_id, hf, side)
    assert (parse_ref(key), day_of_key(key)) == ((key, None), day)


@given(st.integers(min_value=1, max_value=10**9), st.one_of(st.just(""), _id_text))
def test_handoff_ids_are_distinct_per_sequence_and_prefix(seq, prefix):
    """`hf-<seq>` and `hf-<prefix>-<seq>` never collide with another sequence number or with the bare form."""
    ident = handoff_id(seq, prefix)
    assert ident.startswith("hf-") and ident.endswith(f"-{seq}")
    assert ident != handoff_id(seq + 1, prefix)
    if prefix:
        assert ident != handoff_id(seq)


@given(st.integers(min_value=1, max_value=50))
def test_run_ids_are_prefixed_ulids_and_unique(count):
    """Run ids are `run_` plus a 26-character Crockford ULID, and a process never mints the same one twice."""
    ids = [new_run_id() for _ in range(count)]
    assert all(RUN_ID.match(ident) for ident in ids)
    assert len(set(ids)) == count
