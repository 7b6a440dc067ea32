"""Several processes writing one S3 store at once: every row lands exactly once and every ref resolves."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from handoff.queries import connect, query
from handoff.store import open_store
from handoff.store.fsck import fsck

PROCESSES = 4
HANDOFFS = 1_000

#: One process: one run of HANDOFFS small handoffs, written in many small batches, then its run id.
WRITER = textwrap.dedent(
    """
    import sys
    import handoff

    handoff.configure(store=sys.argv[1], scrub=False, flush_interval_s=0.05, max_batch=100)
    with handoff.run("concurrency", writer=sys.argv[2]) as run:
        for i in range(int(sys.argv[3])):
            with handoff.record("price", from_="compress") as h:
                h.input(f"writer {sys.argv[2]} brief {i}")
                h.output(f"total {i}")
    assert handoff.flush(120)
    print(run.run_id, handoff.stats()["written"], handoff.stats()["dropped"])
    """
)


def test_four_processes_writing_at_once_store_every_row_exactly_once(s3_url, spool_dir, writer_mode):
    """4 processes x 1,000 handoffs into one bucket: 4,000 rows, no duplicate, every content ref resolves."""
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, s3_url, str(n), str(HANDOFFS)],
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        for n in range(PROCESSES)
    ]
    outputs = [process.communicate(timeout=180)[0].split() for process in processes]
    store = open_store(s3_url)
    totals = query(
        connect(store),
        "SELECT count(*) AS n, count(DISTINCT (run_id, handoff_id, attempt)) AS distinct_keys,"
        " count(DISTINCT run_id) AS runs FROM raw_handoffs",
    )
    report = fsck(store)
    assert [(int(written), int(dropped)) for _run, written, dropped in outputs] == [(HANDOFFS + 2, 0)] * PROCESSES
    assert totals == [{"n": 4000, "distinct_keys": 4000, "runs": 4}]
    assert (report.ok, report.handoffs, report.refs) == (True, 4000, 8000)


def test_a_forked_child_writes_under_its_own_name_and_loses_nothing_of_the_parents(tmp_path, spool_dir, writer_mode):
    """After fork, parent and child both keep recording into one store without overwriting each other's files."""
    import handoff
    from handoff.config import reset_settings

    reset_settings()
    store_url = str(tmp_path / "store")
    handoff.configure(store=store_url, scrub=False)

    def record(name: str) -> None:
        with handoff.run(name):
            with handoff.record("price", from_="compress") as h:
                h.input(f"{name} brief")
        assert handoff.flush(30)

    try:
        record("before-fork")
        pid = os.fork()
        if pid == 0:
            try:
                record("child")
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        record("parent-after-fork")
        names = query(connect(open_store(store_url)), "SELECT name FROM runs ORDER BY name")
    finally:
        handoff.shutdown(10)
        reset_settings()
    assert [row["name"] for row in names] == ["before-fork", "child", "parent-after-fork"]


def test_a_child_forked_inside_a_run_continues_it_with_ids_that_cannot_collide(tmp_path, spool_dir, writer_mode):
    """Parent and child both record into one open run after fork: every handoff id is distinct and fsck is clean."""
    import handoff
    from handoff.config import reset_settings

    reset_settings()
    store_url = str(tmp_path / "store")
    handoff.configure(store=store_url, scrub=False)

    def record(who: str) -> None:
        for n in range(3):
            with handoff.record("price", from_="compress") as h:
                h.input(f"{who} brief {n}")

    try:
        with handoff.run("forked") as run:
            record("parent-before")
            pid = os.fork()
            if pid == 0:
                try:
                    record("child")
                    handoff.flush(30)
                finally:
                    os._exit(0)
            os.waitpid(pid, 0)
            record("parent-after")
        assert handoff.flush(30)
        rows = query(
            connect(open_store(store_url)), "SELECT handoff_id FROM raw_handoffs WHERE run_id = ?", [run.run_id]
        )
        report = fsck(open_store(store_url))
    finally:
        handoff.shutdown(10)
        reset_settings()
    ids = sorted(row["handoff_id"] for row in rows)
    child = [hid for hid in ids if hid.count("-") == 2]
    assert (len(ids), len(set(ids)), len(child), report.counts()) == (9, 9, 3, {})
    assert sorted(hid.rsplit("-", 1)[1] for hid in child) == ["1", "2", "3"]
