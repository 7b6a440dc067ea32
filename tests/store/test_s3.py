"""What is specific to the S3 backend: URLs, boto3 configuration, encryption, multipart, error mapping."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import boto3
import pytest

from handoff.errors import StoreError, StoreUnreachable
from handoff.store import open_store
from handoff.store.s3 import MIB, S3ObjectStore, S3Options, parse_url
from tests.conftest import free_port

HANDOFF_CLI = str(Path(sys.executable).with_name("handoff"))


def test_open_store_opens_s3_urls_with_bucket_and_prefix(s3_bucket):
    """HANDOFF_STORE=s3://bucket/prefix opens an S3 store rooted at that prefix."""
    store = open_store(f"s3://{s3_bucket}/traces/prod/")
    assert (type(store).__name__, store.bucket, store.prefix, store.url) == (
        "S3ObjectStore",
        s3_bucket,
        "traces/prod",
        f"s3://{s3_bucket}/traces/prod",
    )


def test_keys_live_under_the_prefix_in_the_bucket(s3_store, s3_bucket):
    """Objects are stored at <prefix>/<key>, the same layout as the local store."""
    s3_store.put("handoffs/dt=2026-11-29/w1-000001.parquet", b"x")
    keys = [item["Key"] for item in boto3.client("s3").list_objects_v2(Bucket=s3_bucket)["Contents"]]
    assert keys == ["handoff/handoffs/dt=2026-11-29/w1-000001.parquet"]


def test_parse_url_rejects_urls_without_a_bucket():
    """A malformed store URL fails at once with ValueError."""
    with pytest.raises(ValueError, match="no bucket"):
        parse_url("s3:///prefix")


def test_endpoint_comes_from_aws_endpoint_url(s3_store, moto_endpoint):
    """The endpoint is boto3's standard AWS_ENDPOINT_URL, so MinIO, R2 and Ceph need no special setting."""
    assert s3_store.client.meta.endpoint_url == moto_endpoint


def test_timeouts_and_retries_come_from_the_environment(monkeypatch, s3_bucket):
    """HANDOFF_S3_* variables set connect/read timeouts and a bounded number of attempts."""
    monkeypatch.setenv("HANDOFF_S3_CONNECT_TIMEOUT_S", "2")
    monkeypatch.setenv("HANDOFF_S3_READ_TIMEOUT_S", "7")
    monkeypatch.setenv("HANDOFF_S3_MAX_ATTEMPTS", "2")
    config = S3ObjectStore.from_url(f"s3://{s3_bucket}").client.meta.config
    assert (config.connect_timeout, config.read_timeout, config.retries) == (
        2.0,
        7.0,
        {"mode": "standard", "total_max_attempts": 2},
    )


def test_a_bad_environment_value_is_ignored_with_the_default_used(monkeypatch, caplog):
    """A malformed HANDOFF_S3_* value is logged and the default kept, never a crash."""
    monkeypatch.setenv("HANDOFF_S3_READ_TIMEOUT_S", "soon")
    monkeypatch.setenv("HANDOFF_S3_SSE", "rot13")
    options = S3Options.from_env()
    assert (options.read_timeout_s, options.sse) == (30.0, None)
    assert sorted(r.getMessage().split(":")[0] for r in caplog.records) == [
        "ignoring HANDOFF_S3_READ_TIMEOUT_S='soon'",
        "ignoring HANDOFF_S3_SSE='rot13'",
    ]


def test_bad_options_in_code_raise_value_error():
    """Options given in code are checked at once."""
    with pytest.raises(ValueError, match="kms_key_id needs sse='aws:kms'"):
        S3Options(kms_key_id="key-1")


def test_sse_s3_encrypts_every_object(monkeypatch, s3_bucket):
    """HANDOFF_S3_SSE=AES256 asks S3 to encrypt each object with S3-managed keys."""
    monkeypatch.setenv("HANDOFF_S3_SSE", "AES256")
    store = S3ObjectStore.from_url(f"s3://{s3_bucket}/p")
    store.put("a", b"secret")
    head = boto3.client("s3").head_object(Bucket=s3_bucket, Key="p/a")
    assert head["ServerSideEncryption"] == "AES256"


