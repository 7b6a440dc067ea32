"""Figure 2c: what recording costs an application that is busy, and how fast the writer keeps up.

**App slowdown.** One application thread does CPU-bound work (a pure-Python loop) and, at a
fixed rate (300 or 1,000 per second), calls a step with the next ~10 KB invoice-like prompt
from :func:`bench.corpus.invoice_prompts`, in which no two lines are alike (so no cache in the
writer ever hits). Blocks of the same length alternate between the decorated step and the
undecorated function, in the same process, with the writer (a process of its own, or a
thread) running in the background all along and never flushed inside a timed block. The
figure is how much less work the application got done in decorated blocks. Whether the writer
kept up is reported beside it: records still waiting when the last block ended, and the
writer's rate over the whole run.

**Writer throughput.** The same prompts recorded as fast as the application can, app otherwise
idle; the clock stops when ``handoff.flush()`` says everything is durable.
"""

from __future__ import annotations

import pathlib
import shutil
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.corpus import invoice_prompts
from bench.results import figure
from bench.timing import percentile

SECTION = "2c. App slowdown and writer throughput"
REPLY = '{"subtotal": "155660.00", "surcharge": "14165.06", "total": "169825.06"}'


def _work_unit() -> int:
    total = 0
    for i in range(200):
        total += i * i
    return total


def run_block(
    step: Callable[[str], str], prompts: list[str], start_index: int, rate: float, seconds: float
) -> tuple[int, int, float, list[float]]:
    """Do CPU work for ``seconds`` while calling ``step`` ``rate`` times a second.

    Return (work units, calls, CPU seconds this process used, each call's latency in µs).
    """
    clock = time.perf_counter
    start, cpu = clock(), time.process_time()
    end, next_call, interval = start + seconds, start, 1.0 / rate
    units = calls = 0
    latencies: list[float] = []
    while True:
        now = clock()
        if now >= end:
            return units, calls, time.process_time() - cpu, latencies
        if now >= next_call:
            step(prompts[(start_index + calls) % len(prompts)])
            latencies.append((clock() - now) * 1e6)
            calls += 1
            next_call += interval
        else:
            _work_unit()
            units += 1


def _configure(store: pathlib.Path, writer: str, scrub: bool) -> None:
    import handoff

    if store.exists():
        shutil.rmtree(store)
    handoff.configure(
        store=str(store),
        scrub=scrub,
        scrub_key="bench-key-" + "k" * 22,
        writer=writer,
        max_queue=1_000_000,
        max_queue_bytes=512 << 20,
    )


def _price(prompt: str) -> str:
    return REPLY


def slowdown(
    work: str, writer: str, rate: float, blocks: int, block_s: float, prompts: list[str], scrub: bool = True
) -> dict[str, Any]:
    """Alternate undecorated and decorated blocks at ``rate``; return the work lost and the writer's backlog."""
    import handoff

    store = pathlib.Path(work) / f"slowdown-{writer}-{int(rate)}"
    _configure(store, writer, scrub)
    decorated = handoff.step(to="price", model="claude-sonnet-4")(_price)
    with handoff.run("warm-up"):
        decorated(prompts[-1])  # starts the writer (process or thread) and loads the scrubber there
    handoff.flush(300)
    plain, ours, used = [], [], 0
    with handoff.run("slowdown"):
        for _ in range(blocks):
            plain.append(run_block(_price, prompts, used, rate, block_s))
            ours.append(run_block(decorated, prompts, used, rate, block_s))
            used += ours[-1][1]
    backlog = handoff.stats()["enqueued"] - handoff.stats()["written"] - handoff.stats()["dropped"]
    started = time.perf_counter()
    drained = handoff.flush(600)
    counters = handoff.stats()
    handoff.shutdown(30)
    lost = 1 - statistics.median(b[0] for b in ours) / statistics.median(b[0] for b in plain)
    calls = sorted(latency for b in ours for latency in b[3])
    return {
        "slowdown": lost,
        # CPU of the application's own process per second of block (the writer process is not in it; the writer thread is).
        "app_cpu_plain": statistics.median(b[2] for b in plain) / block_s,
        "app_cpu_ours": statistics.median(b[2] for b in ours) / block_s,
        "call_p50_us": percentile(calls, 0.5),
        "call_p99_us": percentile(calls, 0.99),
        "backlog_at_end": backlog,
        "drain_s": time.perf_counter() - started,
        "drained": drained,
        "handoffs": used,
        "dropped": counters["dropped"],
        "spilled": counters["spilled"],
    }


