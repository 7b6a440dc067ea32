"""Person names: found by cues, by the gazetteer, then every mention of a found name's parts.

Three kinds of evidence, from strongest:

- a *cue* around a capitalized phrase: an honorific ("Dr. Rajinder Singh Bhullar"), a greeting
  or a sign-off ("Dear Maria,", "Kind regards,\\nIfeoma Okonkwo"), a chat speaker label
  ("[11:05] Freya Lindqvist:"), an e-mail display name ("Ana Ruiz <ana.ruiz@…>"), a role word
  ("driver Konstantinos Papadimitriou"), or a field label (:mod:`~handoff.analysis.scrub.fields`);
- the *gazetteer* (:mod:`~handoff.analysis.scrub.gazetteer`): two or more name words that begin
  with a given name, or a surname and a given name ("Zhang Wei");
- *propagation*: once a text names a person, every other mention of the name or one of its
  parts in that text ("Thanks, Lucía", "ask Okafor") is that person too.

Business words (``Ltd``, ``Clinic``, ``Street``), eponymous brands ("Calvin Klein") and common
English words keep companies, places and products out.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator

from handoff.analysis.scrub import cues
from handoff.analysis.scrub.findings import Finding, shifted
from handoff.analysis.scrub.firms import firm_after, firm_named_after, thing_shaped
from handoff.analysis.scrub.gazetteer import Gazetteer, english_word, fold, gazetteer, is_place
from handoff.analysis.scrub.labels import label_of
from handoff.analysis.scrub.vocabulary import (
    ASSISTANT_NAMES,
    BUSINESS_WORDS,
    EPONYMOUS_BRANDS,
    HEADER_FIELDS,
    HONORIFIC_WORDS,
    HONORIFICS,
    LETTER,
    NAME_BOUNDARY,
    NAME_SEQ_RE,
    NAME_SUFFIXES,
    PARTICLES,
    VESSEL_PREFIXES,
)
from handoff.analysis.scrub.windows import aligned_lower, windowed

_WORD = re.compile(rf"{LETTER}(?:{LETTER}|['’\-.](?={LETTER}))*\.?")
_LINE_END_AFTER = re.compile(r"[ \t]*[,!][ \t]*(?:\n|$)")
_UPPER_CODE = re.compile(r"[A-Z0-9]+(?:-[A-Z0-9]+)*-(?:[A-Z]|\d+)|[A-Z0-9]+(?:-[A-Z0-9]+){2,}")
_HONORIFIC_PREFIX = re.compile(rf"(?:(?:{HONORIFICS})\.?\s+)+")
_LOWER_NAME = re.compile(r"[a-zà-ÿ][a-zà-ÿ'\-]+(?: [a-zà-ÿ][a-zà-ÿ'\-]+){1,3}(?=\s*(?:[,.;)\"]|$))")
_SIGN_OFF_PHRASES = tuple(re.sub(r"\(\?i:|\)", "", cues.SIGN_OFF).split("|"))
_SIGN_OFF_CUE = dict(cues.CUES)["sign-off"]
_WORD_CUES = frozenset({"greeting", "role", "kin", "intro"})  # cues whose keyword must begin a word
_HONORIFIC_KEYWORDS = tuple(w.replace("\\", "") for w in HONORIFICS.split("|"))
_STRONG_CUES = frozenset(
    {
        "honorific",
        "sign-off",
        "speaker",
        "speaker-time",
        "display-name",
        "kin",
        "intro",
        "here",
        "done-by",
        "name-suffix",
        "dash-signature",
        "wrote",
        "cjk-speaker",
        "cjk-sign-off",
    }
)
_MULTI_WORD_CUES = frozenset(
    {"preposition", "done-by"}
)  # a single word after "to" or "from" is a place as often as a person


# A name in Han, kana or Hangul: one or two runs of one to four characters ("田中 博", "박지훈").
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
CJK_NAME = re.compile(rf"[{_CJK}]{{1,4}}(?:[ \u3000][{_CJK}]{{1,4}})?(?![{_CJK}])")


def name_span(value: str, *, strong: bool) -> tuple[int, int] | None:
    """The span of the person's name at the start of a field ``value`` (an honorific and quotes skipped), or None.

    A ``strong`` field label (``signatory``, ``first_name``) takes any name-shaped value, lower
    case included ("chidi okafor"); a weak one (``name``) needs a value the gazetteer supports.
    """
    offset = len(value) - len(value.lstrip(" \t\"'"))
    prefix = _HONORIFIC_PREFIX.match(value, offset)
    offset = prefix.end() if prefix else offset
    match = NAME_SEQ_RE.match(value, offset)
    if match is None and strong:
        cjk = CJK_NAME.match(value, offset)
        if cjk is not None:
            return cjk.span()
    if match is None and strong:
        handle = _NAME_HANDLE.match(value, offset)
        if handle is not None and _handle_ok(handle.group()):
            return handle.span()  # "display_name": "hoshino_sakura": a user name built from the person's name
    if match is None:
        lower = _LOWER_NAME.match(value, offset) if strong else None
        return (lower.start(), lower.end()) if lower and _lower_name_ok(lower.group()) else None
    end = match.end()
    code = value[end : end + 1] in ("-", "_", "/") and value[end + 1 : end + 2].isalnum()  # "LC-DUTY-02"
    code = code or _UPPER_CODE.fullmatch(match.group()) is not None  # "NOC-SHIFT-B": a shift or a queue
    if code or (fold(match.group().split()[0]) in VESSEL_PREFIXES and match.group()[:2].isupper()):  # "MV Ada Lee"
        return None
    rest = value[end:].lstrip(" ")
    gap = value.startswith(("   ", "\t"), end)  # a form line: "Seller: Ana Ruiz      Buyer: …"
    if rest[:1].isalnum() and not strong and not gap:  # "Tommy Hilfiger shirt": part of a longer phrase
        return None
    if not strong and firm_after(value, end):  # "name": "Baines & Company": a firm named after its founder
        return None
    if strong and firm_named_after(value, end):  # "Customer: Hartmann & Söhne GmbH": even a person's field holds firms
        return None
    return (match.start(), end) if _acceptable(match.group(), strong or prefix is not None) else None


_COUPLE = re.compile(r"[ \t]*(?:&|\+|and|und|et|y|e)[ \t]+", re.IGNORECASE)


def name_spans(value: str, *, strong: bool) -> list[tuple[int, int]]:
    """:func:`name_span`, and each name joined to it by ``&`` or ``and``: a couple in one field is two
    people ("Noor & Sami Haddad"; "Hartmann & Söhne GmbH" is a firm, no name at all)."""
    spans: list[tuple[int, int]] = []
    offset, span = 0, name_span(value, strong=strong)
    while span is not None:
        spans.append((offset + span[0], offset + span[1]))
        joiner = _COUPLE.match(value, offset + span[1])
        if joiner is None:
            break
        offset = joiner.end()
        span = name_span(value[offset:], strong=strong)
    return spans


def cued_names(text: str, lower: str | None = None, *, sign_off: bool = True) -> Iterator[Finding]:
    """Names introduced by a cue (honorific, greeting, sign-off, speaker label, display name, role word);
    without ``sign_off``, only the cues that lie on one line."""
    lower = aligned_lower(text) if lower is None else lower
    for cue, pattern in cues.CUES:
        if cue == "sign-off" and not sign_off:
            continue
        if cue == "honorific":
            matches = windowed(pattern, text, text, _HONORIFIC_KEYWORDS, before=1, after=80, word_start=True)
        elif cue in cues.CUE_KEYWORDS:
            matches = windowed(
                pattern, text, lower, cues.CUE_KEYWORDS[cue], before=90, after=90, word_start=cue in _WORD_CUES
            )
        elif cue == "sign-off-inline":
            matches = (m for m in pattern.finditer(text) if _signs_off_before(lower, m.start()))
        else:
            matches = pattern.finditer(text) if ":" in text or "  " in text else iter(())
        yield from _cue_findings(text, cue, matches)


def _signs_off_before(lower: str, comma: int) -> bool:
    """Whether a sign-off phrase ends right before the comma at ``comma`` ("Pozdrawiam, Bartek")."""
    return lower[max(0, comma - 40) : comma].rstrip(" \t").endswith(_SIGN_OFF_PHRASES)


def _full_name_shaped(phrase: str) -> bool:
    """Two words or more, none an acronym ("Eilidh MacLeod", not "Deloitte" or "KPMG Audit")."""
    words = [w.rstrip(".") for w in _WORD.findall(phrase)]  # an initial, "S. Ndlovu", is no acronym
    return len(words) >= 2 and not any(len(w) > 1 and w.isupper() for w in words)


def signs_off(line: str) -> bool:
    """Whether ``line`` ends with a sign-off ("Kind regards,"), so the next line may hold the writer's name."""
    return line.rstrip(" \t,.!").lower().endswith(_SIGN_OFF_PHRASES)


