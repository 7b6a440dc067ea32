"""The deployment kit in ``deploy/``: every file parses, the pieces agree with each other, and
the IAM policies grant exactly what each role needs on a real S3 API server with IAM enforced.

moto evaluates actions and resources of identity policies but not their ``Condition`` blocks,
so the ``s3:prefix`` condition on ``ListBucket`` is checked structurally here, not on the server.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml
from botocore.exceptions import ClientError

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
BUCKET = "handoff"
PREFIX = "traces"
OBJECT_ARN = "arn:aws:s3:::${HANDOFF_BUCKET}/${HANDOFF_PREFIX}/*"
BUCKET_ARN = "arn:aws:s3:::${HANDOFF_BUCKET}"
LIST_CONDITION = {"StringLike": {"s3:prefix": ["${HANDOFF_PREFIX}/*"]}}
EXIT_CODES = {0: "done", 1: "error", 2: "lock held by another job", 3: "partial"}
KIT_FILES = {
    "Dockerfile",
    "Dockerfile.dockerignore",
    "README.md",
    "compose.yaml",
    "crontab",
    "iam/annotator.json",
    "iam/reader.json",
    "iam/retention.json",
    "iam/writer.json",
    "k8s/cronjob.yaml",
    "otel/collector.yaml",
    "s3/lifecycle.json",
    "sql/athena.sql",
    "sql/spark.sql",
    "sql/trino.sql",
}


def _text(name: str) -> str:
    return (DEPLOY / name).read_text(encoding="utf-8")


def _yaml(name: str) -> Any:
    return yaml.safe_load(_text(name))


def _render(name: str, bucket: str = BUCKET, prefix: str = PREFIX) -> str:
    """Fill a template's placeholders the way the README's ``envsubst`` line does."""
    return _text(name).replace("${HANDOFF_BUCKET}", bucket).replace("${HANDOFF_PREFIX}", prefix)


def _placeholders(name: str) -> set[str]:
    return set(re.findall(r"\$\{([^}]+)\}", _text(name)))


def _statements(name: str) -> dict[str, dict[str, Any]]:
    return {statement["Sid"]: statement for statement in json.loads(_text(name))["Statement"]}


def _cron_entries() -> list[str]:
    lines = _text("crontab").splitlines()
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def _error_code(call: Callable[[], Any]) -> str:
    """Run an S3 call and return ``"ok"`` or the error code the server answered with."""
    try:
        call()
    except ClientError as exc:
        return exc.response["Error"]["Code"]
    return "ok"


# ---------------------------------------------------------------- every file parses


def test_kit_holds_exactly_the_documented_files():
    """Every file in deploy/ is one this suite validates, so nothing ships unchecked."""
    shipped = {str(p.relative_to(DEPLOY)) for p in DEPLOY.rglob("*") if p.is_file()}
    assert shipped == KIT_FILES


@pytest.mark.parametrize(
    "name", ["iam/writer.json", "iam/reader.json", "iam/annotator.json", "iam/retention.json", "s3/lifecycle.json"]
)
def test_json_templates_parse_before_and_after_rendering(name):
    """The JSON templates are valid JSON as shipped and once the bucket and prefix are filled in."""
    json.loads(_text(name))
    rendered = _render(name)
    assert "${" not in rendered
    json.loads(rendered)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("iam/writer.json", {"HANDOFF_BUCKET", "HANDOFF_PREFIX"}),
        ("iam/reader.json", {"HANDOFF_BUCKET", "HANDOFF_PREFIX"}),
        ("iam/annotator.json", {"HANDOFF_BUCKET", "HANDOFF_PREFIX"}),
        ("iam/retention.json", {"HANDOFF_BUCKET", "HANDOFF_PREFIX"}),
        ("s3/lifecycle.json", {"HANDOFF_PREFIX"}),
    ],
)
def test_templates_use_only_the_documented_placeholders(name, expected):
    """A platform engineer renders every template with just HANDOFF_BUCKET and HANDOFF_PREFIX."""
    assert _placeholders(name) == expected


@pytest.mark.parametrize("name", ["compose.yaml", "k8s/cronjob.yaml", "otel/collector.yaml"])
def test_yaml_files_parse_to_mappings(name):
    """Each YAML file is a single well-formed YAML mapping."""
    assert isinstance(_yaml(name), dict)


# ---------------------------------------------------------------- IAM policy documents


WRITER_KEYS = [
    f"arn:aws:s3:::${{HANDOFF_BUCKET}}/${{HANDOFF_PREFIX}}/{t}/dt=*/*.parquet"
    for t in ("handoffs", "content", "runs", "events", "checks")
] + ["arn:aws:s3:::${HANDOFF_BUCKET}/${HANDOFF_PREFIX}/blobs/dt=*/*.zst"]
IF_NONE_MATCH = {"Null": {"s3:if-none-match": "false"}}
PARTS_ONLY = {"Bool": {"s3:ObjectCreationOperation": "false"}}


def test_writer_policy_only_creates_new_objects_under_its_key_patterns():
    """Every object creation the writer may make carries If-None-Match (no overwrite), under its own key patterns only.

    moto does not evaluate Condition blocks, so the conditions are checked here by reading the policy.
    """
    statements = _statements("iam/writer.json")
    create, parts, abort = (
        statements["HandoffWriterCreatesOnlyNewObjects"],
        statements["HandoffWriterUploadsParts"],
        statements["HandoffWriterAbortsItsUploads"],
    )
    assert (create["Effect"], create["Action"], create["Resource"], create["Condition"]) == (
        "Allow",
        "s3:PutObject",
        WRITER_KEYS,
        IF_NONE_MATCH,
    )
    assert (parts["Action"], parts["Resource"], parts["Condition"]) == ("s3:PutObject", WRITER_KEYS, PARTS_ONLY)
    assert (abort["Action"], abort["Resource"], "Condition" in abort) == ("s3:AbortMultipartUpload", WRITER_KEYS, False)
    assert len(statements) == 3
    assert not any(
        "Get" in str(st["Action"]) or "Delete" in str(st["Action"]) or "List" in str(st["Action"])
        for st in statements.values()
    )


def test_annotator_policy_reads_and_creates_annotations_only():
    """The annotator (pin/unpin) reads and lists the prefix and only creates new annotation files."""
    statements = _statements("iam/annotator.json")
    create = statements["HandoffAnnotatorCreatesAnnotations"]
    assert (create["Action"], create["Resource"], create["Condition"]) == (
        "s3:PutObject",
        ["arn:aws:s3:::${HANDOFF_BUCKET}/${HANDOFF_PREFIX}/annotations/dt=*/*.parquet"],
        IF_NONE_MATCH,
    )
    assert statements["HandoffAnnotatorListsUnderPrefix"]["Condition"] == LIST_CONDITION
    assert statements["HandoffAnnotatorReadsUnderPrefix"]["Action"] == "s3:GetObject"
    assert len(statements) == 3


def test_reader_policy_grants_get_and_prefix_scoped_list():
    """The reader role can get objects and list keys, both limited to the prefix."""
    statements = _statements("iam/reader.json")
    get, listing = statements["HandoffReaderGetUnderPrefix"], statements["HandoffReaderListUnderPrefix"]
    assert (get["Effect"], get["Action"], get["Resource"]) == ("Allow", "s3:GetObject", OBJECT_ARN)
    assert (listing["Action"], listing["Resource"], listing["Condition"]) == (
        "s3:ListBucket",
        BUCKET_ARN,
        LIST_CONDITION,
    )
    assert len(statements) == 2


def test_retention_policy_grants_rewrite_and_delete_under_prefix():
    """The retention role can get, put, delete and list under the prefix, and nothing else."""
    statements = _statements("iam/retention.json")
    rewrite = statements["HandoffRetentionRewriteUnderPrefix"]
    listing = statements["HandoffRetentionListUnderPrefix"]
    assert rewrite["Action"] == ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"]
    assert rewrite["Resource"] == OBJECT_ARN
    assert (listing["Action"], listing["Resource"], listing["Condition"]) == (
        "s3:ListBucket",
        BUCKET_ARN,
        LIST_CONDITION,
    )
    assert len(statements) == 2


# ---------------------------------------------------------------- IAM enforced on a real server

SEED = {
    f"{PREFIX}/handoffs/dt=2026-11-01/w-1.parquet": b"digest rows",
    f"{PREFIX}/content/dt=2026-10-01/w-1.parquet": b"scrubbed content",
    "other/handoffs/dt=2026-11-01/w-1.parquet": b"another team's data",
    f"{PREFIX}-archive/handoffs/dt=2026-11-01/w-1.parquet": b"a sibling prefix",
}
FOREIGN_KEYS = ["other/handoffs/dt=2026-11-01/w-1.parquet", f"{PREFIX}-archive/handoffs/dt=2026-11-01/w-1.parquet"]


@pytest.fixture(scope="module")
def s3_roles(authorized_s3):
    """The bucket seeded with objects, and an S3 client per role signed with that role's policy."""
    admin = authorized_s3.client("s3")
    admin.create_bucket(Bucket=BUCKET)
    for key, body in SEED.items():
        admin.put_object(Bucket=BUCKET, Key=key, Body=body)
    clients = {"admin": admin}
    for role in ("writer", "reader", "annotator", "retention"):
        credentials = authorized_s3.create_user(f"handoff-{role}", _render(f"iam/{role}.json"))
        clients[role] = authorized_s3.client("s3", credentials)
        clients[f"{role}-credentials"] = credentials
    return clients


