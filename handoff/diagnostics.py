"""Diagnostics of the recorder itself: counters of what it did, and warnings logged once.

Background work must never flood the application's logs: a store that stays down would
otherwise log the same failure on every batch. :func:`warn_once` logs each distinct message
once per process (OpenTelemetry's ``BatchProcessor`` does the same with a de-duplicating
filter); :class:`Counters` is what ``handoff.stats()`` and ``handoff status`` report.
"""

from __future__ import annotations

import logging
import threading


class _OnceFilter(logging.Filter):
    """Lets each distinct message through once per process, so a failing store does not flood logs."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        key = str(record.msg)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True


_once_log = logging.getLogger("handoff.once")
_once_log.addFilter(_OnceFilter())


def warn_once(message: str, *args: object) -> None:
    """Log a warning the first time ``message`` (the format string) is seen in this process."""
    _once_log.warning(message, *args)


def forget_warnings() -> None:
    """Let every once-only warning be logged again (tests that assert on a warning call this first)."""
    for log_filter in _once_log.filters:
        if isinstance(log_filter, _OnceFilter):
            log_filter._seen.clear()


class Counters:
    """What the writer did since the process started; read with :meth:`snapshot`."""

    NAMES = (
        "enqueued",
        "written",
        "export_failures",
        "spooled",
        "retried",
        "dropped",
        "capture_errors",
        "encode_errors",
        "spilled",
        "span_errors",
    )

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values = dict.fromkeys(self.NAMES, 0)

    def add(self, name: str, amount: int = 1) -> None:
        """Add ``amount`` to counter ``name``."""
        with self._lock:
            self._values[name] += amount

    def snapshot(self) -> dict[str, int]:
        """Return a copy of every counter."""
        with self._lock:
            return dict(self._values)
