"""The benchmark suite: which sections run, at which sizes, and how their results become figures.

Every section runs through :mod:`bench.task` in its own process with a timeout. A section that
fails, times out or is missing becomes figures whose note says "not measured: <why>", and
the other sections carry on. Sections written by other modules (``scrub_throughput``,
``s3_ingest``, ``retention_cost``, ``adapters_overhead``) return a dict from ``measure(...)``;
the adapters below turn it into figures.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.results import figure, not_measured

BENCH_DIR = pathlib.Path(__file__).resolve().parent
Expected = tuple[str, str, str, str, "tuple[str, str, float] | None"]  # id, section, name, unit, target

#: Sizes per mode. ``tiny`` exists for the smoke test only.
PLANS: dict[str, dict[str, dict[str, Any]]] = {
    "full": {
        "hot_path": {"calls": 500, "rounds": 20},
        "hot_path_profile": {"calls": 2000},
        "ingest_off": {"handoffs": 5000, "timeout_s": 240, "profile": True},
        "ingest_on": {"handoffs": 2000, "timeout_s": 240},
        "constraint_extraction": {"prompts": 60, "rounds": 5},
        "scrub_throughput": {"corpus_mb": 4.0, "stock_mb": 0.25},
        "queries": {"runs": 125_000, "days": 90, "json_files": 100_000, "lookups": 30, "repeats": 5},
        "ui": {"runs": 125_000, "days": 90, "lookups": 30},
        "peer": {"calls": 500, "rounds": 20},
        "peer_throughput": {"calls": 2000},
        "external": {},
        "retention_cost": {},
        "adapters_overhead": {"calls": 200},
        "s3_ingest": {"n": 2000},
        "app_slowdown": {"rates": [300, 1000], "blocks": 4, "block_s": 2.0, "throughput_handoffs": 300},
        "bursts": {"cases": [[100_000, 1024], [2_000, 204_800]]},
    },
    "quick": {
        "hot_path": {"calls": 200, "rounds": 6},
        "ingest_off": {"handoffs": 160, "timeout_s": 40},
        "ingest_on": {"handoffs": 80, "timeout_s": 40},
        "constraint_extraction": {"prompts": 20, "rounds": 3},
        "scrub_throughput": {"corpus_mb": 0.5, "stock_mb": 0.05},
        "queries": {"runs": 5000, "days": 10, "json_files": 5000, "lookups": 10, "repeats": 1},
        "ui": {"runs": 5000, "days": 10, "lookups": 10},
        "peer": {"calls": 300, "rounds": 3},
        "peer_throughput": {"calls": 160},
        "external": {"quick": True},
        "retention_cost": {"runs_per_day": 10, "repeats": 3, "days_large": 180},
        "adapters_overhead": {"calls": 20},
        "s3_ingest": {"n": 200},
        "app_slowdown": {"rates": [300], "blocks": 2, "block_s": 1.0, "throughput_handoffs": 40},
        "bursts": {"cases": [[10_000, 1024], [200, 204_800]]},
    },
    "tiny": {
        "hot_path": {"calls": 40, "rounds": 1},
        "ingest_off": {"handoffs": 16, "timeout_s": 30},
        "ingest_on": {"handoffs": 16, "timeout_s": 60},
        "constraint_extraction": {"prompts": 2, "rounds": 1},
        "scrub_throughput": {"corpus_mb": 0.02, "stock_mb": 0},
        "queries": {"runs": 400, "days": 4, "json_files": 200, "lookups": 3, "repeats": 1},
        "ui": {"runs": 400, "days": 4, "lookups": 3},
        "peer": {"calls": 20, "rounds": 1},
        "peer_throughput": {"calls": 16},
        "external": {"quick": True},
        "retention_cost": {"runs_per_day": 5, "repeats": 1, "days_small": 36, "days_large": 120},
        "adapters_overhead": {"calls": 5},
        "s3_ingest": {"n": 16},
        "app_slowdown": {"rates": [300], "blocks": 1, "block_s": 0.3, "throughput_handoffs": 8},
        "bursts": {"cases": [[200, 1024]], "scenarios": ["local-up", "local-down"]},
    },
}

_HOT = "1. Hot path"
_INGEST = "2. Sustained ingest"
_QUERIES = "3. Queries"
_RETENTION = "4. Retention cost"
_STORAGE = "5. Storage"
_PEER = "6. Against a peer"
_SLOW = "2c. App slowdown and writer throughput"


def _slowdown_expects(writer: str) -> list[Expected]:
    return [
        (
            f"slowdown.{writer}_300_per_s",
            _SLOW,
            f"app slowdown at 300 handoffs/s, {writer} writer, scrubbing on",
            "%",
            ("value", "<=", 10) if writer == "process" else None,
        ),
        (
            f"writer.{writer}_scrub_on_per_s",
            _SLOW,
            f"writer throughput, {writer} writer, scrubbing on",
            "handoffs/s",
            ("value", ">=", 1000),
        ),
        (
            f"writer.{writer}_scrub_off_per_s",
            _SLOW,
            f"writer throughput, {writer} writer, scrubbing off",
            "handoffs/s",
            ("value", ">=", 5000),
        ),
    ]


def _figures(result: Any, task: Task) -> list[dict[str, Any]]:
    return list(result)


def _scrub_figures(result: dict[str, Any], task: Task) -> list[dict[str, Any]]:
    stock = result.get("stock_presidio_mb_s")
    note = f"one Scrubber on one thread, {result.get('corpus_mb')} MB per corpus (bench/scrub_throughput.py)"
    return [
        figure(
            "scrub.repeated_mb_s",
            _INGEST,
            "scrubber alone, MB/s on prompts with repeating templates",
            result["repeated_mb_s"],
            "MB/s",
            baseline=stock,
            baseline_name="stock Presidio analyze+anonymize, same run" if stock else None,
            target=("value", ">=", 4),
            note=note,
        ),
        figure(
            "scrub.unique_mb_s",
            _INGEST,
            "scrubber alone, MB/s on text where no line repeats",
            result["unique_mb_s"],
            "MB/s",
            baseline=stock,
            baseline_name="stock Presidio analyze+anonymize, same run" if stock else None,
            note=note + "; the worst case for the segment cache",
        ),
    ]


_UNITS = (
    ("_mb_s", "MB/s"),
    ("_per_s", "/s"),
    ("_ms", "ms"),
    ("_us", "µs"),
    ("_s", "s"),
    ("_bytes", "B"),
    ("_ratio", "ratio"),
)


def _unit(key: str) -> str:
    return next((unit for suffix, unit in _UNITS if key.endswith(suffix)), "")


def _generic_figures(result: dict[str, Any], task: Task) -> list[dict[str, Any]]:
    """Turn an external module's dict into figures: its own ``figures`` list, or one figure per number."""
    if isinstance(result, dict) and isinstance(result.get("figures"), list):
        return [{**_blank(task), **entry} for entry in result["figures"]]
    numbers = {k: v for k, v in result.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    rest = {k: v for k, v in result.items() if k not in numbers}
    figures = [
        figure(
            f"{task.key}.{key}",
            task.section,
            key.replace("_", " "),
            float(value),
            _unit(key),
            note=f"from bench/{task.module}.py" + (f"; {json.dumps(rest, default=str)[:300]}" if rest else ""),
        )
        for key, value in numbers.items()
    ]
    return figures or [
        not_measured(
            f"{task.key}.result",
            task.section,
            task.key,
            "",
            f"bench/{task.module}.py returned no numbers: {str(result)[:200]}",
        )
    ]


def _adapter_figures(result: dict[str, Any], task: Task) -> list[dict[str, Any]]:
    """One figure per framework adapter from ``adapters_overhead.measure()``: median with against without."""
    figures = []
    for name, entry in result.items():
        if isinstance(entry, dict) and "median_ms_with" in entry and "median_ms_without" in entry:
            figures.append(
                figure(
                    f"adapters.{name}_ms",
                    task.section,
                    f"{name} call through its adapter, median",
                    float(entry["median_ms_with"]),
                    "ms",
                    baseline=float(entry["median_ms_without"]),
                    baseline_name="same call without the adapter",
                    note=f"bench/adapters_overhead.py, {result.get('calls')} calls per variant against a loopback fake model "
                    f"server; overhead {entry.get('overhead_ms')} ms; no target in the issue",
                )
            )
    return figures or _generic_figures(result, task)


def _s3_figures(result: dict[str, Any], task: Task) -> list[dict[str, Any]]:
    """The S3 ingest rate from ``s3_ingest.measure()``, against its upload-only rate."""
    if "handoffs_per_s" not in result:
        return _generic_figures(result, task)
    return [
        figure(
            "s3.handoffs_per_s",
            task.section,
            "handoffs/s into S3 (moto on loopback), scrubbing off",
            float(result["handoffs_per_s"]),
            "handoffs/s",
            baseline=result.get("upload_only_handoffs_per_s"),
            baseline_name="putting the same objects alone",
            note=f"bench/s3_ingest.py: {result.get('n')} handoffs, 10 KB in and out; {result.get('payload_mb_per_s')} MB/s; "
            f"hot path {result.get('hot_path_us_per_handoff')} µs per handoff; {result.get('objects_written')} objects, "
            f"{result.get('rows_visible')} rows visible; flushed {result.get('flushed')}; no separate target in the issue",
        )
    ]


def _retention_figures(result: dict[str, Any], task: Task) -> list[dict[str, Any]]:
    """Pick the 36-day and 365-day timings out of ``retention_cost.measure()``; ratio target <= 2."""
    if isinstance(result, dict) and isinstance(result.get("figures"), list):
        return _generic_figures(result, task)
    small, large = result.get("small"), result.get("large")
    if isinstance(small, dict) and isinstance(large, dict) and "apply_s" in small and "apply_s" in large:
        return [
            figure(
                "retention.apply_365d_vs_36d",
                _RETENTION,
                f"`retention apply`, one expiring day, {large.get('days')}-day store",
                float(large["apply_s"]),
                "s",
                baseline=float(small["apply_s"]),
                baseline_name=f"same on a {small.get('days')}-day store",
                target=("ratio", "<=", 2.0),
                note=f"bench/retention_cost.py: {result.get('runs_per_day')} runs/day; store {large.get('bytes', 0) / 1e6:.1f} MB "
                f"vs {small.get('bytes', 0) / 1e6:.1f} MB ({result.get('store_ratio')}x); first apply on each "
                f"{large.get('first_run_s')} s vs {small.get('first_run_s')} s; days listed {large.get('days_listed')} vs "
                f"{small.get('days_listed')}",
            )
        ]
    numbers = {k: v for k, v in result.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    long = next((k for k in numbers if "365" in k), None)
    short = next((k for k in numbers if "36" in k and "365" not in k), None)
    if long is None or short is None:
        return _generic_figures(result, task)
    return [
        figure(
            "retention.apply_365d_vs_36d",
            _RETENTION,
            "`retention apply`, one expiring day, 365-day store",
            float(numbers[long]),
            _unit(long),
            baseline=float(numbers[short]),
            baseline_name="same on a 36-day store",
            target=("ratio", "<=", 2.0),
            note=f"bench/retention_cost.py: {json.dumps(result, default=str)[:400]}",
        )
    ]


def _blank(task: Task) -> dict[str, Any]:
    return {
        "id": task.key,
        "section": task.section,
        "name": task.key,
        "value": None,
        "unit": "",
        "baseline": None,
        "baseline_name": None,
        "ratio": None,
        "target": None,
        "met": False,
        "note": "",
    }


@dataclass
class Task:
    """One section run in its own process: ``bench.<module>.<function>(**plan[plan_key], **extra)``."""

    key: str
    section: str
    module: str
    function: str = "measure"
    plan_key: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    timeout_s: dict[str, float] = field(default_factory=lambda: {"full": 900, "quick": 90, "tiny": 120})
    expects: list[Expected] = field(default_factory=list)
    adapt: Callable[[Any, Task], list[dict[str, Any]]] = _figures
    external: bool = False
    attach_to: str | None = None

    def kwargs(self, mode: str, work: str) -> dict[str, Any]:
        """Return the keyword arguments for ``mode``."""
        plan = dict(PLANS[mode].get(self.plan_key or self.key, {}))
        return {**plan, **self.extra, "work": work}

    def failed(self, why: str) -> list[dict[str, Any]]:
        """Return a not-measured figure for each figure this task was expected to produce."""
        expects = self.expects or [(f"{self.key}.result", self.section, self.key.replace("_", " "), "", None)]
        return [not_measured(fid, section, name, unit, why, target) for fid, section, name, unit, target in expects]


TASKS: list[Task] = [
    Task(
        "hot_path_1kb",
        _HOT,
        "hot_path",
        plan_key="hot_path",
        extra={"sizes_kb": [1], "store_down": False},
        expects=[("hot_path.median_1kb", _HOT, "median per call, 1 KB input", "µs", None)],
    ),
    Task(
        "hot_path_10kb",
        _HOT,
        "hot_path",
        plan_key="hot_path",
        extra={"sizes_kb": [10], "store_down": False},
        expects=[("hot_path.median_10kb", _HOT, "median per call, 10 KB input", "µs", ("ratio", "<=", 1.3))],
    ),
    Task(
        "hot_path_paused",
        _HOT,
        "hot_path",
        function="measure_paused",
        plan_key="hot_path",
        expects=[
            (
                "hot_path.median_10kb_writer_paused",
                _HOT,
                "median per call, 10 KB input, background writer paused",
                "µs",
                None,
            )
        ],
    ),
    Task(
        "hot_path_340kb",
        _HOT,
        "hot_path",
        plan_key="hot_path",
        extra={"sizes_kb": [340], "store_down": False},
        expects=[("hot_path.median_340kb", _HOT, "median per call, 340 KB input", "µs", None)],
    ),
    Task(
        "hot_path_down",
        _HOT,
        "hot_path",
        plan_key="hot_path",
        extra={"sizes_kb": [], "store_down": True},
        expects=[
            ("hot_path.p99_10kb_store_down", _HOT, "p99 per call, 10 KB input, store down", "µs", ("ratio", "<=", 2.0))
        ],
    ),
    Task("hot_path_profile", _HOT, "hot_path", function="profile", attach_to="hot_path.median_10kb"),
    Task("adapters_overhead", "1b. Adapter overhead", "adapters_overhead", adapt=_adapter_figures, external=True),
    Task(
        "ingest_off",
        _INGEST,
        "ingest",
        extra={"scrub": False},
        expects=[
            (
                "ingest.scrub_off_per_s",
                _INGEST,
                "handoffs/s into the local store, scrubbing off",
                "handoffs/s",
                ("value", ">=", 5000),
            )
        ],
    ),
    Task(
        "ingest_on",
        _INGEST,
        "ingest",
        extra={"scrub": True},
        expects=[
            ("ingest.scrub_on_mb_s", _INGEST, "payload MB/s per writer core, scrubbing on", "MB/s", ("value", ">=", 4))
        ],
    ),
    Task(
        "scrub_throughput",
        _INGEST,
        "scrub_throughput",
        adapt=_scrub_figures,
        external=True,
        expects=[
            (
                "scrub.repeated_mb_s",
                _INGEST,
                "scrubber alone, MB/s on prompts with repeating templates",
                "MB/s",
                ("value", ">=", 4),
            )
        ],
    ),
    Task(
        "constraint_extraction",
        _INGEST,
        "extraction",
        expects=[
            (
                "constraints.unique_mb_s",
                _INGEST,
                "constraint extraction, MB/s on invoice-like prompts where no line repeats",
                "MB/s",
                ("value", ">=", 5),
            )
        ],
    ),
    Task(
        "app_slowdown_process",
        _SLOW,
        "app_slowdown",
        plan_key="app_slowdown",
        timeout_s={"full": 1800, "quick": 600, "tiny": 300},
        extra={"writer": "process"},
        expects=_slowdown_expects("process"),
    ),
    Task(
        "app_slowdown_thread",
        _SLOW,
        "app_slowdown",
        plan_key="app_slowdown",
        timeout_s={"full": 1800, "quick": 600, "tiny": 300},
        extra={"writer": "thread"},
        expects=_slowdown_expects("thread"),
    ),
    Task(
        "bursts",
        "2d. Bursts, store up and down",
        "bursts",
        timeout_s={"full": 3600, "quick": 900, "tiny": 300},
        expects=[
            (
                "bursts.2000x200kb_local-down_rss_mb",
                "2d. Bursts, store up and down",
                "2,000 x 200 KB, local-down: peak RSS growth of the app",
                "MB",
                ("value", "<=", 300),
            )
        ],
    ),
    Task("s3_ingest", "2b. S3 ingest", "s3_ingest", adapt=_s3_figures, external=True),
    Task(
        "queries",
        _QUERIES,
        "queries",
        expects=[
            (
                "queries.runs_show_query_ms",
                _QUERIES,
                "`runs show` query time (library, open connection)",
                "ms",
                ("value", "<=", 30),
            ),
            (
                "queries.runs_show_cli_s",
                _QUERIES,
                "`handoff runs show` CLI wall time, cold process",
                "s",
                ("value", "<", 0.6),
            ),
            (
                "queries.blast_radius_query_s",
                _QUERIES,
                "blast radius query time over the whole window (library)",
                "s",
                ("value", "<", 1.0),
            ),
            ("queries.alerts_24h_query_s", _QUERIES, "alerts query time, last 24 h (library)", "s", None),
            ("queries.alerts_24h_s", _QUERIES, "`handoff alerts --since 24h` CLI wall time", "s", None),
            (
                "queries.blast_radius_s",
                _QUERIES,
                "`handoff blast-radius` over the whole window, CLI wall time",
                "s",
                ("value", "<", 1.0),
            ),
            ("queries.diff_runs_s", _QUERIES, "`handoff diff --runs` CLI wall time", "s", None),
        ],
    ),
    Task(
        "ui",
        _QUERIES,
        "ui",
        expects=[
            (
                "ui.run_page_ms",
                _QUERIES,
                "`handoff ui` run page response time (HTTP on loopback)",
                "ms",
                ("value", "<=", 300),
            )
        ],
    ),
    Task(
        "retention_cost",
        _RETENTION,
        "retention_cost",
        adapt=_retention_figures,
        external=True,
        expects=[
            (
                "retention.apply_365d_vs_36d",
                _RETENTION,
                "`retention apply`, one expiring day, 365-day store",
                "s",
                ("ratio", "<=", 2.0),
            )
        ],
    ),
    Task(
        "storage",
        _STORAGE,
        "storage",
        plan_key="queries",
        expects=[
            ("storage.digest_bytes_per_handoff", _STORAGE, "digest bytes per handoff", "B", ("value", "<=", 150)),
            (
                "storage.digest_bytes_per_handoff_real_writer",
                _STORAGE,
                "digest bytes per handoff, real writer, realistic corpus",
                "B",
                ("value", "<=", 150),
            ),
            ("storage.content_fraction", _STORAGE, "stored content / raw bytes", "ratio", ("value", "<=", 0.3)),
        ],
    ),
    Task(
        "peer",
        _PEER,
        "peer",
        expects=[
            ("peer.per_call_10kb", _PEER, "median per call vs the peer, 10 KB prompt", "µs", ("ratio", "<=", 1.0)),
        ],
    ),
    Task(
        "peer_throughput",
        _PEER,
        "peer",
        function="measure_throughput",
        expects=[
            (
                "peer.throughput",
                _PEER,
                "sustained handoffs/s to local storage vs the peer",
                "handoffs/s",
                ("ratio", ">=", 1.0),
            ),
        ],
    ),
]


def _module_exists(module: str) -> bool:
    return (BENCH_DIR / f"{module}.py").exists() and importlib.util.find_spec(f"bench.{module}") is not None


def run_task(task: Task, mode: str, work: str) -> list[dict[str, Any]]:
    """Run one task in a child process and return its figures (or not-measured figures saying why)."""
    if not _module_exists(task.module):
        return task.failed(f"bench/{task.module}.py does not exist yet")
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        out = pathlib.Path(handle.name)
    args = [
        sys.executable,
        "-m",
        "bench.task",
        task.module,
        task.function,
        json.dumps(task.kwargs(mode, work)),
        str(out),
    ]
    timeout = task.timeout_s[mode]
    try:
        subprocess.run(args, cwd=BENCH_DIR.parent, timeout=timeout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except subprocess.TimeoutExpired:
        return task.failed(f"timed out after {timeout:.0f} s")
    try:
        payload = json.loads(out.read_text())
    except ValueError:
        return task.failed("the benchmark process died without a result")
    finally:
        out.unlink(missing_ok=True)
    if "error" in payload:
        return task.failed(f"raised {payload['error']}")
    try:
        return task.adapt(payload["result"], task)
    except Exception as exc:  # noqa: BLE001 - a malformed result is one unmeasured figure, not a crash
        return task.failed(f"unexpected result shape ({type(exc).__name__}: {exc})")


def _attach(figures: list[dict[str, Any]], task: Task, mode: str, work: str) -> None:
    """Run a task whose result is a list of lines and attach them as details to figure ``task.attach_to``."""
    target = next((f for f in figures if f["id"] == task.attach_to), None)
    if target is None or target["met"] or target["value"] is None:
        return
    task.adapt = lambda result, _task: result
    lines = run_task(task, mode, work)
    if lines and isinstance(lines[0], str):
        target["details"] = lines
    else:
        target["details"] = [f"profile {lines[0]['note'] if lines and isinstance(lines[0], dict) else 'failed'}"]


def run_suite(
    mode: str, work: str, only: list[str] | None = None, log: Callable[[str], None] = print
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run every task (or those in ``only``) at ``mode`` sizes; return the figures and the sizes used."""
    figures: list[dict[str, Any]] = []
    for task in TASKS:
        if only and task.key not in only and task.module not in only:
            continue
        if task.attach_to is not None and task.key not in PLANS[mode]:
            continue  # optional extras (the profile) run only in the modes whose plan names them
        start = time.perf_counter()
        if task.attach_to is not None:
            _attach(figures, task, mode, work)
            log(f"{task.key}: attached to {task.attach_to} in {time.perf_counter() - start:.1f} s")
            continue
        produced = run_task(task, mode, work)
        for entry in produced:
            entry.setdefault("details", [])  # figures from other modules may lack it
        log(
            f"{task.key}: {len(produced)} figure(s) in {time.perf_counter() - start:.1f} s"
            + "".join(
                f"\n  {f['name']}: {f['value']} {f['unit']}  {f['note'][:120] if f['value'] is None else ''}"
                for f in produced
            )
        )
        figures += produced
    return figures, PLANS[mode]
