"""Fixtures for the deployment kit: an S3 + IAM API server on loopback that enforces IAM.

moto reads ``INITIAL_NO_AUTH_ACTION_COUNT`` once, process-wide, when it starts: after that
many requests it authenticates every request and evaluates the caller's IAM policies. The
server runs as a subprocess (``python -m moto.server``) so the setting never leaks into other
tests in this pytest process. The first three requests, left unauthenticated, create the
``admin`` user, its allow-all policy and its access key; every later request is checked.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

BOOTSTRAP_REQUESTS = 3
REGION = "us-east-1"
ALLOW_ALL = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}


@dataclass(frozen=True)
class Credentials:
    """An access key pair for one IAM user on the server."""

    access_key_id: str
    secret_access_key: str


@dataclass(frozen=True)
class AuthorizedS3Server:
    """A running moto server at ``endpoint_url`` that enforces IAM policies on every request."""

    endpoint_url: str
    admin: Credentials

    def client(self, service: str, credentials: Credentials | None = None) -> Any:
        """Return a boto3 client for ``service`` signed with ``credentials`` (default: admin)."""
        import boto3
        from botocore.config import Config

        creds = credentials or self.admin
        return boto3.client(
            service,
            endpoint_url=self.endpoint_url,
            region_name=REGION,
            aws_access_key_id=creds.access_key_id,
            aws_secret_access_key=creds.secret_access_key,
            config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
        )

    def create_user(self, name: str, policy_document: str) -> Credentials:
        """Create IAM user ``name`` with ``policy_document`` attached as a managed policy."""
        iam = self.client("iam")
        iam.create_user(UserName=name)
        policy = iam.create_policy(PolicyName=f"{name}-policy", PolicyDocument=policy_document)
        iam.attach_user_policy(UserName=name, PolicyArn=policy["Policy"]["Arn"])
        key = iam.create_access_key(UserName=name)["AccessKey"]
        return Credentials(key["AccessKeyId"], key["SecretAccessKey"])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_listening(port: int, process: subprocess.Popen, timeout_s: float = 30.0) -> None:
    # A TCP connect is not an AWS request, so it does not use up the unauthenticated budget.
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"moto server exited with code {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"moto server did not listen on port {port} within {timeout_s} s")


def _bootstrap_admin(endpoint_url: str) -> Credentials:
    """Spend exactly the unauthenticated requests on creating an allow-all admin user."""
    bootstrap = AuthorizedS3Server(endpoint_url, Credentials("AKIABOOTSTRAP0000000", "bootstrap"))
    iam = bootstrap.client("iam")
    iam.create_user(UserName="admin")
    iam.put_user_policy(UserName="admin", PolicyName="allow-all", PolicyDocument=json.dumps(ALLOW_ALL))
    key = iam.create_access_key(UserName="admin")["AccessKey"]
    return Credentials(key["AccessKeyId"], key["SecretAccessKey"])


@pytest.fixture(scope="session")
def authorized_s3() -> Iterator[AuthorizedS3Server]:
    """A moto S3/IAM server on 127.0.0.1 with IAM enforced, and an admin user to set it up."""
    port = _free_port()
    env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": str(BOOTSTRAP_REQUESTS)}
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_until_listening(port, process)
        endpoint_url = f"http://127.0.0.1:{port}"
        yield AuthorizedS3Server(endpoint_url, _bootstrap_admin(endpoint_url))
    finally:
        process.terminate()
        process.wait(timeout=10)


# ---------------------------------------------------------------- a store for the SQL tests

SQL_APP = Path(__file__).with_name("sql_app.py")


def _run(*args: str) -> None:
    env = {**os.environ, "HANDOFF_SCRUB_KEY": "test-key-sql"}
    subprocess.run(list(args), check=True, capture_output=True, timeout=180, env=env)


def _add_duplicates(root: Path) -> None:
    """Leave the copies a reader meets in production: a retried batch, and retention's digest rewrite."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from handoff.store.tables import encode_parquet

    for path in sorted(root.glob("handoffs/dt=*/*.parquet")):
        rows = pq.ParquetFile(path).read()
        compressor = rows.filter(pc.equal(rows["to_step"], "orchestrator.compress_v3"))
        if compressor.num_rows:
            break
    (path.parent / "retried-000001.parquet").write_bytes(path.read_bytes())
    nulls = pa.nulls(compressor.num_rows, pa.string())
    digest = compressor.set_column(
        compressor.schema.get_field_index("tier"), "tier", pa.array(["digest"] * compressor.num_rows)
    )
    for name in ("input_ref", "output_ref"):
        digest = digest.set_column(digest.schema.get_field_index(name), name, nulls)
    (path.parent / "retention-000001.parquet").write_bytes(encode_parquet(digest))


@pytest.fixture(scope="session")
def sql_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local store written by `handoff demo`, then `handoff check`, a lossy edge and a fan-in, and duplicate rows.

    Duplicates: the demo's run rows (start and end), a copy of a digest file (a retried batch),
    and digest-tier copies of the compressor rows (retention between its write and delete).
    """
    root = tmp_path_factory.mktemp("sql") / "store"
    cli = str(Path(sys.executable).with_name("handoff"))
    _run(cli, "demo", "--store", str(root))
    _run(cli, "check", "--since", "1h", "--store", str(root))
    _run(sys.executable, str(SQL_APP), str(root))
    _add_duplicates(root)
    return root