def _put(client, key: str, body: bytes = b"x") -> Callable[[], Any]:
    return lambda: client.put_object(Bucket=BUCKET, Key=key, Body=body)


def _create(client, key: str, body: bytes = b"x") -> Callable[[], Any]:
    return lambda: client.put_object(Bucket=BUCKET, Key=key, Body=body, IfNoneMatch="*")


def _get(client, key: str) -> Callable[[], Any]:
    return lambda: client.get_object(Bucket=BUCKET, Key=key)["Body"].read()


def _delete(client, key: str) -> Callable[[], Any]:
    return lambda: client.delete_object(Bucket=BUCKET, Key=key)


def _list(client, prefix: str) -> Callable[[], Any]:
    return lambda: client.list_objects_v2(Bucket=BUCKET, Prefix=prefix)


def test_writer_can_create_table_content_and_blob_objects(s3_roles):
    """The writer role creates digest, content, run, event, check and blob objects that then hold exactly its bytes."""
    writer, admin = s3_roles["writer"], s3_roles["admin"]
    keys = [
        f"{PREFIX}/handoffs/dt=2026-11-29/w-7.parquet",
        f"{PREFIX}/content/dt=2026-11-29/w-7.parquet",
        f"{PREFIX}/runs/dt=2026-11-29/w-7.parquet",
        f"{PREFIX}/events/dt=2026-11-29/w-7.parquet",
        f"{PREFIX}/checks/dt=2026-11-29/w-7.parquet",
        f"{PREFIX}/blobs/dt=2026-11-29/run_01J/hf-3.in.zst",
    ]
    assert [_error_code(_create(writer, key, key.encode())) for key in keys] == ["ok"] * 6
    assert [admin.get_object(Bucket=BUCKET, Key=key)["Body"].read() for key in keys] == [k.encode() for k in keys]


