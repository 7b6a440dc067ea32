"""Read a verifier's raw output as a verdict: pass, fail, or broken (verification did not happen).

The failure this exists for: a verifier whose model call failed returned
``"VERIFIED [Verification error, auto-pass: session expired]"`` and the pipeline went on as
verified. :func:`classify_verdict` runs on the verifier's own output text, in the application
(``handoff.verdict(*classify_verdict(reply))``), and decides in this order:

1. **error markers win**: text that an error put where the verdict should be (a traceback, an
   exception name with its message, ``Verification error``, ``auto-pass``), session and auth
   failures (``session expired``, ``401 Unauthorized``, ``invalid API key``), rate limits and
   overload (``429``, ``rate limit``, ``quota exceeded``, ``overloaded``), timeouts of the call
   itself, and empty or near-empty output (nothing but punctuation or a placeholder such as
   ``None``, ``null``, ``N/A``): ``broken``, even when a verdict token is also present;
2. **verdict tokens next**: the first of ``VERIFIED``/``PASS``/``PASSED``/``APPROVED`` (pass) or
   ``FAIL``/``FAILED``/``REJECTED``/``NOT VERIFIED``/``UNVERIFIED`` (fail), whole words in capitals,
   or in any case at the start of the output or after ``verdict:``. A short output with a real
   verdict token is a verdict (``"VERIFIED: totals match 7.2(b) base"`` is a pass);
3. **otherwise broken**: an output that carries no verdict did not verify anything, however
   long or short it is.

What it assumes of its input: the verifier was asked to answer with one of the verdict tokens.
Lower-case ``pass``/``fail`` inside prose are not tokens ("does not pass the threshold" is not a
verdict). The markers are phrases an error message uses, not words a verdict reason uses: a
``FAIL`` whose reason says "an error in the surcharge" stays a fail.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Verdict(NamedTuple):
    """A classified verdict: ``verdict`` is ``pass``, ``fail`` or ``broken``; ``reason`` says why."""

    verdict: str
    reason: str


_ERROR_MARKERS = (
    ("traceback", r"traceback \(most recent call last\)"),
    # Case-sensitive: an exception class name (ValueError, ReadTimeout, APIConnectionError) then its message.
    ("exception", r"(?-i:\b[A-Z][A-Za-z0-9]*(?:Error|Exception|Timeout)\b)\s*[:(\]]"),
    ("verification error", r"\bverification (?:error|failed to run|could not (?:run|complete)|skipped)\b"),
    ("auto-pass", r"\bauto[- ]?(?:pass(?:ed)?|approv(?:e|ed)|verif(?:y|ied))\b"),
    ("error substituted for output", r"\A\W*(?:error|exception|fatal|internal error)\b\s*[:\-\]]"),
    (
        "error substituted for output",
        r"\A\W*(?:failed|unable|could not|cannot|can't) (?:to )?(?:connect|reach|load|open|launch|start|call|fetch|complete|get)\b",
    ),
    ("connection error", r"\bconnection (?:refused|reset|aborted|error|closed unexpectedly)\b"),
    ("session error", r"\bsession (?:has )?(?:expired|timed? ?out|closed|not found|invalid|terminated)\b"),
    (
        "session error",
        r"\b(?:browser|target page|browser context)\b[^\n]{0,40}?\bhas been closed\b|\bbrowser (?:crashed|disconnected)\b",
    ),
    (
        "auth error",
        r"\b(?:401|403)\b[^\n]{0,20}?\b(?:unauthori[sz]ed|forbidden)\b|\b(?:unauthori[sz]ed|forbidden)\b[^\n]{0,20}?\b(?:401|403)\b",
    ),
    ("auth error", r"\A\W*(?:unauthori[sz]ed|forbidden)\b|\binvalid (?:api[- ]?key|access token|credentials)\b"),
    (
        "auth error",
        r"\bauthentication (?:failed|error|required)\b|\b(?:not logged in|login required|please (?:log|sign) in)\b",
    ),
    ("rate limit", r"\brate[- ]?limit(?:ed|s)?\b|\btoo many requests\b|\b(?:http|status|error|code)\W{0,3}429\b"),
    ("rate limit", r"\bquota (?:exceeded|exhausted)\b|\binsufficient_quota\b|\btry again later\b"),
    (
        "rate limit",
        r"\b(?:model|server|service|api|engine)s? (?:is |are )?(?:currently )?overloaded\b|\boverloaded_error\b",
    ),
    ("timeout", r"\b(?:request|connection|read|call|model|gateway) timed? ?out\b|\bdeadline exceeded\b"),
    ("server error", r"\b(?:internal server error|service unavailable|bad gateway)\b"),
)
_MARKERS = [(name, re.compile(pattern, re.IGNORECASE)) for name, pattern in _ERROR_MARKERS]

#: What a model emits when it has nothing to say: near-empty output.
_PLACEHOLDERS = {"none", "null", "nil", "undefined", "n/a", "na", "nan", "tbd", "todo", "...", "-", "?"}

_PASS = ("VERIFIED", "PASSED", "PASS", "APPROVED")
_FAIL = ("NOT VERIFIED", "UNVERIFIED", "FAILED", "FAIL", "REJECTED")
_TOKEN = "|".join(re.escape(token).replace(r"\ ", r"\s+") for token in (*_FAIL, *_PASS))
#: Capitals anywhere, as whole words; any case at the start or after "verdict:".
_UPPER = re.compile(rf"(?<![A-Za-z])({_TOKEN})(?![A-Za-z])")
_LEADING = re.compile(rf"^\W*(?:verdict\s*[:=-]\s*)?({_TOKEN})(?![A-Za-z])", re.IGNORECASE)
_LABELLED = re.compile(rf"\bverdict\s*[:=-]\s*\W*({_TOKEN})(?![A-Za-z])", re.IGNORECASE)

#: Outputs longer than this are classified on their first and last parts (where verdicts and errors sit).
_MAX_SCAN_CHARS = 64 * 1024


def classify_verdict(output: str | bytes | None) -> Verdict:
    """Classify a verifier's raw output: error markers, then verdict tokens, then ``broken``."""
    text = _as_text(output)
    stripped = text.strip()
    if not stripped:
        return Verdict("broken", "empty output")
    if not any(ch.isalnum() for ch in stripped) or stripped.lower().strip(".!:;'\"`()[]{}") in _PLACEHOLDERS:
        return Verdict("broken", f"near-empty output: {_clip(stripped)}")
    for name, pattern in _MARKERS:
        match = pattern.search(text)
        if match:
            return Verdict("broken", f"{name}: {_clip(_line_of(text, match.start()))}")
    token = _first_token(text)
    if token is None:
        return Verdict("broken", f"no verdict in output: {_clip(stripped)}")
    word = " ".join(token.upper().split())
    return Verdict("pass" if word in _PASS else "fail", _clip(stripped))


def _as_text(output: str | bytes | None) -> str:
    if output is None:
        return ""
    if isinstance(output, bytes):
        output = output.decode("utf-8", errors="replace")
    if len(output) > _MAX_SCAN_CHARS:
        half = _MAX_SCAN_CHARS // 2
        output = output[:half] + "\n" + output[-half:]
    return output


def _first_token(text: str) -> str | None:
    found = [m for m in (_LEADING.search(text), _LABELLED.search(text), _UPPER.search(text)) if m]
    if not found:
        return None
    return min(found, key=lambda m: m.start(1)).group(1)


def _line_of(text: str, index: int) -> str:
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    return text[start : end if end != -1 else len(text)].strip()


def _clip(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
