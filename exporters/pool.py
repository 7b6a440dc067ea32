"""The writer's pool: processes that scrub and extract constraints for the writer process.

Sized to the machine (cores − 1, at least 1; ``configure(writer_pool=N)``). With one, the
writer process does the work itself and no pool exists. Each pool process builds its own store
exporter (same pseudonym key) and analyzes contiguous chunks of a batch; results come back in
batch order, so the files are the same as without a pool.
"""

from __future__ import annotations

from typing import Any

_exporter: Any = None


def _init(config: dict[str, Any]) -> None:
    global _exporter
    from handoff.exporters.factory import build_store_exporter

    _exporter = build_store_exporter(config)


def _analyze(records: list) -> list:
    return [_exporter.analyze(record) for record in records]


class AnalysisPool:
    """``size`` spawned processes that run :meth:`StoreExporter.analyze` on chunks of a batch."""

    def __init__(self, size: int, config: dict[str, Any]) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.size = size
        self._executor = ProcessPoolExecutor(
            size, mp_context=multiprocessing.get_context("spawn"), initializer=_init, initargs=(config,)
        )

    def analyze(self, records: list) -> list:
        """The analyses of ``records``, in order."""
        step = -(-len(records) // self.size)
        chunks = [records[start : start + step] for start in range(0, len(records), step)]
        return [analysis for part in self._executor.map(_analyze, chunks) for analysis in part]

    def shutdown(self) -> None:
        """Stop the pool processes."""
        self._executor.shutdown(wait=True, cancel_futures=True)