@pytest.mark.parametrize(
    "key",
    [
        "handoffs/evil.json",
        "handoffs/notes.parquet",
        "handoffs/dt=2026-11-29/w-1.json",
        "annotations/dt=2026-11-29/pin-1.parquet",
        "_locks/retention",
        "_retention/state.json",
        "_quarantine/handoffs/dt=2026-11-29/w-1.parquet",
        "anything.txt",
    ],
)
def test_writer_cannot_create_keys_outside_its_patterns(s3_roles, key):
    """A writer key cannot drop an arbitrary object under the prefix (one that would break every reader)."""
    assert _error_code(_create(s3_roles["writer"], f"{PREFIX}/{key}")) == "AccessDenied"


def test_writer_cannot_overwrite_an_existing_digest_file(s3_roles, authorized_s3, monkeypatch):
    """Handoff's writer creates with If-None-Match: an existing handoffs file stays as it was."""
    from handoff.store.s3 import S3ObjectStore

    key = "handoffs/dt=2026-11-01/w-1.parquet"
    store = _role_store(s3_roles, authorized_s3, monkeypatch, "writer")
    assert store.put_if_absent(key, b"overwritten") is False
    assert s3_roles["admin"].get_object(Bucket=BUCKET, Key=f"{PREFIX}/{key}")["Body"].read() == b"digest rows"
    assert isinstance(store, S3ObjectStore)


