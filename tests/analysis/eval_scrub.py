"""Score the scrubber on a labelled corpus, run the way a user runs it.

Every text is recorded as the input of an ``@handoff.step`` with the default configuration
(scrubbing on), into a fresh store with its own spool; after ``handoff.flush()`` every file under
the store root and the spool is read back (Parquet cells decoded, blobs decompressed, JSON and text
files as they are) and searched:

- a PII value is *removed* when its exact text occurs nowhere in what was written (as a whole word);
- a business value is *kept* when it still occurs verbatim in its text's stored content;
- a PII-free text is *unchanged* when its stored content equals the text byte for byte.

    python -m tests.analysis.eval_scrub --split heldout

``--fast`` skips the recorder: the scrubber the writer builds by default scrubs each text in
process (the same payload route, same scoring), and every miss is printed with its context. For
iterating on dev; reported figures come from the recorder.

    python -m tests.analysis.eval_scrub --split dev --fast
    python -m tests.analysis.eval_scrub --file new-pass.jsonl   # a new pass, before tuning on it
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.analysis.eval_constraints import load_file  # one reader for a new pass of either corpus

CORPUS = Path(__file__).resolve().parents[1] / "data" / "scrub_corpus"
NAMES_AND_ADDRESSES = ("PERSON", "ADDRESS")
SECRETS = ("SECRET",)


def load_texts(split: str) -> list[dict]:
    """Every labelled text of ``split`` (``dev``, ``heldout`` or ``all``)."""
    splits = ("dev", "heldout") if split == "all" else (split,)
    texts = []
    for name in splits:
        for path in sorted((CORPUS / name).glob("*.jsonl")):
            texts += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return texts


def record_texts(texts: list[dict], store: str, spool: str) -> dict[str, str]:
    """Record each text as one step's input; return run id -> text id."""
    import handoff

    handoff.configure(store=store, spool_dir=spool)

    @handoff.step(to="consumer")
    def consumer(text: str) -> str:
        return "ok"

    runs = {}
    for text in texts:
        with handoff.run("scrub-text", text=text["id"]) as run:
            consumer(text["text"])
        runs[run.run_id] = text["id"]
    if not handoff.flush(300):
        raise SystemExit("recording did not flush")
    return runs


