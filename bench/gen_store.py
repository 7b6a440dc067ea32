"""Generate a large store fast: Parquet written directly, plus the SQLite and per-step-JSON baselines.

The population mirrors the demo pipeline: runs of eight handoffs (extract, validate, the
``orchestrator.compress_v3`` transform, price, write, notify, audit, ledger) spread evenly over
``days`` days ending now, a few files per day sorted by run id, as compaction leaves them.
About one run in a hundred carries the INV-88214 fault: the compressor's output drops
``clause:7.2(b)`` and the base qualifier at an output/input ratio of 0.18. Rows older than
30 days are digest tier (no content refs), as retention leaves them; no content rows are
written (none of the measured queries reads content). Generation is deterministic and cached
under ``bench/_work``: a store is rebuilt only when its sizes or :data:`GENERATOR_VERSION` change.
"""

from __future__ import annotations

import json
import pathlib
import random
import shutil
import sqlite3
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timedelta, timezone
from typing import Any

GENERATOR_VERSION = 3
HANDOFFS_PER_RUN = 8
FILES_PER_DAY = 4
FAULT_EVERY = 97
FULL_TIER_DAYS = 30
WRITER = "bench-gen"

#: (from_step, to_step, kind, model, typical input bytes, typical output/input ratio)
PIPELINE = (
    ("invoice", "extract", "agent", "claude-haiku-4", 18_000, 0.35),
    ("extract", "validate", "agent", "claude-sonnet-4", 6_300, 1.4),
    ("validate", "orchestrator.compress_v3", "transform", None, 8_800, 0.42),
    ("orchestrator.compress_v3", "price", "agent", "claude-sonnet-4", 3_700, 0.3),
    ("price", "write", "agent", "claude-haiku-4", 1_100, 1.8),
    ("write", "notify", "tool", None, 2_000, 0.1),
    ("notify", "audit", "verifier", "claude-haiku-4", 2_600, 0.2),
    ("audit", "ledger", "tool", None, 500, 0.05),
)
_BASE_CONSTRAINTS = ["id:INV-{inv}", "money:USD{sub}", "percent:9.5", "percent:9.1", "clause:7.2"]
_FAULT_TOKENS = ["clause:7.2(b)", "qualifier:base is the rebated subtotal", "qualifier:per 7.2(b)"]
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _ulid(ts_ms: int, rng: random.Random) -> str:
    value = (ts_ms << 80) | rng.getrandbits(80)
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def _hex(rng: random.Random, bits: int) -> str:
    return format(rng.getrandbits(bits), f"0{bits // 4}x")


def _constraints(step: int, inv: str, sub: str, faulty: bool) -> tuple[list[str], list[str]]:
    base = [token.format(inv=inv, sub=sub) for token in _BASE_CONSTRAINTS]
    full = sorted(base + _FAULT_TOKENS)
    if step in (1, 2):
        return (full, full) if step == 2 else (base, full)
    if step == 3:
        return full, (sorted(base) if faulty else full)
    if step == 4:
        return (sorted(base) if faulty else full), [f"id:INV-{inv}", f"money:USD{sub}"]
    return [f"id:INV-{inv}"], [f"id:INV-{inv}"]


