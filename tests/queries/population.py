"""A generated store: thousands of receivables runs over 90 days, ten of them carrying the INV-88214 fault.

Rows are built directly (digest rows, content rows, run rows, fallback events) and written with
``handoff.store.tables.to_table`` / ``write_table``, one file per table and day, so a 6,000-run
store takes a few seconds to make. Runs older than 30 days are on the digest tier (no content),
as retention would leave them.

Every run is extract → validate → ``orchestrator.compress_v3`` (transform) → price → write. The
variants, and what a blast-radius search from a planted run must do with them:

- ``clean``: no freight surcharge, the compressor keeps everything;
- ``kept``: a clause 7.2 surcharge, and the compressor keeps the base qualifier;
- ``fault`` (10 runs, planted): the compressor drops "surcharge base is the rebated subtotal per
  7.2(b)", exactly as in INV-88214: found;
- ``partial``: the compressor drops the base qualifier but keeps "per 7.2(b)": not found;
- ``v2``: the same loss in a different step, ``orchestrator.compress_v2``: not found.

With ``verifier=True`` every run that priced also has a sixth handoff, ``price → verify`` (a
``verifier`` step whose reasoning varies from run to run, mostly ``VERIFIED``, a few ``FAIL``),
and three silent failures can be planted (issue 19), each listed in ``variants``:

- ``broken`` runs: the verifier errored and returned ``VERIFIED [Verification error, auto-pass:
  ...]`` (``status=broken``, verdict ``broken``);
- ``empty`` runs: the ledger tool returned nothing (``write`` output ``""``, status ok);
- ``collapse``: every run on one day has terse verifier reasoning (median ~20 bytes against ~150).

``python -m tests.queries.population ROOT --month`` writes such a month (plus the week before
it, the first baseline) and prints how often each signal fired on the clean traffic.

Run it to make a store for timing the CLI::

    python -m tests.queries.population /tmp/pop --runs 6000
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from functools import cache
from typing import Any

from ulid import ULID

from handoff.analysis.constraints import extract_constraints
from handoff.analysis.empty import is_empty_output
from handoff.store import open_store
from handoff.store.layout import content_ref, table_key
from handoff.store.tables import to_table, write_table

WRITER = "population"
PLACEHOLDER = "INV-00000"
FAULT_DAYS_AGO = (0.1, 0.6, 2.5, 6, 11, 19, 27, 41, 63, 86)
FULL_DAYS = 30

_METHOD = (
    "Each billable line was matched against the master price schedule and the contract terms on file. "
    "Quantities were reconciled with the carrier's proof of delivery. Tax treatment follows the "
    "customer's registered jurisdiction and was confirmed against the account record."
)
_QUALIFIER = "The surcharge base is the rebated subtotal per 7.2(b), so the rebate must be applied first."
_BULLETS = "- invoice: {inv}\n- billable lines: 340\n- subtotal: $172,000.00\n- volume rebate: tier 3 at 9.5%\n"
_SURCHARGE = "- freight surcharge: 9.1% (clause 7.2)\n"


@dataclass
class Population:
    """What was generated: run ids by variant; ``planted`` are the fault runs, oldest first."""

    root: str
    runs: int
    now: datetime
    variants: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    seconds: float = 0.0
    collapse_days_ago: int | None = None  # the day planted with a collapse, if any

    @property
    def planted(self) -> list[str]:
        """The ten runs carrying the INV-88214 fault, oldest first."""
        return self.variants["fault"]


def _report(variant: str) -> str:
    surcharge = variant != "clean"
    fillers = 15 if variant in ("fault", "v2", "partial") else 1
    notes = ([_QUALIFIER] if surcharge else []) + [_METHOD] * fillers
    return (
        "VALIDATION REPORT\n\nFindings:\n"
        + _BULLETS
        + (_SURCHARGE if surcharge else "")
        + "\nNotes:\n"
        + "\n\n".join(notes)
        + "\n"
    )


def _brief(variant: str) -> str:
    head = "BRIEF\n" + _BULLETS.replace("- ", "") + (_SURCHARGE.replace("- ", "") if variant != "clean" else "")
    if variant in ("clean", "kept"):
        return head + "\n".join(([_QUALIFIER] if variant == "kept" else []) + [_METHOD])
    if variant == "partial":
        return head + "surcharge per 7.2(b)."
    # Like compress_v3: the most recent notes fit the budget, the qualifier at the top does not (ratio ~0.18).
    return head + "\n".join([_METHOD] * 2)


def _texts(variant: str) -> dict[str, str]:
    """The payload of every handoff side for one variant, with the invoice number as a placeholder."""
    facts = json.dumps(
        {"invoice": PLACEHOLDER, "lines": 340, "subtotal": "172000.00", "currency": "USD"}, sort_keys=True
    )
    brief = _brief(variant)
    pricing = json.dumps({"subtotal": "172000.00", "total": "171312.00" if variant != "clean" else "155660.00"})
    return {
        "extract.in": f"Extract the billable lines.\n\nINVOICE:\n{PLACEHOLDER} billed to Northwind Freight\nsubtotal | 172000.00",
        "extract.out": facts,
        "validate.in": "Validate this extraction against the contract.\n\nEXTRACTED:\n" + facts,
        "validate.out": _report(variant).format(inv=PLACEHOLDER),
        "compress.in": _report(variant).format(inv=PLACEHOLDER),
        "compress.out": brief.format(inv=PLACEHOLDER),
        "price.in": "You are the pricing agent. Price the invoice from this brief.\n\n" + brief.format(inv=PLACEHOLDER),
        "price.out": pricing,
        "write.in": pricing,
        "write.out": f"posted {PLACEHOLDER} to ledger",
    }


@cache
def _template(variant: str) -> dict[str, tuple[str, list[str]]]:
    """Each side's text and constraint tokens (extracted once per variant, not once per run)."""
    return {side: (text, extract_constraints(text)) for side, text in _texts(variant).items()}


