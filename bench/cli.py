"""Time ``handoff`` commands from a cold process, as an on-call engineer runs them."""

from __future__ import annotations

import pathlib
import statistics
import subprocess
import sys
import time


def handoff_executable() -> str:
    """Return the ``handoff`` console script installed beside this interpreter."""
    candidate = pathlib.Path(sys.executable).with_name("handoff")
    return str(candidate) if candidate.exists() else "handoff"


def command_missing(command: list[str]) -> str | None:
    """Return why ``handoff <command>`` cannot be timed (not registered yet), or ``None`` if it exists."""
    out = subprocess.run([handoff_executable(), *command, "--help"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        lines = (out.stderr or out.stdout).strip().splitlines()
        return f"`handoff {' '.join(command)}` is not available ({lines[-1] if lines else f'exit {out.returncode}'})"
    return None


def wall_times(args: list[str], repeats: int, timeout_s: float = 120.0) -> tuple[float, str | None, str]:
    """Run ``args`` ``repeats`` times; return the median wall time in seconds, the error of a failed run, and stdout."""
    times, stdout = [], ""
    for _ in range(repeats):
        start = time.perf_counter()
        out = subprocess.run(args, capture_output=True, text=True, timeout=timeout_s)
        times.append(time.perf_counter() - start)
        stdout = out.stdout
        if out.returncode != 0:
            lines = (out.stderr or out.stdout).strip().splitlines()
            return statistics.median(times), f"exit {out.returncode}: {lines[-1] if lines else ''}", stdout
    return statistics.median(times), None, stdout


def time_handoff(command: list[str], store: pathlib.Path, repeats: int) -> tuple[float | None, str]:
    """Return ``(median seconds, stdout)`` for ``handoff <command> --store STORE``, or ``(None, why)``."""
    missing = command_missing(command[:1])
    if missing:
        return None, missing
    seconds, error, stdout = wall_times([handoff_executable(), *command, "--store", str(store)], repeats)
    if error:
        return None, f"`handoff {' '.join(command)}` failed: {error}"
    return seconds, stdout