def sign_off_at(text: str, line_start: int) -> list[Finding]:
    """The name under the sign-off that ends the line starting at ``line_start``."""
    end = line_start
    for _ in range(4):
        end = text.find("\n", end + 1)
        if end < 0:
            end = len(text)
            break
    return shifted(_sign_off_names(text[line_start:end]), line_start)


@functools.lru_cache(maxsize=16384)
def _sign_off_names(window: str) -> tuple[Finding, ...]:
    return tuple(_cue_findings(window, "sign-off", _SIGN_OFF_CUE.finditer(window)))


def _cue_findings(text: str, cue: str, matches: Iterable[re.Match[str]]) -> Iterator[Finding]:
    single_ok = cue not in ("speaker", "speaker-time", "display-name", "paren-speaker")
    for match in matches:
        if cue == "wrote" and match.group("lower") is not None:
            yield from _lower_writer(text, match)
            continue
        group = "name" if "name" in match.re.groupindex else 0
        start, end = _trim(text, match.start(group), match.end(group))
        if cue in ("speaker", "speaker-time", "paren-speaker") and fold(text[start:end]) in ASSISTANT_NAMES:
            continue  # "Claude: (draft) …" is the model speaking
        if cue == "speaker" and (fold(text[start:end]) in HEADER_FIELDS or english_word(text[start:end])):
            continue  # "Date: Tue, 3 Mar 2026" is a message header, "Carrier: DHL" a field
        if cue in _MULTI_WORD_CUES and not _full_name_shaped(text[start:end]):
            continue
        if cue == "preposition" and (thing_shaped(text, start, end) or is_place(text[start:end])):
            continue  # "from São Paulo", "via Jebel Ali"
        addressed = _addresses(text, cue, match.start(), start)
        strong = cue in _STRONG_CUES or _role_full_name(text, cue, start, end)
        # a letter's opening line, "Cześć Kasia,": an addressing greeting and a name that ends its line
        strong = strong or (addressed and _LINE_END_AFTER.match(text, end) is not None)
        if cue == "speaker" and text[match.start() : start].lstrip()[:1] in ("-", "*", "•"):
            strong = False  # "- Captain Rook: damage 220 → 205": a bulleted list of fields, not a chat
        if (
            end > start
            and _acceptable(text[start:end], strong, single_ok, addressed=addressed)
            and not _brand_at(text, match.start(), end)
        ):
            yield Finding("PERSON", start, end, 0.85, f"NameCue:{cue}", text[start:end])


