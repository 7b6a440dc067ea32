"""The one way capture gets its writer: :func:`build_writer`.

Capture knows only the exporter interface (:mod:`handoff.exporters.base`) and this function.
What a writer is made of (the store exporter, the spool, the scrubber, the store itself) is
decided here and built off the application's thread: in the writer process
(:mod:`handoff.exporters.process_writer`, the default) or on the writer thread
(:class:`~handoff.exporters.writer.BatchStoreWriter`, where a process cannot be started and for
in-memory exporters), so none of it is imported or opened on the application's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from handoff.config import Settings
from handoff.diagnostics import Counters, warn_once
from handoff.exporters.base import RecordExporter
from handoff.exporters.writer import BatchStoreWriter, register_atexit


def build_writer(
    settings: Settings, *, counters: Counters, exporter_factory: Callable[[], RecordExporter] | None = None
) -> Any:
    """Return the background writer for ``settings``, drained at interpreter exit.

    Records go to ``exporter_factory()`` when given (a thread writer without a spool: an
    in-memory or custom exporter), else into ``settings.store`` through the store exporter: in a
    writer process when ``settings.writer`` is ``process`` (the default), else on a thread.
    """
    if exporter_factory is None and settings.writer == "process":
        from handoff.exporters.process_writer import ProcessStoreWriter

        writer: Any = ProcessStoreWriter(
            settings,
            config=worker_config(settings),
            spool=build_spool(settings),
            counters=counters,
            fallback=lambda: thread_writer(settings, counters, None),
        )
    else:
        writer = thread_writer(settings, counters, exporter_factory)
    register_atexit(writer)
    return writer


def thread_writer(
    settings: Settings, counters: Counters, exporter_factory: Callable[[], RecordExporter] | None
) -> BatchStoreWriter:
    """The writer thread for ``settings`` (the store exporter and its spool unless ``exporter_factory`` is given)."""
    return BatchStoreWriter(
        exporter_factory or store_exporter_factory(settings),
        max_queue=settings.max_queue,
        max_queue_bytes=settings.max_queue_bytes,
        max_batch=settings.max_batch,
        flush_interval_s=settings.flush_interval_s,
        counters=counters,
        spool=None if exporter_factory is not None else build_spool(settings),
    )


def worker_config(settings: Settings) -> dict[str, Any]:
    """What the writer process needs to build its exporter and spool (plain, picklable values)."""
    return {
        "store": settings.store,
        "scrub": settings.scrub,
        "scrub_key": pseudonym_key(settings),
        "spacy_model": settings.spacy_model,
        "inline_limit_bytes": settings.inline_limit_bytes,
        "spool_dir": settings.spool_dir,
        "spool_max_bytes": settings.spool_max_bytes,
        "max_batch": settings.max_batch,
        "flush_interval_s": settings.flush_interval_s,
        "pool": settings.writer_pool or default_pool_size(),
    }


def default_pool_size() -> int:
    """Processes that scrub and extract in the writer: the cores this process may use, less one, at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


_scrub_key: bytes | None = None


def pseudonym_key(settings: Settings) -> Any:
    """The scrub key of this process: the configured one, else one random key shared by its writer and spans."""
    return settings.scrub_key if settings.scrub_key is not None else _process_scrub_key(settings)


def _process_scrub_key(settings: Settings) -> bytes | None:
    """One random pseudonym key per application process, shared by its writer processes (none when not scrubbing)."""
    global _scrub_key
    if not settings.scrub or os.environ.get("HANDOFF_SCRUB_KEY"):
        return None
    if _scrub_key is None:
        import secrets

        _scrub_key = secrets.token_bytes(32)
        warn_once(
            "no scrub key configured (HANDOFF_SCRUB_KEY): using a random key for this process; "
            "pseudonyms will not match across processes"
        )
    return _scrub_key


def store_exporter_factory(settings: Settings) -> Callable[[], RecordExporter]:
    """Return a function that builds the store exporter for ``settings`` (called on the writer thread)."""
    config = {
        "store": settings.store,
        "scrub": settings.scrub,
        "scrub_key": settings.scrub_key,
        "spacy_model": settings.spacy_model,
        "inline_limit_bytes": settings.inline_limit_bytes,
    }
    return lambda: build_store_exporter(config)


def build_store_exporter(config: dict[str, Any]) -> Any:
    """The store exporter for a :func:`worker_config`-shaped ``config`` (in the writer process or thread)."""
    from handoff.exporters.store_exporter import StoreExporter
    from handoff.ids import writer_name
    from handoff.store import open_store

    return StoreExporter(
        open_store(config["store"]),
        writer_name(),
        scrubber=build_scrubber(config.get("scrub_key"), config.get("spacy_model")) if config["scrub"] else None,
        inline_limit_bytes=config["inline_limit_bytes"],
    )


def build_spool(settings: Settings) -> Any:
    """The store's spool (no I/O until something is spooled); ``None`` if the settings are unusable."""
    from handoff.exporters.spool import Spool

    try:
        return Spool(settings.store, root=settings.spool_dir, max_bytes=settings.spool_max_bytes)
    except (ValueError, OSError) as exc:
        warn_once("handoff: spooling is off (%s); records are dropped while the store is down", exc)
        return None


def build_scrubber(key: Any, spacy_model: str | None = None) -> Any:
    """The scrubber the writer uses (the environment still supplies entities and allow-list)."""
    from handoff.analysis.scrub import Scrubber

    return Scrubber.from_env(key=key, spacy_model=spacy_model, model_from_env=False)
