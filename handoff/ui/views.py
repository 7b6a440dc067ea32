"""The app's one DuckDB connection over the store, shared by requests one at a time, refreshed as the store grows."""

from __future__ import annotations

import contextlib
import glob
import threading
import time
from collections.abc import Iterator
from typing import Any

#: Seconds an S3 store's views are reused before they are rebuilt over the objects listed now.
DEFAULT_REFRESH_S = 30.0


class StoreViews:
    """Opens the store and its DuckDB views lazily; :meth:`connection` hands them to one request at a time.

    A DuckDB connection must not be used by two threads at once, and Starlette runs page handlers
    on a thread pool, so requests take turns. New runs show up without a restart: over a local
    directory DuckDB lists the files again on every query, so the views are rebuilt only when a
    table that had no file at all gets its first one; over S3 the listing is fixed when the views
    are made, so they are rebuilt after ``refresh_s``.
    """

    def __init__(self, store_url: str | None, *, refresh_s: float = DEFAULT_REFRESH_S) -> None:
        self.store_url = store_url
        self.refresh_s = refresh_s
        self._lock = threading.Lock()
        self._store: Any = None
        self._con: Any = None
        self._opened = 0.0
        self._empty: list[str] = []

    @contextlib.contextmanager
    def connection(self) -> Iterator[tuple[Any, Any]]:
        """Yield ``(store, connection)``; raise the store's ``HandoffError`` when it cannot be opened."""
        with self._lock:
            if self._stale():
                self._open()
            yield self._store, self._con

    def _files(self, table: str) -> bool:
        return bool(glob.glob(f"{glob.escape(self._store.local_path(table))}/dt=*/*.parquet"))

    def _stale(self) -> bool:
        if self._con is None:
            return True
        if self._store.local_path("") is None:
            return time.monotonic() - self._opened > self.refresh_s
        return any(self._files(table) for table in self._empty)

    def _open(self) -> None:
        from handoff.queries import connect
        from handoff.store import open_store
        from handoff.store.layout import TABLES

        if self._store is None:
            self._store = open_store(self.store_url)
        self.close_connection()
        local = self._store.local_path("") is not None
        empty = [table for table in TABLES if local and not self._files(table)]
        self._con = connect(self._store)
        self._opened, self._empty = time.monotonic(), empty

    def close_connection(self) -> None:
        """Close the connection, if open (the next request opens a new one)."""
        if self._con is not None:
            self._con.close()
            self._con = None

    def close(self) -> None:
        """Close the connection (the app's shutdown)."""
        with self._lock:
            self.close_connection()
