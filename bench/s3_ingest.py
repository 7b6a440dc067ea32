"""Sustained ingest into an S3 API server: handoffs per second with 10 KB payloads, one process.

A moto S3 server runs in its own process on loopback (so it does not share this process's
GIL), and this process records ``n`` handoffs in runs of five steps, each with a 10 KB
rendered input and a 10 KB output of prompt-like text, through the public API with default writer settings, scrubbing
off (scrub throughput has its own benchmark, ``bench/scrub_throughput.py``). The clock runs
from the first handoff until ``handoff.flush()`` has returned, i.e. until every record is
durable in the bucket. Reported: handoffs/s end to end, payload MB/s, the hot-path cost per
handoff on the caller's thread, objects written, and the rows the query views then see.
``upload_only_*`` times putting the same finished objects again: the S3 write path alone,
without the writer's preparation (constraint extraction, Parquet encoding).

Run::

    python bench/s3_ingest.py --n 2000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time

PAYLOAD_BYTES = 10 * 1024
_WORDS = (
    "invoice rebate surcharge clause subtotal freight tier validator report pricer brief total base "
    "rebated qualifier lines billable contract customer amount percent net due terms ledger entry"
).split()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _payload(rng: random.Random, n: int) -> str:
    words = []
    size = 0
    while size < PAYLOAD_BYTES:
        word = rng.choice(_WORDS) if rng.random() > 0.03 else f"{rng.randint(1, 99999)}.{rng.randint(0, 99):02d}"
        words.append(word)
        size += len(word) + 1
    return f"#{n} " + " ".join(words)[: PAYLOAD_BYTES - 8]


def _start_moto(port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return server
        time.sleep(0.05)
    server.kill()
    raise RuntimeError("moto server did not start")


def payloads(count: int = 200) -> list[str]:
    """Distinct prompt-like texts of 10 KB, generated deterministically (outside the timed part)."""
    rng = random.Random(1)
    return [_payload(rng, i) for i in range(count)]


STEPS = ("extract", "validate", "orchestrator.compress_v3", "price", "write")


def _record(n: int, inputs: list[str]) -> tuple[list[str], float]:
    """Record ``n`` handoffs as runs of five (a pipeline like the reference incident's); return run ids and hot-path seconds."""
    import handoff

    hot_s = 0.0
    run_ids = []
    for first in range(0, n, len(STEPS)):
        with handoff.run("s3-ingest") as run:
            for i in range(first, min(n, first + len(STEPS))):
                started = time.perf_counter()
                with handoff.record(STEPS[i % len(STEPS)], from_=STEPS[i % len(STEPS) - 1]) as h:
                    h.input(f"{i}:" + inputs[i % len(inputs)])
                    h.output(inputs[(i * 7 + 3) % len(inputs)][::-1])
                hot_s += time.perf_counter() - started
        run_ids.append(run.run_id)
    return run_ids, hot_s


def _upload_only(store, objects) -> float:
    """Time putting the same finished objects again under another prefix: the S3 write path alone."""
    from handoff.exporters.store_exporter import StoreExporter
    from handoff.store import open_store
    from handoff.store.base import PendingObject

    pending = [PendingObject(o.key, store.get(o.key)) for o in objects]
    exporter = StoreExporter(open_store("s3://bench/upload-only"), "bench")
    started = time.perf_counter()
    exporter.write(pending)
    elapsed = time.perf_counter() - started
    exporter.shutdown()
    return elapsed


def measure(n: int = 2000) -> dict:
    """Record ``n`` handoffs (10 KB in, 10 KB out) into a fresh moto bucket; return the figures."""
    import boto3

    port = _free_port()
    server = _start_moto(port)
    spool = tempfile.mkdtemp(prefix="handoff-bench-spool-")
    env = {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
        "HANDOFF_SPOOL_DIR": spool,
    }
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        import handoff
        from handoff.queries import connect, query
        from handoff.store import open_store

        boto3.client("s3").create_bucket(Bucket="bench")
        url = "s3://bench/handoff"
        handoff.configure(store=url, scrub=False)
        inputs = payloads()
        started = time.perf_counter()
        run_ids, hot_s = _record(n, inputs)
        flushed = handoff.flush(600)
        elapsed = time.perf_counter() - started
        stats = handoff.stats()
        handoff.shutdown(30)
        store = open_store(url)
        objects = list(store.list(""))
        rows = query(connect(store), "SELECT count(*) AS n FROM handoffs")[0]["n"]
        upload_s = _upload_only(store, objects)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.terminate()
        server.wait(10)
        shutil.rmtree(spool, ignore_errors=True)
    return {
        "n": n,
        "payload_bytes_per_side": PAYLOAD_BYTES,
        "flushed": flushed,
        "elapsed_s": round(elapsed, 3),
        "handoffs_per_s": round(n / elapsed, 1),
        "payload_mb_per_s": round(n * 2 * PAYLOAD_BYTES / elapsed / 1e6, 2),
        "hot_path_us_per_handoff": round(hot_s / n * 1e6, 1),
        "upload_only_s": round(upload_s, 3),
        "upload_only_handoffs_per_s": round(n / upload_s, 1),
        "objects_written": len(objects),
        "bytes_stored": sum(o.size for o in objects),
        "rows_visible": rows,
        "counters": stats,
    }


def main() -> None:
    """Command-line entry: print ``measure(n)`` as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    print(json.dumps(measure(parser.parse_args().n), indent=2))


if __name__ == "__main__":
    main()
