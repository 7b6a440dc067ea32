"""`handoff retention show|plan|apply`, `handoff pin|unpin`, and the investigation commands on the digest tier."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from click.testing import CliRunner

from handoff.cli import main
from handoff.retention.lock import RetentionLock
from handoff.store import LocalObjectStore
from tests.retention._data import NOW, tiers_of, write_run

NOW_ARG = ["--now", NOW.isoformat()]


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_show_prints_the_effective_policy():
    """`retention show --json` prints the default tiers a platform team is about to apply."""
    result = invoke("retention", "show", "--json")
    assert result.exit_code == 0
    assert [(t["name"], t["max_age_days"]) for t in json.loads(result.output)["tiers"]] == [
        ("full", 30),
        ("digest", 365),
    ]


def test_show_reads_a_policy_file_and_lists_overrides(tmp_path):
    """`retention show --policy FILE` prints the file's tiers and each override's match."""
    path = tmp_path / "retention.toml"
    path.write_text(
        '[[tier]]\nname = "full"\nmax_age = "7d"\n[[override]]\nrun_status = "error"\ntier = "full"\nmax_age = "90d"\n'
    )
    result = invoke("retention", "show", "--policy", str(path))
    assert result.exit_code == 0
    assert "run_status=error" in result.output and "90d" in result.output and "7d" in result.output


def test_plan_and_apply_report_rows_per_tier_and_apply_exits_0(local_store):
    """`plan --json` predicts, `apply --json` does, and exits 0; a second apply has nothing to do."""
    run = write_run(local_store, 40)
    store = ["--store", local_store.url]
    planned = invoke("retention", "plan", *store, *NOW_ARG, "--json")
    assert (planned.exit_code, json.loads(planned.output)["tiers"]) == (0, {"digest": {"rows": 3, "days": 1}})
    applied = invoke("retention", "apply", *store, *NOW_ARG, "--json")
    data = json.loads(applied.output)
    assert (applied.exit_code, data["status"], data["tiers"]) == (0, "done", {"digest": {"rows": 3, "days": 1}})
    assert tiers_of(local_store) == {run: ["digest"] * 3}
    again = invoke("retention", "apply", *store, *NOW_ARG)
    assert again.exit_code == 0
    assert again.output.startswith("nothing to do at 2026-11-29T03:17:00+00:00 (incremental scan")


def test_apply_exits_2_with_one_line_when_another_job_holds_the_lock(local_store):
    """A cron wrapper sees exit 2 and a one-line `Error:` when another job runs."""
    write_run(local_store, 40)
    with RetentionLock(local_store):
        result = CliRunner().invoke(main, ["retention", "apply", "--store", local_store.url, *NOW_ARG])
    assert result.exit_code == 2
    assert result.output.startswith("Error: another retention job holds ")
    assert result.output.count("\n") == 1


def test_apply_exits_3_when_some_days_failed(local_store):
    """A day that cannot be read makes the run partial: exit 3, the other days still applied."""
    write_run(local_store, 41)
    day = (NOW - timedelta(days=40)).date().isoformat()
    local_store.put(f"handoffs/dt={day}/broken-000001.parquet", b"not parquet")
    result = CliRunner().invoke(main, ["retention", "apply", "--store", local_store.url, *NOW_ARG, "--json"])
    assert result.exit_code == 3
    assert json.loads(result.stdout)["status"] == "partial"


def test_apply_exits_1_with_one_line_on_a_bad_policy_or_time(local_store, tmp_path):
    """A bad policy file or `--now` is an `Error:` line with exit 1, before the store is touched."""
    path = tmp_path / "bad.toml"
    path.write_text('[[tier]]\nname = "full"\n')
    bad_policy = CliRunner().invoke(main, ["retention", "apply", "--store", local_store.url, "--policy", str(path)])
    assert (bad_policy.exit_code, bad_policy.output) == (
        1,
        f"Error: bad retention policy {path}: every [[tier]] needs name and max_age\n",
    )
    bad_now = CliRunner().invoke(main, ["retention", "plan", "--store", local_store.url, "--now", "next tuesday"])
    assert (bad_now.exit_code, bad_now.output) == (
        1,
        "Error: bad --now 'next tuesday': use an ISO timestamp such as 2027-01-15T03:00:00Z\n",
    )


def test_pin_and_unpin_commands_keep_and_release_content(local_store):
    """`handoff pin RUN --reason` keeps a run's content through apply; `unpin` lets the next apply drop it."""
    run = write_run(local_store, 40)
    store = ["--store", local_store.url]
    pinned = invoke("pin", run, "--reason", "INV-88214 incident", "--by", "oncall", *store)
    assert (pinned.exit_code, pinned.output) == (0, f"pinned {run} by oncall: INV-88214 incident\n")
    invoke("retention", "apply", *store, *NOW_ARG)
    assert tiers_of(local_store) == {run: ["full"] * 3}
    unpinned = invoke("unpin", run, "--reason", "closed", "--by", "oncall", *store, "--json")
    assert json.loads(unpinned.output)["kind"] == "unpin"
    invoke("retention", "apply", *store, "--now", (NOW + timedelta(hours=1)).isoformat())
    assert tiers_of(local_store) == {run: ["digest"] * 3}


