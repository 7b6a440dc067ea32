"""Compaction merges a day's small files into one, without a reader ever missing or doubling a row."""

from __future__ import annotations

import threading
from datetime import date, datetime, timedelta, timezone

from handoff.queries import connect, query
from handoff.store.compact import compact, partitions
from handoff.store.tables import encode_parquet, read_file, to_table

TODAY = datetime.now(timezone.utc).date()


def handoff_rows(runs: range, per_run: int = 3, tier: str = "full") -> list[dict]:
    """Digest rows for ``runs`` runs of ``per_run`` handoffs each."""
    ts = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)
    return [
        {
            "run_id": f"run_{r:04d}",
            "handoff_id": f"hf-{h}",
            "seq": h,
            "to_step": "price",
            "attempt": 1,
            "ts": ts,
            "tier": tier,
        }
        for r in runs
        for h in range(1, per_run + 1)
    ]


def put_file(store, table: str, day: str, n: int, rows: list[dict]) -> str:
    """Write one small file the way a writer would; return its key."""
    key = f"{table}/dt={day}/w{n % 7}-{n:06d}.parquet"
    store.put(key, encode_parquet(to_table(table, rows)))
    return key


def test_a_days_files_become_one_file_sorted_by_run_id(store):
    """Five small files of a day are merged into one holding every row, ordered by run id."""
    for n, runs in enumerate([range(8, 10), range(0, 2), range(4, 6), range(2, 4), range(6, 8)]):
        put_file(store, "handoffs", "2026-11-29", n, handoff_rows(runs))
    (result,) = compact(store, grace_s=0)
    (only,) = partitions(store, "handoffs")["2026-11-29"]
    run_ids = read_file(store, only.key, columns=["run_id"])["run_id"].to_pylist()
    assert (result.files_in, result.rows_in, result.rows_out, only.key) == (5, 30, 30, result.key)
    assert run_ids == sorted(run_ids) and len(set(run_ids)) == 10


def test_duplicates_are_merged_keeping_the_row_the_views_prefer(store):
    """A run stored twice (start and end records) keeps only its latest record after compaction."""
    start = {
        "run_id": "run_1",
        "name": "invoice",
        "status": "running",
        "recorded_ts": datetime(2026, 11, 29, 12, tzinfo=timezone.utc),
    }
    end = {**start, "status": "ok", "recorded_ts": datetime(2026, 11, 29, 12, 5, tzinfo=timezone.utc)}
    put_file(store, "runs", "2026-11-29", 1, [end])
    put_file(store, "runs", "2026-11-29", 2, [start])
    (result,) = compact(store, grace_s=0)
    assert (result.rows_in, result.rows_out) == (2, 1)
    assert query(connect(store), "SELECT status FROM runs") == [{"status": "ok"}]


def test_a_compacted_day_holds_exactly_the_rows_the_views_show(store):
    """After compaction each table's raw files hold every row once, the copy the views show, even on a day of one file."""
    day, ts = "2026-11-29", datetime(2026, 11, 29, 12, tzinfo=timezone.utc)
    start = {"run_id": "run_0000", "name": "invoice", "status": "running", "start_ts": ts, "recorded_ts": ts}
    end = {**start, "status": "ok", "end_ts": ts, "recorded_ts": ts}  # same instant: the end row must still win
    put_file(store, "runs", day, 1, [start, end])  # one flush wrote both rows into one file
    rows = handoff_rows(range(2), per_run=2)
    put_file(store, "handoffs", day, 2, rows)
    put_file(store, "handoffs", day, 3, rows)  # a retried batch
    put_file(store, "handoffs", day, 4, [{**row, "tier": "digest"} for row in rows])  # retention's rewrite
    event = {"run_id": "run_0000", "handoff_id": "hf-1", "ts": ts, "kind": "fallback", "name": "rag-conv-empty"}
    put_file(store, "events", day, 5, [event, event])
    check = {
        "run_id": "run_0000",
        "handoff_id": "hf-2",
        "ts": ts,
        "check": "edge-constraints",
        "status": "pass",
        "checked_ts": ts,
    }
    put_file(store, "checks", day, 6, [check, check])
    results = compact(store, grace_s=0)
    con = connect(store)
    shown = {
        table: query(
            con,
            f"SELECT (SELECT count(*) FROM raw_{table}) AS raw, (SELECT count(*) FROM {table}) AS view, "
            f"(SELECT count(*) FROM (SELECT * FROM raw_{table} EXCEPT ALL SELECT * FROM {table})) AS extra",
        )[0]
        for table in ("handoffs", "runs", "events", "checks")
    }
    assert sorted((r.table, r.files_in, r.rows_in, r.rows_out) for r in results) == [
        ("checks", 1, 2, 1),
        ("events", 1, 2, 1),
        ("handoffs", 3, 12, 4),
        ("runs", 1, 2, 1),
    ]
    assert shown == {
        "handoffs": {"raw": 4, "view": 4, "extra": 0},
        "runs": {"raw": 1, "view": 1, "extra": 0},
        "events": {"raw": 1, "view": 1, "extra": 0},
        "checks": {"raw": 1, "view": 1, "extra": 0},
    }
    assert query(con, "SELECT DISTINCT tier FROM raw_handoffs") + query(con, "SELECT status FROM raw_runs") == [
        {"tier": "digest"},
        {"status": "ok"},
    ]


