"""Figure 1: what one decorated call costs the application, against a bare OpenTelemetry span.

The baseline is what a user would otherwise pay: an OpenTelemetry SDK span through a
``BatchSpanProcessor`` (no-op exporter) plus one SHA-256 of the same bytes. Both get the same
sequence of distinct prompts from :mod:`bench.corpus` (templates repeat, line items do not),
so the background writer does its real work, not cache hits. Ours is a
``@handoff.step`` call inside a run of eight handoffs, on its own SDK provider with the same
processor, writing to a local store in the background (scrubbing off: it runs on the writer
thread and is measured under ingest). Both run in this process in alternating rounds. The
store-down case points the store below a regular file, so every write fails.
"""

from __future__ import annotations

import cProfile
import hashlib
import pathlib
import pstats
import tempfile
import time
from collections.abc import Callable
from typing import Any

from bench.corpus import payloads
from bench.results import figure
from bench.timing import cycling, interleaved, sample_calls

SECTION = "1. Hot path"
REPLY = "{" + '"subtotal": "155660.00", "surcharge": "14165.06", "total": "169825.06", "note": "' + "ok " * 60 + '"}'
STEPS_PER_RUN = 8


def _sdk_provider():
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class NoopExporter(SpanExporter):
        def export(self, spans):
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(NoopExporter()))
    return provider


def baseline_sampler() -> Callable[[str, int], list[float]]:
    """Return a sampler timing a bare SDK span plus one SHA-256 of the payload per call."""
    tracer = _sdk_provider().get_tracer("bench.baseline")

    def call(text: str) -> str:
        with tracer.start_as_current_span("price"):
            hashlib.sha256(text.encode("utf-8")).hexdigest()
            return REPLY

    return cycling(call)


def handoff_sampler(
    store: str, writer_paused: bool = False, steps_per_run: int = STEPS_PER_RUN
) -> Callable[[str, int], list[float]]:
    """Return a sampler timing ``@handoff.step`` calls, ``steps_per_run`` per run, recording into ``store``.

    With ``writer_paused`` the background writer only wakes on an explicit flush, so the timing
    shows the application thread's own cost without a busy writer competing for the GIL.
    """
    import handoff

    handoff.configure(store=store, scrub=False, tracer_provider=_sdk_provider())
    if writer_paused:
        handoff.configure(flush_interval_s=3600.0, max_batch=10_000_000, max_queue=10_000_000)

    @handoff.step(to="price", kind="agent", model="claude-sonnet-4")
    def price(text: str) -> str:
        return REPLY

    position = [0]

    def sample(texts: str | list[str], n: int) -> list[float]:
        samples: list[float] = []
        while len(samples) < n:
            with handoff.run("bench"):
                samples += sample_calls(price, texts, min(steps_per_run, n - len(samples)), position[0] + len(samples))
        position[0] += n
        return samples

    sample.step = price  # type: ignore[attr-defined]
    return sample


def _drain() -> None:
    """Let the background writer finish what earlier rounds queued (bounded: a down store may not finish)."""
    import handoff

    handoff.flush(60)


def profile_top(store: str, text: str | list[str], calls: int, top: int = 12) -> list[str]:
    """Profile ``calls`` decorated calls (writer paused) and return the top functions by own time, one line each."""
    sampler = handoff_sampler(store, writer_paused=True)
    profiler = cProfile.Profile()
    profiler.enable()
    sampler(text, calls)
    profiler.disable()
    stats = pstats.Stats(profiler).sort_stats("tottime")
    lines = []
    for (path, line, name), (_cc, ncalls, tottime, cumtime, _callers) in list(stats.stats.items()):
        lines.append(
            (
                tottime,
                f"{pathlib.Path(path).name}:{line} {name}: {tottime / calls * 1e6:.1f} µs own, "
                f"{cumtime / calls * 1e6:.1f} µs cumulative per call ({ncalls} calls)",
            )
        )
    return [text for _, text in sorted(lines, reverse=True)[:top]]


