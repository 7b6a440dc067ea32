"""A deterministic corpus of agent prompts in which templates repeat across runs.

Real pipelines render the same system prompt, tool schema and per-step document template on
every run and substitute a few per-run values (invoice numbers, amounts, contacts, line
items). This module renders such prompts from a fixed seed, so the scrub, ingest, storage and
peer figures all run on the same bytes on every machine. Per-run values include PII
(emails, phone numbers, IBANs, card numbers) for the scrubber to find; amounts, percentages,
clause references and invoice numbers are data and must survive it.
"""

from __future__ import annotations

import itertools
import json
import random

_FIRST = ["dana", "jonas", "maria", "li", "amir", "sofia", "kwame", "yuki", "olga", "pedro", "fatima", "noah"]
_LAST = ["whitfield", "becker", "gonzalez", "chen", "haddad", "rossi", "mensah", "tanaka", "ivanova", "silva"]
_COMPANIES = [
    "Northwind Logistics GmbH",
    "Contoso Freight Ltd",
    "Fabrikam Shipping AG",
    "Tailspin Cargo Inc",
    "Wingtip Haulage BV",
]
_DOMAINS = ["northwind-logistics.com", "contoso-freight.co.uk", "fabrikam.de", "tailspin-cargo.com", "wingtip.nl"]
_ITEMS = [
    "pallet freight",
    "container leg",
    "customs brokerage",
    "cold-chain surcharge",
    "last-mile delivery",
    "warehousing day",
    "insurance rider",
    "fuel adjustment",
]
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

_RULES = [
    "Follow the validator report exactly and never change amounts that the report marks as final.",
    "Quote clause references verbatim, including sub-clauses such as 7.2(b), and keep every qualifier.",
    "If a rebate tier applies, compute the surcharge on the rebated subtotal unless the report says otherwise.",
    "Return JSON with the fields subtotal, rebate, surcharge and total, each as a decimal string with two places.",
    "When the input is ambiguous, ask for clarification instead of guessing; list the ambiguous fields.",
    "Never include customer contact details, card numbers or bank accounts in your answer.",
    "Round half up to the cent only at the end of the computation, never in intermediate steps.",
    "The budget for your answer is 400 tokens; prefer omitting commentary to omitting constraints.",
    "Payment terms are net 30 days unless the contract schedule names different terms.",
    "Credit notes are issued only by the write step; the pricing step never issues them.",
]

_STEPS = {
    "extract": (
        "STEP extract (template extract@4f2a91c). Read the scanned invoice below and return every billable line.\n"
        "Invoice {invoice} for {company}, purchase order {po}, issued {date}.\n"
        "Accounts payable contact: {name} <{email}>, phone {phone}.\n"
    ),
    "validate": (
        "STEP validate (template validate@9b1c77e). Check the extracted lines against contract {contract}.\n"
        "Invoice {invoice}: {lines} billable lines; subtotal {subtotal}.\n"
        "Volume rebate tier {tier} applies at {rebate_pct}% -> rebated subtotal {rebated}.\n"
        "Clause 7.2 freight surcharge at {surcharge_pct}%; surcharge base is the rebated subtotal per 7.2(b).\n"
        "Remittance to IBAN {iban}; card on file {card}.\n"
    ),
    "price": (
        "STEP price (template price@c03d5e8). Price invoice {invoice} from the brief below.\n"
        "Brief: subtotal {subtotal}; rebate tier {tier} at {rebate_pct}%; freight surcharge {surcharge_pct}% (clause 7.2).\n"
        "Customer {company}, contact {email}.\n"
    ),
    "write": (
        "STEP write (template write@71aa0b2). Write the ledger entry and the customer notice for {invoice}.\n"
        "Total due {total} by {due}; send the notice to {name} at {email} (phone {phone}).\n"
    ),
}


def _tool_schema() -> str:
    tools = [
        {
            "name": name,
            "description": f"{name.replace('_', ' ')} for receivables",
            "input_schema": {
                "type": "object",
                "properties": {
                    "invoice_id": {"type": "string", "pattern": "^INV-[0-9]+$"},
                    "amount": {"type": "string"},
                    "currency": {"enum": ["USD", "EUR", "GBP"]},
                },
            },
        }
        for name in (
            "lookup_invoice",
            "apply_rebate",
            "apply_surcharge",
            "post_ledger_entry",
            "notify_customer",
            "open_dispute",
        )
    ]
    return json.dumps(tools, indent=2)


SYSTEM_PROMPT = (
    "SYSTEM: You are a receivables agent (prompt pack receivables@v7, model claude-sonnet-4, effort high).\n"
    + "\n".join(f"{i + 1}. {rule}" for i, rule in enumerate(_RULES * 2))
    + "\n\nTOOLS:\n"
    + _tool_schema()
    + "\n\n"
)


def _money(value: float) -> str:
    return f"${value:,.2f}"


