"""`handoff status`, `handoff compact` and `handoff fsck`: exact lines, JSON and exit codes."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

import handoff
from handoff.cli import main
from handoff.exporters.spool import Spool
from tests.exporters.test_spool import broken_store, record_handoffs
from tests.store.test_compact import handoff_rows, put_file

# fresh_recorder (autouse): default settings and a spool of its own for every test, recorder shut down after.
from tests.store.test_fsck import fresh_recorder, keys, record  # noqa: F401


def test_handoff_status_shows_counters_of_other_processes_and_the_spool(tmp_path, spool_dir):
    """`handoff status` in another process reports each writer's counters and what waits in the spool."""
    import json

    from click.testing import CliRunner

    from handoff.cli import main

    store = broken_store(tmp_path)
    handoff.configure(store=str(store), scrub=False, spool_dir=str(spool_dir))
    record_handoffs(3)
    handoff.flush(10)
    result = CliRunner().invoke(main, ["status", "--store", str(store), "--spool-dir", str(spool_dir), "--json"])
    payload = json.loads(result.output)
    assert (result.exit_code, payload["spool"]["pending_batches"], payload["totals"]) == (
        0,
        1,
        {
            "enqueued": 5,
            "written": 0,
            "spooled": 5,
            "spilled": 0,
            "retried": 0,
            "dropped": 0,
            "export_failures": 1,
            "encode_errors": 0,
            "span_errors": 0,
        },
    )
    assert [(p["pid"], p["alive"]) for p in payload["processes"]] == [(os.getpid(), True)]


def test_cli_compact_reports_what_it_merged(local_store):
    """`handoff compact --day D` prints one line per merged partition and exits 0."""
    for n in range(3):
        put_file(local_store, "handoffs", "2026-11-29", n, handoff_rows(range(n, n + 1)))
    result = CliRunner().invoke(
        main, ["compact", "--day", "2026-11-29", "--grace", "0s", "--store", str(local_store.root), "--json"]
    )
    assert result.exit_code == 0
    assert [(r["table"], r["files_in"], r["rows_out"]) for r in __import__("json").loads(result.output)] == [
        ("handoffs", 3, 9)
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--older-than", "soon"], "Error: bad duration 'soon': use a number and a unit, e.g. 90s, 15m, 24h, 7d"),
        (["--day", "2026-11-29", "--older-than", "1d"], "Error: give either day or older_than, not both"),
    ],
)
def test_cli_compact_rejects_bad_arguments_with_one_line(local_store, args, message):
    """Bad options end in one `Error:` line and exit status 1."""
    local_store.root.mkdir(parents=True)  # a store that does not exist is an error of its own
    result = CliRunner().invoke(main, ["compact", *args, "--store", str(local_store.root)])
    assert (result.exit_code, result.output.strip().splitlines()[-1]) == (1, message)


def test_cli_fsck_exits_nonzero_with_a_summary_when_something_is_wrong(local_store):
    """`handoff fsck` prints each problem and a summary line, and exits 1."""
    record(local_store.url, 2)
    (content,) = keys(local_store, "content")
    local_store.delete(content)
    result = CliRunner().invoke(main, ["fsck", "--since", "7d", "--store", str(local_store.root)])
    lines = result.output.strip().splitlines()
    assert (result.exit_code, len(lines), lines[-1]) == (
        1,
        5,
        f"{local_store.url}: 2 files, 2 handoffs, 4 refs checked: PROBLEMS missing-ref 4",
    )


def test_cli_fsck_repair_uploads_the_spool_first(tmp_path, spool_dir):
    """Records spooled while the store was down are uploaded by `handoff fsck --repair`, leaving a clean store."""
    store_path = tmp_path / "store"
    store_path.write_text("blocks the directory")
    run_id = record(str(store_path), 5)
    handoff.shutdown(10)
    store_path.unlink()
    before = CliRunner().invoke(main, ["fsck", "--store", str(store_path), "--json"])
    after = CliRunner().invoke(main, ["fsck", "--repair", "--store", str(store_path), "--json"])
    report = json.loads(after.output)
    assert (before.exit_code, json.loads(before.output)["counts"]) == (1, {"spooled": 1})
    assert (after.exit_code, report["repaired"], report["handoffs"]) == (0, ["uploaded 7 spooled records"], 5)
    assert Spool(str(store_path), root=spool_dir).pending() == []
    shown = CliRunner().invoke(main, ["runs", "show", run_id, "--store", str(store_path), "--json"])
    assert shown.exit_code == 0
