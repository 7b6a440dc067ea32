"""``python -m bench [--quick]``: run the benchmarks, write ``bench/results.json``, render ``bench/RESULTS.md``.

Examples:

    python -m bench --quick
    python -m bench --only hot_path_10kb    # re-measure one task; the other figures stay, marked as earlier
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

from bench.results import document, merge_results, render_markdown, write_results
from bench.suite import BENCH_DIR, PLANS, TASKS, run_suite


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(prog="python -m bench", description="Measure handoff against its baselines.")
    parser.add_argument("--quick", action="store_true", help="smaller sizes; finishes in under two minutes")
    parser.add_argument(
        "--sizes", choices=sorted(PLANS), default=None, help="size plan (default: full, or quick with --quick)"
    )
    parser.add_argument(
        "--out", default=str(BENCH_DIR), help="directory for results.json and RESULTS.md (default: bench/)"
    )
    parser.add_argument(
        "--work", default=str(BENCH_DIR / "_work"), help="scratch directory for generated stores (gitignored)"
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="TASK",
        help=f"run only these tasks, replacing their figures in the existing results: {', '.join(t.key for t in TASKS)}",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the suite and write both result files; return the exit code."""
    args = parse_args(argv)
    mode = args.sizes or ("quick" if args.quick else "full")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.work).mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    load = round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
    figures, sizes = run_suite(
        mode, str(pathlib.Path(args.work).resolve()), args.only, log=lambda line: print(line, flush=True)
    )
    doc = document(figures, mode=mode, duration_s=time.perf_counter() - start, sizes=sizes, load_at_start=load)
    if args.only and (out / "results.json").exists():
        doc = merge_results(json.loads((out / "results.json").read_text()), doc)
    write_results(doc, out / "results.json")
    (out / "RESULTS.md").write_text(render_markdown(doc))
    met = sum(f["met"] for f in figures)
    print(
        f"wrote {out / 'results.json'} and {out / 'RESULTS.md'}: {met} of {sum(1 for f in figures if f['target'])} targets met "
        f"in {time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