def _values(rng: random.Random) -> dict[str, str]:
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    subtotal = rng.randint(20_000, 400_000) + rng.randint(0, 99) / 100
    rebate_pct = rng.choice([5.0, 7.5, 9.5, 12.5])
    rebated = subtotal * (1 - rebate_pct / 100)
    surcharge_pct = rng.choice([4.2, 6.8, 9.1])
    return {
        "invoice": f"INV-{rng.randint(10_000, 99_999)}",
        "po": f"PO-2026-{rng.randint(1, 9999):04d}",
        "contract": f"CT-{rng.randint(100, 999)}",
        "company": rng.choice(_COMPANIES),
        "name": f"{first.title()} {last.title()}",
        "email": f"{first}.{last}{rng.randint(1, 99)}@{rng.choice(_DOMAINS)}",
        "phone": f"+1 415-555-{rng.randint(100, 199):04d}",
        "date": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "due": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "lines": str(rng.randint(40, 400)),
        "subtotal": _money(subtotal),
        "tier": str(rng.randint(1, 4)),
        "rebate_pct": f"{rebate_pct}",
        "rebated": _money(rebated),
        "surcharge_pct": f"{surcharge_pct}",
        "total": _money(rebated * (1 + surcharge_pct / 100)),
        "iban": f"DE{rng.randint(10, 99)} "
        + " ".join(str(rng.randint(1000, 9999)) for _ in range(4))
        + f" {rng.randint(10, 99)}",
        "card": f"4111 {rng.randint(1000, 9999)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}",
        "run_id": "run_01JD" + "".join(rng.choice(_CROCKFORD) for _ in range(22)),
    }


def _line_item(rng: random.Random, n: int) -> str:
    qty = rng.randint(1, 40)
    price = rng.randint(50, 4_000) + rng.randint(0, 99) / 100
    return f"L-{n:04d} | {rng.choice(_ITEMS):<20} | qty {qty:>3} | unit {_money(price):>10} | line {_money(qty * price):>12}"


def render_prompt(rng: random.Random, step: str, size_bytes: int) -> str:
    """Render one step's prompt of about ``size_bytes``: system prompt, template, then line items."""
    values = _values(rng)
    head = SYSTEM_PROMPT + f"RUN {values['run_id']}\n" + _STEPS[step].format(**values) + "\nLINES:\n"
    lines, size, n = [head], len(head), 1
    while size < size_bytes:
        item = _line_item(rng, n) + "\n"
        lines.append(item)
        size += len(item)
        n += 1
    return "".join(lines)[:size_bytes]


def agent_prompts(count: int, size_bytes: int = 10_240, seed: int = 8) -> list[str]:
    """Return ``count`` prompts of ``size_bytes`` each (ASCII), cycling through the pipeline's steps."""
    rng = random.Random(seed)
    steps = list(_STEPS)
    return [render_prompt(rng, steps[i % len(steps)], size_bytes) for i in range(count)]


def payload(size_bytes: int, seed: int = 3) -> str:
    """Return one prompt of exactly ``size_bytes``."""
    return render_prompt(random.Random(seed), "validate", size_bytes)


def payloads(size_bytes: int, count: int, seed: int = 3) -> list[str]:
    """Return ``count`` distinct prompts of exactly ``size_bytes`` (the hot-path payloads at 1 KB, 10 KB, 340 KB).

    Payloads shorter than the system prompt are the tail of a longer prompt (its line items), so they stay distinct.
    """
    if size_bytes > len(SYSTEM_PROMPT) + 1024:
        return agent_prompts(count, size_bytes, seed)
    return [text[-size_bytes:] for text in agent_prompts(count, len(SYSTEM_PROMPT) + 2048, seed)]


_CITIES = [
    "Hamburg",
    "Rotterdam",
    "Antwerp",
    "Gdansk",
    "Lyon",
    "Milan",
    "Porto",
    "Bilbao",
    "Malmo",
    "Tallinn",
    "Cork",
    "Graz",
]
_CLAUSES = ["7.2(b)", "7.2", "4.1(a)", "9.3", "11.4(c)", "3.2", "12.1(d)", "5.5(a)"]


def _invoice_line(rng: random.Random, serial: int) -> str:
    qty = rng.randint(1, 900)
    unit = rng.randint(10, 90_000) + rng.randint(0, 99) / 100
    day = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    origin, dest = rng.sample(_CITIES, 2)
    return (
        f"Line {serial}: {qty} x {rng.choice(_ITEMS)} {origin}-{dest} at {_money(unit)} = {_money(qty * unit)}, "
        f"shipped {day}, rate {rng.randint(1, 40)}.{rng.randint(0, 9)}% per clause {rng.choice(_CLAUSES)}, ref SHP-{serial:07d}"
    )


def invoice_prompts(count: int, size_bytes: int = 10_240, seed: int = 11) -> list[str]:
    """Return ``count`` invoice-like prompts of about ``size_bytes`` in which no two lines are alike.

    Each holds amounts, dates, percentages, clause references, a name and an e-mail address, and
    every line carries a serial number, so neither the scrubber's line cache nor constraint
    extraction's piece cache ever hits: the writer's worst case, and the app-slowdown workload.
    """
    rng = random.Random(seed)
    serial = itertools.count(1)
    prompts = []
    for n in range(count):
        values = _values(rng)
        lines = [
            f"Invoice {values['invoice']}-{n} for {values['company']} (prompt {n}), issued {values['date']}, "
            f"due {values['due']}; contact {values['name']} <{values['email']}>.",
            f"Volume rebate tier {values['tier']} at {values['rebate_pct']}% on subtotal {values['subtotal']} (batch {n}); "
            f"surcharge base is the rebated subtotal per 7.2(b) for invoice {values['invoice']}-{n}.",
        ]
        size = sum(len(line) + 1 for line in lines)
        while size < size_bytes:
            line = _invoice_line(rng, next(serial))
            lines.append(line)
            size += len(line) + 1
        prompts.append("\n".join(lines))
    return prompts
