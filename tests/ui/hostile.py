"""Record a run whose attributes, step names, content and events hold HTML and script, into the store given.

Run as ``python -m tests.ui.hostile STORE`` (a subprocess, so the test process's recorder is left alone).
"""

from __future__ import annotations

import sys

import handoff

SCRIPT = "<script>window.__pwned = 1; alert('pwned')</script>"
IMG = "<img src=x onerror=\"window.__pwned = 2; alert('img')\">"
STEP = "<svg onload=alert(3)>render"


def record(store: str) -> tuple[str, str]:
    """Record a run with no handoffs, then the hostile run, into ``store``; return both run ids."""
    handoff.configure(store=store, scrub=False)
    with handoff.run("empty", note="no steps ran") as empty:
        pass

    @handoff.step(to="summarize", from_="intake")
    def summarize(text: str) -> str:
        return f"summary of {text} {IMG}"

    @handoff.step(to=STEP, kind="transform")
    def render(text: str) -> str:
        handoff.fallback(f"fallback {SCRIPT}", error=ValueError(IMG))
        return text[:10]

    with handoff.run("hostile " + SCRIPT, note=SCRIPT, image=IMG) as run:
        render(summarize(f"customer wrote: {SCRIPT} and {IMG} amount $1,250.00 per clause 4.1(a)"))
    handoff.shutdown()
    return empty.run_id, run.run_id


if __name__ == "__main__":
    print("\n".join(record(sys.argv[1])))