def _lower_writer(text: str, match: re.Match[str]) -> Iterator[Finding]:
    """A lower-case name before "wrote:" ("10:14 meera iyer wrote:"): its last two or three words, when
    the name lists hold one of them and none is an English or business word."""
    words = list(re.finditer(r"\S+", match.group("lower")))
    for count in (3, 2):
        if len(words) >= count:
            start, end = match.start("lower") + words[-count].start(), match.end("lower")
            if _lower_name_ok(text[start:end]):
                yield Finding("PERSON", start, end, 0.8, "NameCue:wrote", text[start:end])
                return


def _role_full_name(text: str, cue: str, start: int, end: int) -> bool:
    """A full name after a role word ("technician Dawit Bekele") vouches for itself like a strong cue when
    each word is a name or no English word, and it is no place or thing's name."""
    if cue != "role" or not _full_name_shaped(text[start:end]):
        return False
    gaz = gazetteer()
    raws = [w.rstrip(".") for w in _WORD.findall(text[start:end])]
    named = sum(gaz_name(gaz, fold(w)) or not w.isascii() for w in raws)
    unknown = sum(_unknown_name_word(gaz, fold(w)) and not gaz_name(gaz, fold(w)) and w.isascii() for w in raws)
    # "Nguyễn Đức Long": names around one English word; not "Chair, Pro-Vice-Chancellor Education"
    return (
        (named + unknown == len(raws) or named >= 2 and named + unknown >= len(raws) - 1)
        and not thing_shaped(text, start, end)
        and not is_place(text[start:end])
    )


