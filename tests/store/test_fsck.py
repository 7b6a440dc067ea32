"""fsck finds what is wrong in a store (on both backends) and repairs what can be repaired."""

from __future__ import annotations

import boto3
import pytest

import handoff
from handoff.config import reset_settings
from handoff.store.fsck import fsck
from handoff.store.tables import encode_parquet, read_file


@pytest.fixture(autouse=True)
def fresh_recorder(spool_dir):
    """Every test starts with default settings and its own spool, and shuts its recorder down."""
    reset_settings()
    yield
    handoff.shutdown(10)
    reset_settings()


def record(store_url: str, count: int, **settings) -> str:
    """Record ``count`` handoffs into ``store_url`` and flush; return the run id."""
    handoff.configure(store=store_url, scrub=False, **settings)
    with handoff.run("fsck") as run:
        for n in range(count):
            with handoff.record("price", from_="compress") as h:
                h.input(f"brief {n} " * 20)
                h.output(f"total {n}")
    assert handoff.flush(30) is True
    return run.run_id


def keys(store, table: str) -> list[str]:
    return [info.key for info in store.list(f"{table}/")]


def test_a_freshly_written_store_is_clean(store):
    """After normal recording every ref resolves and nothing is reported."""
    record(store.url, 10)
    report = fsck(store)
    assert (report.ok, report.handoffs, report.refs, report.problems) == (True, 10, 20, [])


def test_a_missing_content_file_is_reported_for_every_ref_into_it(store):
    """Deleting a content file makes each ref into it a missing-ref problem."""
    record(store.url, 4)
    (content,) = keys(store, "content")
    store.delete(content)
    assert fsck(store).counts() == {"missing-ref": 8}


def test_a_content_file_that_does_not_decode_is_reported(store):
    """Garbage in place of a content file is a corrupt file, and its refs do not resolve."""
    record(store.url, 2)
    (content,) = keys(store, "content")
    store.put(content, b"PAR1 not really parquet")
    assert fsck(store).counts() == {"corrupt-file": 1, "missing-ref": 4}


def test_content_whose_bytes_do_not_match_their_digest_is_reported(store):
    """A content row altered after writing no longer hashes to its stored_sha256."""
    record(store.url, 3)
    (content,) = keys(store, "content")
    table = read_file(store, content)
    altered = table.set_column(table.schema.get_field_index("content"), "content", [[b"tampered"] * table.num_rows])
    store.put(content, encode_parquet(altered))
    assert fsck(store).counts() == {"digest-mismatch": 6}


def test_a_blob_that_does_not_decompress_is_reported(store):
    """Payloads above the inline limit live in blobs; a blob that is not zstd is a corrupt-blob."""
    record(store.url, 1, inline_limit_bytes=50)
    (blob,) = keys(store, "blobs")
    store.put(blob, b"not zstd")
    assert fsck(store).counts() == {"corrupt-blob": 1}


def test_duplicate_rows_are_reported_and_repair_merges_them(store):
    """A handoffs file stored twice shows as duplicates; --repair compacts the day and the store is clean."""
    record(store.url, 3)
    (digests,) = keys(store, "handoffs")
    store.put(digests.replace(".parquet", "-copy.parquet"), store.get(digests))
    found = fsck(store)
    repaired = fsck(store, repair=True, grace_s=0)
    assert (found.counts(), repaired.ok, repaired.handoffs, len(keys(store, "handoffs"))) == (
        {"duplicate": 3},
        True,
        3,
        1,
    )


def test_rows_sharing_an_id_with_different_digests_are_a_conflict_repair_keeps(local_store):
    """Two different records under one handoff id are reported as a conflict, and --repair deletes neither."""
    import pyarrow.compute as pc

    record(local_store.url, 2)
    (digests,) = keys(local_store, "handoffs")
    table = read_file(local_store, digests)
    other = table.set_column(
        table.schema.get_field_index("input_sha256"),
        "input_sha256",
        pc.binary_join_element_wise(table.column("input_sha256"), "-other", ""),
    )
    local_store.put(digests.replace(".parquet", "-child.parquet"), encode_parquet(other))
    found = fsck(local_store)
    repaired = fsck(local_store, repair=True, grace_s=0)
    rows = sum(read_file(local_store, key).num_rows for key in keys(local_store, "handoffs"))
    assert (found.counts(), repaired.counts(), rows) == ({"conflict": 2}, {"conflict": 2}, 4)
    assert [p.detail for p in repaired.problems] == [
        "2 different records share this id (digests differ); not repaired"
    ] * 2


def test_leftover_temp_files_are_reported_and_removed_by_repair(local_store):
    """A temp file left by a killed writer is reported, and repair removes it; young ones are left alone."""
    record(local_store.url, 1)
    (digests,) = keys(local_store, "handoffs")
    stray = digests.rsplit("/", 1)[0] + "/.tmp-w1-000009.parquet.ab12cd34"
    local_store.put(stray, b"half a file")
    young = fsck(local_store)
    found = fsck(local_store, temp_min_age_s=0)
    repaired = fsck(local_store, repair=True, temp_min_age_s=0)
    assert (young.ok, young.in_progress, found.counts(), repaired.ok, local_store.exists(stray)) == (
        True,
        1,
        {"temp-file": 1},
        True,
        False,
    )


def test_incomplete_multipart_uploads_are_the_s3_temp_files(s3_store, s3_bucket):
    """An S3 multipart upload never completed is reported, and repair aborts it."""
    record(s3_store.url, 1)
    boto3.client("s3").create_multipart_upload(Bucket=s3_bucket, Key="handoff/blobs/dt=2026-11-29/run_x/hf-1.in.zst")
    found = fsck(s3_store, temp_min_age_s=0)
    repaired = fsck(s3_store, repair=True, temp_min_age_s=0)
    assert (found.counts(), repaired.ok, s3_store.incomplete_uploads()) == ({"temp-file": 1}, True, [])
