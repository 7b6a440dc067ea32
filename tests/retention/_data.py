"""Test data for the retention tests: runs written straight into past day partitions.

Rows are written with the real :class:`StoreExporter` from records whose timestamps lie in the
past, not through the capture hot path, so a year of data takes seconds.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta, timezone

from ulid import ULID

from handoff.exporters.store_exporter import StoreExporter
from handoff.model import Handoff, RunRecord

#: The retention tests' "today": every test's clock is injected relative to this instant.
NOW = datetime(2026, 11, 29, 3, 17, tzinfo=timezone.utc)

VALIDATOR_REPORT = (
    "clause 7.2 freight surcharge at 9.1%; surcharge base is the rebated subtotal per 7.2(b); rebate 9.5%"
)
BRIEF = "freight surcharge: 9.1% (clause 7.2); rebate 9.5%"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run_id_at(ts: datetime) -> str:
    """Return a run id minted at ``ts`` (run ids are ULIDs, so they carry their creation time)."""
    return "run_" + str(ULID.from_datetime(ts))


def write_run(
    store,
    days_ago: int,
    *,
    status: str = "ok",
    lossy: bool = True,
    big: bool = False,
    attributes: dict[str, str] | None = None,
    now: datetime = NOW,
) -> str:
    """Write one three-handoff run that started ``days_ago`` days before ``now`` at 12:00 UTC; return its id."""
    return write_runs(store, days_ago, 1, status=status, lossy=lossy, big=big, attributes=attributes, now=now)[0]


def write_runs(
    store,
    days_ago: int,
    count: int,
    *,
    status: str = "ok",
    lossy: bool = True,
    big: bool = False,
    attributes: dict[str, str] | None = None,
    now: datetime = NOW,
) -> list[str]:
    """Write ``count`` runs in one batch (so they share one content file); return their ids."""
    records: list = []
    for _ in range(count):
        start = (now - timedelta(days=days_ago)).replace(hour=12, minute=0, second=0, microsecond=0) + timedelta(
            microseconds=secrets.randbelow(10**6)
        )
        run_id = run_id_at(start)
        start_ns = int(start.timestamp() * 1e9)
        records.extend(_handoffs(run_id, start_ns, status, lossy, big))
        records.append(
            RunRecord(
                run_id,
                "invoice",
                start_ns,
                start_ns + 3_000_000_000,
                status,
                attributes or {"invoice": "INV-88214"},
                start_ns + 3_000_000_000,
            )
        )
    exporter = StoreExporter(store, writer=f"w-{secrets.token_hex(4)}", inline_limit_bytes=64 * 1024)
    exporter.write(exporter.prepare(records))
    return [record.run_id for record in records if isinstance(record, RunRecord)]


def _handoffs(run_id: str, start_ns: int, status: str, lossy: bool, big: bool) -> list[Handoff]:
    report = VALIDATOR_REPORT.encode() + (b" " + b"x" * 100_000 if big else b"")
    brief = (BRIEF if lossy else VALIDATOR_REPORT).encode()
    steps = [
        ("extract", "validate", "agent", b"invoice INV-88214 subtotal $172,000.00", report, None),
        ("validate", "orchestrator.compress_v3", "transform", report, brief, "hf-1"),
        ("orchestrator.compress_v3", "price", "agent", brief, b"total $171,312.00", "hf-2"),
    ]
    out = []
    for seq, (source, target, kind, data_in, data_out, parent) in enumerate(steps, start=1):
        failed = status == "error" and seq == 3
        out.append(
            Handoff(
                run_id=run_id,
                handoff_id=f"hf-{seq}",
                seq=seq,
                from_step=source,
                to_step=target,
                kind=kind,
                parent_handoff_id=parent,
                ts_ns=start_ns + seq * 1_000_000_000,
                duration_ms=12.5 * seq,
                status="error" if failed else "ok",
                error_type="ValueError" if failed else None,
                error_message="price mismatch" if failed else None,
                input=data_in,
                output=data_out,
                input_sha256=_sha(data_in),
                output_sha256=_sha(data_out),
                input_tokens=len(data_in) // 4,
                output_tokens=len(data_out) // 4,
                model="stand-in",
                attributes={"customer": "Northwind Freight"},
            )
        )
    return out


def rows(store, sql: str, params: list | None = None) -> list[dict]:
    """Run ``sql`` over fresh DuckDB views of ``store``."""
    from handoff.queries.db import connect, query

    return query(connect(store), sql, params)


def tiers_of(store) -> dict[str, list[str]]:
    """Return ``run_id -> [tier of hf-1, hf-2, hf-3]`` as a reader of the views sees them."""
    out: dict[str, list[str]] = {}
    for row in rows(store, "SELECT run_id, tier FROM handoffs ORDER BY run_id, handoff_id"):
        out.setdefault(row["run_id"], []).append(row["tier"])
    return out


def keys(store, prefix: str) -> list[str]:
    """Return the keys under ``prefix``."""
    return [info.key for info in store.list(prefix)]
