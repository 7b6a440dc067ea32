"""The viewer in a real browser: the INV-88214 incident as pages, search, diffs, keyboard, and hostile data."""

from __future__ import annotations

import pytest

from tests.ui.hostile import IMG, SCRIPT, STEP

pytestmark = pytest.mark.slow


def edge_states(page) -> list[tuple[str, str]]:
    return page.eval_on_selector_all(
        "svg.graph g.edge[data-handoff]", "els => els.map(e => [e.dataset.handoff, e.getAttribute('class')])"
    )


def test_incident_run_page_marks_the_compressor_edge_and_its_lost_qualifier(page, demo_url, demo_store, browser):
    """On INV-88214's run page the compressor edge is the one marked failed, and its failed check names 7.2(b)."""
    page.goto(f"{demo_url}/runs/{demo_store.incident}")
    assert page.title() == f"Run {demo_store.incident} · handoff"
    assert edge_states(page) == [
        ["hf-1", "edge pass"],  # empty-output ran on it
        ["hf-2", "edge pass"],
        ["hf-3", "edge fail"],
        ["hf-4", "edge pass"],
        ["hf-5", "edge pass"],
        ["hf-6", "edge pass"],  # the verifier: its edges kept everything, and it verified
        ["hf-6", "edge link"],  # its dashed fan-in from the brief (the compressor's output)
    ]
    assert page.locator('g.edge[data-handoff="hf-3"] a text').text_content() == "hf-3 0.18 ✗"
    assert page.locator('g.edge[data-handoff="hf-3"] a').get_attribute("aria-label") == (
        "hf-3 validate → orchestrator.compress_v3, out/in 0.18, failed transform-constraints"
    )
    failed = page.locator("li.failed-check")
    assert failed.count() == 1
    assert failed.get_attribute("data-handoff") == "hf-3"
    assert failed.locator("mark").all_inner_texts() == ["7.2(b)", "base is the rebated subtotal", "per 7.2(b)"]
    assert page.locator("table.handoffs tbody tr.fail td:first-child").all_inner_texts() == ["hf-3"]
    assert browser.blocked == [] and page.errors == []


def test_clicking_the_compressor_edge_opens_the_diff_with_the_dropped_sentence(page, demo_url, demo_store):
    """Clicking the marked edge opens its handoff page, where the dropped qualifier is struck out and highlighted."""
    page.goto(f"{demo_url}/runs/{demo_store.incident}")
    page.locator('g.edge[data-handoff="hf-3"] a').click()
    page.wait_for_url(f"{demo_url}/runs/{demo_store.incident}/handoffs/hf-3")
    sections = page.locator("section.diff-section h2").all_inner_texts()
    assert sections == ["Diff: hf-2 output → hf-3 input", "Diff: hf-3 input → output (inside the transform)"]
    inside = page.locator("section.diff-section").nth(1)
    deleted = " ".join(inside.locator(".diff del").all_inner_texts())
    assert "The surcharge base is the rebated subtotal per 7.2(b), so the rebate must be applied first" in deleted
    assert inside.locator(".diff del mark").all_inner_texts() == ["base is the rebated subtotal", "per 7.2(b)"]
    assert page.locator("section.diff-section").nth(0).locator(".badge").inner_text() == "identical bytes"
    assert "freight surcharge: 9.1% (clause 7.2)" in page.locator("section[aria-label=Output] pre").inner_text()
    assert page.errors == []


def test_search_box_finds_the_invoice(page, demo_url, demo_store):
    """Typing the invoice number into the search box lists exactly that invoice's run."""
    page.goto(demo_url + "/")
    assert page.locator("table.runs tbody tr").count() == 5
    page.fill("input[name=q]", "INV-88214")
    page.press("input[name=q]", "Enter")
    page.wait_for_url(f"{demo_url}/?q=INV-88214*")
    assert page.locator("table.runs tbody td:first-child a").all_inner_texts() == [demo_store.incident]
    page.locator("table.runs tbody td:first-child a").click()
    page.wait_for_url(f"{demo_url}/runs/{demo_store.incident}")


