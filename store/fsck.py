"""``fsck``: check that a store is whole, and optionally repair what can be repaired.

Checks, over the day partitions in the window (``since``; all when ``None``):

* ``corrupt-file``: a table's file that does not decode, or holds another table's (or a foreign) schema;
* ``missing-ref``: a handoff's ``input_ref``/``output_ref`` names a content row or blob that is not there;
* ``corrupt-blob``: a large-payload blob that does not decompress;
* ``digest-mismatch``: a content row whose bytes do not hash to the ``stored_sha256`` it was written with;
* ``duplicate``: a ``(run_id, handoff_id)`` stored in more than one row with the same digests: true
  copies of one record, as when a writer retried a batch (views hide it; repair compacts the day);
* ``conflict``: a ``(run_id, handoff_id)`` stored in rows whose digests differ: two different records
  under one id (repair never removes either; the views show one of them);
* ``temp-file``: a leftover temp file (local ``.tmp-*``, in the tables, the blobs, ``_retention/``
  or ``_locks/``) or an incomplete S3 multipart upload, older than ``temp_min_age_s`` (younger
  ones may belong to a writer at work: counted as ``in_progress``).

Repair moves each corrupt file to ``_quarantine/<its key>`` (readers and retention never look
there; moving it back restores it), removes temp files and incomplete uploads older than
``temp_min_age_s`` (younger ones may belong to a writer at work) and compacts days with true
duplicates; compaction keeps rows whose digests differ, so a conflict is reported again, never
resolved by deleting a record. Uploading the spool is the
caller's part (``handoff fsck --repair`` does it first), since the spool belongs to the writer.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

from handoff.errors import CorruptFile, StoreError
from handoff.store.base import ObjectStore
from handoff.store.blobs import get_blob
from handoff.store.layout import BLOBS, TABLES, day_of_key, parse_ref
from handoff.store.tables import file_problem, read_file

TEMP_MARK = ".tmp-"
#: Where ``--repair`` moves files that do not read, under their original key.
QUARANTINE_PREFIX = "_quarantine/"


@dataclass(frozen=True)
class Problem:
    """One thing wrong: its kind (see the module docstring), where, and a one-line detail."""

    kind: str
    where: str
    detail: str


@dataclass
class FsckReport:
    """What fsck looked at, what it found and what it repaired."""

    files: int = 0
    handoffs: int = 0
    refs: int = 0
    #: Temp files and uploads younger than ``temp_min_age_s``: probably a writer at work, not reported.
    in_progress: int = 0
    problems: list[Problem] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing is wrong (after repair, when repairing)."""
        return not self.problems

    def counts(self) -> dict[str, int]:
        """Return the number of problems of each kind."""
        return dict(sorted(Counter(p.kind for p in self.problems).items()))


