"""Comparisons: a value with a direction and inclusivity, ``comparison:<op> <atom token>``.

``at least 3 replicas``, ``minimum 3 replicas``, ``≥ 3 replicas`` and ``3 replicas or more`` are
all ``comparison:>= unit:3 replicas``; ``more than``/``over``/``exceeds``/``>`` give ``>``,
``up to``/``maximum``/``within``/``no later than``/``not to exceed``/``≤`` give ``<=``,
``less than``/``under``/``below``/``<`` give ``<``. The bound binds the atomic constraint right
after its cue (or right before a postfix cue such as ``or more``, ``minimum``, ``max``), so the
token carries the atom in its canonical form and a converted value (``at least 2 h`` /
``at least 120 minutes``) is the same bound. A comparison downstream on the same value with
another operator is a *changed* bound (``≥`` → ``>``, maximum → minimum); see
:mod:`~handoff.analysis.constraints.compare`.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator

from handoff.analysis.constraints.cues import POSTFIX_CUES, PREFIX_CUES
from handoff.analysis.constraints.tokens import Constraint
from handoff.analysis.constraints.vocabulary import UNIT_FORMS, trie_pattern

#: Classes of atoms a bound can govern.
BOUNDED_CLASSES = frozenset(("number", "percent", "money", "unit", "date", "time"))

# A key that names a bound, in JSON, YAML or a form: ``"max_nights": 3``, ``min_replicas: 2``.
_KEY_WORDS = (
    "max|maximum|min|minimum|limit|cap|ceiling|floor|within|deadline|not_before|not_after|not_to_exceed"
    "|no_later_than|no_earlier_than|at_least|at_most|up_to|earliest|latest"
)
# Strict bounds, never a key's first part ("overtime", "underwriting" are words of their own), and
# only on a value that is not a string ("credit_if_below_target": "10% of the fee" is no bound on 10%):
# ``"difference_above": 5``, ``"expense_above_usd": 1000``.
_STRICT_WORDS = "above|over|exceeding|below|under"
# The word may also be a middle segment: "notice_min_months", "uptime_min_pct_per_month".
_KEY = re.compile(
    rf"(?<![\w])(?:({_KEY_WORDS})[_ -]?\w*|\w+[_ ]({_KEY_WORDS})|[a-z0-9]+(?:_[a-z0-9]+)*?_({_KEY_WORDS})_\w+)"
    rf"\"?[ \t]*[:=][ \t]*\"?\Z"
    rf"|(?<![\w])(?:\w+[_ ]({_STRICT_WORDS})|[a-z0-9]+(?:_[a-z0-9]+)*?_({_STRICT_WORDS})_\w+)\"?[ \t]*[:=][ \t]*\Z"
)
# The rest of a keyed quantity's key, before its unit: "return_within" of "return_within_days".
_KEYED_PREFIX = re.compile(
    rf"(?<![\w])(?:({_KEY_WORDS})(?:_[a-z0-9]+)*|[a-z0-9_]*_({_KEY_WORDS})|[a-z0-9]+_({_KEY_WORDS})_\w+)\Z"
)
# A key that names a bound and opens an object bounds the object's first number, after any string
# fields: ``"cap": {"currency": "EUR", "value": 25000}``, ``"fee_cap": {"pct_of_rent": 12.5}``.
_KEY_OBJECT = re.compile(
    rf"(?<![\w])(?:({_KEY_WORDS})[_ -]?\w*|\w+[_ ]({_KEY_WORDS})|[a-z0-9]+_({_KEY_WORDS})_\w+)\"[ \t]*:[ \t]*\{{"
    r'(?:[ \t]*"\w+"[ \t]*:[ \t]*"[^"{}\n]*"[ \t]*,)*[ \t]*"\w+"[ \t]*:[ \t]*\Z'
)
_OBJECT_LOOK_BEHIND = 128
_KEY_OPS = {
    "above": ">",
    "over": ">",
    "exceeding": ">",
    "below": "<",
    "under": "<",
    "ceiling": "<=",
    "not_after": "<=",
    "not_to_exceed": "<=",
    "no_later_than": "<=",
    "at_most": "<=",
    "up_to": "<=",
    "latest": "<=",
    "floor": ">=",
    "not_before": ">=",
    "no_earlier_than": ">=",
    "at_least": ">=",
    "earliest": ">=",
    "max": "<=",
    "maximum": "<=",
    "limit": "<=",
    "cap": "<=",
    "within": "<=",
    "deadline": "<=",
    "min": ">=",
    "minimum": ">=",
}


def _alternation(cues: dict[str, tuple[str, ...]]) -> str:
    pairs = sorted(((cue, op) for op, group in cues.items() for cue in group), key=lambda p: len(p[0]), reverse=True)
    return "|".join(re.escape(cue).replace(r"\ ", "[ \t]+") for cue, _op in pairs)


def _operators(cues: dict[str, tuple[str, ...]]) -> dict[str, str]:
    return {cue: op for op, group in cues.items() for cue in group}


_PREFIX_OPS = _operators(PREFIX_CUES)
#: The first word of every cue written before a value: a text piece with one of them before a
#: value may hold a comparison (the piece cache does not take its fast path for such cells).
CUE_WORDS = frozenset(cue.split()[0] for cue in _PREFIX_OPS if cue[0].isalpha())
_POSTFIX_OPS = _operators(POSTFIX_CUES)
# A prefix cue ends just before the value (an optional "of", "the" or sign between them).
# A bound never crosses a line: the piece cache cuts texts at line breaks.
_FILLER = r"(?:(?:of|the|a|an|de|del|la|las|el|los|le|les|à|au|am|um|zu|un|una|une|ein|eine|einen)[ \t]+){0,2}"
_PREFIX = re.compile(rf"(?<![\w<>=≥≤])({_alternation(PREFIX_CUES)})[ \t]*{_FILLER}[~≈]?[ \t]*\Z")
# A postfix cue may follow the value's own noun ("12 doses or more", "133 µmol/L or more").
_POSTFIX = re.compile(rf"(?:[ \t]+[^\s\d.,;:()|]{{1,14}}){{0,2}}?\)?[ \t]*\(?({_alternation(POSTFIX_CUES)})(?![\w])")
_LOOK_BEHIND = 48


def _cue(raw: str) -> str:
    return " ".join(raw.split())


def _starts_pattern(phrases: list[str], before: str = "", after: str = "") -> re.Pattern[str]:
    """A pattern matching the first character of each place one of ``phrases`` starts, where the
    character before it does not match ``before`` and what follows the phrase matches ``after``.

    The phrase is checked by a look-ahead inside a look-behind over that first character: the
    pattern starts with a character class, so `re` skips ahead to candidates instead of trying a
    zero-width pattern at every character, and it still consumes one character only, so no start
    inside another phrase is missed.
    """
    first = re.escape("".join(sorted({phrase[0] for phrase in phrases})))
    not_after = rf"(?<!{before}(?s:.))" if before else ""
    return re.compile(rf"[{first}]{not_after}(?<=(?=(?:{trie_pattern(phrases)}){after})(?s:.))")


# Where a cue, a key's mark and a key's word start, found once per text: an atom with none of
# them in reach is not searched for its bound (each test is implied by the pattern it guards).
_PREFIX_CUE_AT = _starts_pattern(list(_PREFIX_OPS), before=r"[\w<>=≥≤]")
_POSTFIX_CUE_AT = _starts_pattern(list(_POSTFIX_OPS), after=r"(?![\w])")
_KEY_MARK_AT = re.compile(r"[:=]")
_KEY_WORD_AT = _starts_pattern([*_KEY_WORDS.split("|"), *_STRICT_WORDS.split("|")])


# A range: "between 4 and 24 replicas", "entre 18 y 65", "15–20 mg/L", "from 2 to 8 °C", "10-15%".
_RANGE_CLASSES = frozenset(("number", "percent", "money", "unit"))
_BETWEEN = re.compile(r"(?:between|entre|zwischen)[ \t]+(?:(?:the|el|la|los|las|le|les|den|dem)[ \t]+)?\Z")
_RANGE_AND = re.compile(r"[ \t]+(?:and|y|et|und)[ \t]+(?:(?:the|el|la|los|las|le|les|den|dem)[ \t]+)?")
_RANGE_TO = re.compile(r"[ \t]*(?:[–—]|±|\+/-|\+-)[ \t]*|[ \t]+(?:to|up[ \t]+to|a|à|bis|-)[ \t]+")
_RANGE_HYPHEN = re.compile(r"-")  # "15-20 mg/L": only when the second end has a unit both share
_UNIT_SPELLING = re.compile(r"[\d.,]+[ \t]?([^\d\s.,]\S*)\Z")
# "rises from £1.74 to £1.83", "retention goes from 7 to 14 days", "and wastewater from 2 to 3": after a
# verb of change earlier in its sentence, "from X to Y" states an old and a new value, not a range.
_FROM = re.compile(r"(?:from|de|desde)[ \t]+\Z")
_CHANGE_VERB = re.compile(
    r"\b(?:ris(?:e|es|en|ing)|rose|increas\w*|rais(?:e|es|ed|ing)|gr[eo]w\w*|climb\w*|jump\w*|go(?:es|ing|ne)?|went"
    r"|mov(?:e|es|ed|ing)|chang\w*|shift\w*|extend\w*|upgrad\w*|downgrad\w*|lower\w*|reduc\w*|cut(?:s|ting)?"
    r"|f[ae]ll\w*|drop\w*|decreas\w*|shorten\w*|lengthen\w*|adjust\w*|revis\w*|bump\w*|lift\w*"
    r"|sub(?:e|en|ió|ir)|aumenta\w*|baj(?:a|an|ó)|pas(?:a|an|ó)|augment\w*|baiss\w*|monte\w*|pass(?:e|ent|é))\b"
)
_SENTENCE_START = re.compile(r".*(?:[;!?\n]|\.(?!\d))", re.DOTALL)


def find_ranges(text: str, low: str, atoms: list[Constraint]) -> Iterator[Constraint]:
    """``>=`` the low end and ``<=`` the high end of each range of two values (inclusive, as a
    range is read unless it says otherwise); a bare low end takes the unit of the high one."""
    for a, b in zip(atoms, atoms[1:]):
        if a.cls not in _RANGE_CLASSES or b.cls not in _RANGE_CLASSES or (a.cls != "number" and a.cls != b.cls):
            continue
        between = _BETWEEN.search(low, max(0, a.start - 16), a.start) is not None
        joined = (
            (between and _RANGE_AND.fullmatch(low, a.end, b.start))
            or _RANGE_TO.fullmatch(low, a.end, b.start)
            or (b.cls != "number" and _RANGE_HYPHEN.fullmatch(low, a.end, b.start))
        )
        low_end = _low_end(a, b) if joined else None
        if low_end is None or _is_year(a) or _is_year(b) or not _ascending(low_end, b.token):
            continue  # "from 40 mg to 20 mg" is a change, not a range
        if not between and _changes(low, a.start):
            continue  # "rises from 40 mg to 60 mg" is a change too
        start = a.start - (16 - _BETWEEN.search(low, max(0, a.start - 16), a.start).start()) if between else a.start
        yield Constraint("comparison", f"comparison:>= {low_end}", text[start : b.end], start, b.end)
        yield Constraint("comparison", f"comparison:<= {b.token}", text[start : b.end], start, b.end)


def _changes(low: str, start: int) -> bool:
    """Whether the value at ``start`` follows ``from`` after a verb of change earlier in its sentence."""
    opener = _FROM.search(low, max(0, start - 8), start)
    if opener is None:
        return False
    lo = max(0, opener.start() - 160)
    head = _SENTENCE_START.match(low, lo, opener.start())
    return _CHANGE_VERB.search(low, head.end() if head else lo, opener.start()) is not None


def _ascending(low: str, high: str) -> bool:
    """Whether the value of token ``low`` is below that of ``high`` (same class and unit)."""
    from handoff.analysis.constraints.values import stated_value

    a, b = stated_value(low), stated_value(high)
    same_unit = not low.startswith("unit:") or low.rpartition(" ")[2] == high.rpartition(" ")[2]
    return a is not None and b is not None and a < b and same_unit


def _is_year(atom: Constraint) -> bool:
    return atom.cls == "number" and atom.token[7:].isdigit() and 1900 <= int(atom.token[7:]) <= 2100


def _low_end(a: Constraint, b: Constraint) -> str | None:
    """The token of the range's low end ``a``, in the unit or currency of ``b`` when ``a`` is bare."""
    from decimal import Decimal

    from handoff.analysis.constraints.quantities import canonical_quantity

    if a.cls != "number" or b.cls == "number":
        return a.token
    value = Decimal(a.token[7:])
    if b.cls == "percent":
        return f"percent:{a.token[7:]}"
    if b.cls == "money":
        return f"money:{b.token[6:9]}{value:.2f}"
    spelling = _UNIT_SPELLING.search(b.text)
    if spelling is None:
        return None
    quantity = canonical_quantity(value, spelling.group(1))
    if quantity is None and spelling.group(1) in UNIT_FORMS:  # counted things: "4 and 24 replicas"
        singular, plural = UNIT_FORMS[spelling.group(1)]
        quantity = f"{a.token[7:]} {singular if a.token[7:] == '1' else plural}"
    return f"unit:{quantity}" if quantity else None


