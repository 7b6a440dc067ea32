"""Corruption is contained: one bad file costs its own rows, never the whole store.

Issue 13: one truncated Parquet file made every query of the store fail, a foreign file under
`handoffs/` broke every command with a Binder Error naming no file, and `fsck --repair` left
both in place. Now readers skip such a file with one warning line naming it, `fsck` names it
and exits 1, and `fsck --repair` moves it to `_quarantine/` and says how to restore it.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from handoff.cli import main
from handoff.diagnostics import forget_warnings
from handoff.queries import connect
from handoff.queries.db import query
from handoff.store import open_store
from handoff.store.fsck import fsck
from handoff.store.tables import read_file
from tests.retention._data import write_run

HANDOFF_CLI = str(Path(sys.executable).with_name("handoff"))


def _handoff_files(store) -> list[str]:
    return sorted(info.key for info in store.list("handoffs/") if info.key.endswith(".parquet"))


def _truncate(store, key: str) -> None:
    data = store.get(key)
    store.put(key, data[: len(data) // 2])


def _foreign(store, day_key: str) -> str:
    """Drop a valid Parquet file of someone else's schema into the same day partition; return its key."""
    key = day_key.rsplit("/", 1)[0] + "/aaa-notes.parquet"
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"note": ["exported by hand"], "n": [1]}), sink)
    store.put(key, sink.getvalue().to_pybytes())
    return key


def _run_ids(store) -> list[str]:
    return sorted(row["run_id"] for row in query(connect(store), "SELECT run_id FROM runs"))


@pytest.fixture
def two_runs(store):
    """A store (local and S3) with two runs written in separate batches: two handoffs files in one day."""
    first, second = write_run(store, 1), write_run(store, 1)
    return store, first, second


@pytest.mark.parametrize("damage", ["truncated", "foreign"])
def test_readers_skip_a_bad_file_and_answer_from_the_rest(two_runs, caplog, damage):
    """With one handoffs file truncated, or a foreign file beside it, the other run's handoffs still read; one warning names the file.

    A foreign file on S3 is read through the dataset's schema, so it yields no rows and no
    warning there (fsck names it: see below).
    """
    store, first, second = two_runs
    files = _handoff_files(store)
    kept = {row["run_id"] for row in read_file(store, files[1], columns=["run_id"]).to_pylist()}
    if damage == "truncated":
        bad = files[0]
        _truncate(store, bad)
    else:
        bad = _foreign(store, files[0])
        kept = {first, second}
    forget_warnings()
    with caplog.at_level(logging.WARNING, logger="handoff"):
        rows = query(connect(store), "SELECT run_id, count(*) AS n FROM handoffs GROUP BY run_id")
    assert {row["run_id"]: row["n"] for row in rows} == {run: 3 for run in kept}
    warnings = [r.getMessage() for r in caplog.records if "skipped unreadable file" in r.getMessage()]
    if damage == "foreign" and store.local_path("") is None:
        assert warnings == []
    else:
        assert len(warnings) == 1 and warnings[0].startswith(f"skipped unreadable file {store.uri(bad)}: ")


def test_the_cli_prints_one_warning_line_and_the_runs(local_store):
    """`runs list` with a truncated runs file exits 0, lists both runs (one known from its handoffs only), warns once."""
    first, second = write_run(local_store, 0), write_run(local_store, 0)
    bad = [info.key for info in local_store.list("runs/")][0]
    _truncate(local_store, bad)
    result = subprocess.run(
        [HANDOFF_CLI, "runs", "list", "--store", str(local_store.root), "--json"], capture_output=True, text=True
    )
    listed = [run["run_id"] for run in json.loads(result.stdout)]
    assert (result.returncode, sorted(listed)) == (0, sorted([first, second]))
    assert result.stderr.splitlines() == [
        f"skipped unreadable file {local_store.uri(bad)}: not readable as Parquet: Parquet magic bytes not found in footer. "
        "Either the file is corrupted or this is not a parquet file. (see `handoff fsck`)"
    ]


def test_a_foreign_file_no_longer_breaks_runs_show(local_store):
    """`handoff runs show` works with a foreign Parquet file in the handoffs partition (it gave a Binder Error)."""
    run = write_run(local_store, 0)
    _foreign(local_store, _handoff_files(local_store)[0])
    result = CliRunner().invoke(main, ["runs", "show", run, "--store", str(local_store.root), "--json"])
    assert (result.exit_code, len(json.loads(result.stdout)["handoffs"])) == (0, 3)


