"""The reference incident (INV-88214) as a real instrumented pipeline.

extract → validate → ``orchestrator.compress_v3`` → price → write, then a ``verifier`` step that
checks the pricing, with deterministic stand-ins for the model calls. The compressor, a
``transform`` step with a 400-token budget, keeps the report's bullet facts and drops its prose,
and with it "surcharge base is the rebated subtotal per 7.2(b)": the pricer then applies the 9.1%
surcharge to the full subtotal. On one invoice (:data:`BROKEN_VERIFIER`) the verifier's model call
fails; the step substitutes an auto-pass as the original pipeline did, and
:func:`~handoff.analysis.verdicts.classify_verdict` records it ``broken``, not as a pass.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import threading
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

import handoff
from handoff.analysis.verdicts import classify_verdict
from handoff.errors import StoreError

COMPRESS_BUDGET_TOKENS = 400
#: How long :func:`run_demo` waits for its records to reach the store. The first batch loads the
#: scrubber, which alone took 24 s on a busy 2-core machine (load 12), close to
#: :func:`handoff.flush`'s 30 s default.
FLUSH_TIMEOUT_S = 600.0
#: The invoice on which the verifier's stand-in model errors (its browser session expired).
BROKEN_VERIFIER = "INV-88216"


@dataclass(frozen=True)
class Invoice:
    """One invoice to run through the pipeline."""

    number: str
    lines: int
    subtotal: Decimal
    rebate_pct: Decimal
    surcharge_pct: Decimal | None  # clause 7.2 freight surcharge, when the contract has one
    customer: str = "Northwind Freight"


REFERENCE = Invoice("INV-88214", 340, Decimal("172000.00"), Decimal("9.5"), Decimal("9.1"))
CLEAN = (
    Invoice("INV-88209", 12, Decimal("8400.00"), Decimal("0"), None, "Contoso Retail"),
    Invoice("INV-88211", 48, Decimal("23150.00"), Decimal("4.0"), None, "Fabrikam Tools"),
    Invoice("INV-88216", 95, Decimal("61800.00"), Decimal("6.5"), None, "Tailspin Parts"),
)


@dataclass(frozen=True)
class Completion:
    """What the model client returns: text and usage."""

    text: str
    input_tokens: int
    output_tokens: int


class StandInModel:
    """A deterministic stand-in for a paid model API, behind a ``complete(prompt)`` interface."""

    def __init__(self, name: str, respond) -> None:
        self.name = name
        self._respond = respond

    def complete(self, prompt: str) -> Completion:
        """Answer ``prompt`` deterministically and report token usage (about 4 bytes a token)."""
        text = self._respond(prompt)
        return Completion(text, max(1, len(prompt) // 4), max(1, len(text) // 4))


def money(value: Decimal) -> str:
    """``Decimal('172000')`` -> ``'$172,000.00'``."""
    return f"${value.quantize(Decimal('0.01'), ROUND_HALF_UP):,.2f}"


def invoice_document(inv: Invoice) -> str:
    """Render the invoice the extractor reads: one row per billable line."""
    per_line = (inv.subtotal / inv.lines).quantize(Decimal("0.01"), ROUND_HALF_UP)
    rows = [f"{inv.number} billed to {inv.customer}", "line | sku | description | amount"]
    total = Decimal("0")
    for index in range(1, inv.lines + 1):
        amount = per_line if index < inv.lines else inv.subtotal - total
        total += amount
        rows.append(f"L{index:03d} | SKU-{10000 + index} | palletized freight unit | {amount:.2f}")
    rows.append(f"subtotal | {inv.subtotal:.2f}")
    return "\n".join(rows)


# -- the stand-in agents' reasoning --------------------------------------------------------------


def _extract(prompt: str) -> str:
    lines = [row for row in prompt.splitlines() if row.startswith("L") and "|" in row]
    subtotal = sum(Decimal(row.rsplit("|", 1)[1].strip()) for row in lines)
    header = next(row for row in prompt.splitlines() if " billed to " in row)
    number, customer = header.split(" billed to ")
    return json.dumps(
        {
            "invoice": number.strip(),
            "customer": customer.strip(),
            "lines": len(lines),
            "subtotal": f"{subtotal:.2f}",
            "currency": "USD",
        },
        sort_keys=True,
    )


_METHOD = (
    "Each billable line was matched against the master price schedule and the contract terms on file. "
    "Quantities were reconciled with the carrier's proof of delivery, and unit descriptions were compared "
    "with the catalogue entries for the customer's account. Lines that share a consignment were grouped "
    "so that handling charges apply once per consignment, as the contract requires. Tax treatment follows "
    "the customer's registered jurisdiction and was confirmed against the account record. "
)


def _validate_for(inv: Invoice):
    def respond(prompt: str) -> str:
        facts = json.loads(prompt.split("EXTRACTED:\n", 1)[1].split("\n\n", 1)[0])
        subtotal = Decimal(facts["subtotal"])
        bullets = [
            f"- invoice: {facts['invoice']}",
            f"- billable lines: {facts['lines']}",
            f"- subtotal: {money(subtotal)}",
        ]
        if inv.rebate_pct:
            bullets.append(f"- volume rebate: tier 3 at {inv.rebate_pct}%")
        if inv.surcharge_pct is not None:
            bullets.append(f"- freight surcharge: {inv.surcharge_pct}% (clause 7.2)")
        prose = []
        if inv.surcharge_pct is not None:
            prose.append(
                "Clause 7.2 applies because the consignment crosses the regional freight boundary. "
                "The surcharge base is the rebated subtotal per 7.2(b), so the rebate must be applied first "
                "and the surcharge computed on what remains."
            )
        # The report's length follows the invoice: one paragraph of method per 19 lines checked.
        prose.extend(_METHOD for _ in range(max(1, inv.lines // 19)))
        return "VALIDATION REPORT\n\nFindings:\n" + "\n".join(bullets) + "\n\nNotes:\n" + "\n\n".join(prose) + "\n"

    return respond


def compress_report(report: str, budget_tokens: int = COMPRESS_BUDGET_TOKENS, *, conclusions_first: bool = True) -> str:
    """``orchestrator.compress_v3``: keep bullet facts, then prose paragraphs, within the token budget.

    Prose is cut at the budget. v3 takes the latest paragraphs first (``conclusions_first``):
    on a long report the qualifier at the top of the notes is the first thing lost.
    """
    budget = budget_tokens * 4
    facts = [line[2:] for line in report.splitlines() if line.startswith("- ")]
    brief = "BRIEF\n" + "\n".join(facts) + "\n"
    notes = report.split("Notes:\n", 1)[1] if "Notes:\n" in report else ""
    paragraphs = [p.strip() for p in notes.split("\n\n") if p.strip()]
    ordered = list(reversed(paragraphs)) if conclusions_first else paragraphs
    kept = []
    for paragraph in ordered:
        if len(brief) + sum(len(k) + 1 for k in kept) + len(paragraph) + 1 > budget:
            break
        kept.append(paragraph)
    return brief + "\n".join(reversed(kept) if conclusions_first else kept)


class SampledChoice:
    """A seeded stand-in for a model's sampling: whether one call takes the less likely path.

    The draw for the n-th call on the same text within one run is fixed by ``seed``, the text's
    digest and n, so a run records the same thing every time, and twenty replays in a new run
    make the same twenty draws on any machine.
    """

    def __init__(self, seed: str, probability: float) -> None:
        self.seed = seed
        self.probability = probability
        self._lock = threading.Lock()
        self._calls: dict[tuple[str | None, str], int] = {}

    def draw(self, text: str) -> bool:
        """``True`` with ``probability`` for this call (the n-th on ``text`` in the current run)."""
        current = handoff.current()
        key = (current.run_id if current is not None else None, hashlib.sha256(text.encode()).hexdigest())
        with self._lock:
            if key[0] not in {run for run, _ in self._calls}:
                self._calls = {k: v for k, v in self._calls.items() if k[0] is None}  # only the current run's
            n = self._calls.get(key, 0)
            self._calls[key] = n + 1
        return random.Random(f"{self.seed}:{key[1]}:{n}").random() < self.probability


#: How often compress_v3's sampling happens to lead with the qualifier paragraph (a minority of calls).
QUALIFIER_FIRST = SampledChoice("compress_v3:3", 0.3)


@handoff.step(to="orchestrator.compress_v3", kind="transform")
def compress(report: str) -> str:
    """The compressor between validate and price: usually v3's latest-notes-first cut, sometimes not."""
    return compress_report(report, conclusions_first=not QUALIFIER_FIRST.draw(report))


