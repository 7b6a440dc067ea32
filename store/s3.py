"""A store in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, Ceph): ``s3://bucket/prefix``.

Endpoint, region and credentials come from boto3's standard configuration (``AWS_ENDPOINT_URL``,
``AWS_PROFILE``, ``AWS_ACCESS_KEY_ID``..., ``~/.aws/config``), so nothing here is S3-vendor
specific. What this module adds, each with an environment variable:

=================================  ==========================================================
``HANDOFF_S3_SSE``                 ``AES256`` (SSE-S3) or ``aws:kms`` (SSE-KMS); default none
``HANDOFF_S3_KMS_KEY_ID``          the KMS key for ``aws:kms`` (default: the bucket's key)
``HANDOFF_S3_CONNECT_TIMEOUT_S``   connect timeout per request (default 5)
``HANDOFF_S3_READ_TIMEOUT_S``      read timeout per request (default 30)
``HANDOFF_S3_MAX_ATTEMPTS``        attempts per request incl. the first, ``standard`` retry mode (default 3)
``HANDOFF_S3_MULTIPART_BYTES``     objects above this size are uploaded in parts (default 64 MiB)
=================================  ==========================================================

Every botocore error is translated in :func:`map_errors`, the one place that knows them.
``put`` is atomic on S3 (an object appears whole or not at all); ``put_if_absent`` uses a
conditional write (``If-None-Match: *``), so exactly one of two racing callers wins.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from handoff.errors import StoreError, StoreUnreachable
from handoff.store.base import ObjectInfo, ObjectStore

log = logging.getLogger("handoff.store")

MIB = 1024 * 1024
SSE_MODES = ("AES256", "aws:kms")

#: Error codes that mean "the service is there but will not serve us now or with these credentials".
_UNREACHABLE_CODES = frozenset(
    {
        "AccessDenied",
        "InvalidAccessKeyId",
        "SignatureDoesNotMatch",
        "ExpiredToken",
        "InvalidToken",
        "RequestTimeout",
        "RequestTimeTooSkewed",
        "SlowDown",
        "Throttling",
        "ThrottlingException",
        "ServiceUnavailable",
        "InternalError",
        "503",
        "500",
        "502",
        "504",
    }
)
_MISSING_CODES = frozenset({"NoSuchKey", "404", "NotFound", "NoSuchBucket"})


def _env_number(name: str, default: float, cast=float):
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return cast(raw)
    except ValueError:
        log.warning("ignoring %s=%r: expected a number; using %s", name, raw, default)
        return default


def _env_sse() -> str | None:
    raw = (os.environ.get("HANDOFF_S3_SSE") or "").strip()
    if not raw:
        return None
    if raw not in SSE_MODES:
        log.warning("ignoring HANDOFF_S3_SSE=%r: expected AES256 or aws:kms; using none", raw)
        return None
    return raw


@dataclass(frozen=True)
class S3Options:
    """How requests are made: encryption, timeouts, retries, multipart threshold, upload threads."""

    sse: str | None = None
    kms_key_id: str | None = None
    connect_timeout_s: float = 5.0
    read_timeout_s: float = 30.0
    max_attempts: int = 3
    multipart_threshold_bytes: int = 64 * MIB
    upload_threads: int = 4

    def __post_init__(self) -> None:
        if self.sse is not None and self.sse not in SSE_MODES:
            raise ValueError(f"sse must be one of {', '.join(SSE_MODES)} or None, not {self.sse!r}")
        if self.kms_key_id and self.sse != "aws:kms":
            raise ValueError("kms_key_id needs sse='aws:kms'")
        if self.connect_timeout_s <= 0 or self.read_timeout_s <= 0:
            raise ValueError("S3 timeouts must be > 0")
        if self.max_attempts < 1 or self.upload_threads < 1:
            raise ValueError("max_attempts and upload_threads must be >= 1")

    @classmethod
    def from_env(cls) -> S3Options:
        """Read the ``HANDOFF_S3_*`` variables; bad values are logged and their defaults used."""
        sse = _env_sse()
        return cls(
            sse=sse,
            kms_key_id=(os.environ.get("HANDOFF_S3_KMS_KEY_ID") or None) if sse == "aws:kms" else None,
            connect_timeout_s=_env_number("HANDOFF_S3_CONNECT_TIMEOUT_S", 5.0),
            read_timeout_s=_env_number("HANDOFF_S3_READ_TIMEOUT_S", 30.0),
            max_attempts=max(1, _env_number("HANDOFF_S3_MAX_ATTEMPTS", 3, int)),
            multipart_threshold_bytes=max(5 * MIB, _env_number("HANDOFF_S3_MULTIPART_BYTES", 64 * MIB, int)),
        )

    def put_args(self) -> dict[str, str]:
        """Return the encryption arguments for ``PutObject`` / multipart uploads."""
        args: dict[str, str] = {}
        if self.sse:
            args["ServerSideEncryption"] = self.sse
        if self.kms_key_id:
            args["SSEKMSKeyId"] = self.kms_key_id
        return args


def _error_code(exc: Exception) -> str:
    response = getattr(exc, "response", None) or {}
    code = str(response.get("Error", {}).get("Code", ""))
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return code or str(status or "")


def translate(exc: Exception, uri: str) -> StoreError:
    """Map one botocore/boto3 error to ``StoreUnreachable`` (retry later) or ``StoreError``."""
    from botocore import exceptions as bx

    if isinstance(exc, (bx.EndpointConnectionError, bx.ConnectionError, bx.ConnectTimeoutError, bx.ReadTimeoutError)):
        return StoreUnreachable(f"S3 endpoint unreachable for {uri}: {exc}", uri=uri)
    if isinstance(exc, (bx.NoCredentialsError, bx.PartialCredentialsError)):
        return StoreUnreachable(f"no usable AWS credentials for {uri}: {exc}", uri=uri)
    if isinstance(exc, bx.ClientError):
        code = _error_code(exc)
        message = exc.response.get("Error", {}).get("Message") or code
        if code in _MISSING_CODES:
            return StoreError(f"not found: {uri} ({code})", uri=uri)
        if code in _UNREACHABLE_CODES or code.startswith("5"):
            return StoreUnreachable(f"S3 refused {uri}: {code} {message}", uri=uri)
        return StoreError(f"S3 error on {uri}: {code} {message}", uri=uri)
    return StoreError(f"S3 error on {uri}: {type(exc).__name__}: {exc}", uri=uri)


@contextlib.contextmanager
def map_errors(uri: str) -> Iterator[None]:
    """Re-raise any boto3/botocore error inside the block as a handoff ``StoreError``."""
    from boto3.exceptions import Boto3Error
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except (BotoCoreError, ClientError, Boto3Error) as exc:
        cause = getattr(exc, "last_exception", None) if isinstance(exc, Boto3Error) else None
        raise translate(cause or exc, uri) from exc


def parse_url(url: str) -> tuple[str, str]:
    """Split ``s3://bucket/prefix`` into ``(bucket, prefix)``; the prefix has no slashes at its ends."""
    if not url.startswith("s3://"):
        raise ValueError(f"not an s3:// URL: {url!r}")
    bucket, _, prefix = url[len("s3://") :].partition("/")
    if not bucket:
        raise ValueError(f"no bucket in {url!r}: use s3://bucket/prefix")
    return bucket, prefix.strip("/")


