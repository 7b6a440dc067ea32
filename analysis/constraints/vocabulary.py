"""The words and spellings constraints are written in: numbers, months, currencies, units,
clause kinds, stop words, and the trigger phrases of negations and qualifiers.

Everything here is data or a regex fragment; the extractors and phrase finder compile it.
"""

from __future__ import annotations

import re

from handoff.analysis.constraints.quantities import PINT_UNITS


def trie_pattern(phrases: list[str]) -> str:
    """A regex matching any of ``phrases``, factored by shared prefixes so `re` does not try each in turn."""
    tree: dict = {}
    for phrase in phrases:
        node = tree
        for char in phrase:
            node = node.setdefault(char, {})
        node[""] = {}
    return _trie_node(tree)


def _trie_node(node: dict) -> str:
    branches = [
        (r"\s+" if char == " " else re.escape(char)) + _trie_node(child) for char, child in sorted(node.items()) if char
    ]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
    return f"(?:{body})?" if "" in node else body


# Patterns start with a character class, then check the character before it with a
# two-character lookbehind: a leading class lets `re` skip ahead quickly, which keeps
# extraction fast on prose.
# NUM as a text with a decimal comma writes it: "1.850,00", "2 450", "612,5"; and "2.5" as written.
NUM_COMMA = r"\d(?<![\w.,]\d)(?:\d{0,2}(?:[. \u00a0\u202f]\d{3})+(?:,\d+)?(?![\d.])|\d*,\d+|\d*(?:\.\d+)?)"


def _month_names() -> dict[str, int]:
    """Month names and abbreviations in English, German, French and Spanish (from babel's CLDR data) -> 1..12."""
    from babel.dates import get_month_names

    names: dict[str, int] = {"sept": 9}
    for locale in ("en", "de", "fr", "es"):
        for width in ("wide", "abbreviated"):
            for number, name in get_month_names(width, locale=locale).items():
                if width == "wide" or locale != "es":  # Spanish "ago", "ene", "dic" are words too
                    names[name.lower().rstrip(".")] = number
    return names


MONTHS = _month_names()


def _month_pattern(names: dict[str, int]) -> str:
    """A regex for any of ``names`` as a whole word, case-insensitive.

    It starts with a character class (the names' first letters) and checks the character before
    it with a two-character lookbehind, so `re` can skip ahead to candidates; each name's rest is
    tried only after its own first letter, factored by prefix (longest first: "March", not "Mar").
    """
    by_first: dict[str, list[str]] = {}
    for name in names:
        by_first.setdefault(name[0], []).append(name[1:])
    first = "".join(sorted({ch for letter in by_first for ch in (letter, letter.upper())}))
    rests = "|".join(f"(?<={letter}){trie_pattern(rest)}" for letter, rest in sorted(by_first.items()))
    return rf"[{first}](?<![\w][{first}])(?i:{rests})(?:\.|(?![\w]))"


