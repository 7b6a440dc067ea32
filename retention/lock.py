"""The lock object that stops two retention jobs from running at once, across hosts.

The lock is ``_locks/retention``, created with the store's conditional write
(``put_if_absent``: ``O_EXCL`` on a directory, ``If-None-Match: *`` on S3). Its body names the
holder and a heartbeat the holder refreshes after each day it applies; a lock whose heartbeat
is older than ``stale_after_s`` belongs to a job that died and is taken over. A lock held by a
process on this host that no longer exists is taken over at once: that job is certainly dead.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import time
from collections.abc import Callable

from handoff.errors import LockHeld, StoreError
from handoff.store.base import ObjectStore

LOCK_KEY = "_locks/retention"
#: A job refreshes its heartbeat after every day; two hours without one means it died.
DEFAULT_STALE_AFTER_S = 2 * 3600.0


class RetentionLock:
    """Hold ``_locks/retention`` for the duration of a ``with`` block; raise ``LockHeld`` if another job has it."""

    def __init__(
        self,
        store: ObjectStore,
        *,
        stale_after_s: float = DEFAULT_STALE_AFTER_S,
        clock: Callable[[], float] = time.time,
        key: str = LOCK_KEY,
    ) -> None:
        self.store = store
        self.stale_after_s = stale_after_s
        self.clock = clock
        self.key = key
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.took_over: dict | None = None

    def _body(self, acquired: float) -> bytes:
        body = {
            "owner": self.owner,
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "acquired": acquired,
            "heartbeat": self.clock(),
        }
        return json.dumps(body, sort_keys=True).encode()

    def acquire(self) -> None:
        """Take the lock, taking over a stale one; raise ``LockHeld`` while a live job holds it."""
        self._acquired = self.clock()
        if self.store.put_if_absent(self.key, self._body(self._acquired)):
            return
        holder = self._holder()
        if holder is not None and not _holder_dead(holder) and self.clock() - _heartbeat(holder) < self.stale_after_s:
            raise LockHeld(_held_message(self.store.uri(self.key), holder, self.stale_after_s))
        self.took_over = holder
        # Read-compare-delete narrows the window in which two jobs both see the same stale lock.
        if holder is None or self._holder() == holder:
            self.store.delete(self.key)
        if not self.store.put_if_absent(self.key, self._body(self._acquired)):
            raise LockHeld(f"another retention job took over the stale lock {self.store.uri(self.key)} first")

    def _holder(self) -> dict | None:
        try:
            return json.loads(self.store.get(self.key))
        except (StoreError, ValueError):
            return None

    def refresh(self) -> None:
        """Renew the heartbeat; raise ``LockHeld`` when another job has taken the lock over."""
        holder = self._holder()
        if holder is None or holder.get("owner") != self.owner:
            raise LockHeld(f"lost the retention lock {self.store.uri(self.key)} to another job")
        self.store.put(self.key, self._body(self._acquired))

    def release(self) -> None:
        """Drop the lock if this job still holds it."""
        holder = self._holder()
        if holder is not None and holder.get("owner") == self.owner:
            self.store.delete(self.key)

    def __enter__(self) -> RetentionLock:
        self.acquire()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def _heartbeat(holder: dict) -> float:
    try:
        return float(holder.get("heartbeat", 0))
    except (TypeError, ValueError):
        return 0.0


def _holder_dead(holder: dict) -> bool:
    """Tell whether the holder is a process on this host that has exited (a lock from another host never is)."""
    pid = holder.get("pid")
    if holder.get("host") != socket.gethostname() or not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _held_message(uri: str, holder: dict, stale_after_s: float) -> str:
    try:
        since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(holder.get("acquired", 0))))
    except (TypeError, ValueError, OverflowError, OSError):
        since = "an unknown time"
    return (
        f"another retention job holds {uri} (host {holder.get('host')}, pid {holder.get('pid')}, since {since}); "
        f"it counts as stale {int(stale_after_s)}s after its last heartbeat"
    )