def test_fsck_names_the_file_and_exits_1_then_repair_quarantines_it(local_store):
    """`fsck` exits 1 naming the truncated and the foreign file; `--repair` moves both to _quarantine/ with restore instructions."""
    write_run(local_store, 0)
    write_run(local_store, 0)
    truncated = _handoff_files(local_store)[1]
    _truncate(local_store, truncated)
    foreign = _foreign(local_store, truncated)
    root = str(local_store.root)
    checked = CliRunner().invoke(main, ["fsck", "--store", root])
    lines = checked.output.splitlines()
    assert checked.exit_code == 1
    assert [line.split(": ")[0:2] for line in lines[:2]] == [
        ["corrupt-file", local_store.uri(foreign)],
        ["corrupt-file", local_store.uri(truncated)],
    ]
    assert lines[1].startswith(f"corrupt-file: {local_store.uri(truncated)}: not readable as Parquet: ")
    assert lines[0] == f"corrupt-file: {local_store.uri(foreign)}: not a handoffs file: no column 'run_id'"
    repaired = CliRunner().invoke(main, ["fsck", "--repair", "--store", root])
    assert repaired.output.splitlines()[:2] == [
        f"repaired: quarantined {local_store.uri(key)} to {local_store.uri('_quarantine/' + key)} (to restore it, move it back to {key})"
        for key in (foreign, truncated)
    ]
    assert (
        local_store.exists(truncated),
        local_store.exists("_quarantine/" + truncated),
        local_store.exists("_quarantine/" + foreign),
    ) == (False, True, True)
    again = CliRunner().invoke(main, ["fsck", "--store", root])
    assert again.exit_code == 0 and again.output.rstrip().endswith(": clean")


def test_fsck_finds_a_foreign_file_in_any_table(store):
    """A foreign file in the events table (read with no columns before) is named by fsck, on both backends."""
    write_run(store, 0)
    key = [info.key for info in store.list("runs/")][0].replace("runs/", "events/")
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({"x": [1]}), sink)
    store.put(key, sink.getvalue().to_pybytes())
    report = fsck(store)
    assert [(p.kind, p.where, p.detail) for p in report.problems] == [
        ("corrupt-file", store.uri(key), "not a events file: no column 'run_id'")
    ]


def test_a_quarantined_file_can_be_moved_back(local_store):
    """Quarantine keeps the file's exact bytes; moving it back to its key, as the repair line says, puts it where it was."""
    write_run(local_store, 0)
    key = [info.key for info in local_store.list("runs/")][0]
    _truncate(local_store, key)
    damaged = local_store.get(key)
    fsck(local_store, repair=True)
    assert (local_store.exists(key), local_store.get("_quarantine/" + key)) == (False, damaged)
    local_store.put(key, local_store.get("_quarantine/" + key))
    local_store.delete("_quarantine/" + key)
    assert [(p.kind, p.where) for p in fsck(local_store).problems] == [("corrupt-file", local_store.uri(key))]


def test_old_schema_rows_still_read_while_a_truncated_file_is_left_out(tmp_path, caplog):
    """A schema-1 file on an older day reads with the new columns null; a truncated file beside it costs only itself, one warning."""
    from tests.queries.test_verdict_checks import _by_version, _old_copy, _record

    store = str(tmp_path / "store")
    _record(store)
    (new_file,) = (tmp_path / "store" / "handoffs").glob("dt=*/*.parquet")
    older = tmp_path / "store" / "handoffs" / "dt=2020-01-01"
    older.mkdir()
    pq.write_table(_old_copy(new_file, "a"), older / "a.parquet")
    data = new_file.read_bytes()
    (new_file.parent / "zz-truncated.parquet").write_bytes(data[: len(data) // 2])
    bad = f"handoffs/{new_file.parent.name}/zz-truncated.parquet"
    forget_warnings()
    with caplog.at_level(logging.WARNING, logger="handoff"):
        rows = _by_version(store)
    assert rows == [
        {"schema_version": 1, "n": 9, "verdicts": 0, "judged": 0, "broken": 1},
        {"schema_version": 2, "n": 9, "verdicts": 3, "judged": 9, "broken": 1},
    ]
    warnings = [r.getMessage() for r in caplog.records if "skipped unreadable file" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].startswith(f"skipped unreadable file {open_store(store).uri(bad)}: ")


def test_an_old_schema_file_is_not_reported_by_fsck(tmp_path):
    """`fsck` does not call a file of an older schema version corrupt (it holds a prefix of today's columns)."""
    from tests.queries.test_verdict_checks import _old_copy, _record

    store = str(tmp_path / "store")
    _record(store)
    (new_file,) = (tmp_path / "store" / "handoffs").glob("dt=*/*.parquet")
    pq.write_table(_old_copy(new_file, "a"), new_file.parent / "old-writer.parquet")
    result = CliRunner().invoke(main, ["fsck", "--store", store])
    assert "corrupt-file" not in result.output and result.exit_code == 0