def measure(
    sizes_kb: tuple[int, ...] = (1, 10, 340),
    calls: int = 2000,
    rounds: int = 5,
    store_down: bool = True,
    steps_per_run: int = STEPS_PER_RUN,
) -> list[dict[str, Any]]:
    """Return median figures per payload size and, optionally, p99 at 10 KB with the store down.

    Above 10 KB there are fewer calls and rounds: the writer drains every payload between rounds.
    Runs longer than the default are named in the figure id (``hot_path.median_10kb_runs_256``):
    each call then looks for its parent among more earlier outputs.
    """
    import handoff

    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-hot-"))
    baseline = baseline_sampler()
    ours = handoff_sampler(str(work / "store"), steps_per_run=steps_per_run) if sizes_kb else None
    suffix = "" if steps_per_run == STEPS_PER_RUN else f"_runs_{steps_per_run}"
    figures = []
    for size in sizes_kb:
        n, size_rounds = (calls, rounds) if size <= 10 else (max(10, calls // 25), max(3, rounds // 4))
        text = payloads(size * 1024, min(n * size_rounds, 2000))
        result = interleaved({"baseline": baseline, "ours": ours}, text, n, size_rounds, settle=_drain)
        figures.append(
            figure(
                f"hot_path.median_{size}kb{suffix}",
                SECTION,
                f"median per call, {size} KB input" + (f", runs of {steps_per_run} handoffs" if suffix else ""),
                result["ours"]["median_us"],
                "µs",
                baseline=result["baseline"]["median_us"],
                baseline_name="OTel SDK span + SHA-256",
                target=("ratio", "<=", 1.3) if size == 10 and not suffix else None,
                note=f"{n} calls x {size_rounds} alternating rounds, runs of {steps_per_run} handoffs, the writer drained before each "
                f"round (so the baseline never runs beside our backlog; ours runs beside its own writer); "
                f"p99 {result['ours']['p99_us']:.0f} µs "
                f"vs baseline {result['baseline']['p99_us']:.0f} µs",
            )
        )
    if store_down:
        figures.append(_store_down_figure(work, baseline, calls, rounds))
    handoff.shutdown(1)
    return figures


def profile(calls: int = 2000) -> list[str]:
    """Profile ``calls`` decorated calls at 10 KB in a fresh recorder; return the report lines."""
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-profile-"))
    top = profile_top(str(work / "store"), payloads(10 * 1024, min(calls, 2000)), calls)
    return [
        f"cProfile of {calls} decorated calls at 10 KB (runs of {STEPS_PER_RUN}, background writer paused so only the "
        "application thread's own work shows; times are inflated by the profiler), top functions by own time:",
        *top,
    ]


def measure_paused(calls: int = 2000, rounds: int = 5) -> list[dict[str, Any]]:
    """Return the diagnostic figure: the median at 10 KB with the background writer paused during timing."""
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-paused-"))
    baseline = baseline_sampler()
    paused = handoff_sampler(str(work / "store"), writer_paused=True)
    result = interleaved(
        {"baseline": baseline, "paused": paused}, payloads(10 * 1024, min(calls * rounds, 2000)), calls, rounds
    )
    return [
        figure(
            "hot_path.median_10kb_writer_paused",
            SECTION,
            "median per call, 10 KB input, background writer paused",
            result["paused"]["median_us"],
            "µs",
            baseline=result["baseline"]["median_us"],
            baseline_name="OTel SDK span + SHA-256",
            note=f"diagnostic: the application thread's own cost, with no writer work competing for the GIL during timing "
            f"(records wait in the queue); p99 {result['paused']['p99_us']:.0f} µs vs baseline {result['baseline']['p99_us']:.0f} µs",
        )
    ]


def _wait_until_down(sampler: Callable[[str, int], list[float]], text: str, timeout_s: float = 60.0) -> dict[str, int]:
    """Record a few handoffs and wait until the writer has failed against the store at least once."""
    import handoff

    sampler(text, STEPS_PER_RUN)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        handoff.flush(1)
        counters = handoff.stats()
        if counters["export_failures"] or counters["spooled"] or counters["dropped"]:
            break
    return handoff.stats()


def _store_down_figure(work: pathlib.Path, baseline, calls: int, rounds: int) -> dict[str, Any]:
    import handoff

    blocker = work / "not-a-directory"
    blocker.write_text("a regular file where the store directory should be\n")
    down = handoff_sampler(str(blocker / "store"))
    text = payloads(10 * 1024, min(calls * rounds, 2000))
    before = _wait_until_down(down, text)
    result = interleaved({"baseline": baseline, "down": down}, text, calls, rounds, settle=_drain)
    handoff.flush(5)
    after = handoff.stats()
    return figure(
        "hot_path.p99_10kb_store_down",
        SECTION,
        "p99 per call, 10 KB input, store down",
        result["down"]["p99_us"],
        "µs",
        baseline=result["baseline"]["p99_us"],
        baseline_name="OTel SDK span + SHA-256, p99",
        target=("ratio", "<=", 2.0),
        note=f"{calls} calls x {rounds} alternating rounds after the writer first failed against the store; median "
        f"{result['down']['median_us']:.0f} µs vs baseline {result['baseline']['median_us']:.0f} µs; writer counters "
        f"during timing: export failures +{after['export_failures'] - before['export_failures']}, spooled "
        f"+{after['spooled'] - before['spooled']}, dropped +{after['dropped'] - before['dropped']}",
    )
