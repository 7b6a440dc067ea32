"""The spool: prepared batches kept on local disk while the store is down, and sent first later."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

import handoff
from handoff.config import reset_settings
from handoff.errors import CorruptFile
from handoff.exporters.spool import Backoff, Spool, deliver
from handoff.queries import connect, query
from handoff.store.base import PendingObject
from handoff.store.local import LocalObjectStore


@pytest.fixture(autouse=True)
def fresh_recorder():
    """Every test starts and ends with no recorder and default settings."""
    reset_settings()
    yield
    handoff.shutdown(10)
    reset_settings()


def record_handoffs(count: int, run_name: str = "spool-test", payload: str = "brief {n}") -> str:
    """Record ``count`` handoffs in one run; return its run id."""
    with handoff.run(run_name) as run:
        for n in range(count):
            with handoff.record("price", from_="compress") as h:
                h.input(payload.format(n=n))
                h.output(f"total {n}")
    return run.run_id


def stored_handoffs(store_path: Path, run_id: str) -> int:
    """Count the handoff rows of ``run_id`` the query views see."""
    return query(
        connect(LocalObjectStore(store_path)), "SELECT count(*) AS n FROM handoffs WHERE run_id = ?", [run_id]
    )[0]["n"]


def broken_store(tmp_path: Path) -> Path:
    """A store path that cannot be written: a regular file stands where its directory should be."""
    path = tmp_path / "store"
    path.write_text("not a directory")
    return path


def heal(path: Path) -> None:
    """Make a broken store path writable again."""
    path.unlink()


def objects(*pairs: tuple[str, bytes]) -> list[PendingObject]:
    return [PendingObject(key, data) for key, data in pairs]


def test_a_spooled_batch_reads_back_with_its_record_count(tmp_path):
    """What is spooled comes back as the same keys, bytes and record count."""
    spool = Spool("s3://bucket/p", root=tmp_path)
    assert spool.put(objects(("content/a", b"\x00c"), ("handoffs/a", b"h")), records=2) is True
    (path,) = spool.pending()
    assert spool.load(path) == (objects(("content/a", b"\x00c"), ("handoffs/a", b"h")), 2)


def test_batches_come_back_oldest_first(tmp_path):
    """Pending batches are listed in the order they were spooled."""
    spool = Spool("s3://bucket/p", root=tmp_path)
    for n in range(5):
        spool.put(objects((f"k{n}", b"x")), records=1)
    assert [spool.load(path)[0][0].key for path in spool.pending()] == ["k0", "k1", "k2", "k3", "k4"]


def test_each_store_gets_its_own_spool_directory(tmp_path):
    """Two stores sharing a spool root never see each other's batches."""
    first, second = Spool("s3://a/p", root=tmp_path), Spool("s3://b/p", root=tmp_path)
    first.put(objects(("k", b"x")), records=1)
    assert (len(first.pending()), len(second.pending()), (first.directory / "store.txt").read_text()) == (
        1,
        0,
        "s3://a/p\n",
    )


def test_a_full_spool_refuses_a_batch_and_writes_nothing(tmp_path):
    """A batch that would take the spool past max_bytes is refused; the spool stays as it was."""
    spool = Spool("s3://bucket/p", root=tmp_path, max_bytes=300)
    assert spool.put(objects(("k", b"x" * 100)), records=1) is True
    assert spool.put(objects(("k2", b"x" * 100)), records=1) is False
    assert len(spool.pending()) == 1


def test_a_corrupt_batch_is_moved_aside(tmp_path):
    """A batch whose bytes do not match their digests is set aside under corrupt/, not delivered."""
    spool = Spool("s3://bucket/p", root=tmp_path)
    spool.put(objects(("k", b"payload")), records=1)
    (path,) = spool.pending()
    path.write_bytes(path.read_bytes()[:-3] + b"XYZ")
    with pytest.raises(CorruptFile, match="does not match its digest"):
        spool.load(path)
    assert (spool.pending(), sorted(os.listdir(spool.directory / "corrupt"))) == ([], [path.name])


def test_temp_files_of_dead_processes_are_cleaned(tmp_path):
    """A half-written batch left by a crashed process is removed; live processes' temp files stay."""
    spool = Spool("s3://bucket/p", root=tmp_path)
    spool.put(objects(("k", b"x")), records=1)
    dead = spool.batches / ".tmp-999999999-abcd-1.spool"
    live = spool.batches / f".tmp-{os.getpid()}-abcd-2.spool"
    dead.write_bytes(b"half")
    live.write_bytes(b"half")
    assert (spool.clean_temp(), sorted(p.name for p in spool.batches.iterdir() if p.name.startswith("."))) == (
        1,
        [live.name],
    )


def test_deliver_sends_batches_in_order_and_stops_at_the_first_failure(tmp_path):
    """Delivery is oldest first; a failure leaves that batch and the later ones spooled."""
    spool = Spool("s3://bucket/p", root=tmp_path)
    for n in range(3):
        spool.put(objects((f"k{n}", b"x")), records=10)
    written: list[str] = []

    def write(batch):
        if batch[0].key == "k1":
            raise OSError("store down")
        written.extend(o.key for o in batch)

    with pytest.raises(OSError):
        deliver(spool, write)
    assert (written, [spool.load(p)[0][0].key for p in spool.pending()]) == (["k0"], ["k1", "k2"])


