"""What extraction produces: :class:`Constraint` and its normalized ``"<class>:<value>"`` token.

Tokens change meaning only with :data:`CONSTRAINTS_VERSION`, which the writer stores beside them.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Bump whenever a token for the same text could change; stored in ``constraints_version``.
# 2: comparisons (``comparison:>= unit:3 replicas``), list items (``list_item:``) and the
# per-text ``terms`` token (stored by ``stored_tokens``).
# 3: stems hashed on their first five letters, the ``terms`` token marked ``v3``; keyed numbers,
# ranges, worded durations and layout section numbers read anew; fraction words as percentages, and a
# slashed date in a text that fixes no order as both readings (``date:2026-03-12|2026-12-03``). Phrases of older rows are compared
# by identical token only (their stem hashes cannot meet this version's).
CONSTRAINTS_VERSION: int = 3

#: Every value ``Constraint.cls`` can take.
CONSTRAINT_CLASSES: tuple[str, ...] = (
    "number",
    "percent",
    "money",
    "date",
    "time",
    "clause",
    "id",
    "negation",
    "qualifier",
    "unit",
    "comparison",
    "list_item",
)


@dataclass(frozen=True)
class Constraint:
    """One constraint found in a text: its class, normalized token and where it was written."""

    cls: str
    token: str
    text: str
    start: int
    end: int

    def __init__(self, cls: str, token: str, text: str, start: int, end: int) -> None:
        # One dict update instead of the five object.__setattr__ calls of a frozen dataclass's
        # generated __init__: extraction makes one per atom, hundreds per prompt.
        self.__dict__.update(cls=cls, token=token, text=text, start=start, end=end)


def norm_number(raw: str) -> str:
    """``"172,000.00"`` -> ``"172000"``, ``"9.50"`` -> ``"9.5"``, ``"007"`` -> ``"7"``."""
    digits = raw.replace(",", "")
    if "." in digits:
        digits = digits.rstrip("0").rstrip(".")
    whole, dot, fraction = digits.partition(".")
    return (whole.lstrip("0") or "0") + dot + fraction


# What a builder finds: (class, token, start, end) in the text it was given.
Found = tuple[str, str, int, int]


def make_found(cls: str, value: str, start: int, end: int) -> Found:
    return cls, f"{cls}:{value}", start, end
