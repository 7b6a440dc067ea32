"""Constraint extraction throughput: MB/s of what the writer stores per text, on one thread.

The writer calls :func:`handoff.analysis.constraints.stored_tokens` on every input and output
it keeps. Two workloads, each measured in CPU time of this thread:

* ``unique``: invoice-like 10 KB prompts in which no line repeats (:func:`bench.corpus.invoice_prompts`:
  amounts, dates, percentages, clause references on every table row), so the piece cache never
  hits: the writer's worst case and the issue's 5 MB/s target;
* ``repeated``: the pipeline's agent prompts (:func:`bench.corpus.agent_prompts`), whose system
  prompt and tool schema repeat across steps, so most pieces come from the cache.

Run::

    python -m bench --only constraint_extraction
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from bench.corpus import agent_prompts, invoice_prompts
from bench.results import figure

_SECTION = "2. Sustained ingest"


def _mb_per_s(extract, texts: list[str]) -> float:
    size = sum(len(text.encode()) for text in texts)
    start = time.thread_time()
    for text in texts:
        extract(text)
    return size / 1e6 / max(time.thread_time() - start, 1e-9)


def measure(work: str = "", prompts: int = 60, rounds: int = 3, **_: Any) -> list[dict[str, Any]]:
    """Return the two figures: median MB/s over ``rounds`` of ``prompts`` fresh 10 KB prompts each."""
    from handoff.analysis.constraints import stored_tokens

    stored_tokens("warm up: at least 5 business days, not later than 09:00 UTC, per 7.2(b).")
    unique = [_mb_per_s(stored_tokens, invoice_prompts(prompts, 10_240, seed=100 + round_)) for round_ in range(rounds)]
    repeated_texts = agent_prompts(prompts, 10_240, seed=8)
    stored_tokens(repeated_texts[0])
    repeated = [_mb_per_s(stored_tokens, repeated_texts) for _ in range(rounds)]
    note = f"stored_tokens() per text on one thread, CPU time, median of {rounds} rounds of {prompts} prompts of 10 KB"
    return [
        figure(
            "constraints.unique_mb_s",
            _SECTION,
            "constraint extraction, MB/s on invoice-like prompts where no line repeats",
            statistics.median(unique),
            "MB/s",
            target=("value", ">=", 5),
            note=note + " (bench/extraction.py); the piece cache never hits",
        ),
        figure(
            "constraints.repeated_mb_s",
            _SECTION,
            "constraint extraction, MB/s on agent prompts with repeating templates",
            statistics.median(repeated),
            "MB/s",
            note=note + " (bench/extraction.py); the same prompts each round, as a pipeline's templates repeat",
        ),
    ]


if __name__ == "__main__":
    for row in measure():
        print(f"{row['name']}: {row['value']} {row['unit']}")