def _side(variant: str, side: str, invoice: str) -> tuple[bytes, list[str]]:
    text, tokens = _template(variant)[side]
    return text.replace(PLACEHOLDER, invoice).encode(), [t.replace(PLACEHOLDER, invoice) for t in tokens]


_STEPS = (
    ("intake", "extract", "agent", "extract"),
    ("extract", "validate", "agent", "validate"),
    ("validate", "orchestrator.compress_v3", "transform", "compress"),
    ("orchestrator.compress_v3", "price", "agent", "price"),
    ("price", "write", "tool", "write"),
)
_VERIFY = ("price", "verify", "verifier", "verify")

#: What the verifier's reasoning says, a few of these per run.
_REASONS = (
    "the volume rebate is applied before any surcharge",
    "the surcharge base matches the contract terms on file",
    "line totals reconcile with the extracted subtotal",
    "tax treatment follows the customer's registered jurisdiction",
    "the ledger posting matches the priced total",
    "no consignment is charged handling twice",
    "quantities agree with the carrier's proof of delivery",
)
_TERSE = ("totals match.", "looks right.", "consistent.", "ok per contract.")
_BROKEN = "VERIFIED [Verification error, auto-pass: browser session expired]"


def _run_id(rng: random.Random, ts: datetime) -> str:
    return "run_" + str(ULID.from_bytes(int(ts.timestamp() * 1000).to_bytes(6, "big") + rng.randbytes(10)))


