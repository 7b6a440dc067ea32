"""Benchmarks for handoff: every figure we claim, measured against a baseline in the same run.

Run ``python -m bench`` (or ``python -m bench --quick``) from the repository root. It writes
``bench/results.json`` (figures, versions, machine description, date) and renders
``bench/RESULTS.md`` from it. Each section lives in its own module with a ``measure(...)``
function returning figures (see :mod:`bench.results`); :mod:`bench.suite` runs them so that
one failing section never stops the others.
"""
