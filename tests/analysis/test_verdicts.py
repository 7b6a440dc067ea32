"""Reading a verifier's raw output as a verdict, and deciding whether an output is empty."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from handoff.analysis.empty import is_empty_output
from handoff.analysis.verdicts import Verdict, classify_verdict


def test_an_auto_pass_on_a_verification_error_is_broken_not_verified():
    """The incident's string, VERIFIED with an error marker in it, is broken: the marker wins over the token."""
    assert classify_verdict("VERIFIED [Verification error, auto-pass: session expired]") == Verdict(
        "broken", "verification error: VERIFIED [Verification error, auto-pass: session expired]"
    )


@pytest.mark.parametrize(
    ("output", "marker"),
    [
        ("VERIFIED (auto-pass: browser session timed out)", "auto-pass"),
        ("VERIFIED\nTraceback (most recent call last):\n  File 'verify.py', line 3", "traceback"),
        ("PASS -- RateLimitError: 429 Too Many Requests", "exception"),
        ("VERIFIED after the rate limit cleared", "rate limit"),
        ("VERIFIED. 401 Unauthorized from the portal", "auth error"),
        ("APPROVED: session expired before the check ran", "session error"),
        ("Error: the model is overloaded, try again later", "error substituted for output"),
        ("Failed to connect to the browser", "error substituted for output"),
        ("PASS; request timed out", "timeout"),
    ],
)
def test_error_markers_beat_verdict_tokens(output, marker):
    """Whatever verdict token a broken verifier's output also carries, an error marker makes it broken."""
    verdict = classify_verdict(output)
    assert (verdict.verdict, verdict.reason.split(":")[0]) == ("broken", marker)


def test_a_36_character_real_verdict_is_a_pass():
    """A short output with a real verdict token is a verdict, not a short-output error."""
    output = "VERIFIED: surcharge base per 7.2(b)."
    assert len(output) == 36
    assert classify_verdict(output) == Verdict("pass", output)


@pytest.mark.parametrize(
    ("output", "verdict"),
    [
        ("FAIL", "fail"),
        ("PASS", "pass"),
        ("verdict: pass", "pass"),
        ("Pass. The rebate is applied first.", "pass"),
        ("NOT VERIFIED: the base qualifier is missing", "fail"),
        ("FAIL: surcharge on the unrebated subtotal; an error of $1,486.94", "fail"),
        ("FAIL: line 429 amount mismatch", "fail"),
        ("The totals agree. Verdict: FAIL because 7.2(b) was ignored", "fail"),
        ("FAIL: 2 of 3 checks PASSED", "fail"),
    ],
)
def test_verdict_tokens_decide_when_there_is_no_error_marker(output, verdict):
    """The first verdict token decides; an error word inside a FAIL reason is not an error marker."""
    assert classify_verdict(output).verdict == verdict


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        ("", "empty output"),
        ("   \n\t", "empty output"),
        (None, "empty output"),
        ("...", "near-empty output: ..."),
        ("None", "near-empty output: None"),
        ("null", "near-empty output: null"),
        ("The surcharge looks right to me.", "no verdict in output: The surcharge looks right to me."),
        ("it does not pass the threshold", "no verdict in output: it does not pass the threshold"),
    ],
)
def test_outputs_without_a_verdict_are_broken(output, reason):
    """Empty, placeholder and verdict-less outputs did not verify anything."""
    assert classify_verdict(output) == Verdict("broken", reason)


def test_bytes_are_read_as_utf8():
    """A verifier's raw bytes classify like their text."""
    assert classify_verdict("VERIFIED ✓".encode()) == Verdict("pass", "VERIFIED ✓")


@given(st.text(max_size=300))
def test_any_text_gets_one_of_three_verdicts(text):
    """classify_verdict never raises and always answers pass, fail or broken with a reason."""
    verdict = classify_verdict(text)
    assert verdict.verdict in ("pass", "fail", "broken")
    assert verdict.reason


@pytest.mark.parametrize(
    "output",
    [b"", b"  \n", b"[]", b" [ ] ", b"{}", b"{\n}", b'""', b'" \\n "', "\u200b".encode(), b"\xef\xbb\xbf[]"],
)
def test_empty_outputs(output):
    """Nothing, whitespace, zero-width characters and empty JSON lists, objects and strings are empty."""
    assert is_empty_output(output) is True


@pytest.mark.parametrize("output", [None, b"null", b"0", b"false", b"[0]", b'{"a": 1}', b"ok", b"\xff\xfe", b" x "])
def test_values_are_not_empty(output):
    """null, 0, false, non-empty JSON, short text and non-UTF-8 bytes are answers."""
    assert is_empty_output(output) is False


def test_long_whitespace_is_empty_and_long_text_is_not():
    """A megabyte of whitespace is empty; a megabyte of text behind whitespace is not."""
    assert is_empty_output(b" " * 1_000_000) is True
    assert is_empty_output(b" " * 1_000_000 + b"x") is False


@given(st.binary(max_size=200))
def test_is_empty_output_never_raises(data):
    """Any bytes get a yes or no."""
    assert is_empty_output(data) in (True, False)