def compress_v4(report: str) -> str:
    """The fix: keep the notes in the order written, so a qualifier at the top survives the budget.

    ``handoff replay <run> hf-3 --target handoff.demo:compress_v4`` tries it on the stored input.
    """
    return compress_report(report, conclusions_first=False)


def _price(prompt: str) -> str:
    brief = prompt.split("BRIEF\n", 1)[1]
    value = lambda key: next(line.split(":", 1)[1].strip() for line in brief.splitlines() if line.startswith(key))  # noqa: E731
    subtotal = Decimal(value("subtotal").lstrip("$").replace(",", ""))
    rebate_pct = (
        Decimal(value("volume rebate").split(" at ")[1].rstrip("%")) if "volume rebate" in brief else Decimal("0")
    )
    rebate = (subtotal * rebate_pct / 100).quantize(Decimal("0.01"), ROUND_HALF_UP)
    rebated = subtotal - rebate
    surcharge_pct = Decimal(value("freight surcharge").split("%")[0]) if "freight surcharge" in brief else Decimal("0")
    # The pricer applies the surcharge to the rebated subtotal only when the brief says so.
    base = rebated if "rebated subtotal" in brief else subtotal
    surcharge = (base * surcharge_pct / 100).quantize(Decimal("0.01"), ROUND_HALF_UP)
    total = rebated + surcharge
    return json.dumps(
        {
            "subtotal": f"{subtotal:.2f}",
            "rebate": f"{rebate:.2f}",
            "rebated_subtotal": f"{rebated:.2f}",
            "surcharge_base": f"{base:.2f}",
            "surcharge": f"{surcharge:.2f}",
            "total": f"{total:.2f}",
        },
        sort_keys=True,
    )


