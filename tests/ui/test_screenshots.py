"""The README shows current screenshots of the viewer's three main pages."""

from __future__ import annotations

import pytest

from tests.ui import screenshots

pytestmark = pytest.mark.slow

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_main_pages_photograph_and_the_readme_shows_them(page, demo_url, demo_store, tmp_path):
    """Each main page renders to a PNG of the viewport's width, and the README embeds the docs/img copies."""
    taken = screenshots.take(page, demo_url, demo_store.incident, tmp_path)
    assert [p.name for p in taken] == ["ui-runs.png", "ui-run.png", "ui-handoff.png"]
    for path in taken:
        data = path.read_bytes()
        assert data[:8] == PNG_MAGIC
        assert int.from_bytes(data[16:20], "big") == 1280
    screenshots.refresh_docs(page, demo_url, demo_store.incident)
    assert not screenshots.stale()
    readme = (screenshots.ROOT / "README.md").read_text()
    for name in screenshots.PAGES:
        assert f"](docs/img/{name})" in readme
