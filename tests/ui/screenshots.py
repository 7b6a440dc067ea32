"""The README's screenshots of the three main pages, taken by the test suite so they follow the pages.

:func:`take` photographs the run list, the INV-88214 run page and the compressor's handoff page.
:func:`refresh_docs` writes them to ``docs/img/`` when the viewer's templates, styles or code
changed since the screenshots there were taken (their digest is kept in ``docs/img/ui.json``),
when one is missing, or when ``HANDOFF_UPDATE_SCREENSHOTS=1``; otherwise the tracked files stay
untouched, so running the suite does not dirty a work tree.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS_IMG = ROOT / "docs" / "img"
UI_SOURCES = ROOT / "handoff" / "ui"
STAMP = DOCS_IMG / "ui.json"

#: file name -> (path template, full page?)
PAGES = {
    "ui-runs.png": ("/", False),
    "ui-run.png": ("/runs/{incident}", True),
    "ui-handoff.png": ("/runs/{incident}/handoffs/hf-3", False),
}


def sources_digest() -> str:
    """SHA-256 over the viewer's code, templates and static files (names and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in UI_SOURCES.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(UI_SOURCES)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def take(page, base_url: str, incident: str, out_dir: Path) -> list[Path]:
    """Screenshot the three main pages into ``out_dir``; return the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (path, full_page) in PAGES.items():
        page.goto(base_url + path.format(incident=incident))
        page.wait_for_load_state("networkidle")
        target = out_dir / name
        page.screenshot(path=str(target), full_page=full_page)
        written.append(target)
    return written


def stale() -> bool:
    """Whether ``docs/img`` needs new screenshots."""
    if os.environ.get("HANDOFF_UPDATE_SCREENSHOTS") == "1":
        return True
    if not STAMP.exists() or any(not (DOCS_IMG / name).exists() for name in PAGES):
        return True
    try:
        recorded = json.loads(STAMP.read_text()).get("sources_sha256")
    except ValueError:  # an unreadable stamp: take them again
        return True
    return recorded != sources_digest()


def refresh_docs(page, base_url: str, incident: str) -> bool:
    """Retake the README's screenshots when :func:`stale`; return whether they were written."""
    if not stale():
        return False
    take(page, base_url, incident, DOCS_IMG)
    STAMP.write_text(json.dumps({"sources_sha256": sources_digest(), "pages": sorted(PAGES)}, indent=2) + "\n")
    return True
