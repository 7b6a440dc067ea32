"""A second pipeline for the SQL tests: one edge that loses constraint tokens, and one fan-in.

``python sql_app.py <store>`` records one run into ``<store>``: ``summarize`` and ``lookup``
run on the invoice; ``decide`` is told its parent is ``summarize`` but receives a brief without
the clause reference (a lossy edge); ``merge`` receives both outputs whole (a parent and a
``fan_in``). The demo has no lossy edge of its own: its loss is inside the compressor step.
"""

from __future__ import annotations

import sys

import handoff

SUMMARY = "Freight surcharge 9.1% on the rebated subtotal per 7.2(b); rebate tier 3 at 9.5%."
LOOKUP = "Customer Northwind Freight, invoice INV-88214, net 30."


@handoff.step(to="summarize")
def summarize(document: str) -> str:
    return SUMMARY


@handoff.step(to="lookup")
def lookup(document: str) -> str:
    return LOOKUP


@handoff.step(to="decide", parent="summarize")
def decide(brief: str) -> str:
    return "approve"


@handoff.step(to="merge", kind="transform")
def merge(both: str) -> str:
    return both


def main(store: str) -> None:
    handoff.configure(store=store, scrub=False)
    with handoff.run("sql-fixture", invoice="INV-88214"):
        document = "Invoice INV-88214 for Northwind Freight: subtotal $172,000.00, clause 7.2 applies."
        summary = summarize(document)
        facts = lookup(document)
        decide("Freight surcharge 9.1%; rebate tier 3 at 9.5%.")
        merge(summary + "\n" + facts)
    handoff.flush()


if __name__ == "__main__":
    main(sys.argv[1])