_DONE_BY_BEFORE = re.compile(
    rf"(?<![\w-]){cues.DONE_BY}(?:[ \t]+for[ \t]+[^,.\n]{{1,40}}?)?[ \t]+(?i:by)[ \t]*:?[ \t]+$"
)
_PREPOSITION_BEFORE = re.compile(rf"(?<![\w-]){cues.PREPOSITION}[ \t]*:?[ \t]+$")


def preposition_names(text: str, runs: list[re.Match[str]]) -> Iterator[Finding]:
    """Full names (two words or more, none an acronym) right after "to", "from", "with", "asked", … that
    a weak cue accepts ("to Priyanka Ramachandran"); places and names of things are left alone."""
    for match in runs:
        if " " not in match.group() and "\t" not in match.group():
            if _PREPOSITION_BEFORE.search(text, max(0, match.start() - 14), match.start()) is not None:
                yield from _given_name_alone(text, match)
            continue
        if _DONE_BY_BEFORE.search(text, max(0, match.start() - 64), match.start()) is not None:
            yield from _cue_findings(text, "done-by", (match,))
        elif _PREPOSITION_BEFORE.search(text, max(0, match.start() - 14), match.start()) is not None:
            yield from _cue_findings(text, "preposition", (match,))


def _given_name_alone(text: str, match: re.Match[str]) -> Iterator[Finding]:
    """One word after "with", "by", "page", … that only the given-name lists hold ("pending with Olamide",
    "note by Tomasz", "page Tuấn"): no English word, place or business word."""
    gaz = gazetteer()
    word = match.group()
    suffix = NAME_WORD_SUFFIX.search(word)
    end = match.start() + (suffix.start() if suffix is not None and suffix.start() >= 2 else len(word))
    folded = fold(text[match.start() : end])
    if (
        len(folded) >= 3
        and folded in gaz.given
        and (folded not in gaz.dictionary or not word.isascii())  # "Tuấn" is no English word
        and folded not in BUSINESS_WORDS
        and not word.isupper()
        and not is_place(text[match.start() : end])
    ):
        yield Finding("PERSON", match.start(), end, 0.8, "NameCue:preposition", text[match.start() : end])


def name_runs(text: str) -> list[re.Match[str]]:
    """Runs of capitalized name words in ``text`` that do not start inside a word, path or address."""
    return [
        m
        for m in NAME_SEQ_RE.finditer(text)
        if not m.start()
        or not (text[m.start() - 1].isalnum() or text[m.start() - 1] in NAME_BOUNDARY)
        or _chat_mention(text, m.start())
    ]


def _chat_mention(text: str, start: int) -> bool:
    """``@Otieno`` at a word start is a chat mention of a person, not part of an e-mail address."""
    return text[start - 1] == "@" and (start == 1 or text[start - 2] in " \t\n([")


def gazetteer_names(text: str, runs: list[re.Match[str]]) -> Iterator[Finding]:
    """Runs of two or more name words that are exactly a name beginning with a given name (or a surname and a given name)."""
    gaz = gazetteer()
    for match in runs:
        words = list(_WORD.finditer(match.group()))
        if len(words) < 2:
            continue
        # "Debrief - João Pedro Ferreira - REQ-ENG": a spaced dash separates the parts of a title
        cuts = [m.start() for m in _SPACED_DASH.finditer(match.group())]
        for part in _split_at(words, cuts) if cuts else (words,):
            if len(part) < 2:
                continue
            span = _gazetteer_span(gaz, [w.group() for w in part])
            if span is None:
                continue
            start = match.start() + part[span[0]].start()
            end = match.start() + part[span[1] - 1].end()
            start, end = _trim(text, start, end)
            if not _brand_at(text, start, end) and not thing_shaped(text, start, end) and not is_place(text[start:end]):
                yield Finding("PERSON", start, end, 0.7, "NameGazetteer", text[start:end])


_SPACED_DASH = re.compile(r"[ \t]+[-–—][ \t]+")


