"""Capture: recording handoffs on the application's thread, cheaply and without ever raising.

- :mod:`~handoff.capture.steps`: ``step`` (the decorator), ``record`` (a block), ``fallback``, ``verdict``;
- :mod:`~handoff.capture.runs`: ``run``, one end-to-end pipeline execution;
- :mod:`~handoff.capture.handle`: the :class:`Handle` of one handoff in progress, its lifecycle
  and ``current()``; :mod:`~handoff.capture.spec` what a step resolves once at decoration time;
- :mod:`~handoff.capture.lineage`: parent, ``from`` and attempt inference, for every handoff;
- :mod:`~handoff.capture.context`: the run active in this thread or task, and ``bind``;
- :mod:`~handoff.capture.render`: the exact bytes a consumer received;
- :mod:`~handoff.capture.propagation`: ``inject``/``extract``, runs across processes;
- :mod:`~handoff.capture.recorder`: the process-wide recorder and its writer.

Capture knows only the exporter interface (:mod:`handoff.exporters.base` and
:func:`handoff.exporters.factory.build_writer`): it never imports the store, text analysis,
queries or retention, so scrubbing, extraction and encoding stay off the hot path.
"""

from __future__ import annotations

from handoff.capture.context import bind
from handoff.capture.handle import Handle, current
from handoff.capture.propagation import extract, inject
from handoff.capture.runs import run
from handoff.capture.steps import fallback, record, step, verdict

__all__ = ["Handle", "bind", "current", "extract", "fallback", "inject", "record", "run", "step", "verdict"]