def test_filter_menus_apply_on_change_through_the_served_script(page, demo_url, demo_store):
    """Choosing a step in the filter menu reloads the list at once (app.js), with that filter in the URL."""
    page.goto(demo_url + "/?q=INV-8821")
    page.select_option("select[name=status]", "ok")
    page.wait_for_url(f"{demo_url}/?q=INV-8821&status=ok*")
    assert page.locator("table.runs tbody tr").count() == 3
    assert page.errors == []


def test_hostile_attributes_and_content_render_as_text_and_run_nothing(page, serve, hostile_store, browser):
    """Markup in attributes, step names, content and events shows as literal text; no script or handler runs."""
    store, run_id, _empty = hostile_store
    url = serve(store)
    for path in ("/", f"/runs/{run_id}", f"/runs/{run_id}/handoffs/hf-1", f"/runs/{run_id}/handoffs/hf-2"):
        page.goto(url + path)
        assert page.evaluate("window.__pwned") is None, path
        assert page.locator("img").count() == 0, path
        assert page.eval_on_selector_all("script", "els => els.map(e => e.getAttribute('src'))") == [
            "/static/app.js"
        ], path
        assert page.locator("svg [onload], [onerror]").count() == 0, path
    page.goto(f"{url}/runs/{run_id}")
    assert page.locator("dl.header .attr .value").all_inner_texts() == [IMG, SCRIPT]
    assert page.locator("svg.graph g.node text").all_text_contents() == ["intake", "summarize", STEP]
    assert f"fallback {SCRIPT}" in page.locator("table.events").inner_text()
    page.goto(f"{url}/runs/{run_id}/handoffs/hf-1")
    assert page.locator("section[aria-label=Input] pre").inner_text() == (
        f"customer wrote: {SCRIPT} and {IMG} amount $1,250.00 per clause 4.1(a)"
    )
    assert page.dialogs == [] and page.errors == [] and browser.blocked == []


def test_a_run_without_handoffs_still_has_a_page(page, serve, hostile_store):
    """A run that recorded no handoff (it crashed before its first step) shows its header and says so."""
    store, _run_id, empty = hostile_store
    response = page.goto(serve(store) + f"/runs/{empty}")
    assert response.status == 200
    assert page.locator("section[aria-labelledby=graph-h] p.empty").inner_text() == "No handoffs recorded in this run."
    assert page.locator("p.ok-line").inner_text() == "0 checks ran on this run; none failed."


def _tab_through(page, presses: int) -> list[str]:
    reached = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        href = page.evaluate("document.activeElement && document.activeElement.getAttribute('href')")
        if href is not None:
            reached.append(href)
    return reached


@pytest.mark.parametrize(
    "path", ["/", "/runs/{incident}", "/runs/{incident}/handoffs/hf-3", "/health", "/blast/{incident}/hf-3"]
)
def test_keyboard_navigation_reaches_every_link(page, demo_url, demo_store, path):
    """Pressing Tab from the top of a page visits every link on it, in page order (graph edges included)."""
    page.goto(demo_url + path.format(incident=demo_store.incident))
    links = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
    controls = page.eval_on_selector_all("input, select, button, summary", "els => els.length")
    reached = _tab_through(page, len(links) + controls + 2)
    assert reached[: len(links)] == links
    assert len(links) >= 3


def test_unknown_ids_are_404_pages_with_one_error_line(page, demo_url, demo_store):
    """An unknown run, an unknown handoff and an unknown page answer 404 with one readable line."""
    cases = {
        "/runs/run_01NOPE": "Error: run run_01NOPE not found in the store",
        f"/runs/{demo_store.incident}/handoffs/hf-99": f"Error: handoff hf-99 not found in run {demo_store.incident}",
        "/runs/run_01NOPE/compare/run_01ALSO": "Error: run run_01NOPE not found in the store",
        "/no/such/page": "Error: no such page",
    }
    for path, line in cases.items():
        response = page.goto(demo_url + path)
        assert response.status == 404, path
        assert page.locator(".error").all_inner_texts() == [line], path


def test_a_corrupt_file_is_skipped_and_the_rest_shown(page, serve, broken_store, demo_store):
    """A corrupt Parquet file in the store does not take the viewer down: the run list still answers, without a trace."""
    url = serve(broken_store)
    response = page.goto(url + "/")
    assert response.status == 200
    assert demo_store.incident in page.content()
    assert "Traceback" not in page.content()