def find_bounds(text: str, low: str, atoms: list[Constraint]) -> Iterator[Constraint]:
    """Each bound on an atom of ``atoms``; ``low`` is ``text`` lower-cased (same offsets)."""
    yield from find_ranges(text, low, atoms)
    bounded = [atom for atom in atoms if atom.cls in BOUNDED_CLASSES]
    if not bounded:
        return
    prefix_at, marks, words, postfix_at = (
        _starts(pattern, low) for pattern in (_PREFIX_CUE_AT, _KEY_MARK_AT, _KEY_WORD_AT, _POSTFIX_CUE_AT)
    )
    # The atoms a cue can reach, found from the cues (a few per text) rather than atom by atom
    # (hundreds in a table): a cue within the look-behind before the atom, a postfix cue after it on its line.
    after_prefix = _reached_from(prefix_at, [atom.start for atom in bounded])
    after_key = _reached_from(marks, [atom.start for atom in bounded]) & _reached_from(
        words, [atom.start for atom in bounded]
    )
    before_postfix = _reaching(postfix_at, [atom.end for atom in bounded], low)
    keyed = {i for i, atom in enumerate(bounded) if atom.text[:1] == "_"}
    # A value right after a key's colon may sit in an object a bound key opened ("cap": {"value": 25000}).
    after_colon = {i for i, atom in enumerate(bounded) if low[atom.start - 2 : atom.start].strip()[-1:] == ":"}
    # "aged 23+", "17+ only": a plus sign right after a value (and before no digit) is "or more".
    plus = {i for i, atom in enumerate(bounded) if _PLUS.match(low, atom.end)}
    for i in sorted(after_prefix | after_key | before_postfix | keyed | after_colon | plus):
        atom = bounded[i]
        # Searched in place (not in a slice), so the look-behinds see the text before the window.
        window = max(0, atom.start - _LOOK_BEHIND), atom.start
        m = _PREFIX.search(low, *window) if i in after_prefix else None
        if m is not None:
            if (named := _named_limit(m, atom, low)) is not None:  # "below the 85% minimum": the minimum's bound
                yield _bound(named, atom, m.start(1), atom.end + len(_NOUN_AFTER.match(low, atom.end).group()), text)
                continue
            op, start = _prefix_op(_cue(m.group(1)), m.start(1), low)
            yield _bound(_lead_op(op, atom, low), atom, start, atom.end, text)
            continue
        label = _LABELLED_BOUND.search(low, *window) if i in after_prefix else None
        if label is not None:  # "the maximum stay is 3 hours", "minimum order value: EUR 500"
            yield _bound(_LABEL_OPS[label.group(1)], atom, label.start(1), atom.end, text)
            continue
        key = _KEY.search(low, *window) if i in after_key else None
        if key is None and i in keyed:  # a keyed quantity, "return_within_days": 7
            key = _KEYED_PREFIX.search(low, *window)
        wide = max(0, atom.start - _OBJECT_LOOK_BEHIND), atom.start
        if key is None and low[atom.start - 2 : atom.start].strip()[-1:] == ":" and _any_in(words, *wide):
            key = _KEY_OBJECT.search(low, *wide)
        if key is not None:
            word = next(group for group in key.groups() if group)
            yield _bound(_KEY_OPS[word], atom, atom.start, atom.end, text)
            continue
        m = _POSTFIX.match(low, atom.end) if i in before_postfix else None
        if m is not None:
            op = _POSTFIX_OPS[_cue(m.group(1))]
            yield _bound(op, atom, atom.start, m.end(), text)
        elif i in plus:
            yield _bound(">=", atom, atom.start, atom.end + 1, text)