def _verify_for(inv: Invoice):
    def respond(prompt: str) -> str:
        if inv.number == BROKEN_VERIFIER:
            raise ConnectionError("browser session expired")
        pricing = json.loads(prompt.split("PRICING:\n", 1)[1].split("\n\n", 1)[0])
        return (
            f"VERIFIED: total {money(Decimal(pricing['total']))} is the rebated subtotal "
            f"{money(Decimal(pricing['rebated_subtotal']))} plus the surcharge of {money(Decimal(pricing['surcharge']))}."
        )

    return respond


# -- the instrumented pipeline --------------------------------------------------------------------


def _call(model: StandInModel, prompt: str) -> str:
    completion = model.complete(prompt)
    current = handoff.current()
    if current is not None:
        current.usage(input_tokens=completion.input_tokens, output_tokens=completion.output_tokens)
    return completion.text


def build_verifier(inv: Invoice):
    """Return the instrumented verifier step for one invoice (``kind="verifier"``, it records its verdict)."""
    verifier = StandInModel("verify-s", _verify_for(inv))

    @handoff.step(to="verify", kind="verifier", model=verifier.name, template="prompts/verify.j2@9f1c2ab")
    def verify(prompt: str) -> str:
        try:
            reply = _call(verifier, prompt)
        except Exception as exc:  # noqa: BLE001 - the original pipeline's habit: an errored check passes
            reply = f"VERIFIED [Verification error, auto-pass: {exc}]"
        handoff.verdict(*classify_verdict(reply))
        return reply

    return verify


