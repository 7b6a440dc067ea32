"""The parts of a text that are layout or void, not facts: never constraints (docs/constraints.md).

The timestamps of a chat transcript (``[14:02] @maya:``), the date lines of quoted e-mail
headers (``Date: Thu, 12 Mar 2026 10:42 +0100``, ``On Wed, 11 Mar 2026 at 16:05, Jonas
wrote:``) and page stamps (``page 3 of 7``) are where a message sits, not what it says: a
faithful summary drops them. So do values the text marks as superseded or withdrawn (``not the
EUR 19.210,50 shown on the original``). :func:`layout_spans` finds them so that no extractor reads a
constraint inside them. Every pattern stays within one line, so a text cut into lines (the piece
cache) gives the same spans.
"""

from __future__ import annotations

import re

# Each pattern starts with a literal or a character class, so `re` skips ahead to candidates;
# the start of its line is checked afterwards (only blanks and ">" quote marks may come before).
_CHAT_STAMP = re.compile(r"\[[^\]\n]{0,24}\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?(?:\s?[A-Z]{1,4})?\]")
# The scrubber's pseudonyms of people, places and phone numbers: a faithful summary names people
# and places as it likes, and a number written two ways gets two pseudonyms. E-mail, IBAN and IP
# pseudonyms stay identifiers (extractors).
_PERSONAL_PSEUDONYM = re.compile(r"<(?:PERSON|ADDRESS|LOCATION|PHONE_NUMBER|NRP|ORGANIZATION|DATE_TIME):[0-9a-f]{6}>")
# A header's e-mail date with its time ("Date: Fri, 20 Mar 2026 16:47 +0000"), also when a
# scrubber took the key "Date" for a name ("<PERSON:ae2be1>: Fri, 20 Mar 2026 16:47 +0000").
# An e-mail header's sender, recipients and subject lines: where a message sits, not what it says.
_ADDRESS_LINE = re.compile(
    r"[FTCBRSVAEDOP](?:rom|o|c|cc|eply-To|ubject|on|n|etreff|\x20?|e|bjet|ara|sunto)[ \t]?:[^\n]*"
)
_ADDRESS_KEYS = frozenset(
    ("From", "To", "Cc", "Bcc", "Reply-To", "Subject", "Von", "An", "Betreff", "De", "Objet", "Para", "Asunto")
)
_MAIL_DATE = re.compile(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,?[ \t]+\d{1,2}[ \t]+[A-Z][a-z]{2,8}\.?[ \t]+\d{4}[ ,]+(?:at[ \t]+)?\d{1,2}:\d{2}"
)
_HEADER_KEY = re.compile(r"[ \t>]*(?:<PERSON:[0-9a-f]{6}>|Date|Sent|Gesendet|Datum|Envoyé|Enviado|Fecha)[ \t]?:[ \t]*")
_HEADER_DATE = re.compile(r"[DSGEF](?:ate|ent|esendet|atum|nvoyé|nviado|echa)\s?:(?=[^\n]*\d:\d\d)[^\n]*")
_ATTRIBUTION = re.compile(r"[wsaeé](?:rote|chrieb|\x20écrit|scribió)\b[^\n]{0,60}:[ \t]*(?=\n|$)")
_ATTRIBUTION_START = re.compile(r"[ \t>]*(?:On|Am|Le|El)\s")
_PAGE_STAMP = re.compile(r"[PpSs](?i:age|eite|\.)\s?\d{1,4}\s?(?i:of|/|von|sur|de)\s?\d{1,4}(?!\d)")
_QUOTE_MARKS = " \t>"
# Literals each pattern needs, looked for first: a text without them is not scanned at all.
_HEADER_WORDS = ("Date", "Sent", "Gesendet", "Datum", "Envoy", "Enviado", "Fecha")
_ATTRIBUTION_WORDS = ("wrote", "schrieb", "écrit", "escribió")
_VOID_WORDS = (
    "not", "instead of", "rather than", "in place of", "originally", "formerly", "supersed", "replac",
    "corrected from", "no longer", "withdrawn", "cancel", "void", "obsolete",
)  # fmt: skip
# Values the text itself marks as no longer in force: the marker, then the rest of its clause
# ("(not the EUR 19.210,50 shown on the original", "originally 12 March"),
# or the clause up to a marker after the value ("v2's price of $4.10 is withdrawn").
_VOID_BEFORE = re.compile(
    r"(?:\(|,\s)not(?: the)?(?=\s+(?:[A-Z]{3}\s?)?[$€£¥]?\d)"  # a correction: "(not the EUR 19.210,50 …", ", not $6,400"
    r"|(?<![\w-])(?i:instead of|rather than|in place of|originally|formerly|supersedes|replaces|replacing|corrected from"
    r")(?![\w-])"
    # "no longer 30 days" retires the value after it; "no longer than 320 m" is a bound and
    # "must no longer be used after 1 May" a prohibition: neither voids what follows.
    r"|(?<![\w-])(?i:no longer)(?=\s+(?:the\s+)?(?:[A-Z]{3}\s?)?[$€£¥]?\d)"
)
_VOID_AFTER = re.compile(
    r"(?<![\w-])(?i:(?:is |was |has been |are |were )?(?:withdrawn|superseded|cancell?ed|void|obsolete)"
    r"|no longer appl(?:ies|icable))(?![\w-])"
)
# "replaces Schedule 3, section 2.1": what a text replaces by reference is named, not superseded.
_REFERENCE_AFTER = re.compile(
    r"\s+(?:the\s+)?(?:[§¶]|(?i:clauses?|cl\.|sections?|schedules?|articles?|art\.|annex\w*|appendi\w*|exhibits?"
    r"|paragraphs?)\s)"
)
# "any unit reading below 180 bar is withdrawn": a bound before the marker says which things are
# withdrawn, so its value is a condition, not the withdrawn value.
_CONDITION_VALUE = re.compile(
    r"(?<![\w-])(?i:below|under|above|over|exceeding|more than|less than|fewer than|at least|at most|older than"
    r"|younger than)\s+(?:the\s+)?[^\s\d]{0,4}\d"
)
_CLAUSE_END = re.compile(r"[;)\]\n|]|[.,:](?!\d)")
_CLAUSE_START = re.compile(r"[;(\[\n|]|[.,:](?!\d)")


