"""Store and spool files are private to their owner whatever the umask (issue 13: they were 0644 under 0022)."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

import handoff
from handoff.exporters.spool import Spool
from handoff.store import LocalObjectStore
from handoff.store.base import PendingObject


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """Run the test under the common 0022 umask (files would default to 0644)."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _modes(root: Path) -> dict[str, set[str]]:
    """Return the distinct permission modes of the files and of the directories under ``root`` (itself included)."""
    found: dict[str, set[str]] = {"files": set(), "dirs": {oct(stat.S_IMODE(root.stat().st_mode))}}
    for path in root.rglob("*"):
        found["dirs" if path.is_dir() else "files"].add(oct(stat.S_IMODE(path.stat().st_mode)))
    return found


def test_a_recorded_store_is_0600_files_and_0700_directories(tmp_path, loose_umask):
    """Everything the recorder writes into a new local store is readable by its owner only."""
    root = tmp_path / "store"
    handoff.configure(store=str(root), scrub=False)

    @handoff.step(to="price")
    def price(prompt: str) -> str:
        return "total 171312.00"

    with handoff.run("invoice", invoice="INV-88214"):
        price("surcharge 9.1% (clause 7.2)")
    assert handoff.flush(timeout_s=30)
    handoff.shutdown()
    modes = _modes(root)
    assert (modes, len(list(root.rglob("*.parquet"))) >= 3) == ({"files": {"0o600"}, "dirs": {"0o700"}}, True)


def test_spool_batches_status_and_directories_are_private(tmp_path, loose_umask):
    """A spooled batch (scrubbed content waiting for the store) and the spool's own files are 0600 in 0700 directories."""
    spool = Spool("s3://bucket/prefix", root=tmp_path / "spool")
    assert spool.put([PendingObject("handoffs/dt=2026-11-29/w-000001.parquet", b"x" * 100)], records=1)
    spool.write_status({"pid": os.getpid(), "host": "h", "counters": {}})
    assert _modes(tmp_path / "spool") == {"files": {"0o600"}, "dirs": {"0o700"}}


def test_the_file_mode_is_configurable(tmp_path, loose_umask, monkeypatch):
    """HANDOFF_FILE_MODE=640 lets a group read: files 0640, directories 0750."""
    monkeypatch.setenv("HANDOFF_FILE_MODE", "640")
    store = LocalObjectStore(tmp_path / "store")
    store.put("runs/dt=2026-11-29/w-000001.parquet", b"data")
    assert store.put_if_absent("_locks/retention", b"{}")
    assert _modes(tmp_path / "store") == {"files": {"0o640"}, "dirs": {"0o750"}}


def test_a_bad_file_mode_is_logged_and_0600_used(tmp_path, monkeypatch, caplog):
    """A mode that is not octal, or that would lock the owner out, is ignored with a warning."""
    monkeypatch.setenv("HANDOFF_FILE_MODE", "999")
    with caplog.at_level(logging.WARNING, logger="handoff.store"):
        store = LocalObjectStore(tmp_path / "store")
    assert store.file_mode == 0o600
    assert caplog.records[-1].getMessage() == (
        "ignoring HANDOFF_FILE_MODE='999': expected octal permission bits such as 600 or 640; using 600"
    )
    with pytest.raises(ValueError, match="must be permission bits within 0666"):
        LocalObjectStore(tmp_path / "other", file_mode=0o044)


def test_existing_directories_are_left_as_they_are(tmp_path, loose_umask):
    """A store root the operator made group-readable keeps its mode; only what the store creates is private."""
    root = tmp_path / "shared"
    root.mkdir(mode=0o750)
    os.chmod(root, 0o750)
    LocalObjectStore(root).put("events/dt=2026-11-29/w-000001.parquet", b"e")
    assert (oct(stat.S_IMODE(root.stat().st_mode)), oct(stat.S_IMODE((root / "events").stat().st_mode))) == (
        "0o750",
        "0o700",
    )