def _role_store(s3_roles, authorized_s3, monkeypatch, role: str):
    """A handoff S3ObjectStore at s3://handoff/traces signed with ``role``'s credentials."""
    import boto3

    from handoff.store.s3 import S3ObjectStore

    monkeypatch.setenv("AWS_ENDPOINT_URL", authorized_s3.endpoint_url)
    credentials = s3_roles[f"{role}-credentials"]
    session = boto3.session.Session(
        aws_access_key_id=credentials.access_key_id,
        aws_secret_access_key=credentials.secret_access_key,
        region_name="us-east-1",
    )
    return S3ObjectStore(BUCKET, PREFIX, session=session)


def test_the_recorder_writes_a_run_with_the_writer_role_alone(s3_roles, authorized_s3, monkeypatch):
    """Handoff's real store exporter, signed as the writer role, stores a run's content, digests and run row."""
    from tests.retention._data import write_run

    store = _role_store(s3_roles, authorized_s3, monkeypatch, "writer")
    run_id = write_run(store, 0)
    listed = s3_roles["admin"].list_objects_v2(Bucket=BUCKET, Prefix=f"{PREFIX}/runs/")["Contents"]
    assert run_id and sorted({obj["Key"].split("/")[1] for obj in listed}) == ["runs"]


def test_the_store_exporter_never_overwrites_what_is_stored(s3_roles, authorized_s3, monkeypatch):
    """Re-sending a batch whose key exists (a retry, or a forged collision) leaves the stored bytes as they were."""
    from handoff.exporters.store_exporter import StoreExporter
    from handoff.store.base import PendingObject

    key = "handoffs/dt=2026-11-01/w-1.parquet"
    exporter = StoreExporter(_role_store(s3_roles, authorized_s3, monkeypatch, "writer"), writer="w-retry")
    try:
        exporter.write([PendingObject(key, b"a different body")])
    finally:
        exporter.shutdown()
    assert s3_roles["admin"].get_object(Bucket=BUCKET, Key=f"{PREFIX}/{key}")["Body"].read() == b"digest rows"


@pytest.mark.parametrize(
    ("role", "allowed"), [("annotator", True), ("retention", True), ("writer", False), ("reader", False)]
)
def test_an_annotator_or_the_retention_role_can_pin(s3_roles, authorized_s3, monkeypatch, role, allowed):
    """`pin` (an append-only annotation) works for the annotator and retention roles, and is refused for the others."""
    from handoff.errors import StoreError
    from handoff.retention.pins import pin, pin_history, pinned_runs
    from tests.retention._data import write_run

    admin_store = _role_store({"admin-credentials": authorized_s3.admin}, authorized_s3, monkeypatch, "admin")
    run_id = write_run(admin_store, 0)
    store = _role_store(s3_roles, authorized_s3, monkeypatch, role)
    if allowed:
        pin(store, run_id, reason="INV-88214 incident", by="oncall")
        assert run_id in pinned_runs(admin_store, pin_history(admin_store))
    else:
        with pytest.raises(StoreError, match="AccessDenied"):
            pin(store, run_id, reason="INV-88214 incident", by="oncall")
        assert run_id not in pinned_runs(admin_store, pin_history(admin_store))


def test_writer_can_start_and_abort_a_multipart_upload(s3_roles):
    """The writer role can clean up a multipart upload it could not finish."""
    writer = s3_roles["writer"]
    key = f"{PREFIX}/blobs/dt=2026-11-29/run_01J/hf-9.out.zst"
    upload_id = writer.create_multipart_upload(Bucket=BUCKET, Key=key)["UploadId"]
    writer.abort_multipart_upload(Bucket=BUCKET, Key=key, UploadId=upload_id)
    pending = s3_roles["admin"].list_multipart_uploads(Bucket=BUCKET, Prefix=key)
    assert pending.get("Uploads", []) == []


def test_writer_can_upload_a_large_blob_in_parts(s3_roles, authorized_s3, monkeypatch):
    """A payload above the multipart threshold goes up in parts, the completing request conditional, with the writer role."""
    from handoff.store.s3 import MIB, S3ObjectStore, S3Options

    admin = s3_roles["admin"]
    role_store = _role_store(s3_roles, authorized_s3, monkeypatch, "writer")
    store = S3ObjectStore(
        BUCKET, PREFIX, session=role_store.session, options=S3Options(multipart_threshold_bytes=5 * MIB)
    )
    key = "blobs/dt=2026-11-29/run_01J/hf-4.out.zst"
    payload = bytes(range(256)) * (9 * 4096)  # 9 MiB: two parts at a 5 MiB part size
    assert (store.put_if_absent(key, payload), store.put_if_absent(key, b"again")) == (True, False)
    stored = admin.get_object(Bucket=BUCKET, Key=f"{PREFIX}/{key}")
    assert (stored["Body"].read() == payload, stored["ETag"].endswith('-2"')) == (True, True)