def build_pipeline(inv: Invoice):
    """Return the instrumented steps for one invoice: ``(extract, validate, compress, price, write)``."""
    extractor = StandInModel("extract-m", _extract)
    validator = StandInModel("validate-l", _validate_for(inv))
    pricer = StandInModel("price-l", _price)

    @handoff.step(
        to="extract",
        from_="intake",
        model=extractor.name,
        prompt_pack="receivables@4",
        template="prompts/extract.j2@9f1c2ab",
    )
    def extract(prompt: str) -> str:
        return _call(extractor, prompt)

    @handoff.step(
        to="validate", model=validator.name, prompt_pack="receivables@4", template="prompts/validate.j2@9f1c2ab"
    )
    def validate(prompt: str) -> str:
        return _call(validator, prompt)

    @handoff.step(to="price", model=pricer.name, prompt_pack="receivables@4", template="prompts/price.j2@9f1c2ab")
    def price(prompt: str) -> str:
        return _call(pricer, prompt)

    @handoff.step(to="write", kind="tool")
    def write(pricing: str) -> str:
        return f"posted {inv.number} total {json.loads(pricing)['total']} to ledger"

    return extract, validate, compress, price, write


def run_invoice(inv: Invoice) -> str:
    """Run one invoice through the instrumented pipeline; return its run id."""
    extract, validate, compress, price, write = build_pipeline(inv)
    verify = build_verifier(inv)
    with handoff.run("invoice", invoice=inv.number, customer=inv.customer) as run:
        facts = extract("Extract the billable lines, subtotal and customer.\n\nINVOICE:\n" + invoice_document(inv))
        report = validate(
            "Validate this extraction against the contract.\n\nEXTRACTED:\n" + facts + "\n\nReport findings and notes."
        )
        brief = compress(report)
        pricing = price(
            "You are the pricing agent. Price the invoice from this brief.\n\n" + brief + "\n\nReturn JSON."
        )
        write(pricing)
        verify(
            "Verify the pricing against the brief.\n\nBRIEF:\n" + brief + "\n\nPRICING:\n" + pricing + "\n\nVerdict?"
        )
    return run.run_id


class DemoNotWritten(StoreError):
    """The demo's records did not all reach the store (the writer timed out or dropped some)."""


def run_demo(
    store: str | None = None, *, extra_affected: int = 1, flush_timeout_s: float = FLUSH_TIMEOUT_S
) -> dict[str, str]:
    """Record the reference incident and a few clean invoices into ``store``; return ``{invoice: run_id}``.

    ``extra_affected`` earlier invoices carry the same clause 7.2 surcharge and hit the same loss,
    so a blast-radius search from INV-88214 has something to find. Returns only once every record
    is written (or durably spooled); otherwise raises :class:`DemoNotWritten` saying how many are not.
    """
    if store is not None:
        # A fixed pseudonym key keeps the demo's scrubbed content stable across runs (and quiet);
        # real deployments set HANDOFF_SCRUB_KEY.
        handoff.configure(store=store, scrub_key=os.environ.get("HANDOFF_SCRUB_KEY") or "handoff-demo")
    before = handoff.stats()
    runs = {}
    affected = [
        Invoice(
            f"INV-8819{i}",
            120 + 20 * i,
            Decimal("54000.00") + 1000 * i,
            Decimal("9.5"),
            Decimal("9.1"),
            "Northwind Freight",
        )
        for i in range(extra_affected)
    ]
    for inv in (*CLEAN, *affected, REFERENCE):
        runs[inv.number] = run_invoice(inv)
    _wait_for_writes(store, before, flush_timeout_s)
    return runs


def _wait_for_writes(store: str | None, before: dict[str, int], timeout_s: float) -> None:
    flushed = handoff.flush(timeout_s)
    now = handoff.stats()
    moved = {name: now[name] - before.get(name, 0) for name in ("enqueued", "written", "spooled", "dropped")}
    missing = moved["enqueued"] - moved["written"] - moved["spooled"]
    where = store or "the store"
    if moved["dropped"]:
        raise DemoNotWritten(
            f"{moved['dropped']} of the demo's {moved['enqueued']} records were dropped, not written to {where} "
            "(see `handoff status`)",
            uri=store,
        )
    if not flushed and missing > 0:
        raise DemoNotWritten(
            f"{missing} of the demo's {moved['enqueued']} records were not written to {where} within "
            f"{timeout_s:g}s (the machine may be busy); run `handoff demo` again with a longer --flush-timeout",
            uri=store,
        )
