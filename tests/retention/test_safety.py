"""Safe to run unattended: killed and rerun, locked against a second job, and beside live writers."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest

from handoff.errors import LockHeld
from handoff.retention.job import JOURNAL_PREFIX, apply, read_state
from handoff.retention.lock import LOCK_KEY, RetentionLock
from tests.retention._data import NOW, keys, rows, tiers_of, write_run


class Killed(Exception):
    """Stands in for the process dying at a chosen point of the job."""


def kill_at(phase: str):
    def hook(reached: str, day) -> None:
        if reached == phase:
            raise Killed(phase)

    return hook


def snapshot(store) -> dict:
    """What a reader sees: every handoff row's tier and refs, and the count of raw rows."""
    seen = rows(store, "SELECT run_id, handoff_id, tier, input_ref FROM handoffs ORDER BY run_id, handoff_id")
    return {"rows": seen, "raw": rows(store, "SELECT count(*) AS n FROM raw_handoffs")[0]["n"]}


@pytest.mark.parametrize("phase", ["journaled", "written", "deleted"])
def test_a_job_killed_mid_day_completes_on_rerun_with_no_loss_and_no_duplicates(store, phase):
    """Killed after the journal, after the writes or after the deletes, a rerun ends exactly where one clean run would."""
    old, young = write_run(store, 40, big=True), write_run(store, 2)
    with pytest.raises(Killed):
        apply(store, now=NOW, on_phase=kill_at(phase))
    assert len(keys(store, JOURNAL_PREFIX)) == 1
    if phase == "written":
        # Both copies exist; the view already shows only the digest row.
        assert tiers_of(store)[old] == ["digest"] * 3
    report = apply(store, now=NOW)
    assert report.status == "done"
    assert [entry["action"] for entry in report.recovered] == ["completed" if phase == "deleted" else "rolled back"]
    assert keys(store, JOURNAL_PREFIX) == []
    assert tiers_of(store) == {old: ["digest"] * 3, young: ["full"] * 3}
    assert rows(store, "SELECT count(*) AS n FROM raw_handoffs")[0]["n"] == 6
    day = (NOW - timedelta(days=40)).date().isoformat()
    assert [key for key in keys(store, "") if f"dt={day}" in key and not key.startswith(("runs/", "handoffs/"))] == []


def test_a_second_job_is_refused_while_the_first_holds_the_lock(store):
    """Two jobs at once: the second gets LockHeld and changes nothing."""
    write_run(store, 40)
    with RetentionLock(store):
        with pytest.raises(LockHeld, match="another retention job holds"):
            apply(store, now=NOW)
        assert tiers_of(store) != {} and set(sum(tiers_of(store).values(), [])) == {"full"}
    assert store.exists(LOCK_KEY) is False
    assert apply(store, now=NOW).status == "done"


def test_a_stale_lock_left_by_a_dead_job_is_taken_over(store):
    """A lock whose heartbeat is older than the stale timeout does not block the job forever."""
    write_run(store, 40)
    dead = {
        "owner": "host-a:123:dead",
        "pid": 123,
        "host": "host-a",
        "acquired": time.time() - 7200,
        "heartbeat": time.time() - 7200,
    }
    store.put(LOCK_KEY, json.dumps(dead).encode())
    with pytest.raises(LockHeld):
        apply(store, now=NOW, stale_after_s=3 * 3600)
    report = apply(store, now=NOW, stale_after_s=3600)
    assert (report.status, report.lock_taken_over) == ("done", dead)
    assert store.exists(LOCK_KEY) is False


def test_a_concurrent_writer_writing_today_loses_nothing(store):
    """While apply rewrites old days, a writer keeps writing today's partition; every run it wrote is there after."""
    for days_ago in range(31, 41):
        write_run(store, days_ago)
    written: list[str] = []
    stop = threading.Event()

    def writer() -> None:
        while not stop.is_set() or len(written) < 3:
            written.append(write_run(store, 0))

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        report = apply(store, now=NOW)
    finally:
        stop.set()
        thread.join()
    tiers = tiers_of(store)
    assert (report.status, len(report.days)) == ("done", 10)
    assert {run: tiers[run] for run in written} == {run: ["full"] * 3 for run in written}


def test_a_file_written_into_a_day_during_its_rewrite_is_left_alone(store):
    """A late writer adding a file to the very day being rewritten loses nothing: only listed objects are deleted."""
    old = write_run(store, 40)
    late: list[str] = []

    def hook(phase: str, day) -> None:
        if phase == "written":
            late.append(write_run(store, 40))

    apply(store, now=NOW, on_phase=hook)
    assert tiers_of(store) == {old: ["digest"] * 3, late[0]: ["full"] * 3}
    assert apply(store, now=NOW, full_scan=True).days[0].rows == {"digest": 3}


def test_a_corrupt_file_makes_the_run_partial_and_the_next_run_retries_it(store):
    """One unreadable day does not stop the others; it is reported, and retried by the next (incremental) run."""
    good, bad_run = write_run(store, 41), write_run(store, 40)
    bad_day = (NOW - timedelta(days=40)).date().isoformat()
    store.put(f"handoffs/dt={bad_day}/broken-000001.parquet", b"not parquet")
    report = apply(store, now=NOW)
    assert (report.status, [e["day"] for e in report.errors]) == ("partial", [bad_day])
    assert report.errors[0]["error"].startswith("corrupt Parquet file")
    assert read_state(store)["retry_days"] == [bad_day]
    store.delete(f"handoffs/dt={bad_day}/broken-000001.parquet")
    assert tiers_of(store) == {good: ["digest"] * 3, bad_run: ["full"] * 3}
    again = apply(store, now=NOW)
    assert (again.status, again.scan, tiers_of(store)[bad_run]) == ("done", "incremental", ["digest"] * 3)


_KILLED_JOB = """
import os, signal, sys
from datetime import datetime
from handoff.retention.job import apply
from handoff.store import open_store

def hook(phase, day):
    if phase == "written":
        os.kill(os.getpid(), signal.SIGKILL)

apply(open_store(sys.argv[1]), now=datetime.fromisoformat(sys.argv[2]), on_phase=hook)
"""


def test_a_job_killed_with_sigkill_is_completed_by_the_next_run(store, tmp_path):
    """A SIGKILL between the write and delete phases leaves a journal and a lock; the next run takes the dead pid's lock, finishes."""
    old = write_run(store, 40)
    script = tmp_path / "job.py"
    script.write_text(_KILLED_JOB, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), store.url, NOW.isoformat()], capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    assert (store.exists(LOCK_KEY), len(keys(store, JOURNAL_PREFIX))) == (True, 1)
    report = apply(store, now=NOW)
    assert (report.status, [r["action"] for r in report.recovered]) == ("done", ["rolled back"])
    assert (report.lock_taken_over["host"], report.lock_taken_over["pid"] != os.getpid()) == (
        socket.gethostname(),
        True,
    )
    assert tiers_of(store) == {old: ["digest"] * 3}
    assert rows(store, "SELECT count(*) AS n FROM raw_handoffs")[0]["n"] == 3
    assert store.exists(LOCK_KEY) is False
