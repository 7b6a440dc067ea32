"""Glue shared by commands: open the store and its views, turn library errors into one-line errors."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import click

from handoff.errors import HandoffError


@contextlib.contextmanager
def errors_as_click() -> Iterator[None]:
    """Turn a ``HandoffError`` (or a bad ``ValueError`` argument) into ``Error: <one line>``, exit 1."""
    try:
        yield
    except HandoffError as exc:
        raise click.ClickException(_one_line(exc)) from None
    except ValueError as exc:
        raise click.ClickException(_one_line(exc)) from None


def _one_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def open_existing_store(store_url: str | None, *, must_exist: bool = True):
    """Return the store at ``store_url``; a missing local store is an error when ``must_exist``."""
    from handoff.store import open_store

    store = open_store(store_url)
    if must_exist and store.local_path("") is not None:
        import os

        root = store.local_path("")
        if not os.path.isdir(root):
            raise click.ClickException(f"no store at {root} (run `handoff demo`, or set --store / HANDOFF_STORE)")
    return store


def open_views(store_url: str | None, *, must_exist: bool = True, progress_bar: bool = False):
    """Return ``(store, duckdb connection)``; a missing or empty store is an error when ``must_exist``."""
    from handoff.queries import connect

    store = open_existing_store(store_url, must_exist=must_exist)
    return store, connect(store, progress_bar=progress_bar)


def open_existing(store_url: str | None):
    """Open the store; a local directory that does not exist is an error (a typo must not read as an empty store)."""
    return open_existing_store(store_url)
