"""Figure: `handoff ui`'s run page on the generated store of many handoffs (1M in the full run).

The viewer's real app is served by uvicorn on a loopback port in this process; each sampled run's
page (``/runs/{run_id}``: header, graph, checks, table, events) is fetched over HTTP, and the
median response time is set against the library lookup the page starts with (``get_run`` on an
open connection, the ``runs show`` query) for the same runs. The store is the one
:mod:`bench.queries` uses (``bench/gen_store.py``, cached under ``bench/_work``).
"""

from __future__ import annotations

import http.client
import pathlib
import random
import statistics
import threading
import time
from typing import Any

from bench.gen_store import HANDOFFS_PER_RUN, cached_store
from bench.results import figure

SECTION = "3. Queries"
TARGET_MS = 300


def _fetch(port: int, path: str) -> tuple[float, int, bytes]:
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return (time.perf_counter() - start) * 1000, response.status, body


def _serve(store: pathlib.Path):
    import uvicorn

    from handoff.ui import create_app
    from handoff.ui.server import bind

    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(create_app(str(store)), log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    return server, thread, sock.getsockname()[1]


def _library_ms(store: pathlib.Path, run_ids: list[str]) -> list[float]:
    from handoff.queries.db import connect
    from handoff.queries.runs import get_run

    con = connect(str(store))
    get_run(con, run_ids[0])
    times = []
    for run_id in run_ids:
        start = time.perf_counter()
        get_run(con, run_id)
        times.append((time.perf_counter() - start) * 1000)
    con.close()
    return times


def measure(runs: int = 125_000, days: int = 90, lookups: int = 30, work: str = "bench/_work") -> list[dict[str, Any]]:
    """Serve the viewer over the cached store and time its run page; return the figure."""
    work_dir = pathlib.Path(work)
    work_dir.mkdir(parents=True, exist_ok=True)
    store, run_list, reused = cached_store(work_dir, runs, days)
    sample = [run["run_id"] for run in random.Random(5).sample(run_list, min(lookups, len(run_list)))]
    server, thread, port = _serve(store)
    try:
        first_ms, status, _ = _fetch(port, f"/runs/{sample[0]}")
        times = []
        for run_id in sample:
            elapsed, status, body = _fetch(port, f"/runs/{run_id}")
            assert status == 200 and run_id.encode() in body and body.count(b'class="edge ') >= HANDOFFS_PER_RUN, run_id
            times.append(elapsed)
    finally:
        server.should_exit = True
        thread.join(timeout=30)
    library = _library_ms(store, sample)
    scale = f"{len(run_list) * HANDOFFS_PER_RUN:,} handoffs, {len(run_list):,} runs, {days} days" + (
        "" if runs >= 125_000 else " (smaller than the 1M-handoff target store)"
    )
    return [
        figure(
            "ui.run_page_ms",
            SECTION,
            "`handoff ui` run page response time (HTTP on loopback)",
            statistics.median(times),
            "ms",
            baseline=statistics.median(library),
            baseline_name="get_run on an open connection (the `runs show` query)",
            target=("value", "<=", TARGET_MS),
            note=f"{scale}; median of {len(sample)} pages of random runs (header, graph, checks computed, table, events); "
            f"first page {first_ms:.0f} ms (opens the views); p90 {sorted(times)[int(len(times) * 0.9) - 1]:.0f} ms; "
            f"store {'reused' if reused else 'generated'}",
        )
    ]
