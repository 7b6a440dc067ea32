"""``handoff ui``: the run viewer in the browser."""

from __future__ import annotations

import click

from handoff.cli._common import errors_as_click, open_existing_store
from handoff.cli._options import store_option


@click.command("ui")
@store_option
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback unless you say otherwise)."
)
@click.option(
    "--port",
    default=8765,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on (0: any free port).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the viewer in the default browser.")
@click.option(
    "--plugin", "plugins", multiple=True, metavar="MODULE", help="Import a module that registers checks (repeatable)."
)
def ui_command(store_url: str | None, host: str, port: int, open_browser: bool, plugins: tuple[str, ...]) -> None:
    """Serve a read-only run viewer: runs, the handoff graph, diffs, blast radius, health.

    Pages read the store through the same queries as the other commands. A trace link per
    handoff appears when HANDOFF_TRACE_URL_TEMPLATE is set (e.g.
    http://localhost:6006/projects/default/traces/{trace_id}).

    Example:

        handoff demo && handoff ui --port 8765 --open
    """
    import sys

    from handoff.cli.investigate import import_plugins
    from handoff.ui import create_app
    from handoff.ui.server import bind, serve, url_of

    import_plugins(plugins)
    with errors_as_click():
        # Only that the store exists: a store that fails to read is shown on the pages, where a reload retries it.
        store = open_existing_store(store_url)
    loopback = host in ("127.0.0.1", "localhost", "::1", "[::1]") or host.startswith("127.")
    from handoff.ui.app import LOOPBACK_HOSTS

    app = create_app(store_url, allowed_hosts=[*LOOPBACK_HOSTS, host] if loopback else ["*"])
    try:
        sock = bind(host, port)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    url = url_of(sock)

    def ready() -> None:
        click.echo(f"handoff ui: {url}  (store {store.uri('')}; Ctrl-C to stop)")
        sys.stdout.flush()
        if open_browser:
            import webbrowser

            webbrowser.open(url)

    try:
        serve(app, sock, on_ready=ready)
    except KeyboardInterrupt:
        pass