def _handoff_row(
    run_id: str,
    seq: int,
    step: tuple,
    ts: datetime,
    invoice: str,
    variant: str,
    status: str,
    verify_text: str = "",
    empty: bool = False,
) -> tuple[dict, dict]:
    from_step, to_step, kind, name = step
    if variant == "v2" and name == "compress":
        to_step = "orchestrator.compress_v2"
    if variant == "v2" and name == "price":
        from_step = "orchestrator.compress_v2"
    if name == "verify":
        data_in, tokens_in = _side(variant, "price.out", invoice)
        data_out, tokens_out = verify_text.encode(), []
    else:
        data_in, tokens_in = _side(variant, f"{name}.in", invoice)
        data_out, tokens_out = _side(variant, f"{name}.out", invoice)
    if name == "write" and empty:
        data_out, tokens_out = b"", []
    if status == "error":
        data_out, tokens_out = None, []
    row = {
        "run_id": run_id,
        "handoff_id": f"hf-{seq}",
        "seq": seq,
        "from_step": from_step,
        "to_step": to_step,
        "kind": kind,
        "parent_handoff_id": ("hf-4" if name == "verify" else f"hf-{seq - 1}") if seq > 1 else None,
        "fan_in": [],
        "ts": ts,
        "duration_ms": 120.0 * seq,
        "status": status,
        "error_type": "TimeoutError" if status == "error" else None,
        "error_message": "model call timed out" if status == "error" else None,
        "input_sha256": hashlib.sha256(data_in).hexdigest(),
        "digest_alg": "sha256",
        "output_sha256": hashlib.sha256(data_out).hexdigest() if data_out is not None else None,
        "input_bytes": len(data_in),
        "output_bytes": len(data_out) if data_out is not None else None,
        "input_tokens": len(data_in) // 4,
        "output_tokens": len(data_out) // 4 if data_out is not None else None,
        "tokens_estimated": kind != "agent",
        "model": "price-l" if name == "price" else None,
        "template": "prompts/price.j2@9f1c2ab" if name == "price" else None,
        "prompt_pack": "receivables@4",
        "attempt": 1,
        "input_constraints": tokens_in,
        "output_constraints": tokens_out,
        "constraints_version": 1,
        "tier": "full",
        "attributes": {},
        "writer": WRITER,
        "schema_version": 2,
        "verdict": _verdict_of(verify_text) if name == "verify" else None,
        "verdict_reason": verify_text if name == "verify" else None,
        "output_empty": None if data_out is None else is_empty_output(data_out),
        "allow_empty": False,
    }
    if name == "verify" and row["verdict"] == "broken":
        row["status"] = "broken"
    return row, {"in": data_in, "out": data_out}


def _verdict_of(text: str) -> str:
    return "broken" if text == _BROKEN else "fail" if text.startswith("FAIL") else "pass"


def _verify_text(rng: random.Random, terse: bool, broken: bool) -> str:
    """The verifier's reply: a verdict and some reasoning (a few words only on a collapsed day)."""
    if broken:
        return _BROKEN
    verdict = "FAIL" if rng.random() < 0.03 else "VERIFIED"
    if terse:
        return f"{verdict}: {rng.choice(_TERSE)}"
    return f"{verdict}: " + "; ".join(rng.sample(_REASONS, rng.choice((2, 3, 3, 4)))) + "."


class _Writer:
    """Collects rows per table and day, then writes one file per table and day."""

    def __init__(self, store) -> None:
        self.store = store
        self.rows: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)

    def add(self, table: str, day: str, row: dict[str, Any]) -> None:
        self.rows[(table, day)].append(row)

    def flush(self) -> None:
        for (table, day), rows in sorted(self.rows.items()):
            write_table(self.store, table, day, WRITER, 0, to_table(table, rows))


