"""Identifiers: time-ordered run ids and per-run handoff ids."""

from __future__ import annotations

import os
import secrets

from ulid import ULID

RUN_PREFIX = "run_"


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