_PLUS = re.compile(r"\+(?![\w+])")


# A bound word naming what it bounds before the value: "the maximum stay is 3 hours", "minimum order value: EUR 500".
_LABELLED_BOUND = re.compile(
    r"(?<![\w])(maximum|minimum|max|min|limit|cap|ceiling|maximale?[nr]?|minimale?[nr]?|máxim[oa]|mínim[oa])\.?"
    r"(?:[ \t]+[^\W\d_][\w'\-]*){1,3}"
    r"(?:[ \t]+(?:is|are|of|will[ \t]+be|shall[ \t]+be|beträgt|betragen|es|son|est|sont)|[ \t]*[:=])[ \t]+"
    r"(?:(?:the|de|del|la|le|el)[ \t]+)?\Z"
)
_LABEL_OPS = {
    "maximum": "<=",
    "max": "<=",
    "limit": "<=",
    "cap": "<=",
    "ceiling": "<=",
    "minimum": ">=",
    "min": ">=",
}
_LABEL_OPS.update({word: "<=" for word in ("maximal", "maximale", "maximalen", "maximaler", "máximo", "máxima")})
_LABEL_OPS.update({word: ">=" for word in ("minimal", "minimale", "minimalen", "minimaler", "mínimo", "mínima")})


def _any_in(starts: list[int], lo: int, hi: int) -> bool:
    """Whether one of the sorted ``starts`` is in ``[lo, hi)``."""
    i = bisect_left(starts, lo)
    return i < len(starts) and starts[i] < hi


