"""Fixtures for the browser tests: stores, a real ``handoff ui`` server, and headless Chromium.

``demo_store`` (session)
    ``handoff demo`` recorded into a temporary store by the real CLI; ``.runs`` maps invoice
    numbers to run ids.
``hostile_store`` (session)
    A store with one run whose attributes, step names, content and events hold ``<script>``
    and ``<img onerror=…>``, and one run with no handoffs (:mod:`tests.ui.hostile`).
``serve``
    ``serve(store, **env)`` starts ``handoff ui --store STORE --port 0`` in a subprocess and
    returns its base URL; every server is stopped after the test.
``browser`` (session)
    Debian's Chromium (``/usr/bin/chromium``) driven by Playwright, headless, with a fresh
    user-data directory; every request that is not to loopback is aborted and remembered in
    ``browser.blocked``, so no test reaches the internet.
``page``
    A new tab in ``browser`` that records dialogs (``page.dialogs``) and console errors
    (``page.errors``); closed after the test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
HANDOFF = str(Path(sys.executable).with_name("handoff"))


@dataclass(frozen=True)
class DemoStore:
    """The demo store and its run ids by invoice number."""

    path: str
    runs: dict[str, str]

    @property
    def incident(self) -> str:
        """The INV-88214 run."""
        return self.runs["INV-88214"]


def _run_ids(store: str) -> dict[str, str]:
    from handoff.queries import connect
    from handoff.queries.runs import list_runs

    con = connect(store)
    try:
        return {row["attributes"]["invoice"]: row["run_id"] for row in list_runs(con)}
    finally:
        con.close()


@pytest.fixture(scope="session")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> DemoStore:
    """The demo, recorded through the real capture path by the real CLI."""
    store = str(tmp_path_factory.mktemp("ui-demo") / "store")
    env = {**os.environ, "HANDOFF_SCRUB_KEY": "test-key-ui"}
    subprocess.run([HANDOFF, "demo", "--store", store], check=True, capture_output=True, timeout=180, env=env)
    return DemoStore(store, _run_ids(store))


@pytest.fixture(scope="session")
def hostile_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """``(store, run_id, empty_run_id)``: the run full of markup, and a run that recorded no handoff."""
    store = str(tmp_path_factory.mktemp("ui-hostile") / "store")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "tests.ui.hostile", store],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
    )
    empty, hostile = done.stdout.strip().splitlines()[-2:]
    return store, hostile, empty


@pytest.fixture
def broken_store(demo_store: DemoStore, tmp_path: Path) -> str:
    """A copy of the demo store with one digest file overwritten by garbage."""
    store = tmp_path / "broken"
    shutil.copytree(demo_store.path, store)
    victim = sorted((store / "handoffs").glob("dt=*/*.parquet"))[0]
    victim.write_bytes(b"PAR1 this is not a parquet file at all" * 4)
    return str(store)


class _Servers:
    def __init__(self) -> None:
        self.processes: list[subprocess.Popen] = []

    def start(self, store: str, **env: str) -> str:
        process = subprocess.Popen(
            [HANDOFF, "ui", "--store", store, "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **env},
        )
        self.processes.append(process)
        line = process.stdout.readline() if process.stdout else ""
        if not line.startswith("handoff ui: http://"):
            process.kill()
            raise AssertionError(
                f"handoff ui did not start: {line!r} {process.stderr.read() if process.stderr else ''}"
            )
        return line.split()[2].rstrip("/")

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@pytest.fixture
def serve() -> Iterator[Callable[..., str]]:
    """Start ``handoff ui`` servers for this test; each call returns a base URL like ``http://127.0.0.1:40123``."""
    servers = _Servers()
    yield servers.start
    servers.stop()


@pytest.fixture(scope="module")
def demo_url(demo_store: DemoStore) -> Iterator[str]:
    """One ``handoff ui`` over the demo store, shared by a test module."""
    servers = _Servers()
    yield servers.start(demo_store.path)
    servers.stop()


class Browser:
    """The browser context and the URLs it refused to let leave the machine."""

    def __init__(self, context) -> None:
        self.context = context
        self.blocked: list[str] = []


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """Headless Debian Chromium under Playwright; only loopback requests get through."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
            device_scale_factor=1,
            locale="en-US",
            timezone_id="UTC",
        )
        wrapped = Browser(context)

        def only_loopback(route) -> None:
            url = route.request.url
            if urlsplit(url).scheme in ("data", "blob", "about") or urlsplit(url).hostname in LOOPBACK:
                route.continue_()
            else:
                wrapped.blocked.append(url)
                route.abort()

        context.route("**/*", only_loopback)
        for stray in context.pages:
            stray.close()
        yield wrapped
        context.close()


@pytest.fixture
def page(browser: Browser):
    """A fresh tab; ``page.dialogs`` and ``page.errors`` collect alerts and console errors."""
    tab = browser.context.new_page()
    tab.dialogs = []
    tab.errors = []

    def on_dialog(dialog) -> None:
        tab.dialogs.append(dialog.message)
        dialog.dismiss()

    tab.on("dialog", on_dialog)
    tab.on("console", lambda message: tab.errors.append(message.text) if message.type == "error" else None)
    tab.on("pageerror", lambda exc: tab.errors.append(str(exc)))
    yield tab
    tab.close()