class _Check:
    """One fsck pass over one store."""

    def __init__(self, store: ObjectStore, cutoff: date | None, temp_min_age_s: float, grace_s: float = 30.0) -> None:
        self.store = store
        self.grace_s = grace_s
        self.cutoff = cutoff
        self.temp_min_age_s = temp_min_age_s
        self.report = FsckReport()
        self.content: dict[str, dict[str, bool]] = {}
        self.handoff_keys: dict[tuple[str, str], list[tuple[str | None, str | None]]] = defaultdict(list)
        self.handoff_days: dict[tuple[str, str], str] = {}
        self.temps: list[tuple[str, float, str | None]] = []
        #: Keys of table files that do not read (truncated, not Parquet, a foreign schema).
        self.corrupt: list[str] = []

    def problem(self, kind: str, where: str, detail: str) -> None:
        self.report.problems.append(Problem(kind, where, detail))

    def in_window(self, key: str) -> bool:
        day = day_of_key(key)
        return self.cutoff is None or (day is not None and day >= self.cutoff)

    # -- listing -------------------------------------------------------------------------

    def files(self, prefix: str) -> list[str]:
        keys = []
        for info in self.store.list(prefix):
            if TEMP_MARK in info.key.rsplit("/", 1)[-1]:
                self.temps.append((info.key, info.mtime, None))
            elif info.key.endswith(".parquet") and self.in_window(info.key):
                keys.append(info.key)
        return keys

    def scan_uploads(self) -> None:
        uploads = getattr(self.store, "incomplete_uploads", None)
        for key, upload_id, started in uploads() if uploads else []:
            self.temps.append((key, started, upload_id))

    # -- tables --------------------------------------------------------------------------

    def read(self, table: str, key: str, columns: list[str]):
        self.report.files += 1
        problem = file_problem(self.store, table, key)
        if problem is None:
            try:
                return read_file(self.store, key, columns=columns)
            except CorruptFile as exc:
                problem = str(exc).splitlines()[0]
        self.problem("corrupt-file", self.store.uri(key), problem)
        self.corrupt.append(key)
        return None

    def check_content(self, key: str) -> None:
        table = self.read("content", key, ["run_id", "handoff_id", "side", "content", "stored_sha256"])
        rows = self.content.setdefault(key, {})
        for row in table.to_pylist() if table is not None else []:
            selector = f"{row['run_id']}/{row['handoff_id']}/{row['side']}"
            rows[selector] = True
            if row["stored_sha256"] and hashlib.sha256(row["content"] or b"").hexdigest() != row["stored_sha256"]:
                self.problem(
                    "digest-mismatch", f"{self.store.uri(key)}#{selector}", "stored bytes do not match stored_sha256"
                )

    def check_handoffs(self, key: str) -> None:
        table = self.read(
            "handoffs", key, ["run_id", "handoff_id", "input_sha256", "output_sha256", "input_ref", "output_ref"]
        )
        for row in table.to_pylist() if table is not None else []:
            ident = (row["run_id"], row["handoff_id"])
            self.handoff_keys[ident].append((row["input_sha256"], row["output_sha256"]))
            self.handoff_days[ident] = str(day_of_key(key))
            self.report.handoffs += 1
            for ref in (row["input_ref"], row["output_ref"]):
                if ref:
                    self.check_ref(ref)

    def check_ref(self, ref: str) -> None:
        self.report.refs += 1
        key, selector = parse_ref(ref)
        if selector is None:
            self.check_blob(key)
            return
        if key not in self.content:
            if not self.store.exists(key):
                self.problem("missing-ref", ref, "the content file it names is not in the store")
                return
            self.check_content(key)
        if selector not in self.content[key]:
            self.problem("missing-ref", ref, "the content file has no row for it")

    def check_blob(self, key: str) -> None:
        try:
            get_blob(self.store, key)
        except CorruptFile as exc:
            self.problem("corrupt-blob", self.store.uri(key), str(exc).splitlines()[0])
        except StoreError:
            self.problem("missing-ref", self.store.uri(key), "the blob it names is not in the store")

    def check_duplicates(self) -> None:
        for ident, digests in sorted(self.handoff_keys.items()):
            if len(digests) < 2:
                continue
            where = "/".join(map(str, ident))
            if len(set(digests)) == 1:
                self.problem("duplicate", where, f"stored {len(digests)} times (day {self.handoff_days[ident]})")
            else:
                self.problem(
                    "conflict",
                    where,
                    f"{len(set(digests))} different records share this id (digests differ); not repaired",
                )

    def check_temps(self) -> None:
        now = time.time()
        for key, started, upload_id in self.temps:
            if now - started < self.temp_min_age_s:
                self.report.in_progress += 1
                continue
            what = "incomplete multipart upload" if upload_id else "leftover temp file"
            self.problem("temp-file", self.store.uri(key), what)

    def run(self) -> FsckReport:
        for table in TABLES:
            for key in self.files(f"{table}/"):
                if table == "content" and key not in self.content:
                    self.check_content(key)
                elif table == "handoffs":
                    self.check_handoffs(key)
                elif table != "content":
                    self.read(table, key, [])
        for prefix in (f"{BLOBS}/", "_retention/", "_locks/"):
            self.files(prefix)
        self.scan_uploads()
        self.check_duplicates()
        self.check_temps()
        return self.report


def quarantine(store: ObjectStore, key: str) -> str:
    """Move ``key`` to ``_quarantine/<key>`` (copy, then delete); return a line saying how to restore it."""
    target = QUARANTINE_PREFIX + key
    store.put(target, store.get(key))
    store.delete(key)
    return f"quarantined {store.uri(key)} to {store.uri(target)} (to restore it, move it back to {key})"


def _repair(check: _Check) -> None:
    """Quarantine unreadable files, remove old temp files and uploads, compact days with duplicates; record what was done."""
    from handoff.store.compact import compact

    for key in check.corrupt:
        check.report.repaired.append(quarantine(check.store, key))
    now = time.time()
    for key, started, upload_id in check.temps:
        if now - started < check.temp_min_age_s:
            continue
        if upload_id:
            check.store.abort_upload(key, upload_id)
        else:
            check.store.delete(key)
        check.report.repaired.append(f"removed {check.store.uri(key)}")
    days = sorted({p.detail.rsplit("day ", 1)[-1].rstrip(")") for p in check.report.problems if p.kind == "duplicate"})
    for day in days:
        for result in compact(
            check.store, day=date.fromisoformat(day), tables=("handoffs",), min_files=1, grace_s=check.grace_s
        ):
            check.report.repaired.append(
                f"compacted {result.table}/dt={result.day}: {result.rows_in} rows -> {result.rows_out}"
            )


def fsck(
    store: ObjectStore,
    *,
    since: timedelta | None = None,
    repair: bool = False,
    temp_min_age_s: float = 60.0,
    grace_s: float = 30.0,
) -> FsckReport:
    """Check ``store`` (partitions newer than ``since``, or all); with ``repair``, fix and check again.

    ``grace_s`` is the compaction grace period used when repair merges days with duplicates.
    """
    cutoff = (datetime.now(timezone.utc) - since).date() if since is not None else None
    check = _Check(store, cutoff, temp_min_age_s, grace_s)
    report = check.run()
    if not repair or report.ok:
        return report
    _repair(check)
    fresh = _Check(store, cutoff, temp_min_age_s).run()
    fresh.repaired = report.repaired
    return fresh
