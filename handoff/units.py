"""Sizes and durations for people: ``1.5 KB``, ``1.23 s`` (the CLI's tables and the web viewer's pages)."""

from __future__ import annotations


def human_bytes(size: int | None) -> str:
    """``1536`` -> ``1.5 KB``."""
    if size is None:
        return "-"
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def human_ms(ms: float | None) -> str:
    """``1234.5`` -> ``1.23 s``."""
    if ms is None:
        return "-"
    if ms < 10:
        return f"{ms:.1f} ms"
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"
