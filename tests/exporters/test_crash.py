"""A recording process SIGKILLed mid-write loses nothing it flushed and leaves nothing half-written in sight."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from click.testing import CliRunner

from handoff.cli import main
from handoff.queries import connect, query
from handoff.store import open_store

#: Records runs of 20 handoffs forever, printing each run id once ``handoff.flush()`` has returned.
WRITER = textwrap.dedent(
    """
    import sys
    import handoff

    handoff.configure(store=sys.argv[1], scrub=False, flush_interval_s=0.02, max_batch=25)
    n = 0
    while True:
        with handoff.run("crash", n=str(n)) as run:
            for i in range(20):
                with handoff.record("price", from_="compress") as h:
                    h.input(f"brief {n}/{i} " + "x" * 3000)
                    h.output(f"total {n}/{i}")
        handoff.flush(60)
        print(run.run_id, flush=True)
        n += 1
    """
)

#: Starts, records nothing, flushes: the spool of the previous process is sent first.
NEXT_START = "import handoff, sys; handoff.configure(store=sys.argv[1], scrub=False); print(handoff.flush(60))"


def kill_after(store_url: str, flushed: int, env: dict[str, str]) -> list[str]:
    """Run the writer, SIGKILL it once ``flushed`` runs were confirmed, and return the confirmed run ids."""
    process = subprocess.Popen([sys.executable, "-c", WRITER, store_url], stdout=subprocess.PIPE, text=True, env=env)
    confirmed = [process.stdout.readline().strip() for _ in range(flushed)]
    process.send_signal(signal.SIGKILL)
    process.wait(30)
    assert process.returncode == -signal.SIGKILL
    return confirmed


def handoffs_per_run(store_url: str, run_ids: list[str]) -> dict[str, int]:
    """Count each run's handoffs through the query views (a partial Parquet file would make this fail)."""
    rows = query(connect(open_store(store_url)), "SELECT run_id, count(*) AS n FROM handoffs GROUP BY run_id")
    found = {row["run_id"]: row["n"] for row in rows}
    return {run_id: found.get(run_id, 0) for run_id in run_ids}


def fsck_json(store_url: str, *extra: str) -> tuple[int, dict]:
    result = CliRunner().invoke(main, ["fsck", "--store", store_url, "--temp-min-age", "0s", "--json", *extra])
    return result.exit_code, json.loads(result.output)


def test_sigkill_mid_write_keeps_every_flushed_run_and_no_partial_file(tmp_path, spool_dir, writer_mode):
    """Every run flushed before the kill is complete in the store, and fsck --repair leaves it clean."""
    store_url = str(tmp_path / "store")
    confirmed = kill_after(store_url, 4, dict(os.environ))
    counts = handoffs_per_run(store_url, confirmed)
    code, report = fsck_json(store_url, "--repair")
    assert counts == dict.fromkeys(confirmed, 20)
    assert (code, report["counts"]) == (0, {})
    assert not [p for p in Path(store_url).rglob("*") if p.name.startswith(".tmp-")]


def test_what_a_killed_process_spooled_is_completed_by_the_next_process(
    fault_proxy, s3_url, moto_endpoint, spool_dir, writer_mode
):
    """With S3 failing, flushed runs sit in the spool; after a SIGKILL the next process to start sends them."""
    fault_proxy.fail(503)
    failing = {**os.environ, "AWS_ENDPOINT_URL": fault_proxy.url, "HANDOFF_S3_MAX_ATTEMPTS": "1"}
    confirmed = kill_after(s3_url, 3, failing)
    assert handoffs_per_run(s3_url, confirmed) == dict.fromkeys(confirmed, 0)
    started = subprocess.run(
        [sys.executable, "-c", NEXT_START, s3_url], capture_output=True, text=True, env=dict(os.environ)
    )
    code, report = fsck_json(s3_url)
    assert (started.stdout.strip(), handoffs_per_run(s3_url, confirmed)) == ("True", dict.fromkeys(confirmed, 20))
    assert (code, report["counts"]) == (0, {})
