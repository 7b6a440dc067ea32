"""Other spellings of a person's name: a gloss in another script, an e-mail local part, a user handle.

- :func:`script_glosses`: "TANAKA Hiroshi (田中 博)", "박지훈 (Park Ji-hoon)": both spellings;
- :func:`email_named`: "Abebe Girma Tesfaye" beside ``abebe.tesfaye@…``;
- :func:`handles`: lower-case user names built from a name (``username=mzielinski``, ``ravi@host:~$``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from handoff.analysis.scrub.findings import Finding
from handoff.analysis.scrub.gazetteer import Gazetteer, fold, gazetteer, is_place
from handoff.analysis.scrub.people import CJK_NAME, WORD, acceptable, brand_at, gaz_name, trim
from handoff.analysis.scrub.vocabulary import BUSINESS_WORDS, HONORIFIC_WORDS, NAME_SEQ, PARTICLES

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_HAS_CJK = re.compile(rf"[{_CJK}]")
# The same person in two scripts: "TANAKA Hiroshi (田中 博)", "박지훈 (Park Ji-hoon)".
_GLOSSES = (
    re.compile(
        rf"(?P<name>{NAME_SEQ})[ \t]*[(（](?P<gloss>{CJK_NAME.pattern})(?:[)）]|[,，;；][^()（）\n]{{0,80}}[)）])"
    ),
    re.compile(rf"(?<![{_CJK}])(?P<gloss>{CJK_NAME.pattern})[ \t]*[(（](?P<name>{NAME_SEQ})[)）]"),
)


# A display name in Han, kana or Hangul before an e-mail address: "From: 박지훈 <jihoon.park@…>", "박지훈 Park Ji-hoon <…>".
_CJK_DISPLAY_NAME = re.compile(
    rf"(?:^|(?<=[\s,;:(\"]))\"?(?<![{_CJK}])({CJK_NAME.pattern})(?:[ \t]+{NAME_SEQ})?\"?[ \t]*<[^<>\s@]{{1,64}}@"
)


def script_glosses(text: str) -> Iterator[Finding]:
    """A romanized full name glossed in Han, kana or Hangul (or the reverse): both spellings are the person;
    and a display name in those scripts before an e-mail address."""
    if _HAS_CJK.search(text) is None:
        return
    for match in _CJK_DISPLAY_NAME.finditer(text):
        yield Finding("PERSON", match.start(1), match.end(1), 0.85, "NameGloss", match.group(1))
    for pattern in _GLOSSES:
        for match in pattern.finditer(text):
            name = match.group("name")
            if len(WORD.findall(name)) >= 2 and acceptable(name, True) and not brand_at(text, *match.span("name")):
                for group in ("name", "gloss"):
                    start, end = match.span(group)
                    yield Finding("PERSON", start, end, 0.85, "NameGloss", text[start:end])


_EMAIL_LOCAL = re.compile(r"(?<![\w.+\-])([A-Za-z0-9][\w.+\-]{0,63})@[\w\-]+\.[\w.\-]+")
_LOCAL_SPLIT = re.compile(r"[._+\-\d]+")


def email_named(text: str, runs: list[re.Match[str]]) -> Iterator[Finding]:
    """Capitalized phrases whose surname and first name (or its initial) make up an e-mail address's local
    part in the same text: "Abebe Girma Tesfaye" beside ``abebe.tesfaye@…``, "João Pedro Nogueira" beside
    ``jp.nogueira@…``."""
    if "@" not in text:
        return
    locals_ = [fold(m.group(1)) for m in _EMAIL_LOCAL.finditer(text)]
    if not locals_:
        return
    for match in runs:
        words = [fold(w.rstrip(".")) for w in WORD.findall(match.group())]
        core = [w for w in words if w not in PARTICLES and w not in HONORIFIC_WORDS]
        if not 2 <= len(core) <= 5 or any(w in BUSINESS_WORDS for w in core):
            continue
        if any(_local_names(local, core) for local in locals_):
            start, end = trim(text, match.start(), match.end())
            if not brand_at(text, start, end) and not is_place(text[start:end]):
                yield Finding("PERSON", start, end, 0.85, "NameEmail", text[start:end])


def _local_names(local: str, core: list[str]) -> bool:
    """Whether an e-mail local part spells a surname of ``core`` with its first name or first initial."""
    parts = [p for p in _LOCAL_SPLIT.split(local) if p]
    joined = "".join(parts)
    first = core[0].replace("-", "")
    for surname in (w.replace("-", "") for w in core[1:]):
        if len(surname) < 3 or surname not in joined:
            continue
        rest = joined.replace(surname, " ", 1).strip()
        if rest and (first.startswith(rest) or rest.startswith(first) or rest[0] == first[0] and len(rest) <= 3):
            return True
    return False


# Lower-case handles that name a person: a user field, a shell prompt, a TODO owner, "sign-off by j.doe".
_HANDLES = re.compile(
    r"(?:(?<![\w-])(?:user|username|user_name|login|uid|owner|author|assignee)[\"']?[ \t]*[:=][ \t]*[\"']?"
    r"|^[ \t]*|(?<![\w-])(?:TODO|FIXME|XXX)\(|(?<![\w-])by[ \t]+"
    # syslog and paths: "sudo: pkaczmarek : TTY=…", "session opened for user jdoe", "/home/jdoe/"
    r"|(?<![\w-])sudo:[ \t]+|(?<![\w-])for user[ \t]+|(?<![\w.-])/(?:home|Users)/)"
    r"(?P<handle>[a-z][a-z0-9]*(?:[._\-][a-z0-9]+){0,2})"
    r"(?=[\"')]|@[\w.\-]+:[~/]|[ \t]|$)",
    re.MULTILINE,
)
# A shell prompt pasted mid-line, after a log prefix: "WARN  ravi@host:~$".
_PROMPT = re.compile(r"(?<=[ \t])(?P<handle>[a-z][a-z0-9]*(?:[._\-][a-z0-9]+){0,2})(?=@[\w.\-]+:[~/])")
_PROMPT_HOST = re.compile(r"@[\w.\-]+:[~/]")  # the cheap test before the scan for the user
_HANDLE_SPLIT = re.compile(r"[._\-\d]+")


def handles(text: str) -> Iterator[Finding]:
    """Lower-case user names built from a person's name ("mzielinski", "j.mbeki-ross", "ravi@host:~$")."""
    gaz = gazetteer()
    prompts = _PROMPT.finditer(text) if _PROMPT_HOST.search(text) else ()
    for match in itertools.chain(_HANDLES.finditer(text), prompts):
        handle = match.group("handle")
        if match.group().lstrip(" \t") == handle and not text.startswith("@", match.end()):
            continue  # a bare word opening a line is a handle only in a shell prompt
        if _handle_names(gaz, handle) and _MACHINE_PARTS.isdisjoint(_HANDLE_SPLIT.split(handle)):
            # not "fleet-bot", "deploy-svc", "ci-runner": accounts of machines
            yield Finding("PERSON", match.start("handle"), match.end("handle"), 0.8, "NameHandle", handle)


