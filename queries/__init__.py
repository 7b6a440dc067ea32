"""DuckDB queries over the store: run timeline, content, diffs, alerts, checks, blast radius, health."""

from handoff.queries.db import connect, query

__all__ = ["connect", "query"]