def _split_at(words: list[re.Match[str]], cuts: list[int]) -> list[list[re.Match[str]]]:
    parts: list[list[re.Match[str]]] = [[]]
    for word in words:
        while cuts and word.start() > cuts[0]:
            cuts = cuts[1:]
            parts.append([])
        parts[-1].append(word)
    return parts


# An inner capital after a lower-case run longer than a name prefix (Mc, Mac, De, La, Van): "FreeStyle", "PayPal".
# What may follow a name inside one word: a possessive ("Okafor's") or a Japanese or Korean
# honorific suffix ("Tanaka-san", "Ji-hoon-ssi").
NAME_WORD_SUFFIX = re.compile(r"(?:['’]s|-(?:san|sama|kun|chan|sensei|senpai|shi|ssi|nim))$")


_OPENERS = (
    frozenset(re.sub(r"\(\?i:|\)", "", cues.GREETING + "|" + cues.SIGN_OFF + "|" + cues.ROLE).split("|"))
    | HONORIFIC_WORDS
)
# Words that open a sentence before a name and that the word lists lack: contractions, other languages' "I am".
_PRONOUN_OPENERS = frozenset(
    "i i'm i’m im i'll i’ll i'd i’d we we're we’re it's it’s let's let’s soy sou je ich bin sono".split()
)


def _opener(gaz: Gazetteer, folded: str) -> bool:
    """Whether a capitalized word before a known name is an ordinary word opening the sentence ("Asked", "I'm")."""
    if folded in _OPENERS or folded in _PRONOUN_OPENERS or gaz.is_common(folded):
        return True
    return folded.endswith(("ed", "ing")) and not gaz_name(gaz, folded) and gaz.is_english_stem(folded)


def _is_name_part(gaz: Gazetteer, word: str) -> bool:
    folded = fold(word)
    if folded in PARTICLES or folded in HONORIFIC_WORDS or folded in NAME_SUFFIXES or _business_word(gaz, folded, word):
        return False
    # a word with letters beyond ASCII ("Quân", folded "quan") is no English word
    return (not gaz.is_common(folded) or not word.isascii()) and folded not in gaz.ambiguous


def _business_word(gaz: Gazetteer, folded: str, word: str) -> bool:
    """Whether ``word`` is a business word; a short company form that is also a given name ("ASA", "AB")
    is one only in capitals ("Åsa", "Ab" are names)."""
    if folded not in BUSINESS_WORDS:
        return False
    return len(folded) > 3 or folded not in gaz.given or word.isupper()


def _gazetteer_span(gaz: Gazetteer, words: list[str]) -> tuple[int, int] | None:
    """(first, end) word indices of the person's name in a run of capitalized words, or None."""
    folded = [fold(w.rstrip(".")) for w in words]
    first = next(
        (
            i
            for i, w in enumerate(folded)
            if w in gaz.given or (w in gaz.surnames and i + 1 < len(folded) and folded[i + 1] in gaz.given)
        ),
        None,
    )
    if first is None:
        first = _surname_led(gaz, words, folded)
    if first is None:
        return None
    prefix = folded[:first]
    start = 0 if prefix and all(gaz_name(gaz, w) for w in prefix) else first
    end = first + 1
    while end < len(folded) and (
        folded[end] in PARTICLES or _unknown_name_word(gaz, folded[end]) or gaz_name(gaz, folded[end])
    ):
        end += 1
    if end < len(folded):
        return None  # "Florence Nightingale Wing", "Charlotte Tilbury Pillow Talk": the name of a thing
    if start > 0 and not gaz.is_common(folded[start - 1]) and folded[start - 1] not in _OPENERS:
        return None  # "Samsung SDS", "Le Creuset": a longer proper name
    if start > 0 and (is_place(words[start - 1]) or folded[start - 1] in BUSINESS_WORDS):
        return None  # "Faro Forum Algarve", "Estádio José Alvalade": a site named after its town or a person
    if is_place(words[start]) and not any(
        gaz_name(gaz, w) and w not in gaz.dictionary for w in folded[start + 1 : end]
    ):
        return None  # "Basel Rheinhafen", "Braga Nova Arcada": a town and words that are no names, a site
    if all(w in gaz.dictionary for w in folded[start:end]) and not any(w in gaz.surnames for w in folded[start:end]):
        return None  # "Pink Lady": dictionary words that some name lists hold, no surname among them
    if any(w.isupper() and len(w) > 1 for w in words[start:end]) and not all(w.isupper() for w in words[start:end]):
        return None  # "Samsung SDS America": an acronym inside a name of a thing
    if all(w.isupper() for w in words[start:end]) and not all(gaz_name(gaz, w) for w in folded[start:end]):
        return None  # "ERP IDOCX", "KIM TXNREF": upper-case codes, one of them no name word at all
    if end - start < 2 or folded[end - 1] in PARTICLES:
        return None
    things = [w for w in folded[start:end] if w in BUSINESS_WORDS and w not in gaz.ambiguous]  # "River Teme"
    if (things and (folded[end - 1] in things or any(w not in gaz.surnames for w in things))) or (
        start > 0 and folded[start - 1] in VESSEL_PREFIXES  # "CLV Ada Lovelace", "MV Grace Darling": a ship
    ):
        return None
    return start, end