def _cells(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    out = []
    for column in pq.read_table(path).to_pylist():
        for value in column.values():
            out.append(
                value.decode("utf-8", "replace")
                if isinstance(value, bytes)
                else json.dumps(value, default=str, ensure_ascii=False)
            )
    return out


def written_text(*roots: str) -> tuple[str, dict[tuple[str, str], str]]:
    """Everything written under ``roots`` as one string, and the stored input content per (run, handoff)."""
    import pyarrow.parquet as pq
    import zstandard

    parts, content = [], {}
    for root in roots:
        for path in Path(root).rglob("*"):
            if not path.is_file():
                continue
            data = path.read_bytes()
            if path.suffix == ".parquet":
                parts += _cells(path)
                if "content" in path.parts:
                    for row in pq.read_table(path).to_pylist():
                        if row["side"] == "in":
                            content[(row["run_id"], row["handoff_id"])] = row["content"].decode("utf-8", "replace")
            elif path.suffix == ".zst":
                parts.append(
                    zstandard.ZstdDecompressor().decompress(data, max_output_size=1 << 30).decode("utf-8", "replace")
                )
            else:
                parts.append(data.decode("utf-8", "replace"))
    return "\n".join(parts), content


@dataclass
class Score:
    """Figures over one corpus split."""

    removed: collections.Counter = field(default_factory=collections.Counter)
    planted: collections.Counter = field(default_factory=collections.Counter)
    kept: int = 0
    keep_total: int = 0
    clean_unchanged: int = 0
    clean_total: int = 0
    leaks: list = field(default_factory=list)
    eaten: list = field(default_factory=list)
    changed_clean: list = field(default_factory=list)


def _occurs(value: str, haystack: str) -> bool:
    """Whether ``value`` occurs in ``haystack`` as a whole (not inside a longer word: "Ana" in "banana")."""
    import re

    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", haystack) is not None


def score(texts: list[dict], runs: dict[str, str], everything: str, content: dict) -> Score:
    """Score what was written against the labels of ``texts``."""
    stored = {runs[run_id]: body for (run_id, _hf), body in content.items() if run_id in runs}
    s = Score()
    for text in texts:
        body = stored.get(text["id"], "")
        for item in text["pii"]:
            s.planted[item["type"]] += 1
            if _occurs(item["value"], everything):
                s.leaks.append((text["id"], item["type"], item["value"]))
            else:
                s.removed[item["type"]] += 1
        for value in text["keep"]:
            s.keep_total += 1
            if value in body:
                s.kept += 1
            else:
                s.eaten.append((text["id"], value))
        if not text["pii"]:
            s.clean_total += 1
            if body == text["text"]:
                s.clean_unchanged += 1
            else:
                s.changed_clean.append(text["id"])
    return s


def _ratio(a: int, b: int) -> str:
    return f"{a} / {b} ({a / b:.3f})" if b else "0 / 0"


def table(s: Score) -> str:
    """The per-type table printed in the closing note."""
    lines = ["| type | removed / planted |", "|---|---|"]
    for kind in sorted(s.planted):
        lines.append(f"| {kind} | {_ratio(s.removed[kind], s.planted[kind])} |")
    groups = {
        "names and addresses": NAMES_AND_ADDRESSES,
        "secrets": SECRETS,
        "pattern PII": tuple(k for k in s.planted if k not in NAMES_AND_ADDRESSES + SECRETS),
    }
    for label, kinds in groups.items():
        lines.append(f"| **{label}** | {_ratio(sum(s.removed[k] for k in kinds), sum(s.planted[k] for k in kinds))} |")
    lines.append("")
    lines.append(f"business values kept: {_ratio(s.kept, s.keep_total)}")
    lines.append(f"PII-free texts unchanged: {_ratio(s.clean_unchanged, s.clean_total)}")
    return "\n".join(lines)


def evaluate(split: str, texts: list[dict] | None = None) -> Score:
    """Record every text of ``split`` (or ``texts``) into a fresh store and spool; return the score."""
    texts = load_texts(split) if texts is None else texts
    with tempfile.TemporaryDirectory() as tmp:
        store, spool = os.path.join(tmp, "store"), os.path.join(tmp, "spool")
        runs = record_texts(texts, store, spool)
        everything, content = written_text(store, spool)
        return score(texts, runs, everything, content)


def evaluate_fast(split: str, texts: list[dict] | None = None) -> tuple[Score, list[dict], Any]:
    """Scrub every text of ``split`` (or ``texts``) in process with the writer's default scrubber;
    the score, texts and scrubber."""
    from handoff.analysis.scrub.routes import scrub_payload
    from handoff.exporters.factory import build_scrubber
    from handoff.model import TEXT

    texts = load_texts(split) if texts is None else texts
    scrubber = build_scrubber("eval-fast")
    bodies = {t["id"]: scrub_payload(scrubber, t["text"].encode("utf-8"), TEXT).text for t in texts}
    runs = {t["id"]: t["id"] for t in texts}
    content = {(t["id"], "hf-1"): bodies[t["id"]] for t in texts}
    for text in texts:
        text["stored"] = bodies[text["id"]]
    return score(texts, runs, "\n".join(bodies.values()), content), texts, scrubber


def _context(text: str, value: str, width: int = 60) -> str:
    import re

    found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text)
    if found is None:
        return ""
    at = found.start()
    left, right = text[max(0, at - width // 2) : at], text[at + len(value) : at + len(value) + width // 2]
    return (left + "[[" + value + "]]" + right).replace("\n", "\\n")


def print_misses(s: Score, texts: list[dict], scrubber: Any) -> None:
    """Every leak (in the stored text), eaten value and changed PII-free text (in the original), with context."""
    by_id = {t["id"]: t for t in texts}
    for text_id, kind, value in sorted(s.leaks, key=lambda row: (row[1], row[0])):
        print(f"LEAK {kind:<14} {text_id}: {value!r}  ~ {_context(by_id[text_id]['stored'], value)}")
    for text_id, value in s.eaten:
        print(f"EATEN {text_id}: {value!r}  ~ {_context(by_id[text_id]['text'], value)}")
    for text_id in s.changed_clean:
        original = by_id[text_id]["text"]
        for f in scrubber.analyze(original):
            print(f"CHANGED {text_id}: {f.entity}/{f.recognizer} {f.text!r}  ~ {_context(original, f.text)}")


def main(argv: list[str] | None = None) -> None:
    """Command line: print the table for one split (and, with --verbose, every leak and eaten value)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="heldout", choices=("dev", "heldout", "all"))
    parser.add_argument(
        "--verbose", action="store_true", help="also list leaks, eaten values and changed PII-free texts"
    )
    parser.add_argument("--fast", action="store_true", help="scrub in process, no recorder; print every miss")
    parser.add_argument("--file", help="score this corpus file instead of a split (a new pass, before tuning on it)")
    args = parser.parse_args(argv)
    chosen = load_file(args.file) if args.file else None
    name = f"file: {args.file}" if args.file else f"split: {args.split}"
    if args.fast:
        if args.split != "dev" and not args.file:
            parser.error("--fast prints every miss, so it runs on dev only (held-out items are never looked at)")
        s, texts, scrubber = evaluate_fast(args.split, chosen)
        print(f"{name} (fast, in process)")
        print(table(s))
        print_misses(s, texts, scrubber)
        return
    s = evaluate(args.split, chosen)
    print(name)
    print(table(s))
    if args.verbose:
        for row in s.leaks:
            print("LEAK", *row)
        for row in s.eaten:
            print("EATEN", *row)
        for row in s.changed_clean:
            print("CHANGED", row)


if __name__ == "__main__":
    main()
