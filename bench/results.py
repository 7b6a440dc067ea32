"""The results file: figures, the machine they were measured on, and its Markdown rendering.

A figure is a dict with ``id``, ``section``, ``name``, ``value``, ``unit``, ``baseline``,
``baseline_name``, ``ratio``, ``target``, ``met``, ``note`` and ``details`` (lines, e.g. a
profile of a missed target). ``target`` is a short text ("ratio <= 1.3"); ``met`` is ``True``
only when the figure has a target, was measured, and meets it. A figure that could not be
measured has ``value`` ``None``, ``met`` ``False`` and a note starting "not measured:".
"""

from __future__ import annotations

import json
import os
import pathlib
import platform
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from importlib import metadata
from typing import Any

SCHEMA_VERSION = 1
PACKAGES = (
    "handoff-trace",
    "opentelemetry-sdk",
    "opentelemetry-util-genai",
    "fsspec",
    "duckdb",
    "pyarrow",
    "presidio-analyzer",
    "spacy",
)
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<=": lambda value, limit: value <= limit,
    "<": lambda value, limit: value < limit,
    ">=": lambda value, limit: value >= limit,
    ">": lambda value, limit: value > limit,
}


def _round(value: float | None, digits: int = 4) -> float | None:
    if value is None:
        return None
    return float(f"{value:.{digits}g}") if abs(value) < 1e4 else round(value, 1)


def figure(
    id: str,
    section: str,
    name: str,
    value: float | None,
    unit: str,
    *,
    baseline: float | None = None,
    baseline_name: str | None = None,
    target: tuple[str, str, float] | None = None,
    note: str = "",
) -> dict[str, Any]:
    """Build one figure; ``target`` is ``(subject, op, limit)`` with subject ``"value"`` or ``"ratio"``.

    ``ratio`` is ``value / baseline`` when both are known; ``met`` compares the subject with
    ``limit`` (``op`` one of ``<=``, ``<``, ``>=``, ``>``).
    """
    ratio = value / baseline if value is not None and baseline else None
    met = False
    target_text = None
    if target is not None:
        subject, op, limit = target
        target_text = f"{subject} {op} {limit:g}"
        measured = ratio if subject == "ratio" else value
        met = measured is not None and _COMPARE[op](measured, limit)
    return {
        "id": id,
        "section": section,
        "name": name,
        "value": _round(value),
        "unit": unit,
        "baseline": _round(baseline),
        "baseline_name": baseline_name,
        "ratio": _round(ratio, 3),
        "target": target_text,
        "met": bool(met),
        "note": note,
        "details": [],
    }


def not_measured(
    id: str, section: str, name: str, unit: str, why: str, target: tuple[str, str, float] | None = None
) -> dict[str, Any]:
    """Build the figure for something that could not be measured, saying why."""
    entry = figure(id, section, name, None, unit, target=target, note=f"not measured: {why}")
    entry["met"] = False
    return entry


