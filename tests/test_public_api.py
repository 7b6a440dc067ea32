"""The public API: a small, explicit surface that imports fast."""

from __future__ import annotations

import subprocess
import sys
import types

import handoff


def test_all_is_sorted_and_complete():
    """handoff.__all__ lists every public name the package exposes, sorted, and nothing missing."""
    public = {
        name
        for name, value in vars(handoff).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and name != "annotations"
        and name != "Any"
    }
    assert handoff.__all__ == sorted(handoff.__all__)
    assert public | {"__version__"} == set(handoff.__all__)


def test_import_handoff_does_not_load_heavy_libraries():
    """import handoff stays light: DuckDB, pyarrow, boto3, Presidio and spaCy load only where used."""
    heavy = "('duckdb', 'pyarrow', 'boto3', 'presidio_analyzer', 'spacy')"
    code = f"import sys, handoff; print(','.join(sorted(m for m in {heavy} if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