def test_writer_cannot_read_list_or_delete(s3_roles):
    """A leaked writer key can neither read traces back nor destroy them."""
    writer = s3_roles["writer"]
    key = f"{PREFIX}/handoffs/dt=2026-11-01/w-1.parquet"
    codes = [_error_code(call) for call in (_get(writer, key), _list(writer, f"{PREFIX}/"), _delete(writer, key))]
    assert codes == ["AccessDenied"] * 3
    assert s3_roles["admin"].get_object(Bucket=BUCKET, Key=key)["Body"].read() == b"digest rows"


def test_writer_cannot_forge_the_retention_lock_or_reports(s3_roles):
    """Application writers cannot take the retention job's lock or overwrite its reports."""
    writer = s3_roles["writer"]
    keys = [f"{PREFIX}/_locks/retention.lock", f"{PREFIX}/_retention/2026-11-29T03-17-00Z.json"]
    assert [_error_code(_put(writer, key)) for key in keys] == ["AccessDenied"] * 2


def test_reader_can_get_and_list_under_the_prefix(s3_roles):
    """An on-call reader can list the day partitions and read every object under the prefix."""
    reader = s3_roles["reader"]
    listed = reader.list_objects_v2(Bucket=BUCKET, Prefix=f"{PREFIX}/handoffs/dt=2026-11-01/")
    assert [obj["Key"] for obj in listed["Contents"]] == [f"{PREFIX}/handoffs/dt=2026-11-01/w-1.parquet"]
    body = reader.get_object(Bucket=BUCKET, Key=f"{PREFIX}/content/dt=2026-10-01/w-1.parquet")["Body"].read()
    assert body == b"scrubbed content"


def test_reader_cannot_put_or_delete(s3_roles):
    """A reader cannot change or remove what it investigates."""
    reader = s3_roles["reader"]
    key = f"{PREFIX}/content/dt=2026-10-01/w-1.parquet"
    assert [_error_code(_put(reader, key)), _error_code(_delete(reader, key))] == ["AccessDenied"] * 2
    assert s3_roles["admin"].get_object(Bucket=BUCKET, Key=key)["Body"].read() == b"scrubbed content"


def test_retention_can_rewrite_a_partition_and_delete_expired_content(s3_roles):
    """The retention job reads a day, writes its digest-tier rewrite and deletes the expired content file."""
    retention, admin = s3_roles["retention"], s3_roles["admin"]
    day = f"{PREFIX}/handoffs/dt=2026-09-01/w-1.parquet"
    content = f"{PREFIX}/content/dt=2026-09-01/w-1.parquet"
    admin.put_object(Bucket=BUCKET, Key=day, Body=b"full tier")
    admin.put_object(Bucket=BUCKET, Key=content, Body=b"old content")
    assert retention.get_object(Bucket=BUCKET, Key=day)["Body"].read() == b"full tier"
    assert _error_code(_put(retention, day, b"digest tier")) == "ok"
    assert _error_code(_delete(retention, content)) == "ok"
    remaining = admin.list_objects_v2(Bucket=BUCKET, Prefix=f"{PREFIX}/content/dt=2026-09-01/")
    assert (admin.get_object(Bucket=BUCKET, Key=day)["Body"].read(), remaining["KeyCount"]) == (b"digest tier", 0)


def test_retention_can_take_its_lock_and_write_its_report(s3_roles):
    """The retention job can write the lock object and its report, and remove the lock when done."""
    retention = s3_roles["retention"]
    lock = f"{PREFIX}/_locks/retention.lock"
    calls = [_put(retention, lock), _put(retention, f"{PREFIX}/_retention/report.json"), _delete(retention, lock)]
    assert [_error_code(call) for call in calls] == ["ok"] * 3