def _variant_plan(rng: random.Random, runs: int, days: float) -> list[tuple[float, str]]:
    """``(days ago, variant)`` for every run: the planted faults at fixed ages, the rest at random."""
    plan = [(ago, "fault") for ago in FAULT_DAYS_AGO if ago < days]
    others = ["partial"] * 12 + ["v2"] * 12 + ["kept"] * (runs // 10)
    others += ["clean"] * (runs - len(plan) - len(others))
    plan += [(rng.uniform(0.0, days - 0.1), variant) for variant in others]
    return sorted(plan, reverse=True)


@dataclass(frozen=True)
class Silent:
    """Issue 19's plan for a population: a verifier step, and which silent failures to plant where."""

    verifier: bool = False
    broken_runs: int = 0
    empty_runs: int = 0
    collapse_days_ago: int | None = None

    def planted(self, rng: random.Random, plan: list[tuple[float, str]]) -> tuple[set[int], set[int]]:
        """Indexes into ``plan`` of the broken-verifier runs and the empty-output runs (clean runs only)."""
        clean = [n for n, (_, variant) in enumerate(plan) if variant == "clean"]
        chosen = rng.sample(clean, self.broken_runs + self.empty_runs)
        return set(chosen[: self.broken_runs]), set(chosen[self.broken_runs :])


def _add_run(
    out: _Writer,
    pop: Population,
    rng: random.Random,
    days_ago: float,
    variant: str,
    n: int,
    silent: Silent = Silent(),
    planted: str = "",
) -> None:
    start = pop.now - timedelta(days=days_ago)
    run_id, invoice, day = _run_id(rng, start), f"INV-{70000 + n}", start.strftime("%Y-%m-%d")
    full = days_ago < FULL_DAYS
    error = variant in ("clean", "kept") and rng.random() < 0.015
    fallback = variant in ("clean", "kept") and not error and rng.random() < 0.03
    pop.variants[variant].append(run_id)
    collapsed = silent.collapse_days_ago is not None and int(days_ago) == silent.collapse_days_ago
    for name in [planted] * bool(planted) + ["collapse"] * collapsed:
        pop.variants[name].append(run_id)
    text = _verify_text(rng, collapsed, planted == "broken") if silent.verifier else ""
    content_key = table_key("content", day, WRITER, 0)
    steps = _STEPS + ((_VERIFY,) if silent.verifier else ())
    for seq, step in enumerate(steps, start=1):
        if error and step[3] in ("write", "verify"):
            break
        status = "error" if error and step[3] == "price" else "fallback" if fallback and step[3] == "validate" else "ok"
        ts = start + timedelta(milliseconds=200 * seq)
        row, data = _handoff_row(run_id, seq, step, ts, invoice, variant, status, text, planted == "empty")
        for side in ("in", "out"):
            ref = content_ref(content_key, run_id, row["handoff_id"], side) if full and data[side] is not None else None
            row["input_ref" if side == "in" else "output_ref"] = ref
            if ref:
                out.add(
                    "content",
                    day,
                    {
                        "run_id": run_id,
                        "handoff_id": row["handoff_id"],
                        "side": side,
                        "ts": ts,
                        "content": data[side],
                        "content_type": "text/plain",
                        "scrub_status": "scrubbed",
                    },
                )
        row["tier"] = "full" if full else "digest"
        out.add("handoffs", day, row)
        if status == "fallback":
            out.add(
                "events",
                day,
                {
                    "run_id": run_id,
                    "handoff_id": row["handoff_id"],
                    "ts": ts,
                    "kind": "fallback",
                    "name": "validator-cache-miss",
                    "writer": WRITER,
                },
            )
    end = start + timedelta(seconds=2)
    out.add(
        "runs",
        day,
        {
            "run_id": run_id,
            "name": "invoice",
            "start_ts": start,
            "end_ts": end,
            "status": "error" if error else "ok",
            "attributes": {"invoice": invoice},
            "recorded_ts": end,
            "writer": WRITER,
        },
    )


def build_population(
    root: str,
    *,
    runs: int = 6000,
    seed: int = 88214,
    now: datetime | None = None,
    days: float = 90.0,
    silent: Silent = Silent(),
) -> Population:
    """Write a generated store at ``root`` (a directory or store URL) over ``days`` before ``now`` and describe it."""
    began = time.perf_counter()
    rng = random.Random(seed)
    pop = Population(root, runs, now or datetime.now(timezone.utc), collapse_days_ago=silent.collapse_days_ago)
    out = _Writer(open_store(root))
    plan = _variant_plan(rng, runs, days)
    broken, empty = silent.planted(random.Random(seed + 19), plan)
    for n, (days_ago, variant) in enumerate(plan):
        planted = "broken" if n in broken else "empty" if n in empty else ""
        _add_run(out, pop, rng, days_ago, variant, n, silent, planted)
    out.flush()
    pop.seconds = time.perf_counter() - began
    return pop


MONTH = Silent(verifier=True, broken_runs=4, empty_runs=4, collapse_days_ago=12)


@dataclass
class Alarms:
    """How one signal did over a population: alarms on planted runs (or days), planted ones missed, false alarms."""

    caught: int = 0
    missed: int = 0
    false_alarms: int = 0
    checked: int = 0  # results (checks) or windows (the collapse alert) evaluated


def silent_alarms(pop: Population, days: int = 30) -> dict[str, Alarms]:
    """Run verifier-broken and empty-output (``handoff check``), and output-collapse (one 24h window a day), over ``days``."""
    from handoff.queries import connect
    from handoff.queries.checks import registered_checks, run_checks
    from handoff.queries.collapse import find_collapses

    con = connect(pop.root)
    checks = [c for c in registered_checks() if c.name in ("verifier-broken", "empty-output")]
    found = {name: Alarms() for name in ("verifier-broken", "empty-output", "output-collapse")}
    planted = {"verifier-broken": set(pop.variants["broken"]), "empty-output": set(pop.variants["empty"])}
    failed: dict[str, set[str]] = {name: set() for name in planted}
    for result in run_checks(con, since=timedelta(days=days), now=pop.now, checks=checks):
        found[result.check].checked += 1
        if result.status == "fail":
            failed[result.check].add(result.run_id)
    for name, runs in planted.items():
        window = {r for r in runs if r in _runs_since(pop, days)}
        found[name].caught = len(failed[name] & window)
        found[name].missed = len(window - failed[name])
        found[name].false_alarms = len(failed[name] - window)
    collapse = found["output-collapse"]
    for day in range(days):
        alerts = find_collapses(con, since=timedelta(days=1), now=pop.now - timedelta(days=day))
        collapse.checked += 1
        planted_day = day == pop.collapse_days_ago and bool(pop.variants["collapse"])
        hits = [a for a in alerts if planted_day and a.step == "verify"]
        collapse.caught += len(hits)
        collapse.missed += int(planted_day and not hits)
        collapse.false_alarms += len(alerts) - len(hits)
    return found


def _runs_since(pop: Population, days: int) -> set[str]:
    from ulid import ULID

    start = pop.now - timedelta(days=days)
    return {r for runs in pop.variants.values() for r in runs if ULID.from_str(r[4:]).datetime >= start}


def main() -> None:
    """``python -m tests.queries.population ROOT [--runs N]``: write a store and print its planted runs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root")
    parser.add_argument("--runs", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=88214)
    parser.add_argument("--month", action="store_true", help="a month (and its baseline week) with a verifier step")
    parser.add_argument(
        "--collapse-days-ago",
        type=int,
        default=MONTH.collapse_days_ago,
        help="with --month: the collapsed day (0: the last 24h)",
    )
    args = parser.parse_args()
    if args.month:
        silent = replace(MONTH, collapse_days_ago=args.collapse_days_ago)
        pop = build_population(args.root, runs=args.runs, seed=args.seed, days=37, silent=silent)
        print(f"wrote {pop.runs} runs over 37 days to {args.root} in {pop.seconds:.1f}s")
        for name, found in silent_alarms(pop).items():
            print(
                f"{name}: {found.caught} planted caught, {found.missed} missed, "
                f"{found.false_alarms} false alarms on clean traffic ({found.checked} evaluated)"
            )
        return
    pop = build_population(args.root, runs=args.runs, seed=args.seed)
    print(f"wrote {pop.runs} runs to {args.root} in {pop.seconds:.1f}s")
    print(f"planted INV-88214 fault runs ({len(pop.planted)}): " + " ".join(pop.planted))
    print(f"try: handoff blast-radius {pop.planted[-1]} hf-3 --store {args.root}")


if __name__ == "__main__":
    main()