def _surname_led(gaz: Gazetteer, words: list[str], folded: list[str]) -> int | None:
    """Where a name the given-name lists miss begins: a word no list holds before a surname that ends the
    run ("Rajesh Krishnamurthy")."""
    for i in range(len(folded) - 1):
        this, after = folded[i], folded[i + 1]
        if (
            after not in gaz.surnames
            or after in gaz.dictionary
            or after in PARTICLES
            or len(after) < 4
            or gaz.is_english_stem(after)
            or i + 2 != len(folded)
        ):
            continue
        if (
            len(this) >= 3
            and words[i][:1].isupper()
            and not words[i].isupper()
            and _unknown_name_word(gaz, this)
            and this not in gaz.surnames
            and not is_place(words[i])
        ):
            return i
    return None


def gaz_name(gaz: Gazetteer, folded: str) -> bool:
    return folded in gaz.given or folded in gaz.surnames


def _unknown_name_word(gaz: Gazetteer, folded: str) -> bool:
    """A capitalized word that is neither English nor a business word: a name the gazetteer lacks."""
    return (
        not gaz.is_common(folded)
        and folded not in gaz.ambiguous
        and folded not in BUSINESS_WORDS
        and len(folded) > 1
        and folded[1:2] != "-"  # "U-Bahn", "E-Class", "X-Ray"
    )


_POSSESSIVE_THING = re.compile(r"\w['’]s[ \t]+[A-Z]")


def _site_of_town(gaz: Gazetteer, core: list[str]) -> bool:
    """A town that is no given name, then words that are not all names: a site or a branch."""
    return (
        len(core) > 1
        and is_place(core[0])
        and not gaz.is_given(core[0])
        and not all(gaz_name(gaz, w) for w in core[1:])
    )


# Cues that address or name one person ("Dear Dr Lee,", "my wife Rose", "I'm Grace"): after them one
# word that is both a name and an English word ("Lee", "Park", "Rose") is the person; not after
# "Thanks" or "Morning", which also greet a team or thank a bank.
_ADDRESSING_CUES = frozenset(("honorific", "kin", "intro"))
_ADDRESSING_GREETINGS = frozenset(
    "dear hi hello hey hiya g'day g’day olá ola oi hola bonjour salut hallo ciao liebe lieber estimado estimada querido querida "
    "caro cara beste hej hei hoi moi kære kaere merhaba czesc witam szanowny szanowna ahoj buongiorno servus moin "
    "halla selam kia привіт вітаю привет здравствуйте".split()
)


def _addresses(text: str, cue: str, cue_start: int, name_start: int) -> bool:
    if cue == "greeting":
        return fold(text[cue_start:name_start].split(maxsplit=1)[0].strip(",")) in _ADDRESSING_GREETINGS
    return cue in _ADDRESSING_CUES


