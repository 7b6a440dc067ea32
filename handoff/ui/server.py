"""Serving the app: bind the socket first (so a busy port is one clear error), then run uvicorn on it."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (port 0 picks a free one); raise ``OSError`` when it cannot."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket) -> str:
    """``http://host:port/`` for a bound socket."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def serve(app: Any, sock: socket.socket, *, on_ready: Callable[[], None] | None = None) -> None:
    """Serve ``app`` on ``sock`` until interrupted (Ctrl-C); ``on_ready`` runs once it accepts requests."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    if on_ready is not None:
        original = server.startup

        async def startup(sockets: Any = None) -> None:
            await original(sockets=sockets)
            on_ready()

        server.startup = startup  # type: ignore[method-assign]
    server.run(sockets=[sock])