MONTH = _month_pattern(MONTHS)
# Number words text2num reads (English, German, French, Spanish); "one", "un", "uno" and "ein" are
# articles as often as numbers and are not read alone, and "once" (Spanish 11) and "cent" (French
# 100) are English words ("apply once per consignment", "per cent").
NUMBER_WORDS = (
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand "
    "zwei drei vier fünf sechs sieben acht neun zehn elf zwölf zwanzig dreißig vierzig fünfzig sechzig "
    "siebzig achtzig neunzig hundert tausend "
    "deux trois quatre cinq huit neuf dix onze douze treize quatorze quinze seize vingt trente quarante "
    "cinquante soixante mille "
    "dos tres cuatro cinco seis siete ocho nueve diez doce trece catorce quince veinte treinta "
    "cuarenta cincuenta sesenta setenta ochenta noventa cien ciento mil"
).split()
NUMBER_JOINERS = ("one", "ein", "eins", "und", "and", "et", "y", "un", "une", "uno", "una")
# ISO 4217 codes an amount is written with, factored by prefix (tried after every number).
CURRENCY_CODE_LIST = (
    "USD EUR GBP JPY CHF CAD AUD NZD INR CNY SEK NOK DKK SGD HKD MXN BRL ZAR PLN CZK HUF RON KRW TWD THB "
    "IDR MYR AED SAR ILS CLP COP ARS VND EGP NGN KES ISK"
).split()
CURRENCY_CODES = trie_pattern(CURRENCY_CODE_LIST)
CURRENCY_WORDS = {"dollar": "USD", "dollars": "USD", "euro": "EUR", "euros": "EUR"}
CURRENCY_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
MULTIPLIERS = {
    "k": 1000,
    "K": 1000,
    "thousand": 1000,
    "m": 10**6,
    "M": 10**6,
    "mn": 10**6,
    "MM": 10**6,
    "million": 10**6,
    "bn": 10**9,
    "billion": 10**9,
}
MULT_BODY = r"(?:(?P<mult>[kKmM]|mn|MM|bn)|\s(?P<multw>thousand|million|billion))?"
MULT = MULT_BODY + r"(?![\w])"
US_AMOUNT = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
EU_AMOUNT = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?|\d+,\d{1,2}")
# A "-hh:mm" offset only counts after seconds (ISO timestamps): "02:00-04:00" is a range.
TIME_ZONES = (
    r"(?:UTC|GMT)[+-]\d{1,2}(?::?\d{2})?|UTC|GMT|Z|\+\d{2}:?\d{2}|(?<=:\d\d:\d\d)-\d{2}:?\d{2}"
    r"|[ECMP][SD]T|CES?T|WES?T|EES?T|MES?Z|BST|IST|JST|AE[SD]T|SGT|HKT|KST|MSK|NZ[SD]T|[ECMP]T"
)
# Minutes east of UTC of the zone names a time can carry; ET, CT, PT (offset unknown) are kept as names.
ZONE_OFFSETS = {
    "UTC": 0, "GMT": 0, "Z": 0, "WET": 0, "WEST": 60, "BST": 60, "CET": 60, "CEST": 120,
    "EET": 120, "EEST": 180, "MEZ": 60, "MESZ": 120, "IST": 330, "JST": 540, "AEST": 600, "AEDT": 660,
    "SGT": 480, "HKT": 480, "KST": 540, "MSK": 180, "NZST": 720, "NZDT": 780,
    "EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420, "MDT": -360, "PST": -480, "PDT": -420,
}  # fmt: skip

CLAUSE_REF = (
    r"(?:\d+[A-Za-z]?(?:\.\d+[A-Za-z]?)*(?:[ ]?\([A-Za-z0-9]{1,4}\))*|[IVXLC]{1,6}(?![A-Za-z])|[A-Z](?![A-Za-z]))"
)
CLAUSE_KINDS = {
    "art": "art.",
    "article": "art.",
    "artículo": "art.",
    "artikel": "art.",
    "schedule": "schedule.",
    "annex": "annex.",
    "annexe": "annex.",
    "anexo": "annex.",
    "anhang": "annex.",
    "appendix": "appendix.",
    "appendice": "appendix.",
    "exhibit": "exhibit.",
}

# Units: how each spelling is normalized, as (singular, plural); symbols have no plural.
UNIT_FORMS: dict[str, tuple[str, str]] = {}


def _add_units(singular: str, plural: str, *aliases: str) -> None:
    for alias in (singular, plural, *aliases):
        UNIT_FORMS[alias] = (singular, plural)


for _singular, _plural, *_aliases in (
    ("line", "lines"),
    ("token", "tokens"),
    ("item", "items"),
    ("page", "pages"),
    ("word", "words"),
    ("character", "characters", "char", "chars"),
    ("row", "rows"),
    ("record", "records"),
    ("request", "requests"),
    ("call", "calls"),
    ("retry", "retries"),
    ("attempt", "attempts"),
    ("user", "users"),
    ("seat", "seats"),
    ("unit", "units"),
    ("piece", "pieces", "pcs"),
    ("employee", "employees"),
    ("step", "steps"),
    ("agent", "agents"),
    ("file", "files"),
    ("invoice", "invoices"),
    ("order", "orders"),
    ("ticket", "tickets"),
    ("license", "licenses"),
    ("node", "nodes"),
    ("instance", "instances"),
    ("replica", "replicas"),
    ("shard", "shards"),
    ("worker", "workers"),
    ("pallet", "pallets"),
    ("shipment", "shipments"),
):
    _add_units(_singular, _plural, *_aliases)
