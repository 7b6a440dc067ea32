"""The handoff graph of one run, laid out left to right, as shapes a template draws in SVG.

Steps are the nodes; every handoff is an edge from its producer to its consumer (``from → to``),
labelled with its output/input size ratio and the status of the checks on it: the edge check
on what reached the consumer and, for a transform, the check inside it. A parent or ``fan_in``
link that does not already run through a node (the parent's consumer is not this handoff's
producer) is a dashed edge of its own. Layers follow the longest path from the first producer;
a loop (a step that hands back to an earlier one) is drawn as an arc under the nodes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

NODE_H = 40
LAYER_GAP = 104
ROW_GAP = 64
MARGIN = 24
CHAR_W = 7.2
LABEL_H = 18


@dataclass
class Node:
    """One step: its name, layer and box."""

    name: str
    layer: int = 0
    row: int = 0
    x: float = 0
    y: float = 0
    w: float = 0
    h: float = NODE_H
    status: str = "ok"


@dataclass
class Edge:
    """One handoff (or a dashed parent/fan-in link) between two steps, with its label and path."""

    source: str
    target: str
    handoff_id: str | None
    label: str
    status: str
    title: str
    link: bool = False
    path: str = ""
    label_x: float = 0
    label_y: float = 0
    label_w: float = 0
    failed_checks: list[str] = field(default_factory=list)


@dataclass
class Graph:
    """Nodes and edges with coordinates, and the drawing's size."""

    nodes: list[Node]
    edges: list[Edge]
    width: float
    height: float


def _check_status(results: Iterable[Any]) -> dict[str, list[Any]]:
    by_handoff: dict[str, list[Any]] = {}
    for result in results:
        by_handoff.setdefault(result.handoff_id, []).append(result)
    return by_handoff


def _handoff_edge(h: dict[str, Any], results: list[Any]) -> Edge:
    failed = sorted({r.check for r in results if r.status == "fail"})
    ratio = "-" if h.get("ratio") is None else f"{h['ratio']:.2f}"
    if h["status"] != "ok":
        status = h["status"]
    else:
        status = "fail" if failed else ("pass" if results else "unchecked")
    mark = {"fail": "✗", "pass": "✓"}.get(status, "!" if status not in ("unchecked",) else "·")
    verdict = (
        f"failed {', '.join(failed)}"
        if failed
        else {"pass": "checks passed", "unchecked": "not checked"}.get(status, status)
    )
    title = f"{h['handoff_id']} {h['from_step'] or '-'} → {h['to_step']}, out/in {ratio}, {verdict}"
    return Edge(
        h["from_step"] or "-",
        h["to_step"],
        h["handoff_id"],
        f"{h['handoff_id']} {ratio} {mark}",
        status,
        title,
        link=True,
        failed_checks=failed,
    )


def _link_edges(handoffs: list[dict[str, Any]]) -> list[Edge]:
    """Dashed edges for parent and fan-in links that do not already pass through a shared node."""
    by_id = {h["handoff_id"]: h for h in handoffs}
    edges = []
    for h in handoffs:
        parents = [h["parent_handoff_id"], *(h.get("fan_in") or [])]
        for parent_id in dict.fromkeys(p for p in parents if p):
            parent = by_id.get(parent_id)
            if parent is None or parent["to_step"] == (h["from_step"] or "-"):
                continue
            kind = "parent" if parent_id == h["parent_handoff_id"] else "fan-in"
            title = f"{kind}: {parent_id} output ({parent['to_step']}) → {h['handoff_id']} input ({h['to_step']})"
            edges.append(Edge(parent["to_step"], h["to_step"], h["handoff_id"], kind, "link", title))
    return edges