def _reached_from(cue_at: list[int], starts: list[int]) -> set[int]:
    """Indices of the ``starts`` with a cue in ``[start - _LOOK_BEHIND, start)``, i.e. in ``(cue, cue + _LOOK_BEHIND]``."""
    order = sorted(range(len(starts)), key=starts.__getitem__)
    ordered = [starts[i] for i in order]
    return {
        order[j] for cue in cue_at for j in range(bisect_right(ordered, cue), bisect_right(ordered, cue + _LOOK_BEHIND))
    }


def _reaching(cue_at: list[int], ends: list[int], low: str) -> set[int]:
    """Indices of the ``ends`` with a cue at or after them on their line: in ``[line start, cue]``."""
    order = sorted(range(len(ends)), key=ends.__getitem__)
    ordered = [ends[i] for i in order]
    return {
        order[j]
        for cue in cue_at
        for j in range(bisect_left(ordered, low.rfind("\n", 0, cue) + 1), bisect_right(ordered, cue))
    }


# "below the 85% minimum", "over the 40 kg limit": a value after "the" and before a bound noun is that
# limit, which the cue measures something else against; the bound is the noun's.
_THE_BEFORE = re.compile(r"the[ \t]+\Z")
_NOUN_AFTER = re.compile(r"[ \t-]+([a-z]+)")
_LIMIT_NOUNS = {"minimum": ">=", "floor": ">=", "maximum": "<=", "limit": "<=", "cap": "<=", "ceiling": "<="}


