"""The ObjectStore contract, run on every backend (a local directory and S3 over HTTP via moto)."""

from __future__ import annotations

import threading

import pyarrow as pa
import pytest

from handoff.errors import StoreError
from handoff.queries import connect, query
from handoff.store.tables import encode_parquet, read_file, to_table


def test_put_then_get_returns_the_same_bytes(store):
    """What is put under a key comes back byte for byte."""
    store.put("handoffs/dt=2026-11-29/w1-000001.parquet", b"\x00payload\xff")
    assert store.get("handoffs/dt=2026-11-29/w1-000001.parquet") == b"\x00payload\xff"


def test_put_replaces_an_existing_object(store):
    """A second put under the same key leaves the second bytes (retried uploads are harmless)."""
    store.put("a/b", b"one")
    store.put("a/b", b"two")
    assert store.get("a/b") == b"two"


def test_get_of_a_missing_key_raises_store_error_naming_it(store):
    """Reading a key that is not there raises StoreError carrying where the object would be."""
    with pytest.raises(StoreError) as caught:
        store.get("nothing/here")
    assert caught.value.uri.endswith(
        "/handoff/nothing/here" if store.url.startswith("s3://") else "/store/nothing/here"
    )


def test_exists_tells_stored_from_missing(store):
    """exists() is true only for stored keys."""
    store.put("x/y.parquet", b"1")
    assert (store.exists("x/y.parquet"), store.exists("x/z.parquet")) == (True, False)


def test_list_yields_keys_under_a_prefix_in_key_order_with_sizes(store):
    """list(prefix) yields only that prefix's objects, sorted by key, with their sizes."""
    for key in ("t/dt=2026-11-02/b", "t/dt=2026-11-01/a", "t/dt=2026-11-02/a", "u/dt=2026-11-01/a"):
        store.put(key, key.encode())
    listed = [(info.key, info.size) for info in store.list("t/")]
    assert listed == [("t/dt=2026-11-01/a", 17), ("t/dt=2026-11-02/a", 17), ("t/dt=2026-11-02/b", 17)]


def test_list_of_an_empty_prefix_yields_nothing(store):
    """Listing a prefix with no objects is empty, not an error."""
    assert list(store.list("handoffs/")) == []


def test_delete_removes_and_deleting_a_missing_key_is_fine(store):
    """delete() removes the object; deleting it again does not raise."""
    store.put("d/e", b"1")
    store.delete("d/e")
    store.delete("d/e")
    assert store.exists("d/e") is False


def test_put_if_absent_stores_once_and_refuses_the_second(store):
    """put_if_absent stores the first time and returns False, leaving the first bytes, the second."""
    assert store.put_if_absent("locks/retention", b"first") is True
    assert store.put_if_absent("locks/retention", b"second") is False
    assert store.get("locks/retention") == b"first"


def test_put_if_absent_has_exactly_one_winner_among_racing_threads(store):
    """Of eight concurrent callers exactly one acquires the key."""
    results: list[bool] = []
    barrier = threading.Barrier(8)

    def attempt(n: int) -> None:
        barrier.wait()
        results.append(store.put_if_absent("locks/race", str(n).encode()))

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 7 + [True]


def test_uri_names_the_object_under_the_store_url(store):
    """uri(key) is the store URL plus the key, for messages."""
    assert store.uri("handoffs/dt=2026-11-29/f.parquet") == store.url + "/handoffs/dt=2026-11-29/f.parquet"


def test_parquet_written_through_the_store_reads_back(store):
    """A table encoded and put through the store decodes to the same rows."""
    rows = [{"run_id": "run_1", "name": "invoice", "status": "ok", "attributes": {"invoice": "INV-88214"}}]
    store.put("runs/dt=2026-11-29/w1-000001.parquet", encode_parquet(to_table("runs", rows)))
    table = read_file(store, "runs/dt=2026-11-29/w1-000001.parquet", columns=["run_id", "name", "status"])
    assert table.to_pylist() == [{"run_id": "run_1", "name": "invoice", "status": "ok"}]


def test_query_views_read_the_store_through_its_filesystem(store):
    """DuckDB views over either backend see the rows written through it, with the day partition."""
    rows = [{"run_id": f"run_{n}", "name": "invoice", "status": "ok"} for n in range(3)]
    store.put("runs/dt=2026-11-28/w1-000001.parquet", encode_parquet(to_table("runs", rows[:2])))
    store.put("runs/dt=2026-11-29/w1-000002.parquet", encode_parquet(to_table("runs", rows[2:])))
    con = connect(store)
    found = query(con, "SELECT run_id, CAST(dt AS VARCHAR) AS dt FROM runs ORDER BY run_id")
    assert found == [
        {"run_id": "run_0", "dt": "2026-11-28"},
        {"run_id": "run_1", "dt": "2026-11-28"},
        {"run_id": "run_2", "dt": "2026-11-29"},
    ]


def test_arrow_filesystem_reads_what_put_wrote(store):
    """The pyarrow filesystem a store hands out reads the same objects at base/key."""
    store.put("content/dt=2026-11-29/blob", b"abc")
    filesystem, base = store.arrow_filesystem()
    with filesystem.open_input_stream(f"{base}/content/dt=2026-11-29/blob") as stream:
        assert stream.read() == b"abc"


def test_empty_store_has_empty_views(store):
    """Views over a store with nothing in it are empty, not errors."""
    con = connect(store)
    assert query(con, "SELECT count(*) AS n FROM handoffs") == [{"n": 0}]


def test_large_object_round_trips(store):
    """An object of several MiB is stored and read back intact."""
    data = pa.py_buffer(bytes(range(256)) * 40_000).to_pybytes()
    store.put("blobs/dt=2026-11-29/run_1/hf-1.in.zst", data)
    assert store.get("blobs/dt=2026-11-29/run_1/hf-1.in.zst") == data
