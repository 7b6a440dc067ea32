"""Fixtures for the investigation tests (queries and their CLI commands): the recorded demo store and a generated 6,000-run population.

``demo`` (session)
    ``handoff demo`` run in a subprocess (so this process's recorder is left alone) into a
    temporary store: INV-88214, three clean invoices and one more affected invoice.
``demo_copy``
    A private copy of the demo store for tests that write check results into it.
``webhook``
    A real HTTP server on loopback keeping every JSON body POSTed to ``webhook.url``.
``month`` (session)
    A generated month with a verifier step and planted broken verifiers, empty outputs and one
    collapsed day (:data:`tests.queries.population.MONTH`).
``population`` (session)
    :func:`tests.queries.population.build_population` with 6,000 runs over 90 days, ten of them
    carrying the INV-88214 fault.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from tests.queries.population import Population, build_population


@dataclass(frozen=True)
class Demo:
    """The demo store and its run ids by invoice number."""

    store: str
    runs: dict[str, str]

    @property
    def incident(self) -> str:
        """The INV-88214 run."""
        return self.runs["INV-88214"]


def _run_ids(store: str) -> dict[str, str]:
    from handoff.queries import connect
    from handoff.queries.db import query

    rows = query(connect(store), "SELECT run_id, attributes['invoice'] AS invoice FROM runs")
    return {row["invoice"]: row["run_id"] for row in rows}


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    """The demo store, recorded through the real capture path by the real CLI."""
    store = str(tmp_path_factory.mktemp("demo") / "store")
    cli = Path(sys.executable).with_name("handoff")
    env = {**os.environ, "HANDOFF_SCRUB_KEY": "test-key-investigate"}
    # The demo waits for its writes (up to 600 s on a busy machine) and exits 1 saying what was not written.
    done = subprocess.run([str(cli), "demo", "--store", store], capture_output=True, text=True, timeout=900, env=env)
    if done.returncode != 0:
        pytest.fail(f"handoff demo exited {done.returncode}: {done.stderr.strip()}")
    return Demo(store, _run_ids(store))


@pytest.fixture
def demo_copy(demo: Demo, tmp_path: Path) -> Demo:
    """A private copy of the demo store, for tests that write to it (check results)."""
    store = str(tmp_path / "store")
    shutil.copytree(demo.store, store)
    return Demo(store, demo.runs)


@pytest.fixture(scope="session")
def population(tmp_path_factory: pytest.TempPathFactory) -> Population:
    """A generated 6,000-run store (digest rows built directly, a few seconds)."""
    return build_population(str(tmp_path_factory.mktemp("population") / "store"), runs=6000)


class _Webhook:
    """A real HTTP server on loopback that keeps every JSON body POSTed to it."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        bodies = self.bodies

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hooks/handoff"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def webhook():
    """A loopback webhook receiver."""
    hook = _Webhook()
    yield hook
    hook.close()


@pytest.fixture(scope="session")
def month(tmp_path_factory: pytest.TempPathFactory) -> Population:
    """A generated month of traffic (and the week before it) with a verifier step and issue 19's silent failures planted."""
    from tests.queries.population import MONTH

    root = str(tmp_path_factory.mktemp("month") / "store")
    return build_population(root, runs=2400, days=37, silent=MONTH)
