"""Figure 2d: bursts with the store up and down: what is written, spooled, spilled, dropped, and what it costs the app.

Each scenario runs in a process of its own (so peak RSS is its own): ``count`` calls of
``size_bytes`` each, as fast as the application can make them, into a local store, a local store
that cannot be written, or an S3 endpoint nothing listens on; then one ``handoff.flush()``. It
reports the counters, whether flush returned True, the growth of the application's peak RSS
over the burst, and the p99 of the decorated calls. Scrubbing is off, so the burst measures the
recorder's bounds rather than the scrubber's speed.

    python -m bench.bursts 2000 204800 local-down
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

from bench.results import figure
from bench.timing import percentile

SECTION = "2d. Bursts, store up and down"
SCENARIOS = ("local-up", "local-down", "s3-unreachable")


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def burst(count: int, size_bytes: int, scenario: str, writer: str = "process") -> dict[str, Any]:
    """Run one burst in this process; return its counters and costs."""
    work = tempfile.mkdtemp(prefix="bench-burst-")
    os.environ["HANDOFF_SPOOL_DIR"] = os.path.join(work, "spool")
    if scenario == "local-down":
        blocker = os.path.join(work, "file")
        open(blocker, "w").close()
        store = os.path.join(blocker, "store")
    elif scenario == "s3-unreachable":
        os.environ.update(
            AWS_ENDPOINT_URL=f"http://127.0.0.1:{_closed_port()}",
            AWS_ACCESS_KEY_ID="x",
            AWS_SECRET_ACCESS_KEY="x",
            AWS_DEFAULT_REGION="us-east-1",
            HANDOFF_S3_MAX_ATTEMPTS="1",
            HANDOFF_S3_CONNECT_TIMEOUT_S="1",
        )
        store = "s3://unreachable/handoff"
    else:
        store = os.path.join(work, "store")
    import handoff

    handoff.configure(store=store, scrub=False, writer=writer)
    filler = "x" * size_bytes

    @handoff.step(to="price")
    def price(prompt: str) -> str:
        return "ok"

    with handoff.run("warm-up"):
        price("warm-up")
    handoff.flush(120)
    before = _rss_mb()
    samples = []
    clock = time.perf_counter_ns
    start = time.perf_counter()
    with handoff.run("burst"):
        for n in range(count):
            prompt = f"{n:08d}" + filler[8:]
            begin = clock()
            price(prompt)
            samples.append((clock() - begin) / 1000)
    app_s = time.perf_counter() - start
    flushed = handoff.flush(900)
    counters = handoff.stats()
    handoff.shutdown(60)
    return {
        "scenario": scenario,
        "count": count,
        "size_bytes": size_bytes,
        "writer": writer,
        "flushed": flushed,
        "enqueued": counters["enqueued"],
        "written": counters["written"],
        "spooled": counters["spooled"],
        "spilled": counters["spilled"],
        "dropped": counters["dropped"],
        "rss_growth_mb": round(_rss_mb() - before, 1),
        "app_s": round(app_s, 2),
        "p50_us": round(percentile(samples, 0.5), 1),
        "p99_us": round(percentile(samples, 0.99), 1),
        "total_s": round(time.perf_counter() - start, 1),
    }


def run_burst(
    count: int, size_bytes: int, scenario: str, writer: str = "process", timeout_s: float = 1200
) -> dict[str, Any]:
    """Run :func:`burst` in a fresh process and return its result."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.bursts", str(count), str(size_bytes), scenario, writer],
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        raise RuntimeError(f"burst {scenario} died: {done.stderr[-300:]}")
    return json.loads(lines[-1])


def measure(
    cases: list[list[int]] | None = None,
    scenarios: tuple[str, ...] = SCENARIOS,
    writer: str = "process",
    work: str = "bench/_work",
) -> list[dict[str, Any]]:
    """One figure per (case, scenario): the app's peak RSS growth, with the counters in the note."""
    figures = []
    for count, size in cases or [[100_000, 1024], [2_000, 204_800]]:
        for scenario in scenarios:
            result = run_burst(count, size, scenario, writer)
            target = ("value", "<=", 300) if size >= 200_000 else None
            figures.append(
                figure(
                    f"bursts.{count}x{size // 1024}kb_{scenario}_rss_mb",
                    SECTION,
                    f"{count:,} x {size // 1024} KB, {scenario}: peak RSS growth of the app",
                    result["rss_growth_mb"],
                    "MB",
                    target=target,
                    note=f"{writer} writer, scrubbing off; written {result['written']}, spooled {result['spooled']}, spilled "
                    f"{result['spilled']}, dropped {result['dropped']}; flush() {result['flushed']}; hot path p50 "
                    f"{result['p50_us']} µs, p99 {result['p99_us']} µs; app {result['app_s']} s, until flushed {result['total_s']} s",
                )
            )
    return figures


if __name__ == "__main__":
    print(json.dumps(burst(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], *(sys.argv[4:5] or ["process"]))))
