"""What `retention apply` costs when one day expires: a 36-day store against a 365-day store.

Both stores (local directories, or buckets on a loopback S3 API server) are written directly with :func:`handoff.store.tables.write_table`
(``runs_per_day`` runs of three handoffs a day, one handoffs, content and runs file per day),
in the state a daily job leaves them: days older than 30 are digest rows without content.
Each store gets one untimed-for-the-claim first ``apply`` the day before (the first run lists
every partition; its time is reported as ``first_run_s``), then the timed ``apply`` at ``now``,
where exactly one day crosses the 30-day boundary; between repeats the expiring day and the
job's state are put back as they were. Run::

    python -m bench.retention_cost            # local directory
    python -m bench.retention_cost s3         # S3 API (a moto server on loopback; needs the test extra)
"""

from __future__ import annotations

import hashlib
import json
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

NOW = datetime(2026, 11, 29, 3, 17, tzinfo=timezone.utc)
FULL_DAYS = 30
STEPS = (("extract", "validate"), ("validate", "orchestrator.compress_v3"), ("orchestrator.compress_v3", "price"))


def _day_rows(
    day: datetime, runs_per_day: int, full: bool, content_key: str
) -> tuple[list[dict], list[dict], list[dict]]:
    handoffs, content, runs = [], [], []
    for n in range(runs_per_day):
        ts = day + timedelta(seconds=n * 60)
        run_id = f"run_{day:%Y%m%d}{n:06d}"
        runs.append(
            {
                "run_id": run_id,
                "name": "invoice",
                "start_ts": ts,
                "end_ts": ts + timedelta(seconds=3),
                "status": "ok",
                "attributes": {},
                "recorded_ts": ts,
                "writer": "bench",
            }
        )
        for seq, (source, target) in enumerate(STEPS, start=1):
            body = f"{run_id} {target} surcharge 9.1% per clause 7.2(b) ".encode() * 40
            digest = hashlib.sha256(body).hexdigest()
            row = {
                "run_id": run_id,
                "handoff_id": f"hf-{seq}",
                "seq": seq,
                "from_step": source,
                "to_step": target,
                "kind": "agent",
                "ts": ts + timedelta(seconds=seq),
                "duration_ms": 10.0,
                "status": "ok",
                "input_sha256": digest,
                "output_sha256": digest,
                "input_bytes": len(body),
                "output_bytes": len(body),
                "input_tokens": len(body) // 4,
                "output_tokens": len(body) // 4,
                "input_constraints": ["clause:7.2(b)", "percent:9.1"],
                "output_constraints": ["percent:9.1"],
                "tier": "full" if full else "digest",
                "attributes": {},
                "schema_version": 1,
            }
            if full:
                for side in ("in", "out"):
                    row[f"{'input' if side == 'in' else 'output'}_ref"] = f"{content_key}#{run_id}/hf-{seq}/{side}"
                    content.append(
                        {
                            "run_id": run_id,
                            "handoff_id": f"hf-{seq}",
                            "side": side,
                            "ts": row["ts"],
                            "content": body,
                            "content_type": "text/plain",
                        }
                    )
            handoffs.append(row)
    return handoffs, content, runs


def build_store(store, days: int, runs_per_day: int, now: datetime = NOW):
    """Write ``days`` days ending at ``now`` into an empty ``store``; return it."""
    from handoff.store.layout import table_key
    from handoff.store.tables import to_table, write_table

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


def _snapshot(store, prefixes: list[str]) -> dict[str, bytes]:
    return {info.key: store.get(info.key) for prefix in prefixes for info in store.list(prefix)}


def _restore(store, prefixes: list[str], saved: dict[str, bytes]) -> None:
    """Put the expiring day and the job's state back as they were before the timed apply."""
    for prefix in prefixes:
        for info in list(store.list(prefix)):
            if info.key not in saved:
                store.delete(info.key)
    for key, data in saved.items():
        store.put(key, data)


def _store_size(store) -> tuple[int, int]:
    infos = [info for info in store.list("") if not info.key.startswith("_")]
    return len(infos), sum(info.size for info in infos)


class _Case:
    """One store, settled by a first apply the day before, ready for timed applies at ``NOW``."""

    def __init__(self, store, days: int, runs_per_day: int) -> None:
        from handoff.retention.job import STATE_KEY, apply

        self.store, self.days = store, days
        build_store(store, days, runs_per_day)
        started = time.perf_counter()
        apply(store, now=NOW - timedelta(days=1))
        self.first_run_s = time.perf_counter() - started
        expiring = (NOW.date() - timedelta(days=FULL_DAYS + 1)).isoformat()
        self.prefixes = [f"{table}/dt={expiring}/" for table in ("handoffs", "content", "blobs")] + [STATE_KEY]
        self.saved = _snapshot(store, self.prefixes)
        self.objects, self.bytes = _store_size(store)
        self.timings: list[float] = []
        self.report = None

    def time_apply(self) -> None:
        """Time one apply at ``NOW`` (one day expires), then put the day back."""
        from handoff.retention.job import apply

        started = time.perf_counter()
        self.report = apply(self.store, now=NOW)
        self.timings.append(time.perf_counter() - started)
        _restore(self.store, self.prefixes, self.saved)

    def figures(self) -> dict[str, Any]:
        """Return the case's figures."""
        return {
            "days": self.days,
            "objects": self.objects,
            "bytes": self.bytes,
            "first_run_s": round(self.first_run_s, 3),
            "apply_s": round(statistics.median(self.timings), 4),
            "apply_s_all": [round(t, 4) for t in self.timings],
            "days_listed": self.report.days_listed,
            "days_changed": len(self.report.days),
            "rows_moved": self.report.totals(),
        }


def _stores(backend: str, work: Path):
    """Yield a factory of empty stores on ``backend`` (``local``, or ``s3`` on a loopback moto server)."""
    from handoff.store import LocalObjectStore

    if backend == "local":
        return lambda name: LocalObjectStore(work / name)
    import logging
    import os
    import socket

    import boto3
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False).start()
    endpoint = f"http://127.0.0.1:{port}"
    for name, value in {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
    }.items():
        os.environ[name] = value
    from handoff.store.s3 import S3ObjectStore

    def make(name: str):
        bucket = name.replace("_", "-").lower()
        boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=bucket)
        return S3ObjectStore(bucket, "traces")

    return make


def measure(
    days_small: int = 36, days_large: int = 365, runs_per_day: int = 200, repeats: int = 5, backend: str = "local"
) -> dict[str, Any]:
    """Time ``apply`` with one expiring day on a ``days_small`` store and a ``days_large`` store."""
    with tempfile.TemporaryDirectory(prefix="handoff-retention-bench-") as tmp:
        make = _stores(backend, Path(tmp))
        cases = [_Case(make(f"bench-{days}-days"), days, runs_per_day) for days in (days_small, days_large)]
        for _ in range(repeats):
            for case in cases:  # alternate, so drift in the machine's load hits both alike
                case.time_apply()
        small, large = (case.figures() for case in cases)
    return {
        "backend": backend,
        "runs_per_day": runs_per_day,
        "handoffs_per_day": runs_per_day * len(STEPS),
        "small": small,
        "large": large,
        "store_ratio": round(large["bytes"] / small["bytes"], 2),
        "apply_ratio": round(large["apply_s"] / small["apply_s"], 2),
    }


if __name__ == "__main__":
    import sys

    print(json.dumps(measure(backend=sys.argv[1] if len(sys.argv) > 1 else "local"), indent=2))
