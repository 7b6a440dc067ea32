"""Figure 6: against a peer, the OpenTelemetry GenAI content-upload hook.

``opentelemetry-util-genai``'s ``TelemetryHandler`` with its fsspec ``UploadCompletionHook``
writing to a local directory is what a user would pick instead: one inference span per call,
inputs and outputs uploaded as one JSON object each by a thread pool. Both sides get the same
10 KB prompts and 1 KB replies from :mod:`bench.corpus`, their own SDK provider with a
``BatchSpanProcessor`` (no-op exporter), and the same upload queue bound. Ours records with
scrubbing off (the peer does not scrub; scrubbing is measured under ingest).
"""

from __future__ import annotations

import pathlib
import shutil
import tempfile
import time
from collections.abc import Callable
from typing import Any

from bench.corpus import agent_prompts
from bench.hot_path import _sdk_provider, handoff_sampler
from bench.results import figure, not_measured
from bench.timing import cycling, interleaved, rate

SECTION = "6. Against a peer"
QUEUE = 1024


def _peer(directory: pathlib.Path):
    from opentelemetry.util.genai._upload.completion_hook import UploadCompletionHook
    from opentelemetry.util.genai.handler import TelemetryHandler

    hook = UploadCompletionHook(base_path=str(directory), max_queue_size=QUEUE)
    return TelemetryHandler(tracer_provider=_sdk_provider(), completion_hook=hook), hook


def peer_sampler(directory: pathlib.Path, reply: str) -> tuple[Callable[[str, int], list[float]], Any]:
    """Return a sampler timing one peer inference call per prompt, and its upload hook."""
    from opentelemetry.util.genai.types import InputMessage, OutputMessage, TextPart

    handler, hook = _peer(directory)

    def call(prompt: str) -> str:
        with handler.inference("bench", request_model="claude-sonnet-4") as invocation:
            invocation.input_messages = [InputMessage(role="user", parts=[TextPart(content=prompt)])]
            invocation.output_messages = [
                OutputMessage(role="assistant", parts=[TextPart(content=reply)], finish_reason="stop")
            ]
        return reply

    return cycling(call), hook


def _peer_throughput(directory: pathlib.Path, prompts: list[str], reply: str) -> tuple[float, int, int]:
    sampler, hook = peer_sampler(directory, reply)
    start = time.perf_counter()
    for prompt in prompts:
        sampler(prompt, 1)
    hook.shutdown(timeout_sec=300)
    seconds = time.perf_counter() - start
    files = [p for p in directory.iterdir() if p.is_file()]
    return seconds, len(files), sum(p.stat().st_size for p in files)


def _ours_throughput(directory: pathlib.Path, prompts: list[str], reply: str) -> tuple[float, int, int]:
    import handoff

    sampler = handoff_sampler(str(directory))
    handoff.configure(max_queue=4 * len(prompts) + 1000)
    start = time.perf_counter()
    for first in range(0, len(prompts), 8):
        with handoff.run("bench"):
            for prompt in prompts[first : first + 8]:
                sampler.step(prompt)
    handoff.flush(600)
    seconds = time.perf_counter() - start
    stored = sum(p.stat().st_size for p in directory.rglob("*.parquet"))
    return seconds, stored, handoff.stats()["dropped"]


def _not_installed() -> str | None:
    try:
        import opentelemetry.util.genai._upload.completion_hook  # noqa: F401
    except ImportError as exc:
        return f"opentelemetry-util-genai[upload] is not installed ({exc})"
    return None


def measure(calls: int = 2000, rounds: int = 5) -> list[dict[str, Any]]:
    """Return the per-call figure: our median against the peer's, same prompt, alternating rounds."""
    why = _not_installed()
    if why:
        return [
            not_measured(
                "peer.per_call_10kb",
                SECTION,
                "median per call vs the peer, 10 KB prompt",
                "µs",
                why,
                ("ratio", "<=", 1.0),
            )
        ]
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-peer-"))
    prompt = agent_prompts(min(calls * rounds, 2000))
    reply = agent_prompts(1, size_bytes=1024, seed=5)[0]
    (work / "peer").mkdir()
    peer, _hook = peer_sampler(work / "peer", reply)
    ours = handoff_sampler(str(work / "ours"))
    done = [0]

    def settle() -> None:
        """Let both sides finish their background writes, so neither round runs beside the other's backlog."""
        import handoff

        handoff.flush(60)
        deadline = time.monotonic() + 60
        while sum(1 for _ in (work / "peer").iterdir()) < 2 * done[0] and time.monotonic() < deadline:
            time.sleep(0.01)

    def counted(texts: Any, n: int) -> list[float]:
        done[0] += n
        return peer(texts, n)

    # the same prompts, in the same order, for both
    result = interleaved({"peer": counted, "ours": ours}, prompt, calls, rounds, settle=settle)
    return [
        figure(
            "peer.per_call_10kb",
            SECTION,
            "median per call vs the peer, 10 KB prompt",
            result["ours"]["median_us"],
            "µs",
            baseline=result["peer"]["median_us"],
            baseline_name="opentelemetry-util-genai + fsspec upload hook",
            target=("ratio", "<=", 1.0),
            note=f"{calls} calls x {rounds} alternating rounds, both sides' background writes drained before each round; "
            f"p99 ours {result['ours']['p99_us']:.0f} µs, "
            f"peer {result['peer']['p99_us']:.0f} µs; upload queue bound {QUEUE} on the peer (its default, 20, drops under load)",
        )
    ]


def measure_throughput(calls: int = 2000) -> list[dict[str, Any]]:
    """Return the throughput figure: handoffs/s until everything is on disk, ours against the peer's."""
    why = _not_installed()
    if why:
        return [
            not_measured(
                "peer.throughput",
                SECTION,
                "sustained handoffs/s to local storage vs the peer",
                "handoffs/s",
                why,
                ("ratio", ">=", 1.0),
            )
        ]
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench-peer-"))
    prompts = agent_prompts(calls)
    reply = agent_prompts(1, size_bytes=1024, seed=5)[0]
    (work / "peer").mkdir()
    peer_s, peer_files, peer_bytes = _peer_throughput(work / "peer", prompts, reply)
    ours_s, ours_bytes, ours_dropped = _ours_throughput(work / "ours", prompts, reply)
    raw = sum(len(p) for p in prompts) + len(reply) * calls
    shutil.rmtree(work, ignore_errors=True)
    return [
        figure(
            "peer.throughput",
            SECTION,
            "sustained handoffs/s to local storage vs the peer",
            rate(calls, ours_s),
            "handoffs/s",
            baseline=rate(calls, peer_s),
            baseline_name="opentelemetry-util-genai + fsspec upload hook",
            target=("ratio", ">=", 1.0),
            note=f"{calls:,} calls, the clock stops when everything is on disk; the peer wrote {peer_files:,} of "
            f"{2 * calls:,} JSON files (it drops uploads when its queue of {QUEUE} is full: "
            f"{max(0, 2 * calls - peer_files):,} lost; ours dropped {ours_dropped:,} records) "
            f"({peer_bytes / raw:.2f} of raw bytes), ours {ours_bytes / raw:.2f} of raw bytes in Parquet (digests, content, "
            f"constraint tokens)",
        )
    ]
