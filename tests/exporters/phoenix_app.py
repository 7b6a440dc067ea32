"""The demo's pipeline plus one step that raises, exporting spans over OTLP as a user sets it up.

``python phoenix_app.py <store>`` runs ``handoff demo``'s runs into ``<store>``, then one run whose
``charge`` step raises :class:`CardDeclined` (the demo itself has no step that raises: its broken
verifier is auto-passed). OTLP export is configured only by the standard variables the caller
sets (``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_RESOURCE_ATTRIBUTES``); ``handoff.flush()`` sends
every span before the process exits. Prints the demo's ``{invoice: run_id}`` and the failed run's
id as JSON.
"""

from __future__ import annotations

import json
import sys

import handoff
from handoff.demo import run_demo


class CardDeclined(Exception):
    pass


@handoff.step(to="charge", kind="tool")
def charge(pricing: str) -> str:
    raise CardDeclined("limit exceeded for INV-88214")


def main(store: str) -> None:
    runs = run_demo(store)
    with handoff.run("invoice", invoice="INV-88214-charge") as run:
        try:
            charge('{"total": "169825.06"}')
        except CardDeclined:
            pass
    if not handoff.flush(120):
        sys.exit("handoff.flush() timed out: not every record or span was sent")
    print(json.dumps({"demo": runs, "failed": run.run_id}))


if __name__ == "__main__":
    main(sys.argv[1])
