"""A real Arize Phoenix (``phoenix serve``) receives the demo's spans over OTLP and classifies them.

Phoenix lives in its own virtualenv (its dependencies are not ours): ``HANDOFF_PHOENIX_BIN``, else
``.venv-phoenix/bin/phoenix`` at the repository root (``.ci/run`` creates it with
``python3 -m venv .venv-phoenix && .venv-phoenix/bin/pip install arize-phoenix``). Without it the
module is skipped, except under CI, where that is a failure.

Phoenix runs on loopback with SQLite in a temp working directory, telemetry and external resources
off, and every outbound HTTP(S) request of both processes sent to a loopback "proxy" that records
it and closes the connection: the test fails if anything tried to leave the machine. The app is
``phoenix_app.py`` (the demo plus one step that raises), configured only with the standard
``OTEL_EXPORTER_OTLP_ENDPOINT`` and ``OTEL_RESOURCE_ATTRIBUTES`` variables, as a user would.
Phoenix's REST API (``GET /v1/projects/<project>/spans``) is what the test reads.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from handoff.cli import main
from tests.conftest import free_port

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
APP = Path(__file__).with_name("phoenix_app.py")
PROJECT = "handoff-test"
START_TIMEOUT_S = 180.0
INGEST_TIMEOUT_S = 120.0


def phoenix_bin() -> str:
    """The ``phoenix`` executable: ``HANDOFF_PHOENIX_BIN``, else the repository's ``.venv-phoenix``."""
    path = os.environ.get("HANDOFF_PHOENIX_BIN") or str(ROOT / ".venv-phoenix" / "bin" / "phoenix")
    if shutil.which(path) is None:
        reason = (
            f"Arize Phoenix is not installed at {path} (python3 -m venv .venv-phoenix && "
            ".venv-phoenix/bin/pip install arize-phoenix, or set HANDOFF_PHOENIX_BIN)"
        )
        if os.environ.get("CI"):
            pytest.fail(reason + ": .ci/run installs it")
        pytest.skip(reason)
    return path


class RefusingProxy:
    """A loopback HTTP(S) proxy that forwards nothing: it records each request line and hangs up."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2.0)
                try:
                    line = conn.recv(4096).split(b"\r\n", 1)[0]
                except OSError:
                    line = b"(no request line)"
                self.requests.append(line.decode("latin-1"))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5.0)
        self._sock.close()


def offline_env(proxy: RefusingProxy) -> dict[str, str]:
    """This process's environment with every outbound HTTP(S) request sent to ``proxy``; loopback is direct."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "HANDOFF_", "PHOENIX_"))}
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = proxy.url
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


def get_json(url: str) -> dict:
    """GET ``url`` (loopback, no proxy) and decode its JSON body."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=30) as response:
        return json.load(response)


def wait_until_serving(process: subprocess.Popen, url: str, log: Path) -> None:
    """Poll Phoenix's health check until it answers; fail with its log if it exits or never does."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"phoenix serve exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url + "/healthz", timeout=5):
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"phoenix serve did not answer within {START_TIMEOUT_S:g}s:\n{log.read_text()[-4000:]}")


