"""The writer process: it takes the work out of the application, and losing it loses nothing."""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import time

import pytest
from click.testing import CliRunner

import handoff
from handoff.capture.recorder import writer_status
from handoff.cli import main
from handoff.queries import connect, query
from handoff.store import open_store
from handoff.store.fsck import fsck


@pytest.fixture(autouse=True)
def process_writer(monkeypatch):
    """These tests are about the default: the writer process."""
    monkeypatch.delenv("HANDOFF_WRITER")


def record(count: int, name: str = "proc", payload: str = "brief {n} for INV-88214") -> str:
    """Record ``count`` handoffs in one run; return its run id."""
    with handoff.run(name) as run:
        for n in range(count):
            with handoff.record("price", from_="compress") as h:
                h.input(payload.format(n=n))
                h.output(f"total {n}")
    return run.run_id


def handoffs(store: str, run_id: str) -> list[int]:
    """The seq of every handoff row of ``run_id`` the views show, in order."""
    rows = query(connect(open_store(store)), "SELECT seq FROM handoffs WHERE run_id = ? ORDER BY seq", [run_id])
    return [row["seq"] for row in rows]


def wait_for(condition, timeout_s: float = 60.0) -> None:
    """Poll ``condition`` until it holds (the writer works in the background)."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_default_writer_is_a_process_of_its_own(tmp_path, spool_dir):
    """Without configuration the writer runs in another process, which `handoff status` names."""
    store = str(tmp_path / "store")
    handoff.configure(store=store, scrub=False)
    run_id = record(3)
    assert handoff.flush(60) is True
    status = writer_status()
    assert (status["mode"], status["worker_restarts"], status["worker_pid"] not in (None, os.getpid())) == (
        "process",
        0,
        True,
    )
    assert handoffs(store, run_id) == [1, 2, 3]


def test_handoff_writer_thread_keeps_the_work_in_the_application(tmp_path, spool_dir, monkeypatch):
    """HANDOFF_WRITER=thread selects the writer thread; a bad value is logged and the default kept."""
    monkeypatch.setenv("HANDOFF_WRITER", "thread")
    handoff.configure(store=str(tmp_path / "store"), scrub=False)
    record(1)
    assert (handoff.flush(30), writer_status()["mode"]) == (True, "thread")
    from handoff.config import settings_from_env

    monkeypatch.setenv("HANDOFF_WRITER", "fork")
    assert settings_from_env().writer == "process"
    with pytest.raises(ValueError, match="writer must be one of process, thread"):
        handoff.configure(writer="fork")


def test_a_killed_worker_is_restarted_and_nothing_handed_over_is_lost(tmp_path, spool_dir):
    """A SIGKILLed writer process is restarted once, every record arrives (true duplicates at worst); status shows it."""
    store = str(tmp_path / "store")
    handoff.configure(store=store, scrub=False, flush_interval_s=30, max_batch=100_000)
    first = record(5, "before")
    assert handoff.flush(60) is True
    pid = writer_status()["worker_pid"]
    second = record(40, "in-flight")
    wait_for(lambda: writer_status()["queued"] == 42 and writer_status()["counters"]["enqueued"] == 49)
    time.sleep(0.5)  # let the sender hand the batch over: the worker holds it, unwritten (30 s interval)
    os.kill(pid, signal.SIGKILL)
    assert handoff.flush(120) is True
    status = writer_status()
    report = fsck(open_store(store))
    assert (handoffs(store, first), handoffs(store, second)) == ([1, 2, 3, 4, 5], list(range(1, 41)))
    assert (
        status["worker_restarts"],
        status["worker_pid"] != pid,
        status["counters"]["dropped"],
        set(report.counts()) <= {"duplicate"},
    ) == (1, True, 0, True)
    shown = CliRunner().invoke(main, ["status", "--store", store, "--spool-dir", str(spool_dir), "--json"])
    mine = [p for p in json.loads(shown.output)["processes"] if p["pid"] == os.getpid()]
    assert [(p["mode"], p["worker_pid"], p["worker_restarts"], p["counters"]["dropped"]) for p in mine] == [
        ("process", status["worker_pid"], 1, 0)
    ]


def test_where_no_process_can_start_the_thread_writer_takes_over(tmp_path, spool_dir, monkeypatch, caplog):
    """With no interpreter to start, records go to the writer thread instead, logged once, none lost."""
    monkeypatch.setattr(sys, "executable", "")
    store = str(tmp_path / "store")
    handoff.configure(store=store, scrub=False)
    with caplog.at_level(logging.WARNING):
        run_id = record(4)
        assert handoff.flush(60) is True
    warnings = [r.getMessage() for r in caplog.records if "writer process" in r.getMessage()]
    assert (writer_status()["mode"], handoffs(store, run_id)) == ("thread", [1, 2, 3, 4])
    assert warnings == [
        "handoff: cannot start the writer process (no Python interpreter to start (sys.executable is empty)); "
        "writing on a thread instead"
    ]


def test_past_the_memory_bound_raw_records_spill_encrypted_and_all_arrive(tmp_path, spool_dir):
    """Over max_queue_bytes the application spills to disk encrypted (no raw payload readable there), and every record is written."""
    store = str(tmp_path / "store")
    handoff.configure(store=store, scrub=False, max_queue_bytes=400_000, flush_interval_s=30, max_batch=100_000)
    secret = "jane.doe@example.com {n} " + "x" * 9000
    run_id = record(60, payload=secret)
    wait_for(lambda: writer_status()["counters"]["spilled"] > 0)
    raw_dir = spool_dir / next(p.name for p in spool_dir.iterdir()) / "raw"
    on_disk = b"".join(path.read_bytes() for path in raw_dir.iterdir())
    assert handoff.flush(120) is True
    counters = writer_status()["counters"]
    assert (b"jane.doe" in on_disk, counters["dropped"], counters["written"], handoffs(store, run_id)) == (
        False,
        0,
        62,
        list(range(1, 61)),
    )
    assert sorted(raw_dir.iterdir()) == []


def test_flush_is_false_when_records_were_dropped(tmp_path, spool_dir):
    """A record dropped since the last flush makes flush() return False; the next flush, with nothing dropped, is True."""
    handoff.configure(store=str(tmp_path / "store"), scrub=False, max_queue=2, spool_max_bytes=0, flush_interval_s=30)
    record(30)
    assert handoff.flush(60) is False
    dropped = handoff.stats()["dropped"]
    assert (dropped > 0, handoff.flush(60)) == (True, True)


def test_a_pool_writes_the_same_rows_in_the_same_order(tmp_path, spool_dir):
    """With a pool of two analysis processes the stored rows and their order equal the pool-less writer's."""
    stores = {}
    for pool in (1, 2):
        store = str(tmp_path / f"store-{pool}")
        handoff.configure(
            store=store, scrub=True, scrub_key="k" * 32, writer_pool=pool, max_batch=100_000, flush_interval_s=30
        )
        run_id = record(40, payload="line {n}: $1,{n:03d}.50 per clause 7.2(b), contact jane.doe@example.com")
        assert handoff.flush(180) is True
        stores[pool] = query(
            connect(open_store(store)),
            "SELECT seq, input_constraints, c.content FROM handoffs h "
            "JOIN content c ON c.run_id = h.run_id AND c.handoff_id = h.handoff_id AND c.side = 'in' "
            "WHERE h.run_id = ? ORDER BY h.seq",
            [run_id],
        )
        handoff.shutdown(30)
    assert stores[1] == stores[2] and len(stores[1]) == 40
    assert b"jane.doe" not in stores[2][0]["content"]


def test_the_writer_process_runs_at_a_lower_priority_than_the_app(tmp_path, spool_dir):
    """The worker lowers its own priority, so on a busy machine the application's threads win the CPU."""
    from handoff.exporters.worker import NICENESS

    handoff.configure(store=str(tmp_path / "store"), scrub=False)
    record(2)
    assert handoff.flush(60) is True
    worker = writer_status()["worker_pid"]
    app = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, worker) == min(app + NICENESS, 19)