def test_backoff_grows_exponentially_with_jitter_and_is_capped():
    """Delays double per failure, jittered between half and all of the step, never above max_s."""
    backoff = Backoff(base_s=1.0, max_s=5.0, rng=random.Random(7))
    delays = [backoff.failed(now=0.0) for _ in range(5)]
    steps = [1.0, 2.0, 4.0, 5.0, 5.0]
    assert all(step / 2 <= delay <= step for delay, step in zip(delays, steps))
    assert len(set(delays)) == 5
    backoff.succeeded()
    assert (backoff.failures, backoff.due(now=0.0)) == (0, True)


def test_records_made_while_the_store_is_down_arrive_after_it_recovers(tmp_path, spool_dir):
    """With the store unwritable the app is unaffected, records are spooled, and a later flush delivers all of them."""
    store = broken_store(tmp_path)
    handoff.configure(store=str(store), scrub=False, spool_dir=str(spool_dir))
    run_id = record_handoffs(20)
    assert handoff.flush(10) is True
    down = handoff.stats()
    heal(store)
    assert handoff.flush(10) is True
    up = handoff.stats()
    assert ((down["spooled"], down["written"], down["dropped"]), (up["written"], up["retried"], up["dropped"])) == (
        (22, 0, 0),
        (22, 22, 0),
    )
    assert stored_handoffs(store, run_id) == 20


def test_spooled_data_is_sent_first_by_the_next_process(tmp_path, spool_dir):
    """A recorder that starts with data in the spool delivers it before anything new."""
    store = broken_store(tmp_path)
    handoff.configure(store=str(store), scrub=False, spool_dir=str(spool_dir))
    old_run = record_handoffs(5)
    handoff.shutdown(10)
    heal(store)
    reset_settings()
    handoff.configure(store=str(store), scrub=False, spool_dir=str(spool_dir))
    new_run = record_handoffs(1)
    assert handoff.flush(10) is True
    assert (stored_handoffs(store, old_run), stored_handoffs(store, new_run), handoff.stats()["retried"]) == (5, 1, 7)
    assert Spool(str(store), root=spool_dir).pending() == []


def test_when_the_spool_is_full_records_are_dropped_counted_and_logged(tmp_path, spool_dir, caplog):
    """Drops happen only when the spool is full, and each is counted and warned about once."""
    store = broken_store(tmp_path)
    handoff.configure(store=str(store), scrub=False, spool_dir=str(spool_dir), spool_max_bytes=10)
    record_handoffs(3)
    handoff.flush(10)
    assert (handoff.stats()["spooled"], handoff.stats()["dropped"]) == (0, 5)
    assert [r.getMessage() for r in caplog.records if "dropping" in r.getMessage()] == [
        "handoff: dropping records because the spool is full or cannot be written (see `handoff status`)"
    ]


def test_the_spool_holds_scrubbed_content_never_the_raw_payload(tmp_path, spool_dir):
    """What waits on local disk has already been scrubbed: the raw e-mail address is not in it."""
    store = broken_store(tmp_path)
    handoff.configure(store=str(store), scrub=True, scrub_key="k" * 32, spool_dir=str(spool_dir))
    record_handoffs(1, payload="contact jane.doe@example.com about INV-88214 {n}")
    handoff.flush(30)
    spool = Spool(str(store), root=spool_dir)
    (path,) = spool.pending()
    raw = path.read_bytes()
    content = b"".join(o.data for o in spool.load(path)[0])
    assert (b"jane.doe@example.com" in raw, handoff.stats()["spooled"]) == (False, 3)
    assert b"jane.doe" not in content


def test_each_process_publishes_its_counters_for_handoff_status(tmp_path, spool_dir):
    """After a flush the process's counters are in a status file another process can read."""
    store = tmp_path / "store"
    handoff.configure(store=str(store), scrub=False, spool_dir=str(spool_dir))
    record_handoffs(4)
    handoff.flush(10)
    (status,) = Spool(str(store), root=spool_dir).read_statuses()
    assert (status["pid"], status["alive"], status["counters"]["written"], status["queued"]) == (
        os.getpid(),
        True,
        6,
        0,
    )


def test_status_files_of_long_gone_processes_are_pruned(tmp_path):
    """A status file of a process that exited over a day ago is removed; a recent one stays for `handoff status`."""
    import json
    import socket
    import time

    spool = Spool("s3://bucket/p", root=tmp_path)
    spool.write_status({"pid": os.getpid(), "host": socket.gethostname(), "updated": time.time()})
    host = socket.gethostname()
    for pid, age_s in ((999999998, 2 * 86400), (999999999, 60)):
        (spool.status_dir / f"{host}-{pid}.json").write_text(
            json.dumps({"pid": pid, "host": host, "updated": time.time() - age_s})
        )
    assert (spool.prune_statuses(), sorted(s["pid"] for s in spool.read_statuses())) == (
        1,
        sorted([os.getpid(), 999999999]),
    )