class S3ObjectStore(ObjectStore):
    """Objects under ``s3://bucket/prefix``, reached with boto3 (see the module docstring for settings)."""

    def __init__(self, bucket: str, prefix: str = "", *, options: S3Options | None = None, session: Any = None) -> None:
        import boto3

        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.options = options or S3Options.from_env()
        self.url = f"s3://{bucket}/{self.prefix}" if self.prefix else f"s3://{bucket}"
        self.session = session or boto3.session.Session()
        self.client = self.session.client("s3", config=self._client_config())
        #: Suggested number of concurrent uploads; the store exporter puts a batch's files in parallel.
        self.upload_threads = self.options.upload_threads

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> S3ObjectStore:
        """Open ``s3://bucket/prefix`` with options from the environment unless given."""
        bucket, prefix = parse_url(url)
        return cls(bucket, prefix, **kwargs)

    def _client_config(self):
        from botocore.config import Config

        return Config(
            connect_timeout=self.options.connect_timeout_s,
            read_timeout=self.options.read_timeout_s,
            retries={"mode": "standard", "total_max_attempts": self.options.max_attempts},
            max_pool_connections=max(10, self.options.upload_threads * 2),
            # Many S3-compatible servers reject the newer default request checksums.
            request_checksum_calculation="when_required",
            response_checksum_validation="when_required",
        )

    def _key(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def _relative(self, full_key: str) -> str:
        return full_key[len(self.prefix) + 1 :] if self.prefix else full_key

    # -- writes --------------------------------------------------------------------------

    def put(self, key: str, data: bytes) -> None:
        """Upload ``data``; objects above the multipart threshold go up in parts (still atomic)."""
        with map_errors(self.uri(key)):
            if len(data) > self.options.multipart_threshold_bytes:
                self._put_multipart(key, data)
            else:
                self.client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data, **self.options.put_args())

    def _put_multipart(self, key: str, data: bytes) -> None:
        import io

        from boto3.s3.transfer import TransferConfig

        config = TransferConfig(
            multipart_threshold=self.options.multipart_threshold_bytes,
            multipart_chunksize=max(5 * MIB, self.options.multipart_threshold_bytes // 4),
            max_concurrency=self.options.upload_threads,
        )
        self.client.upload_fileobj(
            io.BytesIO(data), self.bucket, self._key(key), ExtraArgs=self.options.put_args() or None, Config=config
        )

    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Conditional write with ``If-None-Match: *``: ``False`` when the key already exists.

        Large objects go up in parts with the condition on the completing request, so the writer
        role's policy (every object creation must carry ``If-None-Match``) holds for them too.
        """
        from botocore.exceptions import ClientError

        with map_errors(self.uri(key)):
            try:
                if len(data) > self.options.multipart_threshold_bytes:
                    self._put_parts_if_absent(key, data)
                else:
                    self.client.put_object(
                        Bucket=self.bucket, Key=self._key(key), Body=data, IfNoneMatch="*", **self.options.put_args()
                    )
            except ClientError as exc:
                # 409: another conditional write to this key is in flight; it will win.
                if _error_code(exc) in ("PreconditionFailed", "412", "ConditionalRequestConflict", "409"):
                    return False
                raise
        return True

    def _put_parts_if_absent(self, key: str, data: bytes) -> None:
        full_key = self._key(key)
        upload_id = self.client.create_multipart_upload(Bucket=self.bucket, Key=full_key, **self.options.put_args())[
            "UploadId"
        ]
        size = max(5 * MIB, self.options.multipart_threshold_bytes // 4)
        try:
            parts = []
            for number, start in enumerate(range(0, len(data), size), start=1):
                chunk = data[start : start + size]
                etag = self.client.upload_part(
                    Bucket=self.bucket, Key=full_key, UploadId=upload_id, PartNumber=number, Body=chunk
                )["ETag"]
                parts.append({"ETag": etag, "PartNumber": number})
            self.client.complete_multipart_upload(
                Bucket=self.bucket, Key=full_key, UploadId=upload_id, MultipartUpload={"Parts": parts}, IfNoneMatch="*"
            )
        except BaseException:
            with contextlib.suppress(Exception):
                self.client.abort_multipart_upload(Bucket=self.bucket, Key=full_key, UploadId=upload_id)
            raise

    def delete(self, key: str) -> None:
        """Delete ``key``; S3 treats a missing key as deleted."""
        with map_errors(self.uri(key)):
            self.client.delete_object(Bucket=self.bucket, Key=self._key(key))

    def delete_many(self, keys: list[str]) -> None:
        """Delete many keys with one ``DeleteObjects`` request per 1,000 (compaction uses it)."""
        for start in range(0, len(keys), 1000):
            chunk = keys[start : start + 1000]
            with map_errors(self.uri(chunk[0])):
                response = self.client.delete_objects(
                    Bucket=self.bucket, Delete={"Objects": [{"Key": self._key(k)} for k in chunk], "Quiet": True}
                )
            for error in response.get("Errors", []):
                raise StoreError(
                    f"cannot delete {self.uri(self._relative(error['Key']))}: {error.get('Code')}",
                    uri=self.uri(self._relative(error["Key"])),
                )

    # -- reads ---------------------------------------------------------------------------

    def get(self, key: str) -> bytes:
        """Download the whole object; a missing key raises ``StoreError``."""
        with map_errors(self.uri(key)):
            return self.client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"].read()

    def exists(self, key: str) -> bool:
        """``HEAD`` the object."""
        from botocore.exceptions import ClientError

        with map_errors(self.uri(key)):
            try:
                self.client.head_object(Bucket=self.bucket, Key=self._key(key))
            except ClientError as exc:
                if _error_code(exc) in _MISSING_CODES:
                    return False
                raise
        return True

    def list(self, prefix: str) -> Iterator[ObjectInfo]:
        """Yield objects under ``prefix`` in key order (S3 lists in UTF-8 binary order)."""
        paginator = self.client.get_paginator("list_objects_v2")
        with map_errors(self.uri(prefix)):
            for page in paginator.paginate(Bucket=self.bucket, Prefix=self._key(prefix)):
                for item in page.get("Contents", []):
                    yield ObjectInfo(self._relative(item["Key"]), int(item["Size"]), item["LastModified"].timestamp())

    def incomplete_uploads(self) -> list[tuple[str, str, float]]:
        """Return ``(key, upload_id, started)`` for multipart uploads never completed (S3's temp files)."""
        with map_errors(self.uri("")):
            response = self.client.list_multipart_uploads(Bucket=self.bucket, Prefix=self._key(""))
        return [
            (self._relative(item["Key"]), item["UploadId"], item["Initiated"].timestamp())
            for item in response.get("Uploads", [])
        ]

    def abort_upload(self, key: str, upload_id: str) -> None:
        """Abort one incomplete multipart upload, freeing its parts."""
        with map_errors(self.uri(key)):
            self.client.abort_multipart_upload(Bucket=self.bucket, Key=self._key(key), UploadId=upload_id)

    # -- pyarrow / DuckDB ----------------------------------------------------------------

    def arrow_filesystem(self):
        """Return ``(pyarrow.fs.S3FileSystem, "bucket/prefix")`` using this store's endpoint and credentials."""
        from pyarrow import fs

        return fs.S3FileSystem(**self._arrow_args()), f"{self.bucket}/{self.prefix}".rstrip("/")

    def _arrow_args(self) -> dict[str, Any]:
        from urllib.parse import urlsplit

        args: dict[str, Any] = {
            "region": self.client.meta.region_name or "us-east-1",
            "connect_timeout": self.options.connect_timeout_s,
            "request_timeout": self.options.read_timeout_s,
        }
        endpoint = urlsplit(self.client.meta.endpoint_url)
        if not endpoint.netloc.endswith("amazonaws.com"):
            args["endpoint_override"] = endpoint.netloc
            args["scheme"] = endpoint.scheme or "https"
        credentials = self.session.get_credentials()
        if credentials is not None:
            frozen = credentials.get_frozen_credentials()
            args.update(access_key=frozen.access_key, secret_key=frozen.secret_key, session_token=frozen.token)
        else:
            args["anonymous"] = True
        return args