def throughput(work: str, writer: str, scrub: bool, prompts: list[str]) -> dict[str, Any]:
    """Record ``prompts`` as fast as possible; return handoffs/s until all are durable."""
    import handoff

    store = pathlib.Path(work) / f"throughput-{writer}-{'on' if scrub else 'off'}"
    _configure(store, writer, scrub)
    decorated = handoff.step(to="price", model="claude-sonnet-4")(_price)
    with handoff.run("warm-up"):
        decorated(prompts[-1])
    handoff.flush(300)
    start = time.perf_counter()
    for first in range(0, len(prompts) - 1, 8):
        with handoff.run("throughput"):
            for prompt in prompts[first : min(first + 8, len(prompts) - 1)]:
                decorated(prompt)
    app_s = time.perf_counter() - start
    done = handoff.flush(900)
    seconds = time.perf_counter() - start
    counters = handoff.stats()
    handoff.shutdown(30)
    return {"per_s": (len(prompts) - 1) / seconds, "app_s": app_s, "done": done, "dropped": counters["dropped"]}


def measure(
    writer: str = "process",
    rates: tuple[float, ...] = (300, 1000),
    blocks: int = 4,
    block_s: float = 2.0,
    throughput_handoffs: int = 300,
    work: str = "bench/_work",
) -> list[dict[str, Any]]:
    """Return the app-slowdown figures at each rate and the writer-throughput figures, scrubbing on and off, for ``writer``."""
    prompts = invoice_prompts(max(2000, int(max(rates) * block_s * blocks) + 1), seed=23)
    figures = []
    for rate in rates:
        result = slowdown(work, writer, rate, blocks, block_s, prompts)
        figures.append(
            figure(
                f"slowdown.{writer}_{int(rate)}_per_s",
                SECTION,
                f"app slowdown at {int(rate)} handoffs/s, {writer} writer, scrubbing on",
                result["slowdown"] * 100,
                "%",
                target=("value", "<=", 10) if rate == 300 and writer == "process" else None,
                note=f"{blocks} alternating blocks of {block_s:.0f} s, CPU-bound app thread, non-repeating 10 KB invoice prompts; "
                f"{result['handoffs']} handoffs recorded; writer backlog when the last block ended: {result['backlog_at_end']} records "
                f"({'kept up' if result['backlog_at_end'] <= rate * 0.5 else 'did not keep up'}), drained in {result['drain_s']:.1f} s "
                f"(flush {'ok' if result['drained'] else 'timed out'}); spilled {result['spilled']}, dropped {result['dropped']}; "
                f"app process CPU {result['app_cpu_ours']:.2f} s/s decorated vs {result['app_cpu_plain']:.2f} s/s undecorated",
            )
        )
        figures.append(
            figure(
                f"slowdown.{writer}_{int(rate)}_call_p99_us",
                SECTION,
                f"decorated call p99 at {int(rate)} handoffs/s, {writer} writer, app busy",
                result["call_p99_us"],
                "µs",
                note=f"p50 {result['call_p50_us']:.0f} µs over {result['handoffs']} calls made between the app's CPU work",
            )
        )
    for scrub, target in ((True, 1000), (False, 5000)):
        result = throughput(work, writer, scrub, invoice_prompts(throughput_handoffs + 1, seed=29 + scrub))
        figures.append(
            figure(
                f"writer.{writer}_scrub_{'on' if scrub else 'off'}_per_s",
                SECTION,
                f"writer throughput, {writer} writer, scrubbing {'on' if scrub else 'off'}",
                result["per_s"],
                "handoffs/s",
                target=("value", ">=", target),
                note=f"{throughput_handoffs} non-repeating 10 KB invoice prompts, app idle but for recording (app thread busy "
                f"{result['app_s']:.2f} s); until flush() returned {'True' if result['done'] else 'False'}; dropped {result['dropped']}",
            )
        )
    return figures
