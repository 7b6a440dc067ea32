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


def _digest_figure(
    store: pathlib.Path,
    label: str,
    fid: str = "storage.digest_bytes_per_handoff",
    name: str = "digest bytes per handoff",
) -> dict[str, Any]:
    files = sorted((store / "handoffs").glob("dt=*/*.parquet"))
    if not files:
        return not_measured(fid, SECTION, name, "B", f"no handoffs files in {store}", ("value", "<=", 150))
    total, rows, columns = column_bytes(files)
    top = ", ".join(f"{name} {size / rows:.1f}" for name, size in columns.most_common(6))
    per_row = total / rows
    note = f"{label}: {rows:,} rows in {len(files)} files; largest columns in bytes per row: {top}"
    if columns.most_common(1)[0][0] in ("input_sha256", "output_sha256"):
        note += (
            "; the random hex digests (and span_id) hardly compress: stored as 32/8-byte binary instead of hex "
            "they would take half the space (a schema change, not made here)"
        )
    if "input_constraints" in dict(columns.most_common(2)):
        note += (
            "; constraint token lists dominate: every line item's amounts, quantities and ids become tokens. "
            "Dictionary-encoding them per file, or keeping only the tokens a check or blast-radius signature "
            "uses, would close the gap (a schema decision, not made here)"
        )
    return figure(fid, SECTION, name, per_row, "B", target=("value", "<=", 150), note=note)


def _content_figure(store: pathlib.Path) -> dict[str, Any]:
    import duckdb

    files = sorted((store / "content").glob("dt=*/*.parquet"))
    if not files:
        return not_measured(
            "storage.content_fraction",
            SECTION,
            "stored content / raw bytes",
            "ratio",
            f"no content files in {store} (ingest did not run)",
            ("value", "<=", 0.3),
        )
    raw = (
        duckdb.connect()
        .execute(
            f"SELECT sum(coalesce(input_bytes, 0) + coalesce(output_bytes, 0)) FROM read_parquet('{store}/handoffs/*/*.parquet')"
        )
        .fetchall()[0][0]
    )
    stored = sum(path.stat().st_size for path in files)
    return figure(
        "storage.content_fraction",
        SECTION,
        "stored content / raw bytes",
        stored / raw,
        "ratio",
        baseline=1.0,
        baseline_name="raw bytes",
        target=("value", "<=", 0.3),
        note=f"{store.name}: {stored / 1e6:.1f} MB of content files for {raw / 1e6:.1f} MB raw, realistic corpus "
        f"(bench/corpus.py), files as the writer packs them (one per flush)",
    )


def measure(runs: int = 125_000, days: int = 90, work: str = "bench/_work") -> list[dict[str, Any]]:
    """Return the digest-size figure (on the generated store of these sizes) and the content-fraction figure."""
    generated = store_dir(pathlib.Path(work), runs, days)
    if (generated / "handoffs").exists():
        figures = [
            _digest_figure(
                generated,
                f"generated store ({runs * 8:,} handoffs, files of ~{runs * 2 // days:,} rows, "
                "5 to 8 constraint tokens per side as on the demo pipeline's edges)",
            )
        ]
    else:
        figures = [
            not_measured(
                "storage.digest_bytes_per_handoff",
                SECTION,
                "digest bytes per handoff",
                "B",
                f"no generated store at {generated} (the queries section did not run)",
                ("value", "<=", 150),
            )
        ]
    stores = [store_path(work, scrub) for scrub in (True, False) if (store_path(work, scrub) / "content").exists()]
    real = stores[0] if stores else store_path(work, True)
    figures.append(
        _digest_figure(
            real,
            f"{real.name}, written by the real writer from the realistic corpus (10 KB prompts "
            "full of line items; files of at most 2,000 rows)",
            "storage.digest_bytes_per_handoff_real_writer",
            "digest bytes per handoff, real writer, realistic corpus",
        )
    )
    figures.append(_content_figure(real))
    return figures
