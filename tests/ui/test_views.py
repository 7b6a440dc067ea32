"""The other pages, the headers every response carries, the trace link, and `handoff ui` itself."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request

import pytest
from click.testing import CliRunner

from handoff.cli import main
from handoff.ui.app import CONTENT_SECURITY_POLICY

pytestmark = pytest.mark.slow


def _get(url: str, host: str | None = None) -> tuple[int, dict[str, str], str]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


def test_every_response_carries_a_strict_content_security_policy(demo_url, demo_store):
    """Pages, errors and static files all forbid inline script and other origins."""
    for path in ("/", f"/runs/{demo_store.incident}", "/runs/run_01NOPE", "/static/app.css"):
        status, headers, _body = _get(demo_url + path)
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY, path
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["x-frame-options"] == "DENY", path
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY and "unsafe-inline" not in CONTENT_SECURITY_POLICY


def test_a_request_for_another_host_name_is_refused(demo_url):
    """A page on another site cannot reach the viewer through DNS rebinding: a foreign Host header gets 400."""
    status, _headers, body = _get(demo_url + "/", host="attacker.example")
    assert (status, body) == (400, "Invalid host header")


def test_the_viewer_answers_only_reads(demo_url):
    """The viewer is read-only: a POST is refused."""
    request = urllib.request.Request(demo_url + "/", data=b"x=1", method="POST")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=30)
    assert caught.value.code == 405


def test_compare_page_lists_the_two_runs_edge_by_edge(page, demo_url, demo_store):
    """Comparing INV-88214 with a clean invoice shows every position changed, each side linked."""
    clean = demo_store.runs["INV-88216"]
    page.goto(f"{demo_url}/runs/{demo_store.incident}")
    page.fill("form.compare input[name=b]", clean)
    page.press("form.compare input[name=b]", "Enter")
    page.wait_for_url(f"{demo_url}/runs/{demo_store.incident}/compare/{clean}")
    rows = page.eval_on_selector_all("table.compare tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.innerText))")
    assert [row[0] for row in rows] == [
        "intake → extract",
        "extract → validate",
        "validate → orchestrator.compress_v3",
        "orchestrator.compress_v3 → price",
        "price → write",
        "price → verify",
    ]
    assert [row[6] for row in rows] == ["changed"] * 6
    assert page.locator("table.compare a[href$='/handoffs/hf-3']").count() == 2


def test_blast_page_charts_the_runs_with_the_same_loss(page, demo_url, demo_store):
    """The blast radius of the compressor finds INV-88214 and the earlier affected invoice, charted per day."""
    page.goto(f"{demo_url}/blast/{demo_store.incident}/hf-3")
    assert page.locator("p.count").inner_text() == "2 runs matched in the last 365d."
    runs = page.locator("table.matches tbody td:first-child a").all_inner_texts()
    assert runs == [demo_store.runs["INV-88190"], demo_store.incident]
    bars = page.eval_on_selector_all("svg.chart rect.bar title", "ts => ts.map(t => t.textContent)")
    assert len(bars) == 1 and bars[0].endswith(": 2 runs")


def test_health_page_charts_each_step(page, demo_url):
    """The health page lists every consumer step of the demo with a bar per day for each."""
    page.goto(demo_url + "/health")
    steps = page.locator("table.health tbody td:first-child").all_inner_texts()
    assert sorted(steps) == ["extract", "orchestrator.compress_v3", "price", "validate", "verify", "write"]
    assert page.locator("svg.chart rect.bar").count() == 6
    assert page.errors == []


def test_trace_link_follows_the_configured_template(page, serve, demo_store):
    """With HANDOFF_TRACE_URL_TEMPLATE set, a handoff page links to that handoff's trace."""
    from handoff.queries import connect
    from handoff.queries.runs import get_run

    con = connect(demo_store.path)
    trace_id = get_run(con, demo_store.incident)["handoffs"][2]["trace_id"]
    con.close()
    url = serve(demo_store.path, HANDOFF_TRACE_URL_TEMPLATE="http://localhost:6006/projects/default/traces/{trace_id}")
    page.goto(f"{url}/runs/{demo_store.incident}/handoffs/hf-3")
    assert len(trace_id) == 32
    assert page.locator("a.trace").get_attribute("href") == f"http://localhost:6006/projects/default/traces/{trace_id}"


def test_ui_command_refuses_a_missing_store(tmp_path):
    """`handoff ui` on a store that does not exist prints one error line and exits 1."""
    result = CliRunner().invoke(main, ["ui", "--store", str(tmp_path / "nothing")])
    assert result.exit_code == 1
    assert (
        result.output
        == f"Error: no store at {tmp_path / 'nothing'} (run `handoff demo`, or set --store / HANDOFF_STORE)\n"
    )


def test_ui_command_says_when_the_port_is_taken(demo_store):
    """`handoff ui` on a port already in use prints one error line and exits 1."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["ui", "--store", demo_store.path, "--port", str(port)])
    assert result.exit_code == 1
    assert result.output == f"Error: cannot listen on 127.0.0.1:{port}: Address already in use\n"


def test_new_results_and_runs_show_without_a_restart(page, serve, demo_store, tmp_path):
    """Check results written and a run recorded while the viewer runs appear on the next page load."""
    import shutil

    import handoff

    store = str(tmp_path / "store")
    shutil.copytree(demo_store.path, store)
    url = serve(store)
    page.goto(url + "/?check=*")
    assert page.locator("table.runs tbody tr").count() == 0
    assert CliRunner().invoke(main, ["check", "--since", "1h", "--store", store]).exit_code == 0
    page.goto(url + "/?check=*")
    assert page.locator("table.runs tbody td:first-child a").all_inner_texts() == [
        demo_store.incident,
        demo_store.runs["INV-88190"],
        demo_store.runs["INV-88216"],  # its verifier broke (verifier-broken)
    ]
    handoff.configure(store=store, scrub=False)

    @handoff.step(to="late")
    def late(text: str) -> str:
        return text

    with handoff.run("late-run", ticket="T-1") as run:
        late("hello")
    handoff.shutdown()
    page.goto(url + "/?q=T-1")
    assert page.locator("table.runs tbody td:first-child a").all_inner_texts() == [run.run_id]