@pytest.mark.parametrize("role", ["writer", "reader", "annotator", "retention"])
@pytest.mark.parametrize("key", FOREIGN_KEYS)
def test_no_role_touches_another_prefix(s3_roles, role, key):
    """Trace credentials cannot read, write or delete objects outside the trace prefix, even a sibling one."""
    client = s3_roles[role]
    codes = [_error_code(call) for call in (_put(client, key), _get(client, key), _delete(client, key))]
    assert codes == ["AccessDenied"] * 3
    assert s3_roles["admin"].get_object(Bucket=BUCKET, Key=key)["Body"].read() == SEED[key]


def test_unknown_access_key_is_refused(authorized_s3, s3_roles):
    """Requests signed with a key the server never issued are refused (authorization is really on)."""
    never_issued = dataclasses.replace(authorized_s3.admin, access_key_id="AKIAUNKNOWN000000000")
    stranger = authorized_s3.client("s3", never_issued)
    assert _error_code(_get(stranger, f"{PREFIX}/handoffs/dt=2026-11-01/w-1.parquet")) == "InvalidAccessKeyId"


# ---------------------------------------------------------------- S3 lifecycle backstop


def _rules() -> dict[str, dict[str, Any]]:
    return {rule["ID"]: rule for rule in json.loads(_render("s3/lifecycle.json"))["Rules"]}


def test_lifecycle_expires_content_and_blobs_five_days_after_the_tier():
    """Content and large payloads are expired by S3 at day 35, five days after the 30-day tier."""
    rules = _rules()
    expiring = {r["Filter"]["Prefix"]: r["Expiration"]["Days"] for r in rules.values() if "Expiration" in r}
    assert expiring == {f"{PREFIX}/content/": 35, f"{PREFIX}/blobs/": 35}
    assert all(rule["Status"] == "Enabled" for rule in rules.values())


def test_lifecycle_never_expires_digest_rows():
    """No lifecycle rule deletes the 12-month digest table under handoffs/."""
    digest_key = f"{PREFIX}/handoffs/dt=2026-01-01/w-1.parquet"
    covering = [rule for rule in _rules().values() if digest_key.startswith(rule["Filter"]["Prefix"])]
    assert [sorted(rule) for rule in covering] == [["AbortIncompleteMultipartUpload", "Filter", "ID", "Status"]]


def test_lifecycle_aborts_incomplete_uploads_after_one_day():
    """Parts of uploads a crashed writer never finished stop costing money after a day."""
    rule = _rules()["handoff-abort-incomplete-uploads-1d"]
    assert rule["Filter"] == {"Prefix": f"{PREFIX}/"}
    assert rule["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 1}


def test_lifecycle_is_accepted_by_an_s3_api(s3_roles):
    """The rendered lifecycle configuration is accepted by PutBucketLifecycleConfiguration and reads back."""
    admin = s3_roles["admin"]
    configuration = json.loads(_render("s3/lifecycle.json"))
    admin.put_bucket_lifecycle_configuration(Bucket=BUCKET, LifecycleConfiguration=configuration)
    stored = admin.get_bucket_lifecycle_configuration(Bucket=BUCKET)["Rules"]
    assert {r["ID"]: r.get("Expiration", {}).get("Days") for r in stored} == {
        "handoff-content-backstop-35d": 35,
        "handoff-blobs-backstop-35d": 35,
        "handoff-abort-incomplete-uploads-1d": None,
    }


# ---------------------------------------------------------------- cron and Kubernetes

CRON_RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]


def test_crontab_holds_one_daily_entry_at_0317():
    """The crontab installs exactly one entry, daily at 03:17."""
    entries = _cron_entries()
    assert len(entries) == 1
    fields = entries[0].split()[:5]
    assert fields == ["17", "3", "*", "*", "*"]
    assert "%" not in entries[0]  # cron turns an unescaped % into a newline
    for field, (low, high) in zip(fields, CRON_RANGES):
        assert field == "*" or low <= int(field) <= high


def test_crontab_entry_runs_apply_under_flock_with_the_store():
    """The cron entry sets HANDOFF_STORE, holds a host lock that exits 2 when busy, and runs apply --json."""
    words = shlex.split(_cron_entries()[0].split(None, 5)[5])
    store = next(w for w in words if w.startswith("HANDOFF_STORE="))
    assert urlparse(store.split("=", 1)[1]).scheme == "s3"
    flock = words.index("flock")
    assert words[flock + 1 : flock + 4] == ["-n", "-E", "2"]
    handoff = next(i for i, w in enumerate(words) if w.endswith("/handoff"))
    assert words[handoff + 1 : handoff + 4] == ["retention", "apply", "--json"]


