"""Run one benchmark function in a fresh process: ``python -m bench.task MODULE FUNCTION KWARGS_JSON OUT``.

Each section runs in its own process so that a crash, a hang or a background writer still
draining one section's backlog cannot disturb another. The result (figures, or the dict an
external ``measure`` returns) is written as JSON to ``OUT``; an exception is written as
``{"error": ...}``. The process leaves with ``os._exit`` so no exit-time flush is timed.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import sys
import traceback


def run(module: str, function: str, kwargs: dict, out: str) -> int:
    """Call ``bench.<module>.<function>(**kwargs)`` and write its JSON result to ``out``; return an exit code."""
    try:
        target = getattr(importlib.import_module(f"bench.{module}"), function)
        accepted = inspect.signature(target).parameters
        result = target(**{k: v for k, v in kwargs.items() if k in accepted})
        payload, code = {"result": result}, 0
    except BaseException as exc:  # noqa: BLE001 - reported as a figure that could not be measured
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        payload, code = {"error": last, "traceback": traceback.format_exc()}, 1
    with open(out, "w") as handle:
        json.dump(payload, handle, default=str)
    return code


if __name__ == "__main__":
    sys.stdout.flush()
    code = run(sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
