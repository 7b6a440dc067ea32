"""What `retention apply` costs when one day expires: a 36-day store against a 365-day store.

Both stores are local directories written directly with :func:`handoff.store.tables.write_table`
(``runs_per_day`` runs of three handoffs a day, one handoffs, content and runs file per day),
in the state a daily job leaves them: days older than 30 are digest rows without content.
Each store gets one untimed-for-the-claim first ``apply`` the day before (the first run lists
every partition; its time is reported as ``first_run_s``), then the timed ``apply`` at ``now``,
where exactly one day crosses the 30-day boundary. Run::

    python -m bench.retention_cost            # or: python bench/retention_cost.py
"""

from __future__ import annotations

import hashlib
import json
import shutil
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

NOW = datetime(2026, 11, 29, 3, 17, tzinfo=timezone.utc)
FULL_DAYS = 30
STEPS = (("extract", "validate"), ("validate", "orchestrator.compress_v3"), ("orchestrator.compress_v3", "price"))


def _day_rows(day: datetime, runs_per_day: int, full: bool, content_key: str) -> tuple[list[dict], list[dict], list[dict]]:
    handoffs, content, runs = [], [], []
    for n in range(runs_per_day):
        ts = day + timedelta(seconds=n * 60)
        run_id = f"run_{day:%Y%m%d}{n:06d}"
        runs.append({"run_id": run_id, "name": "invoice", "start_ts": ts, "end_ts": ts + timedelta(seconds=3), "status": "ok", "attributes": {}, "recorded_ts": ts, "writer": "bench"})
        for seq, (source, target) in enumerate(STEPS, start=1):
            body = f"{run_id} {target} surcharge 9.1% per clause 7.2(b) ".encode() * 40
            digest = hashlib.sha256(body).hexdigest()
            row = {"run_id": run_id, "handoff_id": f"hf-{seq}", "seq": seq, "from_step": source, "to_step": target, "kind": "agent",
                   "ts": ts + timedelta(seconds=seq), "duration_ms": 10.0, "status": "ok", "input_sha256": digest, "output_sha256": digest,
                   "input_bytes": len(body), "output_bytes": len(body), "input_tokens": len(body) // 4, "output_tokens": len(body) // 4,
                   "input_constraints": ["clause:7.2(b)", "percent:9.1"], "output_constraints": ["percent:9.1"],
                   "tier": "full" if full else "digest", "attributes": {}, "schema_version": 1}
            if full:
                for side in ("in", "out"):
                    row[f"{'input' if side == 'in' else 'output'}_ref"] = f"{content_key}#{run_id}/hf-{seq}/{side}"
                    content.append({"run_id": run_id, "handoff_id": f"hf-{seq}", "side": side, "ts": row["ts"], "content": body, "content_type": "text/plain"})
            handoffs.append(row)
    return handoffs, content, runs


def build_store(root: Path, days: int, runs_per_day: int, now: datetime = NOW):
    """Write ``days`` days ending at ``now`` into a fresh local store at ``root``; return the store."""
    from handoff.store import LocalObjectStore
    from handoff.store.layout import table_key
    from handoff.store.tables import to_table, write_table

    shutil.rmtree(root, ignore_errors=True)
    store = LocalObjectStore(root)
    for age in range(days):
        day = (now - timedelta(days=age)).replace(hour=1, minute=0, second=0, microsecond=0)
        stamp = day.strftime("%Y-%m-%d")
        full = age <= FULL_DAYS + 1  # the day 31 days back is still full: it is the one that expires at ``now``
        handoffs, content, runs = _day_rows(day, runs_per_day, full, table_key("content", stamp, "bench", 1))
        if content:
            write_table(store, "content", stamp, "bench", 1, to_table("content", content))
        write_table(store, "handoffs", stamp, "bench", 2, to_table("handoffs", handoffs))
        write_table(store, "runs", stamp, "bench", 3, to_table("runs", runs))
    return store


def _store_size(root: Path) -> tuple[int, int]:
    files = [path for path in root.rglob("*") if path.is_file()]
    return len(files), sum(path.stat().st_size for path in files)


def _one(days: int, runs_per_day: int, repeats: int, work: Path) -> dict[str, Any]:
    from handoff.retention.job import apply
    from handoff.store import LocalObjectStore

    base = work / f"days-{days}"
    store = build_store(base, days, runs_per_day)
    started = time.perf_counter()
    apply(store, now=NOW - timedelta(days=1))
    first_run_s = time.perf_counter() - started
    objects, size = _store_size(base)
    timings, report = [], None
    for n in range(repeats):
        copy = work / f"days-{days}-run{n}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(base, copy)
        started = time.perf_counter()
        report = apply(LocalObjectStore(copy), now=NOW)
        timings.append(time.perf_counter() - started)
        shutil.rmtree(copy)
    return {
        "days": days,
        "objects": objects,
        "bytes": size,
        "first_run_s": round(first_run_s, 3),
        "apply_s": round(statistics.median(timings), 4),
        "apply_s_all": [round(t, 4) for t in timings],
        "days_listed": report.days_listed,
        "days_changed": len(report.days),
        "rows_moved": report.totals(),
    }


def measure(days_small: int = 36, days_large: int = 365, runs_per_day: int = 200, repeats: int = 5) -> dict[str, Any]:
    """Time ``apply`` with one expiring day on a ``days_small`` store and a ``days_large`` store."""
    with tempfile.TemporaryDirectory(prefix="handoff-retention-bench-") as tmp:
        small = _one(days_small, runs_per_day, repeats, Path(tmp))
        large = _one(days_large, runs_per_day, repeats, Path(tmp))
    return {
        "runs_per_day": runs_per_day,
        "handoffs_per_day": runs_per_day * len(STEPS),
        "small": small,
        "large": large,
        "store_ratio": round(large["bytes"] / small["bytes"], 2),
        "apply_ratio": round(large["apply_s"] / small["apply_s"], 2),
    }


if __name__ == "__main__":
    print(json.dumps(measure(), indent=2))
