"""Scrub throughput: MB/s of payload through one Scrubber on one thread (issue 8 target: 4 MB/s).

Two corpora are generated deterministically from the payloads in ``tests/data/scrub_corpus``:

* ``repeated``: agent prompts as pipelines render them, a fixed system prompt and tool schema
  plus a document template per step, with per-run values (invoice numbers, amounts, emails,
  phones, run ids) substituted, so most lines repeat across runs and some never do;
* ``documents``: the same documents without the shared system prompt and tool schema, so a
  larger share of lines is new;
* ``json``: tool-call payloads, lists of CRM records with per-record values, through
  ``scrub_bytes(..., "application/json")``;
* ``unique``: generated log and ticket lines in which no line repeats and two in five hold a
  value to redact, the worst case for the line cache;
* ``adversarial``: 100 KB dotted tokens near trigger words and 80 KB of colon soup
  (:func:`adversarial_blobs`, shapes that once made regexes backtrack for minutes).

Stock Presidio (every predefined recognizer, ``analyze`` then ``anonymize``) runs on a slice of
the repeated corpus for comparison. Run::

    python bench/scrub_throughput.py --mb 4
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import string
import time

CORPUS_DIR = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "scrub_corpus"
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_FIRST = ["dana", "jonas", "maria", "li", "amir", "sofia", "kwame", "yuki", "olga", "pedro", "fatima", "noah"]
_LAST = ["whitfield", "becker", "gonzalez", "chen", "haddad", "rossi", "mensah", "tanaka", "ivanova", "silva"]
_DOMAINS = ["northwind-logistics.com", "contoso-freight.co.uk", "fabrikam.de", "example.org", "acme-corp.com"]
_SYSTEM_RULES = [
    "Follow the validator report exactly and never change amounts that the report marks as final.",
    "Quote clause references verbatim, including sub-clauses such as 7.2(b), and keep every qualifier.",
    "If a rebate tier applies, compute the surcharge on the rebated subtotal unless the report says otherwise.",
    "Return JSON with the fields subtotal, rebate, surcharge and total, each as a decimal string with two places.",
    "When the input is ambiguous, ask for clarification instead of guessing; list the ambiguous fields.",
    "Never include customer contact details, card numbers or bank accounts in your answer.",
    "Round half up to the cent only at the end of the computation, never in intermediate steps.",
    "The budget for your answer is 400 tokens; prefer omitting commentary to omitting constraints.",
]


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


def _system_prompt() -> str:
    rules = "\n".join(f"{i + 1}. {rule}" for i, rule in enumerate(_SYSTEM_RULES * 4))
    return f"SYSTEM: You are a receivables agent (prompt pack receivables@v7).\n{rules}\n\nTOOLS:\n{_tool_schema()}\n\n"


def _run_id(rng: random.Random) -> str:
    return "run_01JD" + "".join(rng.choice(_CROCKFORD) for _ in range(22))


def _email(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)}.{rng.choice(_LAST)}{rng.randint(1, 99)}@{rng.choice(_DOMAINS)}"


def _amount(rng: random.Random) -> str:
    return f"${rng.randint(1_000, 999_999):,}.{rng.randint(0, 99):02d}"


def _render(template: str, rng: random.Random) -> str:
    values = {
        "INV-88214": f"INV-{rng.randint(10_000, 99_999)}",
        "run_01JD3Z8K4N6QW2E5R7T9Y1X3V5": _run_id(rng),
        "dana.whitfield@northwind-logistics.com": _email(rng),
        "$172,000.00": _amount(rng),
        "$155,660.00": _amount(rng),
        "+1 415-555-0134": f"+1 415-555-{rng.randint(100, 199):04d}",
        "ORD-55120": f"ORD-{rng.randint(10_000, 99_999)}",
    }
    for old, new in values.items():
        template = template.replace(old, new)
    return template


def _templates() -> list[str]:
    return [
        path.read_text()
        for path in sorted(CORPUS_DIR.iterdir())
        if path.suffix in {".txt", ".json"} and path.name != "manifest.json"
    ]


def repeated_corpus(corpus_mb: float, seed: int = 7, system_prompt: bool = True) -> list[str]:
    """Rendered agent prompts (system prompt + tools + one step's document) totalling ``corpus_mb``;
    without ``system_prompt``, only the per-run documents (a harder case: less repeats)."""
    rng, system, templates = random.Random(seed), _system_prompt() if system_prompt else "", _templates()
    payloads, size = [], 0
    while size < corpus_mb * 1e6:
        payload = system + _render(rng.choice(templates), rng)
        payloads.append(payload)
        size += len(payload.encode())
    return payloads


def _unique_line(rng: random.Random, n: int) -> str:
    words = " ".join(
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(2, 9))) for _ in range(rng.randint(6, 14))
    )
    extra = rng.choice(
        [
            "",
            "",
            "",
            f" amount {_amount(rng)} at {rng.randint(1, 99)}.{rng.randint(0, 9)}%",
            f" contact {_email(rng)}",
            f" from 10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
            f" call +1 646-555-{rng.randint(100, 199):04d}",
            f" token=tk_{rng.getrandbits(64):016x}",
        ]
    )
    return f"{n:08d} {words}{extra}"


def unique_corpus(corpus_mb: float, seed: int = 11) -> list[str]:
    """Log and ticket payloads of 40 lines each in which no line repeats, totalling ``corpus_mb``."""
    rng, payloads, size, n = random.Random(seed), [], 0, 0
    while size < corpus_mb * 1e6:
        lines = [_unique_line(rng, n + i) for i in range(40)]
        n += 40
        payloads.append("\n".join(lines))
        size += len(payloads[-1].encode())
    return payloads


def json_corpus(corpus_mb: float, seed: int = 13) -> list[bytes]:
    """Tool-call payloads: JSON lists of 30 CRM records (the corpus record with per-record ids,
    emails, phones and amounts), totalling ``corpus_mb``."""
    rng, record = random.Random(seed), json.loads((CORPUS_DIR / "crm.json").read_text())
    payloads, size = [], 0
    while size < corpus_mb * 1e6:
        batch = [json.loads(_render(json.dumps(record), rng)) for _ in range(30)]
        payloads.append(json.dumps(batch).encode())
        size += len(payloads[-1])
    return payloads


def adversarial_blobs(seed: int = 3) -> list[str]:
    """Long lines without spaces that have made regexes and the context lookup backtrack: dotted tokens
    after "pass" and "token", a dotted run before "@", a URL with 100 KB of userinfo, IPv6-like colons."""
    rng = random.Random(seed)
    return [
        "pass" + ".a-b" * 25_000,
        "token " + "x." * 30_000,
        "a." * 50_000 + "@b",
        "https://" + "a" * 50_000 + ":" + "b" * 50_000,
        "".join(rng.choice("://@a:") for _ in range(80_000)),
    ]


def _throughput(function, payloads: list[str]) -> float:
    size = sum(len(p) if isinstance(p, bytes) else len(p.encode()) for p in payloads)
    start = time.process_time()  # CPU seconds of this process: the machine may be shared
    for payload in payloads:
        function(payload)
    return size / 1e6 / (time.process_time() - start)


def _stock_presidio():
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_anonymizer import AnonymizerEngine

    from handoff.analysis.scrub.engine import has_public_suffix, nlp_engine

    engine = nlp_engine(None)
    registry = RecognizerRegistry()
    registry.load_predefined_recognizers(nlp_engine=engine)
    for recognizer in registry.recognizers:
        if type(recognizer).__name__ == "EmailRecognizer":
            recognizer.validate_result = has_public_suffix  # same offline suffix list, no fetch
    analyzer, anonymizer = AnalyzerEngine(registry=registry, nlp_engine=engine), AnonymizerEngine()
    return lambda text: anonymizer.anonymize(text=text, analyzer_results=analyzer.analyze(text, language="en")).text


def measure(corpus_mb: float = 4.0, stock_mb: float = 0.25) -> dict:
    """Return single-thread scrub throughput in MB/s (CPU time) on each corpus, and stock Presidio's on a slice."""
    from handoff.analysis.scrub import Scrubber

    Scrubber("warm-up").scrub_text("load the engine: a@b.example.com +1 415-555-0134\nKind regards,\nMaria Lopez")
    repeated, documents, unique = (
        repeated_corpus(corpus_mb),
        repeated_corpus(corpus_mb, system_prompt=False),
        unique_corpus(corpus_mb),
    )
    json_scrubber = Scrubber("bench")
    return {
        "corpus_mb": corpus_mb,
        "repeated_mb_s": round(_throughput(Scrubber("bench").scrub_text, repeated), 2),
        "documents_mb_s": round(_throughput(Scrubber("bench").scrub_text, documents), 2),
        "unique_mb_s": round(_throughput(Scrubber("bench").scrub_text, unique), 2),
        "json_mb_s": round(
            _throughput(lambda p: Scrubber.scrub_bytes(json_scrubber, p, "application/json"), json_corpus(corpus_mb)), 2
        ),
        "adversarial_mb_s": round(_throughput(Scrubber("bench").scrub_text, adversarial_blobs()), 2),
        "stock_presidio_mb_s": round(_throughput(_stock_presidio(), repeated_corpus(stock_mb)), 2)
        if stock_mb
        else None,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=4.0, help="size of each corpus in MB")
    parser.add_argument("--stock-mb", type=float, default=0.25, help="slice for stock Presidio (0 to skip)")
    args = parser.parse_args()
    print(json.dumps(measure(args.mb, args.stock_mb), indent=2))
