"""Postal addresses of many countries: street lines and postcodes, joined with their neighbours.

An *anchor* is a street line ("41 Coldharbour Lane", "Calle de Alcalá 48", "Schillerstraße 27",
"2-14-7 Kichijoji Honcho") or a postcode shaped by its country ("SE5 9NR", "IL 60625",
"1016 DV", "D18 X2T4", "05435-001"). The address is the anchor's comma-separated segment plus
the neighbouring segments that look like address parts (short, capitalized or numbered:
"Flat 3", "Vila Madalena", "28014 Madrid"). A city or a country alone is never an address, and
a bare five-digit number before a word ("04109 Leipzig") counts only beside a street line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.vocabulary import U
from handoff.analysis.scrub.windows import ascii_folded, holds_any

_TYPE_WORDS = [
    "street",
    "st",
    "road",
    "rd",
    "lane",
    "ln",
    "avenue",
    "ave",
    "drive",
    "dr",
    "way",
    "crescent",
    "cres",
    "close",
    "grove",
    "terrace",
    "place",
    "pl",
    "court",
    "ct",
    "boulevard",
    "blvd",
    "gardens",
    "gdns",
    "square",
    "sq",
    "row",
    "mews",
    "walk",
    "parade",
    "circle",
    "cir",
    "highway",
    "hwy",
    "parkway",
    "pkwy",
    "trail",
    "broadway",
    "wharf",
    "quay",
    "embankment",
    "caddesi",
    "cad",
    "sokak",
    "sokağı",
    "sk",
    "mahallesi",
    "marg",
    "nagar",
]
# Capitalized as street types are written ("Elm Street", "Kedzie Ave"); Nordic, German and Hungarian ones also in
# lower case.
_TYPES = "|".join(
    [w.capitalize() for w in _TYPE_WORDS]
    + [w.upper() for w in _TYPE_WORDS if len(w) > 3]
    + ["gate", "gata", "gatan", "vej", "veien", "vegen", "straße", "strasse", "kaien"]
    + ["utca", "út", "útja", "körút", "tér", "sétány", "rakpart", "fasor"]  # Hungarian: "Király utca 23."
    + [w.capitalize() for w in ["gate", "gata", "gatan", "vej", "veien", "vegen", "straße", "strasse"]]
)
_PREFIX_WORDS = (
    r"rue|avenue|avenida|calle|carrer|camino|paseo|plaza|praça|rua|travessa|largo|via|viale|piazza|"
    r"corso|strada|ulica|aleja|odos|odós|leoforos|soi|thanon|jalan|lorong|calea|bulevardul|chemin|"
    r"allée|boulevard|quai|impasse|carretera|ronda|rambla|passeig|estrada|alameda"
)


def _cased(words: str, word_start: bool = False) -> str:
    """An alternation of ``words`` (``|``-separated) in lower, capitalized and upper case: as fast as literals
    for :mod:`re`, where ``(?i:…)`` is several times slower; with ``word_start``, each only where no word
    character comes before it (a lookbehind after the literal, which keeps the fast scan)."""
    forms = dict.fromkeys(w for word in words.split("|") for w in (word, word.capitalize(), word.upper()))
    if word_start:
        return "|".join(f"{re.escape(w)}(?<!\\w{re.escape(w)})" for w in forms)
    return "|".join(forms)


_PREFIXES = (
    rf"(?:{_cased(_PREFIX_WORDS, word_start=True)})|(?:{_cased('av|avda|ul|al|jl|str|bd|c/', word_start=True)})\."
)
_PREFIXES_CI = rf"(?i:{_PREFIX_WORDS})|(?:Av|av|Avda|C/|Ul|ul|Al|al|Jl|Str|Bd)\."
_SUFFIXES = (
    r"straße|strasse|str\.|gasse|weg|allee|platz|ring|damm|ufer|gracht|straat|laan|kade|plein|singel|dijk|vej|gade|"
    r"gatan|gata|vägen|veien|katu|utca|ulice|kaien|gaten|torget|plassen|stræde|gränd|bakken|stien|polku|kuja"
)
_NUMBER = r"\d{1,5}[A-Za-z]?(?:[-/]\d{1,4}[A-Za-z]?|-[IVX]+)?"
_LOW = r"[a-zà-ÿ'’.\-]"
_WORDS = rf"(?:(?:{U}{_LOW}[\w'’.\-]*|de|del|la|da|do|dos|das|di|du|des|della|e|i)[ \t]+){{0,5}}?(?:No\.?:?[ \t]*)?"
# One street-and-number pattern per form, each starting with a character class (lookbehinds after it)
# so that re skips ahead fast; they run one after the other.
# "12B Elm Street", not "6x Bourbon Street Stout": a lower-case x after a number counts, it is no house letter
_NUMBER_START = r"\d(?<![\w.,:/\-]\d)\d{0,4}[A-Za-wyz]?(?:[-/]\d{1,4}[A-Za-z]?|-[IVX]+)?"
_STREETS = tuple(
    re.compile(p)
    for p in (
        rf"{_NUMBER_START},?[ \t]+(?:[NSEW]\.?[ \t]+)?(?:{U}[\w'’.\-]*[ \t]+){{0,4}}(?:{_TYPES})\.?(?![\w])",
        rf"(?<![\w])(?:{_PREFIXES_CI})\.?[ \t]+{_WORDS}{_NUMBER}(?![\w])",
        rf"{_NUMBER_START},?[ \t]+(?:{_PREFIXES})\.?[ \t]+(?:(?:de|del|la|da|do|dos|des|du|di|della)[ \t]+)?"
        rf"{U}{_LOW}+(?:[ \t]+{U}{_LOW}*){{0,3}}",  # a street name, not "533 via NBO" (an airport code)
        rf"{U}(?<![\w]{U})[\w'’\-]*(?:{_cased(_SUFFIXES)})[ \t]+{_NUMBER}(?![\w])",
        rf"{U}(?<![\w]{U})[\w'’\-]*[ \t]+(?:{U}[\w'’\-]*[ \t]+){{0,2}}(?:{_TYPES})\.?[ \t]+(?:No\.?:?[ \t]*)?\d{{1,5}}[A-Za-z]?(?![\w])",
        r"\d(?<![\w\-.]\d)\d?-\d{1,2}-\d{1,3}[ \t]+" + U,
    )
)
# The prefix and suffix forms of _STREETS scan slowly (a lookbehind or a case-insensitive alternation
# at every position: most of the time the scrubber spends on invoice lines) and cannot match a line
# that holds none of their words. Lower-cased, for a line whose lower case finds what their cased and
# case-insensitive forms find (see windows.ascii_folded): a necessary condition, one automaton pass.
_PREFIX_HINTS = tuple(
    dict.fromkeys(
        [form.lower() for w in _PREFIX_WORDS.split("|") for form in (w, w.upper())]
        + [f"{w}." for w in "av|avda|ul|al|jl|str|bd|c/".split("|")]
    )
)
_SUFFIX_HINTS = tuple(
    dict.fromkeys(form.lower() for w in _SUFFIXES.replace("\\.", ".").split("|") for form in (w, w.upper()))
)
_STREET_HINTS = (None, _PREFIX_HINTS, _PREFIX_HINTS, _SUFFIX_HINTS, None, None)  # per pattern of _STREETS
_STRONG_POSTCODE = re.compile(
    rf"(?<![\w\-])(?:[A-Z]{{1,2}}\d[A-Z\d]?[ \t]\d[A-Z]{{2}}"  # UK
    rf"|[A-Z]{{2}}[ \t]\d{{5}}(?:-\d{{4}})?"  # US state and ZIP
    rf"|[A-Z]\d[A-Z][ \t]\d[A-Z]\d"  # Canada
    rf"|\d{{4}}[ \t][A-Z]{{2}}(?=[ \t]+{U})"  # Netherlands
    rf"|[A-Z]\d{{2}}[ \t][A-Z0-9]{{4}}"  # Ireland (Eircode)
    rf"|\d{{5}}-\d{{3}}|\d{{4}}-\d{{3}}(?=[ \t]+{U})|\d{{2}}-\d{{3}}(?=[ \t]+{U})"  # Brazil, Portugal, Poland
    rf"|(?<=[A-Za-z][ \t])\d{{3}}-\d{{4}}"  # Japan ("Tokyo 150-0002")
    rf"|(?:NSW|VIC|QLD|WA|SA|TAS|ACT|NT)[ \t]\d{{4}})(?![\w\-])"  # Australia
)
_WEAK_POSTCODE = re.compile(
    rf"(?<![\w\-.,]){U}[\w\-]+[ \t]\d{{4,6}}(?![\w\-])|(?<![\w\-.,])\d{{3}}[ \t]?\d{{2}}[ \t]+{U}|(?<![\w\-.,$€£])\d{{4,6}}[ \t]+{U}[\w\-]+"
)
_NAMED_STREET = re.compile(rf"(?<![\w])(?:{U}[\w'’\-]*[ \t]+){{1,3}}(?:{_TYPES})(?![\w])")
# A month name or abbreviation (in the languages whose months start like the English ones), not any word
# that starts like one ("rue des Martyrs", "Mayfair Court")
_MONTH = re.compile(
    r"(?i:\b(?:"
    r"septiembre|diciembre|fevereiro|noviembre|september|setiembre|settembre|augustus|december|dezember|"
    r"dezembro|dicembre|décembre|februari|february|november|novembre|novembro|setembro|febrero|februar|"
    r"janeiro|januari|january|october|octobre|octubre|oktober|ottobre|outubro|agosto|aprile|august|januar|"
    r"abril|april|julho|julio|junho|junio|maart|march|marco|marzo|março|juli|july|june|juni|mars|mayo|märz|"
    r"sept|apr|aug|dec|feb|jan|jul|jun|mar|may|nov|oct|sep)\.?(?!\w))"
)
_UNIT = re.compile(
    rf"(?:{_cased('flat|apartment|apt|unit|suite|house no.|house no|villa|floor|piso|apto|int.|blk|block|lot', True)})"
    r"[ \t]*\d{1,4}[A-Za-z]?(?![\w])"
)
_SEGMENT_SPLIT = re.compile(r"[,;|·•]")
_DIGIT = re.compile(r"\d")
_CAPITAL = re.compile(U)
_PART_WORD = re.compile(r"(?i:\d\S*|[^\W\d_][\w'’.\-/ºª]*|[-–/·]|[(][\w .]+[)])")
_LOWER_PARTS = frozenset(
    [
        "de",
        "del",
        "della",
        "da",
        "do",
        "dos",
        "das",
        "di",
        "du",
        "des",
        "le",
        "la",
        "van",
        "der",
        "den",
        "i",
        "y",
        "e",
        "bis",
        "ter",
        "s/n",
        "apt",
        "apto",
        "no",
        "no.",
        "int.",
        "col.",
        "esq.",
        "izq.",
        "dcha.",
        "m.",
        "piso",
    ]
)


# Korean road-name addresses: "서울특별시 마포구 와우산로 94, 302호 (04066)".
_HANGUL_ADDRESS = re.compile(
    r"(?:[가-힣]+(?:시|도)[ \t])?(?:[가-힣]+(?:구|군|시)[ \t])?(?:[가-힣]+(?:동|읍|면)[ \t])?[가-힣0-9]+(?:로|길)[ \t]?\d+(?:-\d+)?"
    r"(?:,?[ \t]?\d+(?:동[ \t]?)?\d*호)?(?:[ \t]?\(\d{5}\))?"
)
_HANGUL_STREET = re.compile(r"[가-힣](?:로|길)[ \t]?\d")
# "Ερμού 45, 105 63 Αθήνα", "Strandkaien 18, 5013 Bergen": a street and number, then a postcode and a town.
_STREET_POSTCODE_TOWN = re.compile(
    rf"(?<![\w\-])(?:{U}[\w'’.\-]*[ \t]){{0,3}}{U}[\w'’.\-]+[ \t]\d{{1,4}}[A-Za-z]?,[ \t]"
    rf"(?:(?P<greek>\d{{3}}[ \t]\d{{2}})|(?P<code>\d{{4,5}}))[ \t](?P<town>{U}[\w\-]+(?:[ \t]{U}[\w\-]+)?)"
)


def street_postcode_towns(text: str) -> Iterator[Finding]:
    """Addresses written as street and number, postcode and town on one line, where the town is a known
    place or the postcode has the Greek/Czech/Swedish 3+2 shape; and Korean road-name addresses."""
    if _HANGUL_STREET.search(text):
        for match in _HANGUL_ADDRESS.finditer(text):
            yield Finding("ADDRESS", match.start(), match.end(), 0.85, "AddressRecognizer", match.group())
    if ", " not in text:
        return
    from handoff.analysis.scrub.gazetteer import is_place

    for match in _STREET_POSTCODE_TOWN.finditer(text):
        code = match.group("code")
        if code and (re.fullmatch(r"(?:19|20)\d\d", code) or not is_place(match.group("town"))):
            continue
        yield Finding("ADDRESS", match.start(), match.end(), 0.85, "AddressRecognizer", match.group())


def looks_like_address(value: str) -> bool:
    """Whether a field value reads as a postal address: a street line, a postcode, or a unit and two parts."""
    return bool(_line_addresses(value, True)) or (value.count(",") >= 2 and _UNIT.search(value) is not None)


def addresses(text: str, context: bool = True) -> Iterator[Finding]:
    """Postal addresses in ``text``, one finding per address line run; without ``context``, each line
    is read alone (a postcode line below a street line is left to :func:`near_street_addresses`)."""
    if not any(c.isdigit() for c in text):
        return
    offset = 0
    lines = text.split("\n")
    candidates = [bool(_DIGIT.search(line) and _CAPITAL.search(line)) for line in lines]
    streets = {index for index, line in enumerate(lines) if candidates[index] and has_street(line)}
    for index, line in enumerate(lines):
        near_street = context and bool(streets.intersection(range(index - 2, index)))
        if candidates[index]:
            for start, end in _line_addresses(line, near_street):
                yield Finding(
                    "ADDRESS",
                    offset + start,
                    offset + end,
                    0.85,
                    "AddressRecognizer",
                    line[start:end],
                )
        offset += len(line) + 1


def street_lines(text: str) -> set[int]:
    """The indexes of the lines of ``text`` that hold a street and number."""
    if not _DIGIT.search(text):
        return set()
    return {index for index, line in enumerate(text.split("\n")) if _CAPITAL.search(line) and has_street(line)}


@functools.lru_cache(maxsize=65536)
def has_street(line: str) -> bool:
    """Whether ``line`` holds a street and number ("Maximilianstraße 31"), so the lines below may be its address."""
    if _DIGIT.search(line) is None:
        return False
    lower = ascii_folded(line)
    return any(
        pattern.search(line)
        for pattern, hints in zip(_STREETS, _STREET_HINTS)
        if hints is None or lower is None or holds_any(lower, hints)
    )


@functools.lru_cache(maxsize=16384)
def near_street_addresses(line: str) -> tuple[Finding, ...]:
    """The address parts of a ``line`` just below a street line ("80539 München"), offsets within the line."""
    if not (_DIGIT.search(line) and _CAPITAL.search(line)):
        return ()
    return tuple(
        Finding("ADDRESS", start, end, 0.85, "AddressRecognizer", line[start:end])
        for start, end in _line_addresses(line, True)
    )


def _line_addresses(line: str, near_street: bool) -> list[tuple[int, int]]:
    strong = _anchors(line, (*_STREETS, _STRONG_POSTCODE) if has_street(line) else (_STRONG_POSTCODE,))
    units = _anchors(line, (_UNIT,))
    if not (strong or units or near_street):
        return []
    weak = units + _anchors(line, (_WEAK_POSTCODE, _NAMED_STREET))
    if not strong and not ((units and len(weak) >= 2) or (near_street and weak and _address_part(line, 0, len(line)))):
        return []
    segments = _segments(line)
    spans: list[tuple[int, int]] = []
    for anchor_start, anchor_end in strong or weak:
        index = _index_of(segments, anchor_start)
        seg_start, seg_end = segments[index]
        first = last = index
        if not line[seg_start:anchor_start].strip() or _UNIT.fullmatch(line[seg_start:anchor_start].strip(" ,")):
            while (
                first > 0
                and index - first < 4
                and not _cell_edge(line, segments[first])
                and _address_part(line, *segments[first - 1])
            ):
                first -= 1
        if not line[anchor_end:seg_end].strip() or _address_part(line, anchor_end, seg_end):
            while (
                last + 1 < len(segments)
                and last - index < 6
                and not _cell_edge(line, segments[last + 1])
                and _address_part(line, *segments[last + 1])
            ):
                last += 1
        start = segments[first][0] if first < index else _part_start(line, seg_start, anchor_start)
        tail_ok = last > index or _address_part(line, anchor_end, seg_end)
        end = segments[last][1] if tail_ok else anchor_end
        spans.append(_strip(line, start, max(end, anchor_end)))
    return _merged(spans)


def _cell_edge(line: str, segment: tuple[int, int]) -> bool:
    """Whether ``segment`` opens a table cell (a ``|`` before it): an address does not run into the next cell."""
    return segment[0] > 0 and line[segment[0] - 1] == "|"


def _anchors(line: str, patterns: tuple[re.Pattern[str], ...]) -> list[tuple[int, int]]:
    """Anchor spans, each widened to the end of its last word; dates ("30 April 2026") are not anchors."""
    spans = []
    for pattern in patterns:
        for match in pattern.finditer(line):
            end = match.end()
            while end < len(line) and line[end].isalnum():
                end += 1
            if not _MONTH.search(line, match.start(), end):
                spans.append((match.start(), end))
    return spans


def _index_of(segments: list[tuple[int, int]], position: int) -> int:
    return next(i for i, (s, e) in enumerate(segments) if s <= position < e + 1)


def _segments(line: str) -> list[tuple[int, int]]:
    spans, cursor = [], 0
    for match in _SEGMENT_SPLIT.finditer(line):
        spans.append((cursor, match.start()))
        cursor = match.end()
    spans.append((cursor, len(line)))
    return spans


def _address_part(line: str, start: int, end: int) -> bool:
    """A short segment of capitalized or numbered words ("Flat 3", "Vila Madalena", "28014 Madrid")."""
    segment = line[start:end].strip()
    if not segment or len(segment) > 60 or any(c in segment for c in ':="@|<>{}[]'):
        return False
    words = segment.split()
    if len(words) > 6:
        return False
    return all(
        w[0].isdigit() or w[0].isupper() or w.lower() in _LOWER_PARTS or w in "-–/·" or (len(w) <= 3 and "." in w)
        for w in words
    )


def _part_start(line: str, segment_start: int, anchor_start: int) -> int:
    """Where the address begins in its first segment: a unit before the anchor ("Apt 5 12 Elm St") or the anchor."""
    unit = _UNIT.search(line, segment_start, anchor_start)
    return unit.start() if unit else anchor_start


def _strip(line: str, start: int, end: int) -> tuple[int, int]:
    while start < end and line[start] in " \t\"'(":
        start += 1
    while end > start and line[end - 1] in " \t.,;\"')":
        end -= 1
    return start, end


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
