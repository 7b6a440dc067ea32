"""Retention under hostile input and after crashes: nothing destroyed, nothing stuck.

Each case reproduced issue 13 before its fix: `max_age = -5` was accepted and deleted
everything; `0` and `true` were accepted; `"9999999999d"` and `tier = 5` gave tracebacks;
`plan --now 9999-12-31T23:59:59Z` ran for more than ten minutes; a temp file a SIGKILL left in
`_retention/journal/` failed every later apply (and fsck left it); a lock held by a dead pid on
this host blocked reruns for two hours.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from handoff.cli import main
from handoff.errors import LockHeld
from handoff.retention.job import JOURNAL_PREFIX, apply, candidate_days, plan, read_state
from handoff.retention.lock import LOCK_KEY
from handoff.retention.policy import MAX_AGE_DAYS, default_policy, parse_policy
from handoff.store.fsck import fsck
from tests.retention._data import NOW, tiers_of, write_run

FAR_FUTURE = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)


def _tier(max_age: str) -> str:
    return f'[[tier]]\nname = "full"\nmax_age = {max_age}\n'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_tier("-5"), "tier 'full' max_age must be a duration string with a unit such as \"30d\", not int -5"),
        (_tier("0"), "tier 'full' max_age must be a duration string with a unit such as \"30d\", not int 0"),
        (_tier("30"), "tier 'full' max_age must be a duration string with a unit such as \"30d\", not int 30"),
        (_tier("true"), "tier 'full' max_age must be a duration string with a unit such as \"30d\", not bool True"),
        (_tier('"0d"'), "tier 'full' max_age '0d' must be longer than zero"),
        (_tier('"-5d"'), "tier 'full' max_age: bad duration '-5d': use a number and a unit, e.g. 90s, 15m, 24h, 7d"),
        (_tier('"9999999999d"'), "tier 'full' max_age: bad duration '9999999999d': longer than 36525 days"),
        (_tier('"30"'), "tier 'full' max_age: bad duration '30': use a number and a unit, e.g. 90s, 15m, 24h, 7d"),
        ("tier = 5\n", "'tier' must be [[tier]] tables, not int 5"),
        ("tier = [1, 2]\n", "'tier' must be [[tier]] tables, not list [1, 2]"),
        (_tier('"30d"') + 'max_days = "5d"\n', "tier 'full': unknown key 'max_days' (a tier has name, max_age, keeps)"),
        (_tier('"30d"') + 'keeps = "content"\n', "tier 'full' keeps must be a list of group names, not str 'content'"),
        ('[[tier]]\nname = 5\nmax_age = "30d"\n', "tier name must be a non-empty string, not int 5"),
        (_tier('"30d"') + _tier('"60d"'), "tier name 'full' is used twice"),
        (
            'retain = "30d"\n' + _tier('"30d"'),
            "unknown key 'retain' (a policy has [[tier]] and [[override]] tables only)",
        ),
        (
            _tier('"30d"') + '[[override]]\ntier = 5\nmax_age = "9d"\nkind = "transform"\n',
            "every [[override]] needs max_age and tier (one of 'full'); tier int 5 is not one of them",
        ),
        (
            _tier('"30d"') + '[[override]]\ntier = "full"\nmax_age = 90\nkind = "transform"\n',
            "override for tier 'full' max_age must be a duration string with a unit such as \"30d\", not int 90",
        ),
        (
            _tier('"30d"') + '[[override]]\ntier = "full"\nmax_age = "90d"\nkind = 3\n',
            "override kind must be a string, not int 3",
        ),
        (
            _tier('"30d"') + '[[override]]\ntier = "full"\nmax_age = "90d"\nrun_attributes = "acme"\n',
            "override run_attributes must be a table of names to values, such as { customer = \"acme\" }, not str 'acme'",
        ),
    ],
)
def test_a_nonsense_policy_is_refused_naming_the_key(text, message):
    """A policy with a bad age, tier or key is refused in one line that names it, before any store is touched."""
    with pytest.raises(ValueError) as caught:
        parse_policy(text)
    assert str(caught.value) == f"bad retention policy <string>: {message}"


def test_a_negative_age_policy_deletes_nothing(local_store, tmp_path):
    """`apply` with `max_age = -5` exits 1 with one Error line and leaves today's and older runs alone."""
    today, old = write_run(local_store, 0), write_run(local_store, 40)
    path = tmp_path / "bad.toml"
    path.write_text(_tier("-5"))
    result = CliRunner().invoke(
        main, ["retention", "apply", "--store", local_store.url, "--policy", str(path), "--now", NOW.isoformat()]
    )
    assert (result.exit_code, result.output.count("\n"), result.output.startswith("Error: bad retention policy")) == (
        1,
        1,
        True,
    )
    assert tiers_of(local_store) == {today: ["full"] * 3, old: ["full"] * 3}