@functools.lru_cache(maxsize=16384)
def _acceptable(phrase: str, strong: bool, single_ok: bool = True, addressed: bool = False) -> bool:
    """Whether a capitalized ``phrase`` can be a person's name (``strong``: a cue vouches for it;
    ``addressed``: one that addresses or names a person)."""
    gaz = gazetteer()
    raws = [w.rstrip(".") for w in _WORD.findall(phrase)]
    words = [fold(w) for w in raws]
    core = [w for w in words if w not in PARTICLES and w not in NAME_SUFFIXES and w not in HONORIFIC_WORDS]
    if not core or len(core) > 6:
        return False
    business = [w for w, raw in zip(words, raws) if w in core and _business_word(gaz, w, raw)]
    if business and not (strong and (len(core) > 1 or addressed) and all(w in gaz.ambiguous for w in business)):
        return False  # under a cue, a surname that is also a business word stays a name ("Ji-woo Park")
    joined = " ".join(w for w in words if w not in PARTICLES)
    if any(brand in joined for brand in EPONYMOUS_BRANDS) or label_of(phrase) is not None:
        return False
    if words[0] in cues.DETERMINERS:
        return False  # "Customer: My ETH withdrawal is stuck": a sentence, not a name
    if _POSSESSIVE_THING.search(phrase) or _site_of_town(gaz, core):
        return False  # "Sir Henry's Promise", "Ana's Bakery"; "Leeds Kirkgate", "Liverpool Albert Dock"
    if (
        len(core) > 1
        and len(core[-1]) == 1
        and not phrase.rstrip().endswith(".")
        and all(gaz.is_common(w) for w in core[:-1])
    ):
        return False  # "Exhibit C:", "Schedule B": a document label, not a speaker
    named = sum(gaz_name(gaz, w) for w in core)
    if len(core) == 1 and not (single_ok or named):
        return False
    english = sum(w in gaz.ambiguous or (not gaz_name(gaz, w) and gaz.is_common(w)) for w in core)
    if addressed and all(w in gaz.ambiguous for w in core):
        return True
    if strong:
        # "Ferguson Plumbing Supplies", "Sierra Vista Self Storage": a word after the first that is plain
        # English and no name at all makes a firm, a site or a product of the phrase, even in a person's field
        # (two such words: one may be a rare dictionary word that is a name too, "Trần Minh Quân", "Aroha Te Whare")
        thing = sum(gaz.is_common(w) and not gaz_name(gaz, w) and w not in gaz.ambiguous for w in core[1:]) >= 2
        return (english < len(core) or named > 0) and not thing
    return named > 0 and english == 0


_NAME_HANDLE = re.compile(r"[a-z]{2,}[._][a-z]{2,}(?=[\s\"',;)]|$)")


def _handle_ok(handle: str) -> bool:
    """Two name parts joined by ``_`` or ``.``, one of them in the name lists and neither an English word."""
    gaz = gazetteer()
    parts = re.split(r"[._]", handle)
    named = [p for p in parts if gaz_name(gaz, p) and p not in gaz.ambiguous]
    return bool(named) and not any(gaz.is_common(p) and not gaz_name(gaz, p) for p in parts)


def _lower_name_ok(value: str) -> bool:
    gaz = gazetteer()
    words = [fold(w) for w in value.split()]
    return any(gaz_name(gaz, w) for w in words) and not any(gaz.is_common(w) or w in BUSINESS_WORDS for w in words)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop a leading honorific and trailing name suffixes, particles and a possessive 's."""
    prefix = _HONORIFIC_PREFIX.match(text, start)
    if prefix and prefix.end() < end:
        start = prefix.end()
    words = list(_WORD.finditer(text, start, end))
    while len(words) > 1 and fold(words[-1].group().rstrip(".")) in NAME_SUFFIXES | PARTICLES:
        words.pop()
    if words:
        end = words[-1].end()
        if text[end - 1] == "." and len(words[-1].group()) > 2:
            end -= 1
    if text[end - 2 : end] in ("'s", "’s"):
        end -= 2
    return start, end


def _brand_at(text: str, start: int, end: int) -> bool:
    """An eponymous brand or a firm name ("Johnson & Johnson", "Ben & Jerry's") around ``start:end``."""
    around = text[max(0, start - 3) : end + 3]
    return "&" in around or any(brand in fold(text[start:end]) for brand in EPONYMOUS_BRANDS)


# Shared with :mod:`~handoff.analysis.scrub.aliases` (other spellings of a found name) and
# :mod:`~handoff.analysis.scrub.mentions` (every mention of one).
WORD = _WORD
acceptable = _acceptable
brand_at = _brand_at
trim = _trim
is_name_part = _is_name_part
unknown_name_word = _unknown_name_word
opener = _opener