def user_is_named(user: str) -> bool:
    """Whether a lower-case user name is built from a person's name (``mzielinski``, not ``git``)."""
    return _handle_names(gazetteer(), user.lower())


_MACHINE_PARTS = frozenset(
    "bot bots svc srv service daemon system sys admin root ci cd cron deploy deployer runner build noreply "
    "no-reply donotreply automation auto sync api app test qa ops sre integration robot agent worker".split()
)


def _handle_names(gaz: Gazetteer, handle: str) -> bool:
    """Whether the parts of ``handle`` (an initial allowed before a surname: "mzielinski") are a name."""
    parts = [p for p in _HANDLE_SPLIT.split(handle) if p]
    if not parts or any(gaz.is_common(p) and not gaz_name(gaz, p) for p in parts if len(p) > 2):
        return False
    named = [p for p in parts if len(p) >= 3 and gaz_name(gaz, p) and p not in gaz.ambiguous]
    if named:
        return True
    word = parts[0]
    return (
        len(parts) == 1
        and len(word) >= 5
        and (_surnames(gaz, word[1:]) or _surnames(gaz, word[2:]) or _full(gaz, word))
    )


def _full(gaz: Gazetteer, word: str) -> bool:
    """Whether ``word`` is a given name and a surname run together ("brandonsmith", "heikkikorhonen")."""
    return _two_names(gaz, word, gaz.given, 3)


def _surnames(gaz: Gazetteer, rest: str) -> bool:
    """Whether ``rest`` (a user name after its initials) is a surname, or two of them run together
    as Spanish and Portuguese double surnames are ("garciaperez")."""
    if rest in gaz.surnames:
        return rest not in gaz.ambiguous
    return _two_names(gaz, rest, gaz.surnames, 4)


def _two_names(gaz: Gazetteer, word: str, first: frozenset[str], shortest: int) -> bool:
    """Whether ``word`` splits into a name of ``first`` and a surname, each at least ``shortest`` letters and
    neither an English word."""
    return any(
        word[:i] in first and word[i:] in gaz.surnames and not gaz.is_common(word[:i]) and not gaz.is_common(word[i:])
        for i in range(shortest, len(word) - shortest + 1)
    )