def test_runs_show_works_on_the_digest_tier(local_store):
    """`handoff runs show` still lists every handoff with digests and tokens after content is dropped."""
    run = write_run(local_store, 40)
    invoke("retention", "apply", "--store", local_store.url, *NOW_ARG)
    result = invoke("runs", "show", run, "--store", local_store.url, "--json")
    data = json.loads(result.output)
    assert result.exit_code == 0
    assert [(h["tier"], h["input_ref"], h["input_tokens"]) for h in data["handoffs"]] == [
        ("digest", None, 9),
        ("digest", None, 25),
        ("digest", None, 12),
    ]


def test_diff_runs_answers_on_the_digest_tier(local_store):
    """`handoff diff --runs` still says which edge changed between two runs after their content is gone."""
    lossy, faithful = write_run(local_store, 40), write_run(local_store, 40, lossy=False)
    invoke("retention", "apply", "--store", local_store.url, *NOW_ARG)
    assert set(tiers_of(local_store)[lossy]) == {"digest"}
    result = invoke("diff", "--runs", lossy, faithful, "--store", local_store.url, "--json")
    edges = [(e["to"], e["input"], e["output"]) for e in json.loads(result.output)]
    assert edges == [
        ("validate", "same", "same"),
        ("orchestrator.compress_v3", "same", "changed"),
        ("price", "changed", "same"),
    ]


def test_blast_radius_answers_on_the_digest_tier(local_store):
    """`handoff blast-radius` finds every run with the same constraint loss from digest rows alone."""
    incident, other, clean = (
        write_run(local_store, 40),
        write_run(local_store, 41),
        write_run(local_store, 42, lossy=False),
    )
    invoke("retention", "apply", "--store", local_store.url, *NOW_ARG)
    assert set(tiers_of(local_store)[incident]) == {"digest"}
    result = invoke("blast-radius", incident, "hf-2", "--store", local_store.url, "--json")
    assert result.exit_code == 0
    assert sorted(m["run_id"] for m in json.loads(result.output)) == sorted([incident, other])
    assert clean not in result.output


def test_plan_and_apply_work_on_the_demo_store(tmp_path):
    """On the demo store, rehearsed 40 days ahead, every demo handoff moves to the digest tier and INV-88214 still reads."""
    import handoff
    from handoff.demo import run_demo

    path = str(tmp_path / "demo")
    handoff.configure(scrub=False)
    runs = run_demo(path)
    handoff.shutdown()
    later = ["--store", path, "--now", (datetime.now(timezone.utc) + timedelta(days=40)).isoformat()]
    planned = json.loads(invoke("retention", "plan", *later, "--json").output)
    count = sum(len(tiers) for tiers in tiers_of(LocalObjectStore(path)).values())
    assert planned["tiers"] == {"digest": {"rows": count, "days": planned["tiers"]["digest"]["days"]}}
    applied = invoke("retention", "apply", *later, "--json")
    assert (applied.exit_code, json.loads(applied.output)["tiers"]) == (0, planned["tiers"])
    assert {tier for tiers in tiers_of(LocalObjectStore(path)).values() for tier in tiers} == {"digest"}
    shown = invoke("runs", "show", runs["INV-88214"], "--store", path)
    assert shown.exit_code == 0 and "orchestrator.compress_v3" in shown.output


def test_a_missing_local_store_is_an_error_not_a_new_store(tmp_path):
    """A mistyped --store path fails with one line instead of creating an empty store."""
    missing = tmp_path / "typo"
    result = CliRunner().invoke(main, ["retention", "apply", "--store", str(missing)])
    expected = f"Error: no store at {missing} (run `handoff demo`, or set --store / HANDOFF_STORE)\n"
    assert (result.exit_code, result.output) == (1, expected)
    assert missing.exists() is False