def _job() -> dict[str, Any]:
    return _yaml("k8s/cronjob.yaml")


def test_cronjob_has_the_required_keys():
    """The CronJob is batch/v1, runs daily at 03:17 UTC, never overlaps, retries a bounded number of times."""
    job = _job()
    spec, job_spec = job["spec"], job["spec"]["jobTemplate"]["spec"]
    assert (job["apiVersion"], job["kind"], job["metadata"]["name"]) == ("batch/v1", "CronJob", "handoff-retention")
    assert (spec["schedule"], spec["timeZone"], spec["concurrencyPolicy"]) == ("17 3 * * *", "Etc/UTC", "Forbid")
    assert spec["schedule"].split() == _cron_entries()[0].split()[:5]
    assert (job_spec["backoffLimit"], job_spec["activeDeadlineSeconds"]) == (3, 10800)


@pytest.mark.parametrize("version", ["1.29.0", "1.37.0"])
def test_cronjob_is_valid_against_the_kubernetes_schema(version):
    """The manifest passes strict Kubernetes schema validation (no unknown or misplaced fields)."""
    import kubernetes_validate

    assert kubernetes_validate.validate(_job(), version, strict=True) == version.rsplit(".", 1)[0]


def test_cronjob_runs_apply_as_non_root_with_resources_and_secret_env():
    """The retention container runs apply --json as a non-root user, with limits, env from a Secret."""
    pod = _job()["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["command"] == ["handoff", "retention", "apply", "--json"]
    assert (pod["securityContext"]["runAsNonRoot"], pod["securityContext"]["runAsUser"]) == (True, 10001)
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert set(container["resources"]) == {"requests", "limits"}
    assert all(set(container["resources"][k]) == {"cpu", "memory"} for k in ("requests", "limits"))
    assert container["envFrom"] == [{"secretRef": {"name": "handoff-retention"}}]


def test_cronjob_read_only_root_has_a_writable_tmp():
    """With a read-only root filesystem the job still has a mounted scratch volume for /tmp."""
    pod = _job()["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert mounts == {"scratch": "/tmp"}
    assert [v["name"] for v in pod["volumes"]] == ["scratch"]


def test_cronjob_does_not_retry_when_another_job_holds_the_lock():
    """Exit 2 (lock held) fails the Job at once; errors and partial runs (1, 3) are retried."""
    job_spec = _job()["spec"]["jobTemplate"]["spec"]
    pod = job_spec["template"]["spec"]
    rules = [(r["action"], r["onExitCodes"]["values"]) for r in job_spec["podFailurePolicy"]["rules"]]
    assert rules == [("FailJob", [2]), ("Count", [1, 3])]
    names = {r["onExitCodes"]["containerName"] for r in job_spec["podFailurePolicy"]["rules"]}
    assert names == {pod["containers"][0]["name"]}
    assert pod["restartPolicy"] == "Never"


# ---------------------------------------------------------------- OpenTelemetry Collector


def test_collector_pipelines_reference_defined_components():
    """Every receiver, processor, exporter and extension a pipeline names is defined in the config."""
    config = _yaml("otel/collector.yaml")
    service = config["service"]
    assert set(service["extensions"]) <= set(config["extensions"])
    for pipeline in service["pipelines"].values():
        for kind in ("receivers", "processors", "exporters"):
            assert set(pipeline[kind]) <= set(config[kind]), kind


def test_collector_receives_otlp_http_and_grpc_and_exports_to_backend_and_debug():
    """The collector takes OTLP on 4317 (gRPC) and 4318 (HTTP) and forwards to a backend and debug."""
    config = _yaml("otel/collector.yaml")
    protocols = config["receivers"]["otlp"]["protocols"]
    assert (protocols["grpc"]["endpoint"], protocols["http"]["endpoint"]) == ("0.0.0.0:4317", "0.0.0.0:4318")
    traces = config["service"]["pipelines"]["traces"]
    assert traces["exporters"] == ["otlphttp/backend", "debug"]
    assert config["exporters"]["otlphttp/backend"]["endpoint"] == "${env:HANDOFF_OTLP_BACKEND_ENDPOINT}"


def test_collector_forwards_only_spans_with_a_run_id():
    """The filter drops every span lacking handoff.run_id, after memory limiting and before batching."""
    config = _yaml("otel/collector.yaml")
    assert config["processors"]["filter/handoff_only"]["traces"]["span"] == ['attributes["handoff.run_id"] == nil']
    processors = config["service"]["pipelines"]["traces"]["processors"]
    assert processors == ["memory_limiter", "filter/handoff_only", "batch"]


# ---------------------------------------------------------------- compose demo


def _compose() -> dict[str, Any]:
    return _yaml("compose.yaml")


def _host_port(url: str) -> tuple[str, int]:
    parsed = urlparse(url)
    return parsed.hostname, parsed.port


def test_compose_file_is_valid_against_the_compose_spec():
    """compose.yaml passes the Compose Specification's JSON schema, as `docker compose config` would check."""
    command = [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec"]
    result = subprocess.run([*command, str(DEPLOY / "compose.yaml")], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout.strip()) == (0, "ok -- validation done")


def test_compose_dependencies_and_volumes_are_defined():
    """Every depends_on names a defined service, every named volume is declared, bind mounts exist."""
    compose = _compose()
    services = compose["services"]
    for service in services.values():
        assert set(service.get("depends_on", {})) <= set(services)
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).is_file(), source
            else:
                assert source in compose["volumes"], source
    assert set(services) == {"minio", "minio-init", "jaeger", "collector", "app"}


def test_compose_app_is_built_from_the_repository_and_runs_the_demo():
    """The app image builds from the repository root with deploy/Dockerfile and runs `handoff demo`."""
    app = _compose()["services"]["app"]
    build = app["build"]
    assert (build["context"], build["dockerfile"]) == ("..", "deploy/Dockerfile")
    assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    assert 'ENTRYPOINT ["handoff"]' in _text("Dockerfile")
    assert app["command"] == ["demo"]


def test_compose_app_writes_to_the_bucket_minio_init_creates():
    """The app's store, endpoint and OTLP endpoint point at services and ports the file defines."""
    services = _compose()["services"]
    env = services["app"]["environment"]
    assert (env["HANDOFF_STORE"], env["AWS_ENDPOINT_URL"]) == ("s3://handoff/traces", "http://minio:9000")
    assert "mc mb --ignore-existing demo/handoff" in services["minio-init"]["command"][0]
    assert services["app"]["depends_on"]["minio-init"] == {"condition": "service_completed_successfully"}
    assert "9000:9000" in services["minio"]["ports"]
    host, port = _host_port(env["OTEL_EXPORTER_OTLP_ENDPOINT"])
    collector_http = _yaml("otel/collector.yaml")["receivers"]["otlp"]["protocols"]["http"]["endpoint"]
    assert (host, port) == ("collector", int(collector_http.rsplit(":", 1)[1]))


def test_compose_collector_loads_the_shipped_config_and_reaches_the_backend():
    """The collector mounts deploy/otel/collector.yaml where its --config flag points, and exports to jaeger."""
    services = _compose()["services"]
    collector = services["collector"]
    (mount,) = collector["volumes"]
    source, target, mode = mount.split(":")
    assert (source, mode) == ("./otel/collector.yaml", "ro")
    assert collector["command"] == [f"--config={target}"]
    host, port = _host_port(collector["environment"]["HANDOFF_OTLP_BACKEND_ENDPOINT"])
    assert (host, port) == ("jaeger", 4318)
    assert host in services


def test_dockerfile_runs_as_non_root_and_keeps_the_venv_out_of_the_image():
    """The image's last USER is non-root and the build context excludes the venv and git history."""
    users = [line.split()[1] for line in _text("Dockerfile").splitlines() if line.startswith("USER ")]
    assert users[-1] == "10001:10001"
    assert {".git", ".venv", "tests"} <= set(_text("Dockerfile.dockerignore").splitlines())


# ---------------------------------------------------------------- README


def test_readme_names_every_file_in_the_kit():
    """The deploy README walks through every file it ships."""
    readme = _text("README.md")
    missing = [name for name in sorted(KIT_FILES - {"README.md"}) if f"deploy/{name}" not in readme]
    assert missing == []


def test_readme_states_the_exit_code_contract():
    """The README states the exit codes a cron wrapper relies on, one table row each."""
    readme = _text("README.md")
    rows = [f"| `{code}` | {meaning} |" for code, meaning in EXIT_CODES.items()]
    assert [row for row in rows if row not in readme] == []