def _named_limit(m: re.Match[str], atom: Constraint, low: str) -> str | None:
    """The operator of the limit ``atom`` names after the prefix cue of ``m`` ("below the 85% minimum": ``>=``), or None."""
    if not _THE_BEFORE.search(low, m.end(1), atom.start):
        return None
    noun = _NOUN_AFTER.match(low, atom.end)
    return _LIMIT_NOUNS.get(noun.group(1)) if noun else None


# "no later than 24 hours before the cut-off" is "at least 24 hours before" it: a deadline cue on a
# lead time (a duration before or ahead of an event) bounds the lead time from the other side.
_LEAD_TIME = re.compile(r"[ \t]+(?:before|prior|in advance|ahead|beforehand)\b")
_DEADLINE_OPS = {"<=": ">=", ">=": "<="}


# "never more than 30%" is "at most 30%", "not below 6.0" is "at least 6.0": a negated strict
# cue is the inclusive bound the other way.
_NEGATED_CUE = re.compile(
    r"(?:\b(?:never|not|no|nunca|jamás|ningún|ninguna|pas|jamais|aucun|aucune|nicht|nie|niemals|kein\w*)|\w+n't)"
    r"(?:[ \t]+[^\W\d_]+){0,6}?[ \t]+\Z"
)
_NEGATED_OPS = {">": "<=", "<": ">="}
_CONDITION_BETWEEN = re.compile(
    r"\b(?:when|whenever|if|while|unless|once|lorsque|lorsqu|quand|si|cuando|wenn|falls|sobald)\b"
)


