"""The one way capture gets its writer: :func:`build_writer`.

Capture knows only the exporter interface (:mod:`handoff.exporters.base`) and this function.
What a writer is made of (the store exporter, the spool, the scrubber, the store itself) is
decided here and built on the writer's own thread, so none of it is imported or opened on the
application's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from handoff.config import Settings
from handoff.diagnostics import Counters, warn_once
from handoff.exporters.base import RecordExporter
from handoff.exporters.writer import BatchStoreWriter, register_atexit


def build_writer(
    settings: Settings, *, counters: Counters, exporter_factory: Callable[[], RecordExporter] | None = None
) -> BatchStoreWriter:
    """Return the background writer for ``settings``, flushed at interpreter exit.

    Records go to ``exporter_factory()`` when given (no spool: an in-memory or custom exporter),
    else into ``settings.store`` through the store exporter, with a spool while the store is down.
    """
    writer = BatchStoreWriter(
        exporter_factory or store_exporter_factory(settings),
        max_queue=settings.max_queue,
        max_batch=settings.max_batch,
        flush_interval_s=settings.flush_interval_s,
        counters=counters,
        spool=None if exporter_factory is not None else _build_spool(settings),
    )
    register_atexit(writer)
    return writer


def store_exporter_factory(settings: Settings) -> Callable[[], RecordExporter]:
    """Return a function that builds the store exporter for ``settings`` (called on the writer thread)."""

    def build() -> RecordExporter:
        from handoff.exporters.store_exporter import StoreExporter
        from handoff.ids import writer_name
        from handoff.store import open_store

        return StoreExporter(
            open_store(settings.store),
            writer_name(),
            scrubber=_build_scrubber(settings) if settings.scrub else None,
            inline_limit_bytes=settings.inline_limit_bytes,
        )

    return build


def _build_spool(settings: Settings) -> Any:
    """The store's spool (no I/O until something is spooled); ``None`` if the settings are unusable."""
    from handoff.exporters.spool import Spool

    try:
        return Spool(settings.store, root=settings.spool_dir, max_bytes=settings.spool_max_bytes)
    except (ValueError, OSError) as exc:
        warn_once("handoff: spooling is off (%s); records are dropped while the store is down", exc)
        return None


def _build_scrubber(settings: Settings) -> Any:
    from handoff.analysis.scrub import Scrubber

    # The environment still supplies entities, allow-list and spaCy model when a key is configured.
    return Scrubber.from_env(key=settings.scrub_key, spacy_model=settings.spacy_model, model_from_env=False)
