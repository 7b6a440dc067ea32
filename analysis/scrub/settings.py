"""How a :class:`~handoff.analysis.scrub.Scrubber` is configured: key, entities, allow-list,
custom recognizers, and the ``HANDOFF_SCRUB_*`` environment.

Bad arguments raise ``ValueError``; a bad environment value is logged (logger ``handoff.scrub``)
and its default used.
"""

from __future__ import annotations

import logging
import os
import re
import secrets as _random
import threading
from collections.abc import Iterable
from typing import Any

from handoff.analysis.scrub.patterns import (
    NER_ENTITIES,
    PII_ENTITIES,
    SECRET_ENTITIES,
    TEXT_ENTITIES,
    SecretSpec,
)

logger = logging.getLogger("handoff.scrub")

DEFAULT_ENTITIES: tuple[str, ...] = PII_ENTITIES + TEXT_ENTITIES + SECRET_ENTITIES
_KNOWN_ENTITIES = frozenset(DEFAULT_ENTITIES + NER_ENTITIES)

_process_key_lock = threading.Lock()
_process_key: bytes | None = None


def spacy_model_installed(name: str) -> bool:
    """Whether the spaCy pipeline package ``name`` is importable (checked without importing spaCy)."""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def resolve_key(key: bytes | str | None) -> bytes:
    if key is None:
        return _random_process_key()
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not key:
        raise ValueError("scrub key must not be empty")
    return key


def _random_process_key() -> bytes:
    global _process_key
    with _process_key_lock:
        if _process_key is None:
            _process_key = _random.token_bytes(32)
            logger.warning(
                "no scrub key configured (HANDOFF_SCRUB_KEY): using a random key for this process; "
                "pseudonyms will not match across processes"
            )
        return _process_key


def resolve_entities(entities: Iterable[str] | None, spacy_model: str | None, custom: list) -> tuple[str, ...]:
    if entities is None:
        chosen = list(DEFAULT_ENTITIES) + (["LOCATION"] if spacy_model else [])
    else:
        chosen = [e.strip().upper() for e in entities if e.strip()]
        unknown = sorted(set(chosen) - _KNOWN_ENTITIES)
        if unknown:
            raise ValueError(
                f"unknown scrub entities: {', '.join(unknown)} (known: {', '.join(sorted(_KNOWN_ENTITIES))})"
            )
        if not spacy_model and "LOCATION" in chosen:
            raise ValueError("LOCATION needs a spaCy NER model (HANDOFF_SPACY_MODEL)")
    chosen += [spec.entity for spec in custom]
    return tuple(dict.fromkeys(chosen))


def custom_spec(config: dict) -> Any:
    missing = {"name", "entity", "regex"} - set(config)
    if missing:
        raise ValueError(f"custom recognizer needs {', '.join(sorted(missing))}: {config!r}")
    pattern = compile_allow(config["regex"])
    group = 1 if pattern.groups else 0
    regex = config["regex"] if group else f"({config['regex']})"
    return SecretSpec(str(config["name"]), str(config["entity"]).upper(), regex, float(config.get("score", 0.8)), 1)


def compile_allow(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"bad regex {pattern!r}: {exc}") from exc


def valid_regex(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error as exc:
        logger.warning("ignoring HANDOFF_SCRUB_ALLOW pattern %r: %s", pattern, exc)
        return False
    return True


def env_entities(spacy_model: str | None) -> list[str] | None:
    entities = _env_list("HANDOFF_SCRUB_ENTITIES")
    try:
        resolve_entities(entities, spacy_model, [])
    except ValueError as exc:
        logger.warning("ignoring HANDOFF_SCRUB_ENTITIES: %s", exc)
        return None
    return entities


def split_regex_list(raw: str) -> list[str]:
    """Split a comma list of regexes, keeping commas inside ``{m,n}``, ``[...]``, ``(...)`` or after ``\\``."""
    items, current, depth, escaped = [], [], 0, False
    for char in raw:
        if char == "," and depth == 0 and not escaped:
            items.append("".join(current))
            current = []
            continue
        if not escaped:
            depth += (char in "([{") - (char in ")]}")
        escaped = char == "\\" and not escaped
        current.append(char)
    items.append("".join(current))
    return [item.strip() for item in items if item.strip()]


def _env_list(name: str) -> list[str] | None:
    raw = os.environ.get(name)
    return [item.strip() for item in raw.split(",") if item.strip()] if raw else None