def _prefix_op(cue: str, start: int, low: str) -> tuple[str, int]:
    """The operator of the prefix ``cue`` written at ``start`` and where the bound starts: negated,
    from the ``never``/``not`` before it (which is then no negation of its own)."""
    op = _PREFIX_OPS[cue]
    negated = _NEGATED_CUE.search(low, max(0, start - 64), start) if op in _NEGATED_OPS else None
    if negated is not None and _CONDITION_BETWEEN.search(negated.group()):
        negated = None  # "do not move hives when the temperature exceeds 25 °C": the "not" is the moving's
    return (_NEGATED_OPS[op], negated.start()) if negated else (op, start)


def _lead_op(op: str, atom: Constraint, low: str) -> str:
    """``op`` as it bounds ``atom``: turned round for a deadline cue on a lead time."""
    cue_is_deadline = (
        low.rfind("later than", 0, atom.start) > atom.start - 16
        or low.rfind("earlier than", 0, atom.start) > atom.start - 18
    )
    if atom.cls == "unit" and cue_is_deadline and _LEAD_TIME.match(low, atom.end):
        return _DEADLINE_OPS.get(op, op)
    return op


def _starts(pattern: re.Pattern[str], low: str) -> list[int]:
    return [m.start() for m in pattern.finditer(low)]


def _bound(op: str, atom: Constraint, start: int, end: int, text: str) -> Constraint:
    return Constraint("comparison", f"comparison:{op} {atom.token}", text[start:end], start, end)