def test_sse_kms_uses_the_given_key(monkeypatch, s3_bucket):
    """HANDOFF_S3_SSE=aws:kms with HANDOFF_S3_KMS_KEY_ID encrypts with that KMS key."""
    key_id = boto3.client("kms").create_key()["KeyMetadata"]["KeyId"]
    monkeypatch.setenv("HANDOFF_S3_SSE", "aws:kms")
    monkeypatch.setenv("HANDOFF_S3_KMS_KEY_ID", key_id)
    store = S3ObjectStore.from_url(f"s3://{s3_bucket}/p")
    store.put("a", b"secret")
    head = boto3.client("s3").head_object(Bucket=s3_bucket, Key="p/a")
    assert (head["ServerSideEncryption"], head["SSEKMSKeyId"].split("/")[-1], store.get("a")) == (
        "aws:kms",
        key_id,
        b"secret",
    )


def test_objects_above_the_threshold_are_uploaded_in_parts(s3_bucket):
    """A payload above the multipart threshold goes up in parts and reads back whole."""
    store = S3ObjectStore(s3_bucket, "p", options=S3Options(multipart_threshold_bytes=5 * MIB))
    data = bytes(range(256)) * (12 * MIB // 256)
    store.put("blobs/dt=2026-11-29/run_1/hf-1.in.zst", data)
    etag = boto3.client("s3").head_object(Bucket=s3_bucket, Key="p/blobs/dt=2026-11-29/run_1/hf-1.in.zst")["ETag"]
    assert (etag.strip('"').split("-")[-1], store.get("blobs/dt=2026-11-29/run_1/hf-1.in.zst") == data) == ("3", True)


def test_an_endpoint_nobody_listens_on_raises_store_unreachable(monkeypatch, s3_bucket):
    """Connection refused becomes StoreUnreachable naming the object, within the bounded attempts."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")
    store = S3ObjectStore(s3_bucket, "p", options=S3Options(connect_timeout_s=1, max_attempts=1))
    with pytest.raises(StoreUnreachable) as caught:
        store.put("a/b", b"1")
    assert caught.value.uri == f"s3://{s3_bucket}/p/a/b"


def test_a_missing_bucket_is_a_store_error_not_unreachable(moto_endpoint):
    """A bucket that does not exist is a configuration error (StoreError), not an outage."""
    store = S3ObjectStore("no-such-bucket-here", "p")
    with pytest.raises(StoreError) as caught:
        store.put("a", b"1")
    assert (type(caught.value).__name__, caught.value.uri) == ("StoreError", "s3://no-such-bucket-here/p/a")


def test_server_errors_become_store_unreachable(fault_proxy, monkeypatch, s3_bucket):
    """A 503 SlowDown that outlasts boto3's retries is reported as StoreUnreachable."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", fault_proxy.url)
    store = S3ObjectStore(s3_bucket, "p", options=S3Options(max_attempts=2))
    fault_proxy.fail(503)
    with pytest.raises(StoreUnreachable, match="SlowDown"):
        store.put("a", b"1")


def test_runs_show_reads_a_run_from_s3_end_to_end(s3_url, spool_dir):
    """`handoff runs show` in a separate process reads a run recorded into S3, through pyarrow's S3 filesystem."""
    script = (
        "import handoff; from handoff.demo import run_demo;"
        f"runs = run_demo({s3_url!r}); handoff.flush(); print(runs['INV-88214'])"
    )
    env = {**os.environ, "HANDOFF_SCRUB": "false"}
    run_id = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    ).stdout.split()[-1]
    shown = subprocess.run(
        [HANDOFF_CLI, "runs", "show", run_id, "--store", s3_url, "--json"],
        capture_output=True,
        text=True,
    )
    # Six handoffs and the verifier's verdict event.
    assert (shown.returncode, shown.stdout.count('"handoff_id"'), '"orchestrator.compress_v3"' in shown.stdout) == (
        0,
        7,
        True,
    )


@pytest.mark.parametrize(
    ("code", "status", "error"),
    [
        ("InvalidAccessKeyId", 403, StoreUnreachable),
        ("SignatureDoesNotMatch", 403, StoreUnreachable),
        ("SlowDown", 503, StoreUnreachable),
        ("InternalError", 500, StoreUnreachable),
        ("NoSuchKey", 404, StoreError),
        ("InvalidArgument", 400, StoreError),
    ],
)
def test_each_s3_error_code_maps_to_the_error_a_caller_can_act_on(code, status, error):
    """Bad credentials, throttling and 5xx mean "retry later" (StoreUnreachable); the rest are StoreError."""
    from botocore.exceptions import ClientError

    from handoff.store.s3 import translate

    raw = ClientError(
        {"Error": {"Code": code, "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": status}}, "PutObject"
    )
    mapped = translate(raw, "s3://b/p/k")
    assert (type(mapped), mapped.uri) == (error, "s3://b/p/k")
