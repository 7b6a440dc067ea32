"""Identifiers: time-ordered run ids and per-run handoff ids."""

from __future__ import annotations

import os
import secrets

from ulid import ULID

RUN_PREFIX = "run_"

#: How many times this process's ancestry has forked since ``handoff.ids`` was imported; a run
#: continued in a forked child sees a new value and switches to ids of its own (see ``RunState``).
_forks = [0]


def _after_fork_in_child() -> None:
    _forks[0] += 1


os.register_at_fork(after_in_child=_after_fork_in_child)


def fork_generation() -> int:
    """Return a number that changes in a child process after every ``os.fork()``."""
    return _forks[0]


def new_run_id() -> str:
    """Return a new run id: ``run_`` + a ULID, so ids sort by creation time."""
    return RUN_PREFIX + str(ULID())


def handoff_id(seq: int, prefix: str = "") -> str:
    """Return the handoff id for sequence number ``seq`` (``hf-3``, or ``hf-<prefix>-3`` in a joined run)."""
    return f"hf-{prefix}-{seq}" if prefix else f"hf-{seq}"


def process_tag() -> str:
    """Return a short tag unique to this process, for ids minted in a run joined from elsewhere."""
    return f"{os.getpid():x}{secrets.token_hex(2)}"


def writer_name() -> str:
    """Return a writer name unique across processes and hosts, used in stored file names."""
    return f"w{os.getpid()}-{secrets.token_hex(4)}"
