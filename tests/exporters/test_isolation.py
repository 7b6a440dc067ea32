"""One record that cannot be encoded never costs the rest of its batch."""

from __future__ import annotations

import handoff
from handoff.queries import connect, query
from handoff.store import open_store


def test_unencodable_records_are_kept_without_the_bad_value_and_the_batch_is_written(tmp_path, spool_dir):
    """100 good handoffs plus a recursive config and input_tokens=10**20: all 102 written, the two marked and counted."""
    store = str(tmp_path / "store")
    handoff.configure(store=store, scrub=False, max_batch=10_000, flush_interval_s=60)
    with handoff.run("isolation") as run:
        for n in range(100):
            with handoff.record("price") as h:
                h.input(f"brief {n}")
        with handoff.record("price") as h:
            config: dict = {}
            config["self"] = config
            h.config(loop=config)
            h.input("recursive config")
        with handoff.record("price") as h:
            h.usage(input_tokens=10**20, output_tokens=7)
            h.input("too many tokens")
    assert handoff.flush(30) is True
    counters = handoff.stats()
    rows = query(
        connect(open_store(store)),
        "SELECT seq, config, input_tokens, output_tokens, capture_error FROM handoffs "
        "WHERE run_id = ? AND capture_error IS NOT NULL ORDER BY seq",
        [run.run_id],
    )
    total = query(connect(open_store(store)), "SELECT count(*) AS n FROM handoffs WHERE run_id = ?", [run.run_id])
    assert (total, counters["written"], counters["dropped"], counters["encode_errors"]) == ([{"n": 102}], 104, 0, 2)
    assert rows == [
        {
            "seq": 101,
            "config": None,
            "input_tokens": 4,
            "output_tokens": None,
            "capture_error": "config not encodable: ValueError: Circular reference detected",
        },
        {
            "seq": 102,
            "config": None,
            "input_tokens": None,
            "output_tokens": 7,
            "capture_error": "not encodable, left out: input_tokens",
        },
    ]