def _layers(names: list[str], edges: list[Edge]) -> dict[str, int]:
    """Longest-path layers over the edges that do not close a loop (depth-first, in first-seen order)."""
    out: dict[str, list[str]] = {name: [] for name in names}
    for edge in edges:
        out[edge.source].append(edge.target)
    order, state = [], {}
    for root in names:
        if root in state:
            continue
        stack = [(root, iter(out[root]))]
        state[root] = "open"
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = "done"
                order.append(node)
                stack.pop()
            elif child not in state:
                state[child] = "open"
                stack.append((child, iter(out[child])))
    rank = {name: i for i, name in enumerate(reversed(order))}
    layer = {name: 0 for name in names}
    for name in sorted(names, key=rank.__getitem__):
        for child in out[name]:
            if rank[child] > rank[name]:
                layer[child] = max(layer[child], layer[name] + 1)
    return layer


def _place(nodes: dict[str, Node]) -> tuple[float, float]:
    widths: dict[int, float] = {}
    rows: dict[int, int] = {}
    for node in nodes.values():
        node.w = max(90.0, min(240.0, len(node.name) * CHAR_W + 24))
        node.row = rows.get(node.layer, 0)
        rows[node.layer] = node.row + 1
        widths[node.layer] = max(widths.get(node.layer, 0), node.w)
    lefts, x = {}, MARGIN
    for layer in sorted(widths):
        lefts[layer] = x
        x += widths[layer] + LAYER_GAP
    for node in nodes.values():
        node.x = lefts[node.layer] + (widths[node.layer] - node.w) / 2
        node.y = MARGIN + LABEL_H + node.row * (NODE_H + ROW_GAP)
    tallest = max(rows.values(), default=1)
    height = MARGIN * 2 + LABEL_H + tallest * NODE_H + (tallest - 1) * ROW_GAP
    return x - LAYER_GAP + MARGIN, height


def _route(edge: Edge, a: Node, b: Node, lane: int, bottom: float) -> None:
    """Set the edge's SVG path and label position; ``lane`` separates edges between the same two steps."""
    edge.label_w = len(edge.label) * CHAR_W + 12
    if b.layer > a.layer:
        x1, y1, x2, y2 = a.x + a.w, a.y + a.h / 2, b.x, b.y + b.h / 2
        bend = lane * 22
        mid_x = (x1 + x2) / 2
        edge.path = f"M{x1:.1f},{y1:.1f} C{mid_x:.1f},{y1 + bend:.1f} {mid_x:.1f},{y2 + bend:.1f} {x2:.1f},{y2:.1f}"
        edge.label_x, edge.label_y = mid_x, (y1 + y2) / 2 + bend * 0.75 - 4
        return
    # A loop, or a link within one layer: an arc under the drawing.
    x1, x2 = a.x + a.w / 2, b.x + b.w / 2
    y1, y2 = a.y + a.h, b.y + b.h
    low = bottom - 12 - lane * 14
    edge.path = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{low:.1f} {x2:.1f},{low:.1f} {x2:.1f},{y2:.1f}"
    edge.label_x, edge.label_y = (x1 + x2) / 2, low - 2


def layout_run(handoffs: list[dict[str, Any]], results: Iterable[Any] = ()) -> Graph:
    """Lay out one run's handoffs (rows of ``get_run``) with their check results (``run_checks``)."""
    if not handoffs:
        return Graph([], [], 0, 0)
    checks = _check_status(results)
    edges = [_handoff_edge(h, checks.get(h["handoff_id"], [])) for h in handoffs] + _link_edges(handoffs)
    names = list(dict.fromkeys(name for e in edges for name in (e.source, e.target)))
    layer = _layers(names, edges)
    nodes = {name: Node(name, layer[name]) for name in names}
    for edge in edges:
        if edge.status in ("fail", "error", "broken", "fallback"):
            nodes[edge.target].status = "fail" if edge.status == "fail" else "error"
    width, height = _place(nodes)
    loops = sum(1 for e in edges if nodes[e.target].layer <= nodes[e.source].layer)
    bottom = height + (28 + loops * 14 if loops else 0)
    lanes: dict[tuple[str, str], int] = {}
    for edge in edges:
        key = (edge.source, edge.target)
        _route(edge, nodes[edge.source], nodes[edge.target], lanes.get(key, 0), bottom)
        lanes[key] = lanes.get(key, 0) + 1
    return Graph(list(nodes.values()), edges, width, bottom)
