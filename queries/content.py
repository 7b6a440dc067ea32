"""Fetching stored content by ref: a row in a packed content file, or a large-payload blob."""

from __future__ import annotations

from typing import Any

import pyarrow.compute as pc

from handoff.errors import ContentGone, HandoffNotFound, RunNotFound
from handoff.queries.db import deduped_sql, query
from handoff.queries.runs import run_window
from handoff.store.base import ObjectStore
from handoff.store.blobs import get_blob
from handoff.store.layout import parse_ref
from handoff.store.tables import read_file

_COLUMNS = ["run_id", "handoff_id", "side", "content"]


class ContentReader:
    """Reads stored (scrubbed) content by ref: a row of a packed content file, or a large-payload blob.

    With ``remember_files`` each content file is read once and kept, for many refs into the same
    files (a check over a window looks up one side of many handoffs written in one flush).
    """

    def __init__(self, store: ObjectStore, *, remember_files: bool = False) -> None:
        self.store = store
        self._files: dict[str, Any] | None = {} if remember_files else None

    def read(self, ref: str) -> bytes:
        """Return the bytes ``ref`` names; raise ``ContentGone`` when its file has no such row."""
        key, row = parse_ref(ref)
        if row is None:
            return get_blob(self.store, key)
        run_id, handoff_id, side = row.rsplit("/", 2)
        table = self._content_file(key)
        mask = pc.and_(
            pc.and_(pc.equal(table["run_id"], run_id), pc.equal(table["handoff_id"], handoff_id)),
            pc.equal(table["side"], side),
        )
        found = table.filter(mask)
        if found.num_rows == 0:
            raise ContentGone(run_id, handoff_id, f"no row for it in {self.store.uri(key)}")
        return found["content"][0].as_py()

    def _content_file(self, key: str) -> Any:
        if self._files is None:
            return read_file(self.store, key, columns=_COLUMNS)
        if key not in self._files:
            self._files[key] = read_file(self.store, key, columns=_COLUMNS)
        return self._files[key]


def fetch_ref(store: ObjectStore, ref: str) -> bytes:
    """Return the stored (scrubbed) bytes a ref names."""
    return ContentReader(store).read(ref)


def fetch_content(store: ObjectStore, con, run_id: str, handoff_id: str, side: str) -> bytes:
    """Return the stored input (``side="in"``) or output (``"out"``) of one handoff."""
    window, window_params = run_window(run_id, None)
    where = f"run_id = ? AND {window}"
    rows = query(
        con,
        f"SELECT input_ref, output_ref, tier FROM ({deduped_sql('handoffs', where + ' AND handoff_id = ?')})",
        [run_id, *window_params, handoff_id],
    )
    if not rows:
        if not query(con, f"SELECT 1 FROM raw_handoffs WHERE {where} LIMIT 1", [run_id, *window_params]):
            raise RunNotFound(run_id)
        raise HandoffNotFound(run_id, handoff_id)
    ref = rows[0]["input_ref" if side == "in" else "output_ref"]
    if ref is None:
        reason = (
            "dropped by retention (digest tier)" if rows[0]["tier"] == "digest" else "nothing was recorded on that side"
        )
        raise ContentGone(run_id, handoff_id, reason)
    return fetch_ref(store, ref)
