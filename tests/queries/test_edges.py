"""The ``edges`` view: each parent output paired with the child input it became."""

from __future__ import annotations

from handoff.queries import connect
from handoff.queries.db import query

INCIDENT_LOSS = ["clause:7.2(b)", "qualifier:base is the rebated subtotal", "qualifier:per 7.2(b)"]


def test_every_edge_of_the_incident_run_is_a_row(demo):
    """An on-call engineer sees one row per parent → child edge, with digests compared."""
    rows = query(
        connect(demo.store),
        "SELECT parent_handoff_id, handoff_id, from_step, to_step, digests_equal, lost, gained FROM edges "
        "WHERE run_id = ? ORDER BY seq, parent_handoff_id",
        [demo.incident],
    )
    assert [tuple(row.values()) for row in rows] == [
        ("hf-1", "hf-2", "extract", "validate", False, [], []),
        ("hf-2", "hf-3", "validate", "orchestrator.compress_v3", True, [], []),
        ("hf-3", "hf-4", "orchestrator.compress_v3", "price", False, [], []),
        ("hf-4", "hf-5", "price", "write", True, [], []),
        # The verifier's prompt holds the brief and the pricing: an edge from each, nothing lost, and
        # each edge gains what the other parent brought.
        (
            "hf-3",
            "hf-6",
            "orchestrator.compress_v3",
            "verify",
            False,
            [],
            [
                "number:155660",
                "number:15652",
                "number:16340",
                "number:171312",
                "number:172000",
            ],
        ),
        (
            "hf-4",
            "hf-6",
            "price",
            "verify",
            False,
            [],
            [
                "clause:7.2",
                "id:INV-88214",
                "money:USD172000.00",
                "number:3",
                "number:340",
                "percent:9.1",
                "percent:9.5",
            ],
        ),
    ]


def test_size_and_token_ratios_are_child_input_over_parent_output(demo):
    """The ratios compare what the child received with what the parent produced."""
    row = query(
        connect(demo.store),
        "SELECT e.size_ratio, e.token_ratio, p.output_bytes, c.input_bytes, p.output_tokens, c.input_tokens "
        "FROM edges e JOIN handoffs p ON p.run_id = e.run_id AND p.handoff_id = e.parent_handoff_id "
        "JOIN handoffs c ON c.run_id = e.run_id AND c.handoff_id = e.handoff_id "
        "WHERE e.run_id = ? AND e.handoff_id = 'hf-4'",
        [demo.incident],
    )[0]
    assert row["size_ratio"] == row["input_bytes"] / row["output_bytes"]
    assert row["token_ratio"] == row["input_tokens"] / row["output_tokens"]


def _edge_store(tmp_path, child_tokens):
    from datetime import datetime, timezone

    from handoff.store import open_store
    from handoff.store.tables import to_table, write_table

    ts = datetime(2026, 3, 11, 9, 0, tzinfo=timezone.utc)
    common = {"run_id": "run_x", "ts": ts, "status": "ok", "input_bytes": 100, "output_bytes": 100, "tier": "digest"}
    rows = [
        {
            **common,
            "handoff_id": "hf-1",
            "seq": 1,
            "from_step": "a",
            "to_step": "b",
            "kind": "agent",
            "output_constraints": ["percent:9.1", "clause:7.2(b)"],
            "output_sha256": "aa",
        },
        {
            **common,
            "handoff_id": "hf-2",
            "seq": 2,
            "from_step": "b",
            "to_step": "c",
            "kind": "agent",
            "parent_handoff_id": "hf-1",
            "input_constraints": child_tokens,
            "input_sha256": "bb",
            "input_bytes": 40,
        },
    ]
    store = open_store(str(tmp_path / "store"))
    write_table(store, "handoffs", "2026-03-11", "t", 0, to_table("handoffs", rows))
    return store


def test_lost_and_gained_compare_parent_output_with_child_input(tmp_path):
    """A loss between two steps shows in ``lost`` from digest rows alone, with no content stored."""
    con = connect(_edge_store(tmp_path, ["percent:9.1", "date:2026-03-11"]))
    rows = query(con, "SELECT from_step, to_step, lost, gained, digests_equal, size_ratio, tier FROM edges")
    assert rows == [
        {
            "from_step": "b",
            "to_step": "c",
            "lost": ["clause:7.2(b)"],
            "gained": ["date:2026-03-11"],
            "digests_equal": False,
            "size_ratio": 0.4,
            "tier": "digest",
        }
    ]


def test_a_loss_inside_a_transform_is_not_an_edge_loss(population):
    """The compressor's own loss is checked inside the step; the edges around it stay clean."""
    con = connect(population.root)
    assert query(con, "SELECT count(*) AS n FROM edges WHERE len(lost) > 0") == [{"n": 0}]
    lost = query(
        con,
        "SELECT list_sort(list_filter(input_constraints, lambda t: NOT list_contains(output_constraints, t))) AS lost "
        "FROM handoffs WHERE run_id = ? AND handoff_id = 'hf-3'",
        [population.planted[0]],
    )
    assert lost == [{"lost": INCIDENT_LOSS}]


def test_a_window_keeps_edges_whose_parent_ran_the_day_before(tmp_path):
    """A run crossing midnight keeps its edge in a scan of the new day, parent in yesterday's partition."""
    from datetime import datetime, timedelta, timezone

    from handoff.queries.checks import run_checks
    from handoff.store import open_store
    from handoff.store.tables import to_table, write_table

    midnight = datetime(2026, 3, 12, tzinfo=timezone.utc)
    common = {"run_id": "run_m", "status": "ok", "input_bytes": 10, "output_bytes": 10, "tier": "full", "kind": "agent"}
    parent = {
        **common,
        "handoff_id": "hf-1",
        "seq": 1,
        "to_step": "a",
        "ts": midnight - timedelta(seconds=1),
        "output_constraints": ["percent:9.1"],
    }
    child = {
        **common,
        "handoff_id": "hf-2",
        "seq": 2,
        "to_step": "b",
        "ts": midnight + timedelta(seconds=1),
        "parent_handoff_id": "hf-1",
        "input_constraints": [],
    }
    store = open_store(str(tmp_path / "store"))
    write_table(store, "handoffs", "2026-03-11", "t", 0, to_table("handoffs", [parent]))
    write_table(store, "handoffs", "2026-03-12", "t", 0, to_table("handoffs", [child]))
    results = run_checks(connect(store), since=timedelta(hours=1), now=midnight + timedelta(minutes=30))
    assert [
        (r.handoff_id, r.parent_handoff_id, r.status, r.lost) for r in results if r.check == "edge-constraints"
    ] == [("hf-2", "hf-1", "fail", ("percent:9.1",))]