def layout_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every part of ``text`` that is layout: chat stamps, quoted header dates, page stamps.

    A chat stamp opens its line (``[14:02] @maya (IC): …``), so do an e-mail header's sender,
    recipient and subject lines (``From: …``, ``Subject: RE: INV-2026-00417``); its date line
    carries a clock time (``Date: Thu, 12 Mar 2026 10:42 +0100``, ``Sent: …``, ``Gesendet: …``;
    a form's ``Date: 2026-04-15`` is a fact), an attribution line ends in "wrote:" (``On …,
    Jonas Weber <…> wrote:``, ``Am … schrieb …:``), a page stamp is ``page 3 of 7``.
    """
    spans = []
    if "[" in text:
        spans += [m.span() for m in _CHAT_STAMP.finditer(text) if _opens_line(text, m.start())]
    if any(word in text for word in _HEADER_WORDS):
        spans += [m.span() for m in _HEADER_DATE.finditer(text) if _opens_line(text, m.start())]
    if any(word in text for word in _ATTRIBUTION_WORDS):
        for m in _ATTRIBUTION.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if m.start() - line_start <= 200 and _ATTRIBUTION_START.match(text, line_start):
                spans.append((line_start, m.end()))
    if "<" in text:
        spans += [m.span() for m in _PERSONAL_PSEUDONYM.finditer(text)]
    if "@" in text or "Subject" in text or "Betreff" in text or "Objet" in text or "Asunto" in text:
        for m in _ADDRESS_LINE.finditer(text):
            key = m.group().split(":", 1)[0].strip()
            if key in _ADDRESS_KEYS and _opens_line(text, m.start()):
                spans.append(m.span())
    for m in _MAIL_DATE.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if _HEADER_KEY.fullmatch(text, line_start, m.start()):
            line_end = text.find("\n", m.end())
            spans.append((line_start, len(text) if line_end == -1 else line_end))
    low = text.lower()
    if "page" in low or "seite" in low or "p." in low:
        spans += [m.span() for m in _PAGE_STAMP.finditer(text) if not text[m.start() - 1 : m.start()].isalnum()]
    return spans + void_spans(text, low)


def void_spans(text: str, low: str | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of the clauses ``text`` marks as superseded, withdrawn or no longer applicable.

    Each ends at a clause boundary (``;``, ``)``, a line break, a table bar, or ``.``/``,`` not
    inside a number), so a value stated again outside the clause is still a constraint there.
    """
    low = text.lower() if low is None else low
    spans = []
    if not any(word in low for word in _VOID_WORDS):
        return spans
    for m in _VOID_BEFORE.finditer(text):
        if _REFERENCE_AFTER.match(text, m.end()):
            continue
        end = _CLAUSE_END.search(text, m.end())
        spans.append((m.start(), end.start() if end else len(text)))
    for m in _VOID_AFTER.finditer(text):
        start = max((b.end() for b in _CLAUSE_START.finditer(text, max(0, m.start() - 200), m.start())), default=0)
        if not _CONDITION_VALUE.search(text, start, m.start()):
            spans.append((start, m.end()))
    return spans


def _opens_line(text: str, pos: int) -> bool:
    """Whether only blanks and quote marks stand between the start of ``pos``'s line and ``pos``."""
    line_start = text.rfind("\n", max(0, pos - 64), pos) + 1
    return (line_start > 0 or pos < 64) and not text[line_start:pos].strip(_QUOTE_MARKS)
