"""Score the constraint-loss check on a labelled corpus, run the way a user runs it.

Each pair is recorded as ``producer(text)`` → ``@handoff.step(kind="transform")`` returning the
rewrite, into a fresh store with the default configuration (scrubbing on); then
``handoff check --since 24h --json`` runs as a subprocess and its output is scored against the
labels (docs/constraints.md):

- a planted loss is *found* when a detection on its pair names it: the detection's upstream text
  overlaps the planted text in the upstream (either contains the other, or their spans overlap);
- a faithful pair is *flagged* when any check on its run reported a lost or changed constraint;
- *detection precision*: of the detections on loss pairs, the share that name a planted loss.

    python -m tests.analysis.eval_constraints --split heldout
    python -m tests.analysis.eval_constraints --split dev --fast --verbose   # iterate on dev
    python -m tests.analysis.eval_constraints --file new-pass.jsonl          # a new pass, before tuning on it
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "data" / "constraints"
CLASSES = (
    "number",
    "percentage",
    "money",
    "date_time",
    "clause_ref",
    "identifier",
    "negation",
    "qualifier",
    "unit",
    "comparison",
    "list_item",
)


def load_pairs(split: str) -> list[dict]:
    """Every pair of ``split`` (``dev``, ``heldout`` or ``all``), in file order."""
    splits = ("dev", "heldout") if split == "all" else (split,)
    pairs = []
    for name in splits:
        for path in sorted((CORPUS / name).glob("*.jsonl")):
            pairs += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return pairs


def load_file(path: str) -> list[dict]:
    """Every pair of one corpus file (a new writing pass, scored before it joins ``dev``)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def record_pairs(pairs: list[dict], store: str) -> dict[str, str]:
    """Record every pair as a two-step run into ``store``; return run id -> pair id."""
    import handoff

    handoff.configure(store=store, scrub_key="eval-constraints")
    rewrites: dict[str, str] = {}

    @handoff.step(to="producer")
    def producer(pair_id: str) -> str:
        return rewrites[pair_id + "/up"]

    @handoff.step(to="rewrite", kind="transform")
    def rewrite(text: str) -> str:
        return rewrites[text]

    runs = {}
    for pair in pairs:
        rewrites[pair["id"] + "/up"] = pair["upstream"]
        rewrites[pair["upstream"]] = pair["downstream"]
        with handoff.run("constraint-pair", pair=pair["id"]) as run:
            rewrite(producer(pair["id"]))
        runs[run.run_id] = pair["id"]
    if not handoff.flush(120):
        raise SystemExit("recording did not flush")
    return runs