def versions() -> dict[str, str]:
    """Return the installed version of each package the figures depend on."""
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def _cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gb() -> float | None:
    try:
        for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def _git(*args: str) -> str:
    try:
        out = subprocess.run(
            ["git", *args], capture_output=True, text=True, timeout=5, cwd=pathlib.Path(__file__).resolve().parent
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()


def _git_commit() -> str | None:
    """Return the short commit, marked when tracked files differ from it (the figures then measure more than it)."""
    commit = _git("rev-parse", "--short", "HEAD")
    if not commit:
        return None
    changed = [path for path in _git("diff", "--name-only", "HEAD").splitlines() if not path.startswith("bench/")]
    return f"{commit} + uncommitted changes to {', '.join(changed)}" if changed else commit


def machine() -> dict[str, Any]:
    """Describe the machine: OS, CPU model, cores, memory, Python build, commit."""
    return {
        "os": f"{platform.system()} {platform.release()}",
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gb": _memory_gb(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "commit": _git_commit(),
        "load_average_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }


def document(
    figures: list[dict[str, Any]],
    *,
    mode: str,
    duration_s: float,
    sizes: dict[str, Any],
    load_at_start: float | None = None,
) -> dict[str, Any]:
    """Assemble the whole results document (``load_at_start``: the 1-minute load average when the run began)."""
    described = machine()
    described["load_average_1m_at_start"] = load_at_start
    return {
        "schema_version": SCHEMA_VERSION,
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "mode": mode,
        "duration_s": round(duration_s, 1),
        "machine": described,
        "versions": versions(),
        "sizes": sizes,
        "figures": figures,
    }


def merge_results(previous: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` (a partial run, ``--only``) laid over ``previous``: its figures replace those with the same id.

    The figures it did not measure stay, in their places, and ``kept_from`` names the run each of
    them came from (date, commit, mode), so a partial run never wipes the rest of the page and a
    reader can tell which run measured what. A ``previous`` of another schema is ignored.
    """
    if previous.get("schema_version") != doc.get("schema_version"):
        return doc
    fresh = {f["id"]: f for f in doc["figures"]}
    earlier_run = {
        "date": previous.get("date"),
        "commit": previous.get("machine", {}).get("commit"),
        "mode": previous.get("mode"),
    }
    earlier = previous.get("kept_from", {})
    figures, kept_from = [], {}
    for old in previous.get("figures", []):
        if old["id"] in fresh:
            figures.append(fresh.pop(old["id"]))
        else:
            figures.append(old)
            kept_from[old["id"]] = earlier.get(old["id"], earlier_run)
    return {**doc, "figures": figures + list(fresh.values()), "kept_from": kept_from}


def write_results(doc: dict[str, Any], path: pathlib.Path) -> None:
    """Write the results document as indented JSON."""
    path.write_text(json.dumps(doc, indent=2, sort_keys=False) + "\n")


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return str(value).replace("|", "\\|")


def _status(entry: dict[str, Any]) -> str:
    if entry["value"] is None:
        return "not measured"
    if entry["target"] is None:
        return "-"
    return "met" if entry["met"] else "**missed**"


def _figure_rows(figures: list[dict[str, Any]]) -> list[str]:
    rows = ["| figure | value | baseline | ratio | target | status |", "|---|---|---|---|---|---|"]
    for f in figures:
        baseline = f"{_cell(f['baseline'])} {f['unit']}" if f["baseline"] is not None else "-"
        if f["baseline_name"] and f["baseline"] is not None:
            baseline += f" ({f['baseline_name']})"
        value = f"{_cell(f['value'])} {f['unit']}" if f["value"] is not None else "-"
        rows.append(
            f"| {_cell(f['name'])} | {value} | {_cell(baseline)} | {_cell(f['ratio'])} | {_cell(f['target'])} | {_status(f)} |"
        )
    return rows


def _notes(figures: list[dict[str, Any]], kept_from: dict[str, dict[str, Any]]) -> list[str]:
    lines = []
    for f in figures:
        run = kept_from.get(f["id"])
        earlier = f" (from an earlier run: {run['date']}, commit {run['commit']}, {run['mode']} mode)" if run else ""
        if f["note"] or earlier:
            lines.append(f"- **{f['name']}**: {f['note']}{earlier}")
        if f.get("details"):
            lines += ["", "  ```", *(f"  {line}" for line in f["details"]), "  ```"]
    return lines


def render_markdown(doc: dict[str, Any]) -> str:
    """Render the results document as the Markdown page ``bench/RESULTS.md``."""
    m, figures = doc["machine"], doc["figures"]
    measured = [f for f in figures if f["target"] and f["value"] is not None]
    lines = [
        "# Benchmark results",
        "",
        f"Rendered from `bench/results.json` by `python -m bench{' --quick' if doc['mode'] == 'quick' else ''}` "
        f"on {doc['date']} ({doc['mode']} mode, {doc['duration_s']:.0f} s). Do not edit by hand: rerun the command.",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB, {m['os']}, "
        f"{m['implementation']} {m['python']}, commit {m['commit']}; 1-minute load average {m.get('load_average_1m_at_start')} "
        f"at the start and {m.get('load_average_1m')} at the end (the machine is shared: every comparison runs its "
        "baseline in the same process, in alternating rounds where it can).",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in doc["versions"].items()) + ".",
        "",
        f"Targets met: **{sum(f['met'] for f in measured)} of {len([f for f in figures if f['target']])}** "
        f"({len([f for f in figures if f['value'] is None])} not measured).",
        "",
    ]
    if doc.get("kept_from"):
        lines += [
            f"This run measured {len(figures) - len(doc['kept_from'])} figures (`--only`); the other "
            f"{len(doc['kept_from'])} are kept from earlier runs, each named in its note.",
            "",
        ]
    targeted = [f for f in figures if f["target"]]
    if targeted:
        lines += ["## Targets", "", *_figure_rows(targeted), ""]
    sections: dict[str, list[dict[str, Any]]] = {}
    for f in figures:
        sections.setdefault(f["section"], []).append(f)
    for section, entries in sections.items():
        lines += [f"## {section}", "", *_figure_rows(entries), ""]
        notes = _notes(entries, doc.get("kept_from", {}))
        if notes:
            lines += [*notes, ""]
    lines += ["## Sizes", "", "```json", json.dumps(doc["sizes"], indent=2), "```", ""]
    return "\n".join(lines)