# Business days are their own unit, never days (docs/constraints.md); basis points are read as
# percentage points.
_add_units(
    "business day",
    "business days",
    "working day",
    "working days",
    "Werktag",
    "Werktage",
    "Werktagen",
    "Arbeitstag",
    "Arbeitstage",
    "Arbeitstagen",
    "Geschäftstag",
    "Geschäftstage",
    "Geschäftstagen",
    "jour ouvré",
    "jours ouvrés",
    "jour ouvrable",
    "jours ouvrables",
    "día hábil",
    "días hábiles",
    "día laborable",
    "días laborables",
)
_add_units("percentage point", "percentage points", "pp", "basis point", "basis points", "bp", "bps")
BASIS_POINTS = frozenset(("basis point", "basis points", "bp", "bps"))
# Units pint converts (durations, masses, lengths, data, …): their spellings match too.
UNITS = sorted({*UNIT_FORMS, *PINT_UNITS}, key=len, reverse=True)
UNIT_ALT = trie_pattern(UNITS)  # factored by prefix: `re` tries one branch per letter, not every unit
# A number as a text with a decimal point writes it: "1,850.00", "2.5"; SI groups of three after a
# no-break or thin space, and after a plain space before a unit or as round thousands ("11 709 L",
# "14 280 t", "500 000"), where "rooms 101 102" stays two numbers.
NUM = (
    r"\d(?<![\w.]\d)(?:\d{0,2}(?:,\d{3})+(?:\.\d+)?|\d{0,2}(?:[\u00a0\u202f]\d{3})+(?![\d,]|\.\d)"
    rf"|\d{{0,2}}(?: \d{{3}})+(?=[ \t\u00a0]?(?:{UNIT_ALT})(?![\w]))|\d{{0,2}}(?: \d{{3}})*(?: 000)(?![\d,]|\.\d)"
    r"|\d*(?:\.\d+)?)"
)

# Words that end a negation's or qualifier's object once it has a content word.
STOP_WORDS = frozenset(
    "and or but nor so then than that which who whom whose when where while because since as if "
    "of in on at for to from with by into onto over under about against between through during "
    "across among around via throughout upon toward towards along despite versus vs "
    "not no never without unless except per before after until within including excluding based "
    "only also it its this these those there".split()
)
# Auxiliaries ride along inside an object without counting towards its length.
FILLER_WORDS = frozenset(
    "is are was were be been being has have had do does did will would shall should must may might can could".split()
)
ARTICLES = frozenset(("a", "an", "the"))
UNCOUNTED = STOP_WORDS | FILLER_WORDS | ARTICLES
#: :data:`UNCOUNTED` as one pattern, factored by prefix: a plain alternation of the hundred words
#: is tried word by word after every number followed by a word (an adjective before a unit?).
UNCOUNTED_WORDS = trie_pattern(sorted(UNCOUNTED))
OBJECT_WORDS = 3

NEGATIONS = {"no": "no", "without": "without"}
QUALIFIERS = {
    "at least": "at least",
    "no less than": "at least",
    "not less than": "at least",
    "no fewer than": "at least",
    "not fewer than": "at least",
    "a minimum of": "at least",
    "at most": "at most",
    "no more than": "at most",
    "not more than": "at most",
    "not to exceed": "at most",
    "up to": "at most",
    "a maximum of": "at most",
    "capped at": "at most",
    "no later than": "no later than",
    "not later than": "no later than",
    "no earlier than": "no earlier than",
    "not earlier than": "no earlier than",
    "only if": "only if",
    "only when": "only if",
    "unless": "unless",
    "except": "except",
    "excluding": "excluding",
    "including": "including",
    "based on": "based on",
    "base is": "base is",
    "per": "per",
    "before": "before",
    "prior to": "before",
    "after": "after",
    "until": "until",
    "within": "within",
    "subject to": "subject to",
    "provided that": "provided that",
    "as long as": "provided that",
}
NEGATION_WORDS = (
    "not",
    "never",
    "cannot",
    "no",
    "without",
    *(
        f"{aux}n{apostrophe}t"
        for apostrophe in "'’"
        for aux in (
            "do",
            "does",
            "did",
            "is",
            "are",
            "was",
            "were",
            "has",
            "have",
            "had",
            "must",
            "should",
            "would",
            "could",
            "need",
            "ca",
            "wo",
            "sha",
        )
    ),
)

# Dollars of other countries are written with a prefix: S$310 is 310 Singapore dollars, not USD.
DOLLAR_PREFIXES = {
    "US": "USD",
    "S": "SGD",
    "A": "AUD",
    "AU": "AUD",
    "C": "CAD",
    "CA": "CAD",
    "NZ": "NZD",
    "HK": "HKD",
    "R": "BRL",
    "MX": "MXN",
}
DOLLAR_PREFIX = re.compile(r"(?<![A-Za-z])(?:US|AU|CA|NZ|HK|MX|[SACR])\Z")