@pytest.fixture(scope="module")
def proxy():
    """The refusing proxy every process of this module sends outbound traffic to."""
    refusing = RefusingProxy()
    yield refusing
    refusing.stop()


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory, proxy: RefusingProxy):
    """``phoenix serve`` on loopback (free ports, SQLite in a temp working dir, no telemetry); yields its URL."""
    executable = phoenix_bin()
    workdir = tmp_path_factory.mktemp("phoenix")
    port, grpc_port = free_port(), free_port()
    env = offline_env(proxy) | {
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_WORKING_DIR": str(workdir),
        "PHOENIX_SQL_DATABASE_URL": f"sqlite:///{workdir}/phoenix.db",
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
        "PHOENIX_DISABLE_AGENT_ASSISTANT": "true",
        "PHOENIX_LOG_MIGRATIONS": "false",
    }
    log = workdir / "phoenix.log"
    with log.open("wb") as out:
        process = subprocess.Popen([executable, "serve"], env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(process, url, log)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@pytest.fixture(scope="module")
def sent(phoenix: str, proxy: RefusingProxy, tmp_path_factory: pytest.TempPathFactory):
    """Run the app against Phoenix; return ``(store, {"demo": {invoice: run_id}, "failed": run_id})``."""
    store = tmp_path_factory.mktemp("phoenix-app") / "store"
    env = offline_env(proxy) | {
        "OTEL_EXPORTER_OTLP_ENDPOINT": phoenix,
        "OTEL_RESOURCE_ATTRIBUTES": f"openinference.project.name={PROJECT}",
        "HANDOFF_SPOOL_DIR": str(store.parent / "spool"),
        "PYTHONPATH": str(ROOT),
    }
    result = subprocess.run(
        [sys.executable, str(APP), str(store)], env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return store, json.loads(result.stdout.strip().splitlines()[-1])


def store_rows(store: Path) -> list[dict]:
    """Every handoff row in the store, from `handoff sql --json` as a user gets them."""
    result = CliRunner().invoke(
        main,
        [
            "sql",
            "--store",
            str(store),
            "--json",
            "SELECT run_id, handoff_id, to_step, kind, status, trace_id, span_id FROM handoffs",
        ],
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture(scope="module")
def spans(phoenix: str, sent) -> dict[tuple[str, str], dict]:
    """Phoenix's spans of the project keyed by ``(handoff.run_id, handoff.id)`` (run spans: ``(run_id, "run")``).

    Phoenix inserts received spans in the background, so this polls (bounded) until it lists one
    span per stored handoff plus one per run.
    """
    store, _ = sent
    expected = len(store_rows(store)) + len({row["run_id"] for row in store_rows(store)})
    deadline = time.monotonic() + INGEST_TIMEOUT_S
    while True:
        data = get_json(f"{phoenix}/v1/projects/{PROJECT}/spans?limit=1000")["data"]
        if len(data) >= expected or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    keyed = {}
    for span in data:
        attributes = span["attributes"]
        keyed[(attributes["handoff.run_id"], attributes.get("handoff.id", "run"))] = span
    assert len(data) == len(keyed) == expected
    return keyed


def test_every_handoff_reaches_phoenix_with_the_stored_trace_and_span_ids(sent, spans):
    """Each stored handoff is one Phoenix span whose trace and span ids are the ones `handoff show` reports."""
    store, _ = sent
    ours = {(r["run_id"], r["handoff_id"]): (r["trace_id"], r["span_id"]) for r in store_rows(store)}
    theirs = {
        key: (span["context"]["trace_id"], span["context"]["span_id"]) for key, span in spans.items() if key[1] != "run"
    }
    assert theirs == ours
    assert len(ours) == 31  # 5 demo runs of 6 handoffs, and the failing charge


def test_agent_tool_and_transform_steps_show_their_span_kinds(sent, spans):
    """Phoenix classifies each step from gen_ai.operation.name: agents AGENT, tools and the model-less compressor TOOL."""
    _, runs = sent
    reference = runs["demo"]["INV-88214"]
    kinds = {
        span["attributes"]["handoff.to"]: (span["attributes"]["handoff.kind"], span["span_kind"])
        for (run_id, _), span in spans.items()
        if run_id == reference and "handoff.to" in span["attributes"]
    }
    assert kinds == {
        "extract": ("agent", "AGENT"),
        "validate": ("agent", "AGENT"),
        "orchestrator.compress_v3": ("transform", "TOOL"),
        "price": ("agent", "AGENT"),
        "write": ("tool", "TOOL"),
        "verify": ("verifier", "AGENT"),  # a verifier with a model is an LLM doing the check
    }
    handoff_kinds = {span["span_kind"] for key, span in spans.items() if key[1] != "run"}
    assert handoff_kinds == {"AGENT", "TOOL"}


def test_the_compressor_span_sits_under_its_run_and_names_the_validator_it_consumes(sent, spans):
    """In Phoenix's trace tree the compressor is a child of INV-88214's run span, and its parent handoff is validate's span."""
    _, runs = sent
    reference = runs["demo"]["INV-88214"]
    run_span = spans[(reference, "run")]
    [compressor] = [
        span
        for (run_id, _), span in spans.items()
        if run_id == reference and span["attributes"].get("handoff.to") == "orchestrator.compress_v3"
    ]
    # Phoenix 20.26 keeps no OTLP links (its span model has none yet): the lineage it shows is the
    # trace tree plus handoff.parent_id, which names a span of the same trace.
    parent = spans[(reference, compressor["attributes"]["handoff.parent_id"])]
    assert (
        compressor["parent_id"],
        compressor["context"]["trace_id"],
        parent["attributes"]["handoff.to"],
        parent["context"]["trace_id"],
        run_span["parent_id"],
    ) == (
        run_span["context"]["span_id"],
        run_span["context"]["trace_id"],
        "validate",
        run_span["context"]["trace_id"],
        None,
    )


def test_the_failed_step_is_the_one_error_span_with_its_exception(sent, spans):
    """The step that raised shows as ERROR with its exception event; every other span (the broken verifier too) is not an error."""
    _, runs = sent
    errors = {key: span for key, span in spans.items() if span["status_code"] == "ERROR"}
    assert list(errors) == [(runs["failed"], "hf-1")]
    failed = errors[(runs["failed"], "hf-1")]
    [event] = failed["events"]
    assert (
        failed["status_message"],
        failed["attributes"]["error.type"],
        failed["attributes"]["handoff.status"],
        event["name"],
        event["attributes"]["exception.type"].rsplit(".", 1)[-1],
        event["attributes"]["exception.message"],
    ) == ("CardDeclined", "CardDeclined", "error", "exception", "CardDeclined", "limit exceeded for INV-88214")
    broken = spans[(runs["demo"]["INV-88216"], "hf-6")]
    assert (broken["attributes"]["handoff.status"], broken["status_code"]) == ("broken", "UNSET")


def test_nothing_tried_to_leave_the_machine(spans, proxy):
    """Phoenix and the app, with telemetry and external resources off, sent no request anywhere but loopback."""
    assert spans
    assert proxy.requests == []
