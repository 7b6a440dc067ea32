"""Process-wide settings: ``handoff.configure()`` and the ``HANDOFF_*`` environment variables.

Recording before ``configure()`` works with defaults. A bad environment variable is logged and
its default used; a bad argument to ``configure()`` raises ``ValueError`` at once.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field, fields, replace
from typing import Any

log = logging.getLogger("handoff")

#: Where records go when neither ``configure(store=)``, ``--store`` nor ``HANDOFF_STORE`` says.
DEFAULT_STORE = ".handoff"
DEFAULT_INLINE_LIMIT_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class Settings:
    """Everything ``configure()`` can set; see its docstring for the meaning of each field."""

    store: str = DEFAULT_STORE
    scrub: bool = True
    scrub_key: str | bytes | None = None
    spacy_model: str | None = None
    digest_key: str | bytes | None = None
    inline_limit_bytes: int = DEFAULT_INLINE_LIMIT_BYTES
    flush_interval_s: float = 1.0
    max_queue: int = 20_000
    max_queue_bytes: int = 64 * 1024 * 1024
    max_batch: int = 2_000
    spool_dir: str | None = None
    spool_max_bytes: int = 1024 * 1024 * 1024
    otlp_endpoint: str | None = None
    tracer_provider: Any = None
    enabled: bool = True
    writer: str = "process"
    writer_pool: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def resolve_store(url: str | os.PathLike[str] | None = None) -> str:
    """Return the store URL in force: ``url`` if given, else ``HANDOFF_STORE``, else :data:`DEFAULT_STORE`."""
    return str(url or os.environ.get("HANDOFF_STORE") or DEFAULT_STORE)


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    if raw.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if raw.strip().lower() in ("0", "false", "no", "off"):
        return False
    log.warning("ignoring %s=%r: expected true or false; using %s", name, raw, default)
    return default


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        log.warning("ignoring %s=%r: expected an integer; using %s", name, raw, default)
        return default


def spacy_model_installed(name: str) -> bool:
    """Whether the spaCy pipeline package ``name`` is importable (checked without importing spaCy)."""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _env_spacy_model() -> str | None:
    name = os.environ.get("HANDOFF_SPACY_MODEL") or None
    if name and not spacy_model_installed(name):
        log.error(
            "HANDOFF_SPACY_MODEL=%r is not installed (pip install it); scrubbing runs without it, "
            "with the built-in name and address detectors",
            name,
        )
        return None
    return name


#: Where the writer's work runs: a process of its own (the default), or a thread of the application.
WRITERS = ("process", "thread")


def _env_choice(name: str, choices: tuple[str, ...], default: str) -> str:
    raw = os.environ.get(name)
    if raw is None or raw.strip().lower() in choices:
        return default if raw is None else raw.strip().lower()
    log.warning("ignoring %s=%r: expected one of %s; using %s", name, raw, ", ".join(choices), default)
    return default


def settings_from_env() -> Settings:
    """Build settings from ``HANDOFF_*`` variables, falling back to defaults on bad values."""
    return Settings(
        store=resolve_store(),
        scrub=_env_bool("HANDOFF_SCRUB", True),
        scrub_key=os.environ.get("HANDOFF_SCRUB_KEY") or None,
        spacy_model=_env_spacy_model(),
        digest_key=os.environ.get("HANDOFF_DIGEST_KEY") or None,
        inline_limit_bytes=_env_int("HANDOFF_INLINE_LIMIT_BYTES", DEFAULT_INLINE_LIMIT_BYTES),
        spool_dir=os.environ.get("HANDOFF_SPOOL_DIR") or None,
        otlp_endpoint=os.environ.get("HANDOFF_OTLP_ENDPOINT") or None,
        enabled=_env_bool("HANDOFF_ENABLED", True),
        writer=_env_choice("HANDOFF_WRITER", WRITERS, "process"),
        writer_pool=_env_int("HANDOFF_WRITER_POOL", 0) or None,
        max_queue_bytes=_env_int("HANDOFF_MAX_QUEUE_BYTES", 64 * 1024 * 1024),
    )


_lock = threading.Lock()
_current: Settings | None = None


def current_settings() -> Settings:
    """Return the settings in force, reading the environment on first use."""
    global _current
    if _current is None:
        with _lock:
            if _current is None:
                _current = settings_from_env()
    return _current


def validate(settings: Settings) -> None:
    """Raise ``ValueError`` for settings that cannot work."""
    if settings.inline_limit_bytes < 0:
        raise ValueError("inline_limit_bytes must be >= 0")
    if settings.flush_interval_s <= 0:
        raise ValueError("flush_interval_s must be > 0")
    if settings.max_queue < 1 or settings.max_batch < 1:
        raise ValueError("max_queue and max_batch must be >= 1")
    if settings.spacy_model and not spacy_model_installed(settings.spacy_model):
        raise ValueError(
            f"spacy_model {settings.spacy_model!r} is not installed (pip install it; nothing is downloaded)"
        )
    if settings.max_queue_bytes < 1:
        raise ValueError("max_queue_bytes must be >= 1")
    if settings.writer not in WRITERS:
        raise ValueError(f"writer must be one of {', '.join(WRITERS)}, not {settings.writer!r}")
    if settings.writer_pool is not None and settings.writer_pool < 1:
        raise ValueError("writer_pool must be >= 1")
    if not str(settings.store):
        raise ValueError("store must be a directory path or an s3:// URL")


def update_settings(**changes: Any) -> Settings:
    """Apply ``changes`` over the current settings; unknown names raise ``ValueError``."""
    global _current
    known = {f.name for f in fields(Settings)}
    unknown = sorted(set(changes) - known)
    if unknown:
        raise ValueError(f"unknown setting(s): {', '.join(unknown)}")
    if "store" in changes:
        changes["store"] = str(changes["store"] or DEFAULT_STORE)
    new = replace(current_settings(), **changes)
    validate(new)
    with _lock:
        _current = new
    return new


def reset_settings() -> None:
    """Forget configured settings so the next use reads the environment again (tests use this)."""
    global _current
    with _lock:
        _current = None
