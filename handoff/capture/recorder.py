"""The process-wide recorder: settings, the background writer and the span recorder.

Built lazily on first use from the settings in force; ``configure()`` replaces it (flushing the
old writer first). Capture code reaches it through :func:`get_recorder`. Capture knows only the
exporter interface: the writer comes from :func:`handoff.exporters.factory.build_writer`, which
alone knows about stores, spools and scrubbers.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections.abc import Callable
from typing import Any

from handoff.config import Settings, current_settings
from handoff.diagnostics import Counters, warn_once
from handoff.exporters.base import Record, RecordExporter
from handoff.exporters.factory import build_writer
from handoff.exporters.otlp import attach_otlp
from handoff.exporters.spans import SpanRecorder
from handoff.model import describe_error


def writer_status() -> dict[str, Any]:
    """Return the writer's counters, queue length and spool size (``{}`` before anything was recorded)."""
    recorder = _recorder
    if recorder is None:
        return {}
    status = recorder.writer.status()
    spool = recorder.writer.spool
    status["spool_bytes"] = spool.size_bytes() if spool is not None else 0
    return status


_metrics_registered = False


def _register_metrics_once() -> None:
    """Expose the counters of whichever recorder is in force as OpenTelemetry metrics (once per process)."""
    global _metrics_registered
    if _metrics_registered:
        return
    _metrics_registered = True
    try:
        from handoff.exporters.metrics import register_metrics

        register_metrics(writer_status)
    except Exception as exc:  # noqa: BLE001 - metrics are optional, recording is not
        warn_once("handoff: cannot register OpenTelemetry metrics: %s", exc)


# hashlib releases the GIL for updates of 2048 bytes or more. On the hot path that hands the GIL
# to the background writer mid-call, and getting it back costs the caller far more than the hash
# (about 20 µs per 10 KB call, measured): feed the hash in smaller pieces so the caller keeps it.
_GIL_KEEPING_CHUNK = 2047


def _hexdigest(hasher: Any, data: bytes) -> str:
    if len(data) <= _GIL_KEEPING_CHUNK:
        hasher.update(data)
        return hasher.hexdigest()
    view = memoryview(data)
    for start in range(0, len(view), _GIL_KEEPING_CHUNK):
        hasher.update(view[start : start + _GIL_KEEPING_CHUNK])
    return hasher.hexdigest()


def _digest_function(key: str | bytes | None) -> tuple[Callable[[bytes], str], str]:
    if key is None:
        return (lambda data: _hexdigest(hashlib.sha256(), data)), "sha256"
    raw_key = key.encode("utf-8") if isinstance(key, str) else key
    return (lambda data: _hexdigest(hmac.new(raw_key, digestmod=hashlib.sha256), data)), "hmac-sha256"


class Recorder:
    """Everything capture needs at run time, built from one :class:`Settings`.

    ``exporter_factory`` replaces the store writer's exporter (``handoff.testing`` records into
    memory this way); without one, records go to ``settings.store`` through a spool.
    """

    def __init__(self, settings: Settings, exporter_factory: Callable[[], RecordExporter] | None = None) -> None:
        self.settings = settings
        self.counters = Counters()
        self.digest, self.digest_alg = _digest_function(settings.digest_key)
        self.spans = SpanRecorder(settings.tracer_provider, self.counters)
        self.otlp = attach_otlp(settings.otlp_endpoint, settings.tracer_provider, settings)
        self.writer = build_writer(settings, counters=self.counters, exporter_factory=exporter_factory)
        _register_metrics_once()

    def submit(self, record: Record) -> None:
        """Hand a record to the background writer (never blocks, never raises)."""
        if self.settings.enabled:
            self.writer.on_end(record)

    def flush(self, timeout_s: float = 30.0) -> bool:
        """Emit the ended spans, then write every record queued so far; ``False`` if ``timeout_s`` ran out."""
        deadline = time.monotonic() + timeout_s
        emitted = self.spans.emitter.flush(timeout_s)
        return self.writer.force_flush(max(0.0, deadline - time.monotonic())) and emitted

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Emit the ended spans and stop the writer once it has written everything."""
        deadline = time.monotonic() + timeout_s
        emitted = self.spans.emitter.shutdown(timeout_s)
        return self.writer.shutdown(max(0.0, deadline - time.monotonic())) and emitted

    def capture_failed(self, exc: BaseException) -> None:
        """Count a failure inside the recorder itself and log it once."""
        self.counters.add("capture_errors")
        warn_once("handoff: recording failed (%s); the application is unaffected", describe_error(exc))


_lock = threading.Lock()
_recorder: Recorder | None = None


def get_recorder() -> Recorder:
    """Return the recorder, building it from the current settings on first use."""
    global _recorder
    if _recorder is None:
        with _lock:
            if _recorder is None:
                _recorder = Recorder(current_settings())
    return _recorder


def swap_recorder(recorder: Recorder | None) -> Recorder | None:
    """Install ``recorder`` and return the previous one, leaving it running (``handoff.testing`` uses this)."""
    global _recorder
    with _lock:
        previous, _recorder = _recorder, recorder
    return previous


def replace_recorder(recorder: Recorder | None, timeout_s: float = 30.0) -> None:
    """Install ``recorder`` (or none, to rebuild lazily), shutting the previous one down first."""
    global _recorder
    with _lock:
        previous, _recorder = _recorder, recorder
    if previous is not None:
        previous.shutdown(timeout_s)


def flush(timeout_s: float = 30.0) -> bool:
    """Write everything recorded so far and export pending OTLP spans; ``False`` if ``timeout_s`` ran out."""
    from handoff.exporters import otlp

    # Spans first: they reach the provider's processors only when emitted, and OTLP export flushes those.
    written = get_recorder().flush(timeout_s)
    return otlp.force_flush(timeout_s) and written
