"""Fixtures shared by every test directory: a real S3 API server on loopback and both store backends.

Reuse them anywhere under ``tests/``:

``moto_endpoint`` (session)
    Starts moto's ``ThreadedMotoServer`` once per session on ``127.0.0.1`` and a free port, and
    sets ``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY`` and
    ``AWS_DEFAULT_REGION`` for this process and its subprocesses, so plain ``boto3`` clients,
    ``S3ObjectStore.from_url`` and ``handoff --store s3://...`` in a subprocess all reach it over
    real HTTP. Yields the endpoint URL (``http://127.0.0.1:<port>``).
``s3_bucket``
    A new, empty bucket for this test (name unique per test); yields its name.
``s3_url``
    ``s3://<s3_bucket>/handoff``: pass it as ``--store`` or ``handoff.configure(store=...)``.
``s3_store`` / ``local_store``
    An ``S3ObjectStore`` at ``s3_url`` / a ``LocalObjectStore`` in ``tmp_path / "store"``.
``store``
    Parametrized over ``local`` and ``s3``: a test that takes ``store`` runs once per backend,
    which is how the contract suite (``tests/store/test_contract.py``) covers both.
``spool_dir``
    A fresh spool directory in ``tmp_path``, also exported as ``HANDOFF_SPOOL_DIR`` for the
    test's duration, so no test touches the user's cache directory.
``fault_proxy``
    A :class:`tests._proxy.FaultProxy` in front of the moto server (500/503, resets, stalls).
``demo``, ``demo_copy``, ``population``, ``webhook``
    The investigation fixtures of :mod:`tests.queries.fixtures`, shared by ``tests/queries`` and
    the CLI tests in ``tests/cli`` (one session-wide demo store and population for both).
``writer_mode``
    Parametrized over ``process`` and ``thread`` (exported as ``HANDOFF_WRITER``): the crash and
    loss tests run once per writer mode.

The in-process ``moto.mock_aws`` decorator is deliberately not used: the point is to exercise
boto3's real HTTP stack, timeouts and retries.
"""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest_plugins = ["tests.queries.fixtures"]

AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def free_port() -> int:
    """Return a TCP port on loopback that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_listening(port: int, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"moto server did not listen on port {port}")


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    """A moto S3 server on loopback for the whole session, with boto3's environment pointing at it."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    _wait_listening(port)
    endpoint = f"http://127.0.0.1:{port}"
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {**AWS_ENV, "AWS_ENDPOINT_URL": endpoint}.items():
            patch.setenv(name, value)
        patch.delenv("AWS_PROFILE", raising=False)
        yield endpoint
    server.stop()


@pytest.fixture
def s3_bucket(moto_endpoint: str) -> str:
    """A new empty bucket on the moto server, unique to this test."""
    import boto3

    name = f"t-{uuid.uuid4().hex[:20]}"
    boto3.client("s3", endpoint_url=moto_endpoint).create_bucket(Bucket=name)
    return name


@pytest.fixture
def s3_url(s3_bucket: str) -> str:
    """The ``s3://`` URL of a store in this test's bucket."""
    return f"s3://{s3_bucket}/handoff"


@pytest.fixture
def s3_store(s3_url: str):
    """An ``S3ObjectStore`` in this test's bucket, reached over HTTP."""
    from handoff.store.s3 import S3ObjectStore

    return S3ObjectStore.from_url(s3_url)


@pytest.fixture
def local_store(tmp_path: Path):
    """A ``LocalObjectStore`` in a temporary directory."""
    from handoff.store.local import LocalObjectStore

    return LocalObjectStore(tmp_path / "store")


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest):
    """Each store backend in turn: the test runs once on a local directory and once on S3."""
    return request.getfixturevalue(f"{request.param}_store")


@pytest.fixture
def spool_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh spool directory, exported as ``HANDOFF_SPOOL_DIR``."""
    path = tmp_path / "spool"
    monkeypatch.setenv("HANDOFF_SPOOL_DIR", str(path))
    return path


@pytest.fixture
def fault_proxy(moto_endpoint: str):
    """A fault-injecting proxy in front of the moto server; healed and closed after the test."""
    from tests._proxy import FaultProxy

    with FaultProxy(moto_endpoint) as proxy:
        yield proxy


@pytest.fixture(params=["process", "thread"])
def writer_mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each writer mode in turn (``HANDOFF_WRITER``, so ``configure()`` and subprocesses both use it)."""
    monkeypatch.setenv("HANDOFF_WRITER", request.param)
    return request.param


@pytest.fixture(autouse=True)
def _fresh_recorder(tmp_path_factory, monkeypatch) -> Iterator[None]:
    """Every test starts from default settings (but the thread writer), no recorder and its own spool directory.

    Settings are process-wide: without this, a test that configured ``scrub=False`` or a store
    would leak that into the next test, and spooled batches could be replayed into another
    test's store.
    """
    from handoff.capture.recorder import replace_recorder
    from handoff.config import reset_settings
    from handoff.diagnostics import forget_warnings

    forget_warnings()
    monkeypatch.setenv("HANDOFF_SPOOL_DIR", str(tmp_path_factory.mktemp("spool")))
    for name in ("HANDOFF_STORE", "HANDOFF_SCRUB", "HANDOFF_SCRUB_KEY", "HANDOFF_DIGEST_KEY", "HANDOFF_ENABLED"):
        monkeypatch.delenv(name, raising=False)
    # The writer thread by default: starting a writer process per test would double the suite's time
    # on two cores. The crash, loss, fault and concurrency tests take ``writer_mode`` and run in
    # both modes; tests/exporters/test_process_writer.py tests the process itself.
    monkeypatch.setenv("HANDOFF_WRITER", "thread")
    replace_recorder(None, timeout_s=10)
    reset_settings()
    yield
    replace_recorder(None, timeout_s=10)
    reset_settings()
