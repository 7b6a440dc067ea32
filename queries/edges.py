"""The ``edges`` view: each parent's output paired with the input its child received.

A handoff row describes one consumer step: what it received (``input_*``) and what it
returned (``output_*``). An edge joins a parent handoff's output to a child handoff's input
(through ``parent_handoff_id`` and every id in ``fan_in``), so a loss *between* two steps is a
row of its own. Everything in the view comes from digest rows (sizes, token counts, digests,
constraint tokens): it still answers after retention has dropped the content.

Columns: ``run_id``, ``parent_handoff_id``, ``handoff_id``, ``seq``, ``ts``, ``from_step`` (the
step that produced the output), ``to_step`` (the step that received it), ``kind`` (of the
child), ``parent_output_bytes``, ``child_input_bytes``, ``size_ratio`` (child input / parent
output), ``parent_output_tokens``, ``child_input_tokens``, ``token_ratio``, ``upstream``
and ``downstream`` (constraint tokens), ``lost`` (tokens of the parent output absent from the child
input, spelling for spelling: the ``edge-constraints`` check compares them by meaning with
:func:`~handoff.analysis.constraints.compare_constraints`), ``gained`` (the reverse; neither
lists the ``terms`` token), ``digests_equal``, ``parent_output_sha256``,
``child_input_sha256``, ``model``, ``template``, ``prompt_pack`` (of the child), ``tier`` and ``dt`` (the child's day partition).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import duckdb

#: The columns of the ``edges`` view, in order.
EDGE_COLUMNS = (
    "run_id",
    "parent_handoff_id",
    "handoff_id",
    "seq",
    "ts",
    "from_step",
    "to_step",
    "kind",
    "parent_output_bytes",
    "child_input_bytes",
    "size_ratio",
    "parent_output_tokens",
    "child_input_tokens",
    "token_ratio",
    "upstream",
    "downstream",
    "lost",
    "gained",
    "digests_equal",
    "parent_output_sha256",
    "child_input_sha256",
    "model",
    "template",
    "prompt_pack",
    "tier",
    "dt",
)

_EDGES_SELECT = """
WITH h AS (SELECT * FROM {source}),
links AS (
    SELECT run_id, handoff_id, parent_handoff_id AS parent_id FROM h
    WHERE parent_handoff_id IS NOT NULL
    UNION
    SELECT run_id, handoff_id, unnest(fan_in) AS parent_id FROM h
    WHERE fan_in IS NOT NULL AND len(fan_in) > 0
)
SELECT
    c.run_id,
    p.handoff_id AS parent_handoff_id,
    c.handoff_id,
    c.seq,
    c.ts,
    p.to_step AS from_step,
    c.to_step,
    c.kind,
    p.output_bytes AS parent_output_bytes,
    c.input_bytes AS child_input_bytes,
    CASE WHEN p.output_bytes > 0 THEN c.input_bytes / p.output_bytes END AS size_ratio,
    p.output_tokens AS parent_output_tokens,
    c.input_tokens AS child_input_tokens,
    CASE WHEN p.output_tokens > 0 THEN c.input_tokens / p.output_tokens END AS token_ratio,
    coalesce(p.output_constraints, []) AS upstream,
    coalesce(c.input_constraints, []) AS downstream,
    list_sort(list_filter(coalesce(p.output_constraints, []),
        lambda t: NOT starts_with(t, 'terms:') AND NOT list_contains(coalesce(c.input_constraints, []), t))) AS lost,
    list_sort(list_filter(coalesce(c.input_constraints, []),
        lambda t: NOT starts_with(t, 'terms:') AND NOT list_contains(coalesce(p.output_constraints, []), t))) AS gained,
    p.output_sha256 = c.input_sha256 AS digests_equal,
    p.output_sha256 AS parent_output_sha256,
    c.input_sha256 AS child_input_sha256,
    c.model,
    c.template,
    c.prompt_pack,
    c.tier,
    c.dt
FROM links l
JOIN h c ON c.run_id = l.run_id AND c.handoff_id = l.handoff_id
JOIN h p ON p.run_id = l.run_id AND p.handoff_id = l.parent_id
"""


def create_edges_view(con: duckdb.DuckDBPyConnection) -> None:
    """Create (or replace) the ``edges`` view on a connection that already has ``handoffs``."""
    con.execute("CREATE OR REPLACE VIEW edges AS " + _EDGES_SELECT.format(source="handoffs"))


def handoffs_since_sql() -> str:
    """A deduplicated ``handoffs`` relation of the day partitions from ``?`` (a date) on.

    Same rows as the ``handoffs`` view for those days, but files of earlier days are pruned
    before deduplicating, so a scan of the last day does not pay for the whole year. (Copies of
    one row share its day partition: they are the same handoff at the same ``ts``.)
    """
    from handoff.store.tables import PRIMARY_KEYS, dedup_order

    keys = ", ".join(PRIMARY_KEYS["handoffs"])
    return (
        f"(SELECT * FROM raw_handoffs WHERE dt >= ? "
        f"QUALIFY row_number() OVER (PARTITION BY {keys} ORDER BY {dedup_order('handoffs')}) = 1)"
    )


def edges_since_sql() -> str:
    """The ``edges`` relation over :func:`handoffs_since_sql` (one ``?``: the first day, of parents too)."""
    return edges_over_sql(handoffs_since_sql())


def edges_over_sql(source: str) -> str:
    """The ``edges`` relation over any deduplicated ``handoffs`` relation ``source`` (its parameters unchanged)."""
    return "(" + _EDGES_SELECT.format(source=source) + ")"


def partition_floor(start: datetime) -> date:
    """The first day partition a window from ``start`` reads: the day before, so parents recorded before midnight join."""
    return start.astimezone(timezone.utc).date() - timedelta(days=1)
