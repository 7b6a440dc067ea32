"""Scrubbing: redact PII and secrets with consistent keyed pseudonyms (``<EMAIL_ADDRESS:3f2a1c>``).

    from handoff.analysis.scrub import Scrubber

    Scrubber.from_env().scrub_text("mail jane.doe@example.com about INV-88214")

:class:`Scrubber` (:mod:`~handoff.analysis.scrub.scrubber`) is the entry point; it is configured
by :mod:`~handoff.analysis.scrub.settings`, skips most lines with the cheap
:mod:`~handoff.analysis.scrub.prefilter`, and sends the rest to the Presidio engine
(:mod:`~handoff.analysis.scrub.engine`) built from the patterns in
:mod:`~handoff.analysis.scrub.patterns`.
"""

from __future__ import annotations

from handoff.analysis.scrub.findings import Finding, ScrubError
from handoff.analysis.scrub.patterns import NER_ENTITIES, PII_ENTITIES
from handoff.analysis.scrub.scrubber import Scrubber
from handoff.analysis.scrub.settings import DEFAULT_ENTITIES

__all__ = ["DEFAULT_ENTITIES", "NER_ENTITIES", "PII_ENTITIES", "Finding", "ScrubError", "Scrubber"]
