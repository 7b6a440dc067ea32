"""Constraint extraction: the facts a handoff must carry, as normalized tokens.

A constraint is a number, percentage, amount of money, date, time, clause reference,
identifier, negation, qualifier or quantity with a unit. Each one found in a text becomes a
:class:`Constraint` whose ``token`` (``"<class>:<value>"``) is the same however the fact was
written, so ``9.5%`` and ``9.50 percent`` both give ``percent:9.5`` and a transform's input and
output can be compared as sets::

    >>> lost_constraints("base is the rebated subtotal per 7.2(b)", "see clause 7.2")[0].token
    'clause:7.2(b)'

Extraction is pure and deterministic; it runs in the background writer on every payload. Values
are canonical, so a faithful reformat keeps its tokens: numbers in any locale's grouping
(``1.500,5`` in a text with decimal commas = ``1,500.5``), dates in any order or language
(``11.03.2026`` = ``March 11, 2026`` = ``11 de marzo de 2026``; a date without its year takes the
text's year), clock times with a zone as UTC (``10:00 CET`` = ``09:00 UTC`` -> ``time:09:00Z``),
amounts with their currency (``1 180,00 €`` = ``EUR 1,180.00`` -> ``money:EUR1180.00``),
quantities in their dimension's base unit (``1.5 h`` = ``90 min`` -> ``unit:90 min``). Layout
is not read (chat stamps, e-mail header dates, page stamps), nor are field names (snake_case words
without digits). Atomic constraints (everything but negations and qualifiers) never overlap: the
digits of a date, an amount or an identifier do not also count as a bare number. Negations and
qualifiers are phrases bound to what they govern, capped at a few words, and may contain atomic
constraints, which appear in their token in normalized form (``qualifier:per 7.2(b)``).

Tokens change meaning only with :data:`CONSTRAINTS_VERSION`, which the writer stores beside them.

Modules, in the order a text goes through them: :mod:`~handoff.analysis.constraints.vocabulary`
(the words and spellings), :mod:`~handoff.analysis.constraints.reading` (the text's decimal mark,
date order and year), :mod:`~handoff.analysis.constraints.layout` (what is layout, not fact),
:mod:`~handoff.analysis.constraints.quantities` (units, by pint),
:mod:`~handoff.analysis.constraints.values` (a value stated with less context),
:mod:`~handoff.analysis.constraints.extractors` (one regex and
builder per way of writing an atom; :mod:`~handoff.analysis.constraints.worded` those written
in words), :mod:`~handoff.analysis.constraints.windows` (where to
look), :mod:`~handoff.analysis.constraints.phrases` (negations and qualifiers),
:mod:`~handoff.analysis.constraints.scanner` (the entry points) and
:mod:`~handoff.analysis.constraints.cache` (pieces remembered across texts);
:mod:`~handoff.analysis.constraints.tokens` holds what they produce.
"""

from __future__ import annotations

from handoff.analysis.constraints.compare import (
    Finding,
    compare_constraints,
    find_written,
    lost_tokens,
    stored_tokens,
)
from handoff.analysis.constraints.meaning import TERMS_CLASS, tokens_version
from handoff.analysis.constraints.scanner import (
    diff_tokens,
    extract_constraints,
    find_constraints,
    lost_constraints,
)
from handoff.analysis.constraints.tokens import (
    CONSTRAINT_CLASSES,
    CONSTRAINTS_VERSION,
    Constraint,
)

__all__ = [
    "CONSTRAINTS_VERSION",
    "CONSTRAINT_CLASSES",
    "Constraint",
    "Finding",
    "TERMS_CLASS",
    "compare_constraints",
    "diff_tokens",
    "extract_constraints",
    "find_constraints",
    "find_written",
    "lost_constraints",
    "lost_tokens",
    "stored_tokens",
    "tokens_version",
]