def run_check(store: str) -> list[dict]:
    """``handoff check --since 24h --json`` on ``store``, as a user runs it."""
    cli = shutil.which("handoff", path=str(Path(sys.executable).parent)) or "handoff"
    out = subprocess.run(
        [cli, "check", "--since", "24h", "--json", "--store", store],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode not in (0, 2):
        raise SystemExit(f"handoff check failed ({out.returncode}): {out.stderr.strip()}")
    return json.loads(out.stdout)


@dataclass
class Detection:
    """One lost or changed constraint the check reported on a pair."""

    cls: str
    text: str
    status: str
    token: str


def detections(result: dict) -> list[Detection]:
    """The lost/changed items of one failed check result, whatever shape each item has."""
    found = []
    for item in result.get("lost") or ():
        if isinstance(item, str):
            found.append(Detection("", item.split(":", 1)[-1], "lost", item))
        else:
            found.append(
                Detection(
                    item.get("class") or "",
                    item.get("text") or item.get("token") or "",
                    item.get("status") or "lost",
                    item.get("token") or "",
                )
            )
    return found


def _spans(haystack: str, needle: str) -> list[tuple[int, int]]:
    spans, start = [], haystack.find(needle) if needle else -1
    while start >= 0:
        spans.append((start, start + len(needle)))
        start = haystack.find(needle, start + 1)
    return spans


def names(detection: Detection, loss: dict, upstream: str) -> bool:
    """Whether ``detection`` points at the planted ``loss``: same words, or overlapping spans upstream."""
    a, b = detection.text.strip().lower(), loss["text"].strip().lower()
    if not a:
        return False
    if a in b or b in a:
        return True
    low = upstream.lower()
    return any(s < e2 and s2 < e for s, e in _spans(low, a) for s2, e2 in _spans(low, b))


@dataclass
class Score:
    """Figures over one corpus split."""

    found: collections.Counter = field(default_factory=collections.Counter)
    planted: collections.Counter = field(default_factory=collections.Counter)
    faithful: int = 0
    faithful_flagged: int = 0
    detections: int = 0
    detections_naming: int = 0
    flagged_ids: list = field(default_factory=list)
    missed: list = field(default_factory=list)
    stray: list = field(default_factory=list)


def score(pairs: list[dict], runs: dict[str, str], results: list[dict]) -> Score:
    """Score check results against the labels of ``pairs``."""
    by_pair: dict[str, list[Detection]] = collections.defaultdict(list)
    failed_pairs = set()
    for result in results:
        pair_id = runs.get(result["run_id"])
        if pair_id is None:
            continue
        found = detections(result) if result.get("status") == "fail" else []
        if found:
            failed_pairs.add(pair_id)
            by_pair[pair_id] += found
    s = Score()
    for pair in pairs:
        found = by_pair.get(pair["id"], [])
        if pair["faithful"]:
            s.faithful += 1
            if pair["id"] in failed_pairs:
                s.faithful_flagged += 1
                s.flagged_ids.append((pair["id"], [(d.cls, d.text) for d in found]))
            continue
        for loss in pair["losses"]:
            s.planted[loss["class"]] += 1
            if any(names(d, loss, pair["upstream"]) for d in found):
                s.found[loss["class"]] += 1
            else:
                s.missed.append((pair["id"], loss["class"], loss["text"]))
        for d in found:
            s.detections += 1
            if any(names(d, loss, pair["upstream"]) for loss in pair["losses"]):
                s.detections_naming += 1
            else:
                s.stray.append((pair["id"], d.cls, d.text))
    return s


def table(s: Score) -> str:
    """The per-class table printed in the closing note."""
    lines = ["| class | found / planted | recall |", "|---|---|---|"]
    for cls in CLASSES:
        n = s.planted[cls]
        lines.append(f"| {cls} | {s.found[cls]} / {n} | {s.found[cls] / n:.2f} |" if n else f"| {cls} | 0 / 0 | - |")
    total, found = sum(s.planted.values()), sum(s.found.values())
    lines.append(f"| **all** | {found} / {total} | {found / max(total, 1):.2f} |")
    lines.append("")
    lines.append(
        f"faithful rewrites flagged: {s.faithful_flagged} / {s.faithful} ({s.faithful_flagged / max(s.faithful, 1):.3f})"
    )
    lines.append(
        f"detections on loss pairs naming a planted loss: {s.detections_naming} / {s.detections} "
        f"({s.detections_naming / max(s.detections, 1):.2f})"
    )
    return "\n".join(lines)


def evaluate(split: str, store: str | None = None, pairs: list[dict] | None = None) -> Score:
    """Record and check every pair of ``split`` (or ``pairs``) in a fresh store; return the score."""
    pairs = load_pairs(split) if pairs is None else pairs
    with tempfile.TemporaryDirectory() as tmp:
        store = store or os.path.join(tmp, "store")
        runs = record_pairs(pairs, store)
        return score(pairs, runs, run_check(store))


def check_in_process(pair: dict) -> list[Detection]:
    """What the transform check reports on one pair, computed in this process (no recorder, no scrubbing).

    Calls what ``transform-constraints`` in :mod:`handoff.queries.checks` calls:
    :func:`~handoff.analysis.constraints.compare_constraints` on the tokens the writer stores for
    each side, each finding named as written upstream. For iterating on ``dev`` only: the figures
    to report are the recorder's (without ``--fast``).
    """
    from handoff.analysis.constraints import compare_constraints, find_written, stored_tokens

    written: dict[str, str] = {}
    for c in find_written(pair["upstream"]):
        written.setdefault(c.token, c.text)
    findings = compare_constraints(stored_tokens(pair["upstream"]), stored_tokens(pair["downstream"]))
    return [
        Detection(f.token.split(":", 1)[0], written.get(f.token, f.token.split(":", 1)[1]), f.status, f.token)
        for f in findings
    ]


def evaluate_fast(split: str, pairs: list[dict] | None = None) -> Score:
    """:func:`evaluate` without the recorder: the in-process check on every pair of ``split`` (or ``pairs``)."""
    pairs = load_pairs(split) if pairs is None else pairs
    runs, results = {}, []
    for pair in pairs:
        found = check_in_process(pair)
        runs[pair["id"]] = pair["id"]
        lost = [{"class": d.cls, "text": d.text, "status": d.status, "token": d.token} for d in found]
        results.append({"run_id": pair["id"], "status": "fail" if found else "pass", "lost": lost})
    return score(pairs, runs, results)


def main(argv: list[str] | None = None) -> None:
    """Command line: print the table for one split (and, with --verbose, what was missed or stray)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="heldout", choices=("dev", "heldout", "all"))
    parser.add_argument(
        "--verbose", action="store_true", help="also list misses, stray detections and flagged faithful pairs"
    )
    parser.add_argument(
        "--fast", action="store_true", help="score the in-process check (no recorder, no scrubbing); dev iteration only"
    )
    parser.add_argument("--file", help="score this corpus file instead of a split (a new pass, before tuning on it)")
    args = parser.parse_args(argv)
    if args.fast and args.split != "dev" and not args.file:
        parser.error("--fast is for iterating on dev; report held-out figures from the recorder")
    pairs = load_file(args.file) if args.file else None
    s = evaluate_fast(args.split, pairs) if args.fast else evaluate(args.split, pairs=pairs)
    print(f"file: {args.file}" if args.file else f"split: {args.split}")
    print(table(s))
    if args.verbose:
        for row in s.missed:
            print("MISSED", *row)
        for row in s.stray:
            print("STRAY", *row)
        for row in s.flagged_ids:
            print("FLAGGED", *row)


if __name__ == "__main__":
    main()