def _handoff_row(
    run: dict[str, Any], step: int, rng: random.Random, ts_us: int, full_tier: bool, day: str
) -> dict[str, Any]:
    from_step, to_step, kind, model, in_bytes, ratio = PIPELINE[step - 1]
    faulty = run["faulty"]
    in_bytes = int(in_bytes * rng.uniform(0.8, 1.25))
    if step == 3 and faulty:
        ratio = 0.18
    out_bytes = max(40, int(in_bytes * ratio * rng.uniform(0.9, 1.1)))
    ins, outs = _constraints(step, run["invoice"], run["subtotal"], faulty)
    content_key = f"content/dt={day}/{WRITER}-{run['file']:06d}.parquet"
    config = {"model": model, "prompt_pack": "receivables@v7", "template": f"{to_step}@c03d5e8"} if model else None
    return {
        "run_id": run["run_id"],
        "handoff_id": f"hf-{step}",
        "seq": step,
        "from_step": from_step,
        "to_step": to_step,
        "kind": kind,
        "parent_handoff_id": f"hf-{step - 1}" if step > 1 else None,
        "fan_in": [],
        "ts": ts_us,
        "duration_ms": rng.uniform(200, 9000) if kind == "agent" else rng.uniform(0.2, 40),
        "status": "ok",
        "error_type": None,
        "error_message": None,
        "input_ref": f"{content_key}#{run['run_id']}/hf-{step}/in" if full_tier else None,
        "output_ref": f"{content_key}#{run['run_id']}/hf-{step}/out" if full_tier else None,
        "input_sha256": _hex(rng, 256),
        "output_sha256": _hex(rng, 256),
        "digest_alg": "sha256",
        "input_bytes": in_bytes,
        "output_bytes": out_bytes,
        "input_content_type": "text/plain; charset=utf-8",
        "output_content_type": "text/plain; charset=utf-8",
        "input_tokens": -(-in_bytes // 4),
        "output_tokens": -(-out_bytes // 4),
        "tokens_estimated": True,
        "model": model,
        "effort": "high" if model else None,
        "prompt_pack": "receivables@v7" if model else None,
        "template": f"{to_step}@c03d5e8" if model else None,
        "config": json.dumps(config, sort_keys=True) if config else None,
        "attempt": 1,
        "retry_of": None,
        "trace_id": run["trace_id"],
        "span_id": _hex(rng, 64),
        "input_constraints": ins,
        "output_constraints": outs,
        "constraints_version": 1,
        "tier": "full" if full_tier else "digest",
        "attributes": {},
        "writer": WRITER,
        "schema_version": 1,
    }


def _day_runs(day_start: datetime, runs_per_day: int, rng: random.Random, seq0: int) -> list[dict[str, Any]]:
    runs = []
    offsets = sorted(rng.uniform(0, 86_399) for _ in range(runs_per_day))
    for i, offset in enumerate(offsets):
        start = day_start + timedelta(seconds=offset)
        ts_ms = int(start.timestamp() * 1000)
        runs.append(
            {
                "run_id": "run_" + _ulid(ts_ms, rng),
                "start_us": ts_ms * 1000,
                "trace_id": _hex(rng, 128),
                "invoice": str(rng.randint(10_000, 99_999)),
                "subtotal": f"{rng.randint(20_000, 400_000)}.00",
                "faulty": (seq0 + i) % FAULT_EVERY == 0,
                "file": 1 + i * FILES_PER_DAY // runs_per_day,
            }
        )
    return runs


def _write_day(args: tuple[str, str, int, int, int, bool]) -> list[dict[str, Any]]:
    """Write one day's handoffs and runs files; return the day's runs (for the baselines)."""
    from handoff.store.tables import encode_parquet, to_table

    root, day, runs_per_day, seed, seq0, full_tier = args
    rng = random.Random(seed)
    day_start = datetime.fromisoformat(day).replace(tzinfo=timezone.utc)
    runs = _day_runs(day_start, runs_per_day, rng, seq0)
    for n in range(1, FILES_PER_DAY + 1):
        chunk = [run for run in runs if run["file"] == n]
        handoffs, run_rows = [], []
        for run in chunk:
            ts = run["start_us"]
            for step in range(1, HANDOFFS_PER_RUN + 1):
                handoffs.append(_handoff_row(run, step, rng, ts, full_tier, day))
                ts += int(handoffs[-1]["duration_ms"] * 1000) + 500
            run_rows.append(
                {
                    "run_id": run["run_id"],
                    "name": "invoice",
                    "start_ts": run["start_us"],
                    "end_ts": ts,
                    "status": "ok",
                    "attributes": {"invoice": f"INV-{run['invoice']}"},
                    "recorded_ts": ts,
                    "writer": WRITER,
                }
            )
        for table, rows in (("handoffs", handoffs), ("runs", run_rows)):
            path = pathlib.Path(root) / table / f"dt={day}" / f"{WRITER}-{n:06d}.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(encode_parquet(to_table(table, rows)))
    return [{"run_id": r["run_id"], "faulty": r["faulty"], "start_us": r["start_us"]} for r in runs]


def _days(days: int, today: datetime) -> list[str]:
    return [(today - timedelta(days=days - 1 - i)).strftime("%Y-%m-%d") for i in range(days)]


def generate_store(
    root: pathlib.Path, runs: int, days: int, *, seed: int = 90, workers: int = 2
) -> list[dict[str, Any]]:
    """Write a store of ``runs`` runs (eight handoffs each) over ``days`` days ending today into ``root``."""
    if root.exists():
        shutil.rmtree(root)
    today = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    counts = [runs // days + (1 if i < runs % days else 0) for i in range(days)]
    firsts = [sum(counts[:i]) for i in range(days)]
    jobs = [
        (str(root), day, counts[i], seed * 1000 + i, firsts[i], i >= days - FULL_TIER_DAYS)
        for i, day in enumerate(_days(days, today))
    ]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return [run for day_runs in pool.map(_write_day, jobs) for run in day_runs]


def store_dir(work: pathlib.Path, runs: int, days: int) -> pathlib.Path:
    """Return where the generated store of these sizes lives under ``work``."""
    return work / f"store-{runs}r-{days}d"


def cached_store(work: pathlib.Path, runs: int, days: int) -> tuple[pathlib.Path, list[dict[str, Any]], bool]:
    """Return ``(root, runs, reused)``: the generated store for these sizes, built only if missing or stale."""
    root = store_dir(work, runs, days)
    marker = root / "_bench.json"
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    expected = {"version": GENERATOR_VERSION, "runs": runs, "days": days, "today": today}
    if marker.exists():
        saved = json.loads(marker.read_text())
        if saved.get("params") == expected:
            return root, saved["runs"], True
    run_list = generate_store(root, runs, days)
    marker.write_text(json.dumps({"params": expected, "runs": run_list}))
    return root, run_list, False


def read_handoffs(root: pathlib.Path, limit_rows: int | None = None) -> Iterator[dict[str, Any]]:
    """Yield handoff rows from the generated store's Parquet files, oldest day first."""
    import pyarrow.parquet as pq

    seen = 0
    for path in sorted((root / "handoffs").glob("dt=*/*.parquet")):
        for row in pq.read_table(path).to_pylist():
            yield row
            seen += 1
            if limit_rows is not None and seen >= limit_rows:
                return


def build_sqlite(path: pathlib.Path, root: pathlib.Path) -> int:
    """Load every handoff row of the store into SQLite with an index on run id; return the row count."""
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    from handoff.store.tables import HANDOFFS

    names = HANDOFFS.names
    db.execute(f"CREATE TABLE handoffs ({', '.join(names)})")
    count, batch = 0, []
    for row in read_handoffs(root):
        batch.append(tuple(_sqlite_value(row[name]) for name in names))
        if len(batch) >= 20_000:
            db.executemany(f"INSERT INTO handoffs VALUES ({', '.join('?' * len(names))})", batch)
            count, batch = count + len(batch), []
    if batch:
        db.executemany(f"INSERT INTO handoffs VALUES ({', '.join('?' * len(names))})", batch)
        count += len(batch)
    db.execute("CREATE INDEX handoffs_run_id ON handoffs (run_id)")
    db.commit()
    db.close()
    return count


def _sqlite_value(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def build_json_tree(path: pathlib.Path, root: pathlib.Path, files: int, excerpt_bytes: int = 1024) -> int:
    """Write one JSON file per handoff (``<run_id>/<handoff_id>.json``, with content excerpts); return the count."""
    from bench.corpus import agent_prompts

    if path.exists():
        shutil.rmtree(path)
    texts = agent_prompts(64, size_bytes=excerpt_bytes, seed=21)
    count = 0
    for row in read_handoffs(root, limit_rows=files):
        folder = path / row["run_id"]
        folder.mkdir(parents=True, exist_ok=True)
        record = {key: _sqlite_value(value) for key, value in row.items()}
        record["input"], record["output"] = texts[count % 64], texts[(count + 7) % 64][: excerpt_bytes // 2]
        (folder / f"{row['handoff_id']}.json").write_text(json.dumps(record, default=str))
        count += 1
    return count
