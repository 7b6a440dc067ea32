"""A store in a local directory: the default (``./.handoff``).

Files are created ``0600`` and directories ``0700`` whatever the umask (``HANDOFF_FILE_MODE``
or ``file_mode=`` change it; see :mod:`handoff.store.files`).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

from handoff.errors import StoreError
from handoff.store.base import ObjectInfo, ObjectStore
from handoff.store.files import check_file_mode, file_mode_from_env, make_dirs, write_private

TEMP_MARK = ".tmp-"


class LocalObjectStore(ObjectStore):
    """Objects as files under ``root``; ``put`` writes a temp file, fsyncs, then renames."""

    def __init__(self, root: str | os.PathLike[str], *, file_mode: int | None = None) -> None:
        self.root = Path(root).expanduser().resolve()
        self.url = self.root.as_uri()
        #: Mode of every file this store creates (directories get the matching search bits).
        self.file_mode = file_mode_from_env() if file_mode is None else check_file_mode(file_mode)

    def _path(self, key: str) -> Path:
        return self.root / key

    def _write_temp(self, path: Path, data: bytes) -> Path:
        """Write ``data`` to a hidden, fsynced temp file beside ``path`` and return it."""
        temp = path.with_name(f"{TEMP_MARK}{path.name}.{secrets.token_hex(4)}")
        make_dirs(path.parent, self.file_mode)
        try:
            write_private(temp, data, self.file_mode)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        return temp

    def _write_error(self, path: Path, exc: OSError) -> StoreError:
        return StoreError(f"cannot write {path}: {exc.strerror or exc}", uri=path.as_uri())

    def put(self, key: str, data: bytes) -> None:
        """Write ``data`` atomically (temp file, fsync, rename): a reader never sees a partial file."""
        path = self._path(key)
        temp = None
        try:
            temp = self._write_temp(path, data)
            os.replace(temp, path)
        except OSError as exc:
            if temp is not None:
                temp.unlink(missing_ok=True)
            raise self._write_error(path, exc) from exc

    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Create the file only if it does not exist: a temp file hard-linked into place (``link`` fails if taken)."""
        path = self._path(key)
        try:
            temp = self._write_temp(path, data)
        except OSError as exc:
            raise self._write_error(path, exc) from exc
        try:
            os.link(temp, path)
            return True
        except FileExistsError:
            return False
        except OSError as exc:
            raise self._write_error(path, exc) from exc
        finally:
            temp.unlink(missing_ok=True)

    def get(self, key: str) -> bytes:
        """Read the whole file."""
        path = self._path(key)
        try:
            return path.read_bytes()
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror or exc}", uri=path.as_uri()) from exc

    def exists(self, key: str) -> bool:
        """Tell whether the file exists."""
        return self._path(key).is_file()

    def list(self, prefix: str) -> Iterator[ObjectInfo]:
        """Yield files under ``prefix`` (temp files included: fsck looks for them), in key order."""
        base = self.root / prefix if prefix else self.root
        start = base if base.is_dir() else base.parent
        if not start.is_dir():
            return
        found = []
        for dirpath, _dirs, files in os.walk(start):
            for name in files:
                full = Path(dirpath) / name
                key = full.relative_to(self.root).as_posix()
                if key.startswith(prefix):
                    stat = full.stat()
                    found.append(ObjectInfo(key, stat.st_size, stat.st_mtime))
        yield from sorted(found, key=lambda info: info.key)

    def delete(self, key: str) -> None:
        """Remove the file and any directories it leaves empty up to the root."""
        path = self._path(key)
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot delete {path}: {exc.strerror or exc}", uri=path.as_uri()) from exc
        parent = path.parent
        while parent != self.root and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent

    def local_path(self, key: str) -> str:
        """Return the file's path."""
        return str(self._path(key))

    def arrow_filesystem(self):
        """Return pyarrow's local filesystem rooted at ``root``."""
        from pyarrow import fs

        return fs.LocalFileSystem(), str(self.root)
