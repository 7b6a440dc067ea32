"""``handoff ui``: a read-only run viewer in the browser, over the same query library as the CLI.

A Starlette app rendering Jinja2 templates (auto-escaped) with the handoff graph and the charts
drawn as server-side SVG; the CSS and the one small script ship in this package and are
served by the app itself. Nothing is fetched from the internet, no inline script runs (a strict
Content-Security-Policy says so), and every page reads the store through ``handoff.queries``.
"""

from __future__ import annotations

from handoff.ui.app import create_app

__all__ = ["create_app"]