def test_a_compacted_file_alone_in_its_day_is_not_read_again(local_store):
    """A day holding one file without duplicates, or one compacted file, is left as it is."""
    put_file(local_store, "runs", "2026-11-28", 1, [{"run_id": "run_1", "status": "ok"}])
    for n in range(2):
        put_file(local_store, "handoffs", "2026-11-29", n, handoff_rows(range(n, n + 1)))
    first = compact(local_store, grace_s=0)
    assert ([(r.table, r.day) for r in first], compact(local_store, grace_s=0)) == ([("handoffs", "2026-11-29")], [])


def test_day_and_older_than_select_partitions(local_store):
    """--day compacts that day only; --older-than leaves recent partitions alone; one-file days are skipped."""
    old, recent = (TODAY - timedelta(days=5)).isoformat(), TODAY.isoformat()
    for n in range(2):
        put_file(local_store, "handoffs", old, n, handoff_rows(range(n, n + 1)))
        put_file(local_store, "handoffs", recent, 10 + n, handoff_rows(range(n, n + 1)))
    put_file(local_store, "runs", old, 20, [{"run_id": "run_1"}])
    by_age = compact(local_store, older_than=timedelta(days=1), grace_s=0)
    by_day = compact(local_store, day=date.fromisoformat(recent), grace_s=0)
    assert ([(r.table, r.day) for r in by_age], [(r.table, r.day) for r in by_day]) == (
        [("handoffs", old)],
        [("handoffs", recent)],
    )


def test_content_files_are_left_alone_so_refs_keep_resolving(local_store):
    """The content table is never compacted: handoff rows name their content file."""
    put_file(
        local_store,
        "content",
        "2026-11-29",
        1,
        [{"run_id": "run_1", "handoff_id": "hf-1", "side": "in", "content": b"a"}],
    )
    put_file(
        local_store,
        "content",
        "2026-11-29",
        2,
        [{"run_id": "run_2", "handoff_id": "hf-1", "side": "in", "content": b"b"}],
    )
    assert (compact(local_store, grace_s=0), len(partitions(local_store, "content")["2026-11-29"])) == ([], 2)


VANISHED = ("Cannot open file", "NO_SUCH_KEY", "RESOURCE_NOT_FOUND", "No such file")
MAX_ATTEMPTS = 20


def count_rows(store) -> tuple[tuple[int, int], int]:
    """Count rows and distinct keys in a fresh connection, as a CLI command does; return them and the retries needed.

    A query whose file listing raced the deletion of a merged-away small file fails loudly,
    never with a wrong answer; listing again finds the merged file (while deletions are still
    under way another small file may vanish, hence a few attempts).
    """
    for attempt in range(MAX_ATTEMPTS):
        try:
            rows = query(
                connect(store), "SELECT count(*) AS n, count(DISTINCT run_id || handoff_id) AS d FROM handoffs"
            )
            return (rows[0]["n"], rows[0]["d"]), attempt
        except Exception as exc:  # noqa: BLE001
            if attempt == MAX_ATTEMPTS - 1 or not any(mark in str(exc) for mark in VANISHED):
                raise
    raise AssertionError("unreachable")


def test_a_reader_during_compaction_never_misses_or_doubles_a_row(store):
    """Queries running while partitions are compacted count every row exactly once (a read racing a delete retries once)."""
    for n in range(30):
        put_file(store, "handoffs", "2026-11-29", n, handoff_rows(range(n * 2, n * 2 + 2)))
    for n in range(30):
        put_file(store, "handoffs", "2026-11-28", 100 + n, handoff_rows(range(1000 + n, 1001 + n)))
    seen: list[tuple[int, int]] = []
    errors: list[Exception] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set() or len(seen) < 3:
            try:
                counts, _retries = count_rows(store)
            except Exception as exc:  # noqa: BLE001 - a read failing twice is a failure of the promise too
                errors.append(exc)
                return
            seen.append(counts)

    reader = threading.Thread(target=read)
    reader.start()
    results = compact(store, grace_s=2)
    done.set()
    reader.join(60)
    files_left = {day: len(files) for day, files in partitions(store, "handoffs").items()}
    assert [(r.day, r.rows_out) for r in results] == [("2026-11-28", 90), ("2026-11-29", 180)]
    assert (errors, set(seen), files_left) == ([], {(270, 270)}, {"2026-11-28": 1, "2026-11-29": 1})
