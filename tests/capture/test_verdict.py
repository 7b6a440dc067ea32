"""handoff.verdict inside a step, and allow_empty on a step: what the record carries."""

from __future__ import annotations

import logging

import handoff
from handoff.analysis.verdicts import classify_verdict
from handoff.diagnostics import forget_warnings
from handoff.testing import capture


def test_verdict_is_recorded_on_the_handoff_and_as_an_event():
    """A verifier's verdict and reason land on its handoff and as a kind=verdict event; status stays ok."""

    @handoff.step(to="verify", kind="verifier")
    def verify(pricing: str) -> str:
        handoff.verdict("fail", reason="surcharge on the unrebated subtotal")
        return "FAIL: surcharge on the unrebated subtotal"

    with capture() as records, handoff.run("invoice"):
        verify('{"total": "171312.00"}')
    (h,) = records.handoffs
    (event,) = records.events
    assert (h.kind, h.status, h.verdict, h.verdict_reason) == (
        "verifier",
        "ok",
        "fail",
        "surcharge on the unrebated subtotal",
    )
    assert (event.kind, event.name, event.handoff_id, event.error_message, event.attributes) == (
        "verdict",
        "fail",
        h.handoff_id,
        "surcharge on the unrebated subtotal",
        {"step": "verify"},
    )


def test_a_broken_verdict_makes_the_handoff_broken():
    """handoff.verdict('broken') records status=broken, so a verifier that errored never reads as a pass."""

    @handoff.step(to="verify", kind="verifier")
    def verify(pricing: str) -> str:
        reply = "VERIFIED [Verification error, auto-pass: session expired]"
        handoff.verdict(*classify_verdict(reply))
        return reply

    with capture() as records:
        assert verify("{}") == "VERIFIED [Verification error, auto-pass: session expired]"
    (h,) = records.handoffs
    assert (h.status, h.verdict) == ("broken", "broken")
    assert h.verdict_reason == "verification error: VERIFIED [Verification error, auto-pass: session expired]"


def test_the_latest_verdict_wins_and_an_error_stays_an_error():
    """A re-verification that passes clears broken; a step that then raises is status=error with its verdict kept."""

    @handoff.step(to="verify", kind="verifier")
    def verify(retry: bool) -> str:
        handoff.verdict("broken", reason="rate limit")
        if retry:
            handoff.verdict("pass")
            return "VERIFIED"
        raise TimeoutError("model call timed out")

    with capture() as records:
        verify(True)
        try:
            verify(False)
        except TimeoutError:
            pass
    assert [(h.status, h.verdict, h.verdict_reason) for h in records.handoffs] == [
        ("ok", "pass", None),
        ("error", "broken", "rate limit"),
    ]
    assert [e.name for e in records.events] == ["broken", "pass", "broken"]


def test_misuse_is_ignored_with_a_warning(caplog):
    """An unknown verdict, or a verdict outside any step, logs a warning and changes nothing."""
    forget_warnings()

    @handoff.step(to="verify", kind="verifier")
    def verify(text: str) -> str:
        handoff.verdict("maybe")
        return text

    with capture() as records, caplog.at_level(logging.WARNING, logger="handoff.once"):
        handoff.verdict("pass")
        assert verify("ok") == "ok"
    (h,) = records.handoffs
    assert (h.status, h.verdict, records.events) == ("ok", None, [])
    assert [r.getMessage() for r in caplog.records] == [
        "handoff.verdict called outside a step: ignored",
        "handoff.verdict: unknown verdict ignored (use pass, fail or broken)",
    ]


def test_allow_empty_is_recorded_per_step():
    """@handoff.step(allow_empty=True) and record(allow_empty=True) mark their handoffs; the default is False."""

    @handoff.step(to="retrieve", allow_empty=True)
    def retrieve(q: str) -> list:
        return []

    @handoff.step(to="answer")
    def answer(q: str) -> str:
        return ""

    with capture() as records:
        retrieve("q")
        answer("q")
        with handoff.record(to="rerank", allow_empty=True) as h:
            h.input("q")
            h.output([])
    assert [(h.to_step, h.allow_empty) for h in records.handoffs] == [
        ("retrieve", True),
        ("answer", False),
        ("rerank", True),
    ]
