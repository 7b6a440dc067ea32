"""Private files on local disk: what the local store and the spool create is readable by its owner only.

Recorded content is scrubbed, but it is still the text the pipeline saw, so a store directory
and the spool are created ``0600`` (files) and ``0700`` (directories) whatever the process's
umask: modes are set explicitly (``fchmod``/``chmod``), not requested from ``open``/``mkdir``
and trimmed by the umask. ``HANDOFF_FILE_MODE`` (octal, e.g. ``640`` to let a group read)
changes the file mode; directories get the same bits plus search (``x``) wherever read is set.
A bad value is logged and ``600`` used.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

log = logging.getLogger("handoff.store")

DEFAULT_FILE_MODE = 0o600
FILE_MODE_ENV = "HANDOFF_FILE_MODE"


def file_mode_from_env() -> int:
    """Return the file mode from ``HANDOFF_FILE_MODE`` (octal), or 0600 when unset or bad."""
    raw = (os.environ.get(FILE_MODE_ENV) or "").strip()
    if not raw:
        return DEFAULT_FILE_MODE
    try:
        return check_file_mode(int(raw, 8))
    except ValueError:
        log.warning("ignoring %s=%r: expected octal permission bits such as 600 or 640; using 600", FILE_MODE_ENV, raw)
        return DEFAULT_FILE_MODE


def check_file_mode(mode: int) -> int:
    """Return ``mode`` when it is plain permission bits its owner can read and write; raise ``ValueError`` otherwise."""
    if not isinstance(mode, int) or isinstance(mode, bool) or mode & ~0o666 or mode & 0o600 != 0o600:
        raise ValueError(
            f"file mode {mode!r} must be permission bits within 0666 that include owner read and write (e.g. 0o600)"
        )
    return mode


def dir_mode(file_mode: int) -> int:
    """Return the directory mode matching ``file_mode``: search wherever read is allowed (0600 -> 0700, 0640 -> 0750)."""
    return file_mode | ((file_mode & 0o444) >> 2)


def make_dirs(path: Path, file_mode: int) -> None:
    """Create ``path`` and its missing parents with :func:`dir_mode`; directories that exist are left as they are."""
    missing = []
    current = Path(path)
    while not current.is_dir():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory)
        except FileExistsError:
            continue
        os.chmod(directory, dir_mode(file_mode))


def open_private(path: Path, file_mode: int) -> int:
    """Create ``path`` exclusively and return a write-only descriptor whose mode is exactly ``file_mode``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, file_mode)
    try:
        os.fchmod(fd, file_mode)
    except OSError:
        os.close(fd)
        raise
    return fd


def write_private(path: Path, data: bytes, file_mode: int) -> None:
    """Write ``data`` to a new file ``path`` (it must not exist) with mode ``file_mode``, then fsync it."""
    fd = open_private(path, file_mode)
    with open(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