def test_a_tier_given_as_a_number_is_one_error_line(tmp_path):
    """`retention show --policy` on `tier = 5` prints one Error line and exits 1, not a traceback."""
    path = tmp_path / "p.toml"
    path.write_text("tier = 5\n")
    result = CliRunner().invoke(main, ["retention", "show", "--policy", str(path)])
    assert (result.exit_code, result.output) == (
        1,
        f"Error: bad retention policy {path}: 'tier' must be [[tier]] tables, not int 5\n",
    )


@given(st.text(max_size=40))
def test_any_max_age_text_parses_to_a_bounded_positive_age_or_a_value_error(text):
    """Whatever string a policy gives as max_age, parsing yields 1..36525 whole days or one ValueError."""
    try:
        policy = parse_policy(f'[[tier]]\nname = "full"\nmax_age = {json.dumps(text)}\n')
    except ValueError as exc:
        assert str(exc).startswith("bad retention policy <string>: ")
        assert "\n" not in str(exc)
        return
    assert 1 <= policy.tiers[0].max_age_days <= MAX_AGE_DAYS


@given(st.integers(min_value=1, max_value=MAX_AGE_DAYS), st.sampled_from([("d", 1), ("h", 24), ("m", 1440)]))
def test_whole_days_in_any_unit_parse_to_the_same_age(days, unit):
    """`30d`, `720h` and `43200m` are the same tier age."""
    name, per_day = unit
    policy = parse_policy(f'[[tier]]\nname = "full"\nmax_age = "{days * per_day}{name}"\n')
    assert policy.tiers[0].max_age_days == days


def test_plan_far_in_the_future_lists_the_store_instead_of_walking_every_day(local_store):
    """After an apply, `now = 9999-12-31` picks a full listing of the days that exist, not millions of dates."""
    old = write_run(local_store, 40)
    apply(local_store, now=NOW)
    state = read_state(local_store)
    days, scan, listed = candidate_days(local_store, default_policy(), FAR_FUTURE, state, set(), False)
    assert (scan, listed, sorted(d.isoformat() for d in days)) == (
        "full",
        1,
        [(NOW - timedelta(days=40)).date().isoformat()],
    )
    assert tiers_of(local_store) == {old: ["digest"] * 3}


def test_retention_plan_now_9999_answers_from_the_cli(local_store):
    """`handoff retention plan --now 9999-12-31T23:59:59Z --json` returns the plan: every day expires."""
    write_run(local_store, 40)
    apply(local_store, now=NOW)
    result = CliRunner().invoke(
        main, ["retention", "plan", "--store", local_store.url, "--now", "9999-12-31T23:59:59Z", "--json"]
    )
    data = json.loads(result.output)
    assert (result.exit_code, data["scan"], data["tiers"]) == (
        0,
        "full",
        {"gone": {"rows": 3, "days": 1}, "runs:gone": {"rows": 1, "days": 1}},
    )


