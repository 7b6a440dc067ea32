"""Pieces of the viewer without a browser: graph layout, highlighting, escaping, and columns that appear by themselves."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

from handoff.queries.checks import CheckResult
from handoff.ui.app import Renderer, trace_link
from handoff.ui.format import extra_columns
from handoff.ui.graph import layout_run
from handoff.ui.highlight import mark_texts


def _h(handoff_id: str, src: str | None, dst: str, parent: str | None = None, fan_in=None, status: str = "ok") -> dict:
    return {
        "handoff_id": handoff_id,
        "from_step": src,
        "to_step": dst,
        "parent_handoff_id": parent,
        "fan_in": fan_in,
        "status": status,
        "ratio": 0.5,
        "kind": "agent",
    }


def _result(handoff_id: str, status: str) -> CheckResult:
    from datetime import datetime, timezone

    return CheckResult("run_x", handoff_id, None, datetime(2026, 1, 1, tzinfo=timezone.utc), "c", "HIGH", status)


def test_graph_lays_steps_left_to_right_and_draws_fan_in_as_a_dashed_link():
    """A fan-in step sits right of both producers, and the extra producer is a dashed link into it."""
    handoffs = [_h("hf-1", "start", "a"), _h("hf-2", "start", "b"), _h("hf-3", "a", "merge", "hf-1", ["hf-2"])]
    graph = layout_run(handoffs, [_result("hf-3", "fail"), _result("hf-1", "pass")])
    layers = {node.name: node.layer for node in graph.nodes}
    assert layers == {"start": 0, "a": 1, "b": 1, "merge": 2}
    assert [(e.source, e.target, e.handoff_id, e.status, e.link) for e in graph.edges] == [
        ("start", "a", "hf-1", "pass", True),
        ("start", "b", "hf-2", "unchecked", True),
        ("a", "merge", "hf-3", "fail", True),
        ("b", "merge", "hf-3", "link", False),
    ]
    assert {node.name: node.status for node in graph.nodes}["merge"] == "fail"


def test_graph_draws_a_loop_as_an_arc_under_the_nodes():
    """A step handing back to an earlier one keeps the layers of the first pass and loops below them."""
    handoffs = [_h("hf-1", "plan", "act"), _h("hf-2", "act", "plan", "hf-1"), _h("hf-3", "plan", "act", "hf-2")]
    graph = layout_run(handoffs)
    assert {node.name: node.layer for node in graph.nodes} == {"plan": 0, "act": 1}
    back = graph.edges[1]
    assert back.label == "hf-2 0.50 ·" and back.label_y > max(node.y + node.h for node in graph.nodes)
    assert graph.edges[0].path != graph.edges[2].path  # the repeat takes its own lane


@given(st.text(max_size=60), st.lists(st.text(max_size=6), max_size=4))
def test_marked_pieces_join_back_to_the_text(text, needles):
    """Highlighting never changes the text: the pieces join to it, and every marked piece is a needle."""
    pieces = mark_texts(text, needles)
    assert "".join(piece for _marked, piece in pieces) == text
    assert all(piece in needles for marked, piece in pieces if marked)


class _ErrorLine(HTMLParser):
    """Collects the text and the tags inside ``<p class="error">``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside, self.text, self.tags = False, "", []

    def handle_starttag(self, tag, attrs):
        if self.inside:
            self.tags.append(tag)
        self.inside = self.inside or (tag == "p" and ("class", "error") in attrs)

    def handle_endtag(self, tag):
        if tag == "p":
            self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.text += data


@given(st.text(min_size=1, max_size=80).filter(lambda s: s.strip()))
def test_any_error_message_is_shown_as_text_on_one_line(message):
    """Whatever an error says, markup included, the page shows its first line as text and nothing else."""
    parser = _ErrorLine()
    parser.feed(Renderer("store").error(400, message).body.decode())
    assert parser.tags == []
    assert parser.text == "Error: " + message.strip().splitlines()[0]


def test_trace_link_fills_quoted_ids_and_refuses_other_schemes():
    """The trace URL template gets URL-quoted ids; a javascript: template gives no link."""
    handoff = {"trace_id": "ab/12", "span_id": "cd", "run_id": "run_1", "handoff_id": "hf-3"}
    assert (
        trace_link("http://localhost:6006/t/{trace_id}?span={span_id}", handoff)
        == "http://localhost:6006/t/ab%2F12?span=cd"
    )
    assert trace_link("javascript:alert(1)//{trace_id}", handoff) is None
    assert trace_link(None, handoff) is None


def test_a_column_the_library_adds_later_shows_up_in_the_run_table():
    """A new handoff column (say a verdict) is a run-table column without a template change."""
    rows = [{"handoff_id": "hf-1", "status": "ok", "verdict": "wrong"}, {"handoff_id": "hf-2", "replay_of": "run_a"}]
    assert extra_columns(rows) == ["verdict", "replay_of"]
