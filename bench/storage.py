"""Figure 5: what the store costs on disk.

Digest bytes per handoff: the ``handoffs`` Parquet bytes over its rows on the generated store
(and which columns dominate). Stored content as a fraction of raw: the ``content`` Parquet
bytes over the raw input+output bytes on the ingest run's store (the realistic corpus,
written by the real writer).
"""

from __future__ import annotations

import pathlib
from collections import Counter
from typing import Any

from bench.gen_store import store_dir
from bench.ingest import store_path
from bench.results import figure, not_measured

SECTION = "5. Storage"


def column_bytes(files: list[pathlib.Path]) -> tuple[int, int, Counter]:
    """Return ``(file bytes, rows, compressed bytes per column)`` over Parquet ``files``."""
    import pyarrow.parquet as pq

    total, rows, columns = 0, 0, Counter()
    for path in files:
        total += path.stat().st_size
        meta = pq.ParquetFile(path).metadata
        rows += meta.num_rows
        for g in range(meta.num_row_groups):
            group = meta.row_group(g)
            for c in range(group.num_columns):
                column = group.column(c)
                columns[column.path_in_schema.split(".")[0]] += column.total_compressed_size
    return total, rows, columns


def _digest_figure(store: pathlib.Path, label: str) -> dict[str, Any]:
    files = sorted((store / "handoffs").glob("dt=*/*.parquet"))
    if not files:
        return not_measured("storage.digest_bytes_per_handoff", SECTION, "digest bytes per handoff", "B", f"no handoffs files in {store}", ("value", "<=", 150))
    total, rows, columns = column_bytes(files)
    top = ", ".join(f"{name} {size / rows:.1f}" for name, size in columns.most_common(6))
    per_row = total / rows
    note = f"{label}: {rows:,} rows in {len(files)} files; largest columns in bytes per row: {top}"
    if per_row > 150:
        note += ("; the random hex digests and ids (input/output_sha256, span_id, trace_id) do not compress: storing "
                 "them as 32/16/8-byte binary instead of hex would halve them (a schema change, not made here)")
    return figure("storage.digest_bytes_per_handoff", SECTION, "digest bytes per handoff", per_row, "B",
                  target=("value", "<=", 150), note=note)


def _content_figure(store: pathlib.Path) -> dict[str, Any]:
    import duckdb

    files = sorted((store / "content").glob("dt=*/*.parquet"))
    if not files:
        return not_measured("storage.content_fraction", SECTION, "stored content / raw bytes", "ratio", f"no content files in {store} (ingest did not run)", ("value", "<=", 0.3))
    raw = duckdb.connect().execute(f"SELECT sum(coalesce(input_bytes, 0) + coalesce(output_bytes, 0)) FROM read_parquet('{store}/handoffs/*/*.parquet')").fetchall()[0][0]
    stored = sum(path.stat().st_size for path in files)
    return figure("storage.content_fraction", SECTION, "stored content / raw bytes", stored / raw, "ratio",
                  baseline=1.0, baseline_name="raw bytes", target=("value", "<=", 0.3),
                  note=f"{store.name}: {stored / 1e6:.1f} MB of content files for {raw / 1e6:.1f} MB raw, realistic corpus "
                       f"(bench/corpus.py), files as the writer packs them (one per flush)")


def measure(runs: int = 125_000, days: int = 90, work: str = "bench/_work") -> list[dict[str, Any]]:
    """Return the digest-size figure (on the generated store of these sizes) and the content-fraction figure."""
    generated = store_dir(pathlib.Path(work), runs, days)
    if (generated / "handoffs").exists():
        figures = [_digest_figure(generated, f"generated store ({runs * 8:,} handoffs, files of ~{runs * 2 // days:,} rows)")]
    else:
        figures = [not_measured("storage.digest_bytes_per_handoff", SECTION, "digest bytes per handoff", "B",
                                f"no generated store at {generated} (the queries section did not run)", ("value", "<=", 150))]
    stores = [store_path(work, scrub) for scrub in (True, False) if (store_path(work, scrub) / "content").exists()]
    figures.append(_content_figure(stores[0] if stores else store_path(work, True)))
    return figures