def test_a_rehearsal_with_a_later_now_does_not_stall_later_runs(local_store):
    """An apply at a later `now` followed by one at today's rescans in full, so no day is skipped."""
    write_run(local_store, 40)
    apply(local_store, now=NOW + timedelta(days=3))
    fresh = write_run(local_store, 31)
    report = apply(local_store, now=NOW)
    assert (report.scan, tiers_of(local_store)[fresh]) == ("full", ["digest"] * 3)


def test_a_time_before_1970_is_one_error_line(local_store):
    """`--now 0001-01-01` is refused with one Error line, not an overflow traceback."""
    write_run(local_store, 1)
    result = CliRunner().invoke(
        main, ["retention", "plan", "--store", local_store.url, "--now", "0001-01-01T00:00:00-01:00"]
    )
    assert (result.exit_code, result.output.count("\n"), result.output.startswith("Error: bad now")) == (1, 1, True)


def _leave_journal_temp(store) -> str:
    """What a SIGKILL during the journal write leaves: a hidden temp file with half a journal."""
    key = f"{JOURNAL_PREFIX}.tmp-2026-10-20.json.1a2b3c4d"
    path = store.local_path(key)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write('{"day": "2026-10-20", "wri')
    old = time.time() - 3600
    os.utime(path, (old, old))
    return key


def test_a_leftover_journal_temp_file_is_cleaned_by_the_next_apply(local_store):
    """A half-written journal temp file does not fail apply: the job removes it, says so, and applies the policy."""
    run = write_run(local_store, 40)
    key = _leave_journal_temp(local_store)
    assert plan(local_store, now=NOW).in_flight == []
    report = apply(local_store, now=NOW)
    assert (report.status, report.cleaned, local_store.exists(key)) == ("done", [key], False)
    assert tiers_of(local_store) == {run: ["digest"] * 3}


def test_fsck_repair_removes_a_leftover_journal_temp_file(local_store):
    """`fsck` reports the stale temp file under `_retention/`, and `--repair` removes it."""
    write_run(local_store, 1)
    key = _leave_journal_temp(local_store)
    found = fsck(local_store)
    repaired = fsck(local_store, repair=True)
    assert [(p.kind, p.where) for p in found.problems] == [("temp-file", local_store.uri(key))]
    assert (repaired.ok, local_store.exists(key), repaired.repaired) == (
        True,
        False,
        [f"removed {local_store.uri(key)}"],
    )


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _hold_lock(store, pid: int, host: str | None = None) -> dict:
    now = time.time()
    body = {
        "owner": f"x:{pid}:dead",
        "pid": pid,
        "host": host or socket.gethostname(),
        "acquired": now,
        "heartbeat": now,
    }
    store.put(LOCK_KEY, json.dumps(body).encode())
    return body


def test_a_lock_held_by_a_dead_pid_on_this_host_is_taken_over_at_once(local_store):
    """A lock with a fresh heartbeat whose process on this host has exited is taken over without waiting."""
    write_run(local_store, 40)
    holder = _hold_lock(local_store, _dead_pid())
    report = apply(local_store, now=NOW)
    assert (report.status, report.lock_taken_over, local_store.exists(LOCK_KEY)) == ("done", holder, False)


def test_a_lock_held_by_a_live_process_still_blocks(local_store):
    """A lock whose holder is alive on this host, or lives on another host, is still respected (exit 2)."""
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as sleeper:
        try:
            _hold_lock(local_store, sleeper.pid)
            with pytest.raises(LockHeld):
                apply(local_store, now=NOW)
        finally:
            sleeper.kill()
    _hold_lock(local_store, _dead_pid(), host="some-other-host")
    result = CliRunner().invoke(main, ["retention", "apply", "--store", local_store.url, "--now", NOW.isoformat()])
    assert (result.exit_code, result.output.startswith("Error: another retention job holds")) == (2, True)
