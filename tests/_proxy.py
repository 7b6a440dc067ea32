"""A fault-injecting HTTP proxy on loopback, put between boto3 and the moto server.

    with FaultProxy(moto_endpoint) as proxy:
        store = s3_store_via(proxy.url)
        proxy.fail(503)        # every request answered 503 SlowDown until heal()
        proxy.reset()          # every connection reset (RST) before an answer
        proxy.stall(5.0)       # every request held 5 s (or until heal()) before it is forwarded
        proxy.heal()           # forward everything again; releases stalled requests at once

``proxy.log`` lists what happened to each request (``"ok"``, ``"500"``, ``"reset"``,
``"stalled"``); ``proxy.stalled_now`` counts requests being held right now, so a test can
check that something finished *while* the store was stalled without measuring time.
"""

from __future__ import annotations

import http.client
import http.server
import socket
import struct
import threading
from urllib.parse import urlsplit

_ERRORS = {
    500: ("InternalError", "We encountered an internal error."),
    503: ("SlowDown", "Please reduce your request rate."),
}


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        proxy = self.server.proxy
        body = self._body()
        mode, arg = proxy.mode()
        if mode == "stall":
            proxy._hold(arg)
            mode, arg = proxy.mode()
        if mode == "fail":
            self._send_error(arg)
        elif mode == "reset":
            self._reset()
        else:
            self._forward(body)

    def _send_error(self, status: int) -> None:
        code, message = _ERRORS.get(status, ("InternalError", "injected"))
        payload = f"<?xml version='1.0'?><Error><Code>{code}</Code><Message>{message}</Message></Error>".encode()
        self.server.proxy._note(str(status))
        self.send_response(status)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _reset(self) -> None:
        self.server.proxy._note("reset")
        # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def _forward(self, body: bytes) -> None:
        upstream = http.client.HTTPConnection(
            self.server.proxy.upstream_host, self.server.proxy.upstream_port, timeout=60
        )
        headers = {
            name: value
            for name, value in self.headers.items()
            if name.lower() not in ("connection", "proxy-connection")
        }
        upstream.request(self.command, self.path, body=body or None, headers=headers)
        response = upstream.getresponse()
        payload = response.read()
        self.server.proxy._note("ok")
        self.send_response(response.status, response.reason)
        for name, value in response.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length", "server", "date"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
        upstream.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    proxy: FaultProxy


class FaultProxy:
    """An HTTP proxy in front of ``upstream`` (``http://host:port``) that injects faults on demand."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.upstream_host, self.upstream_port = parts.hostname, parts.port
        self._lock = threading.Lock()
        self._mode: tuple[str, float | int | None] = ("ok", None)
        self._release = threading.Event()
        self.log: list[str] = []
        self.stalled_now = 0
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.proxy = self
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="fault-proxy", daemon=True)

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.heal()
        self._server.shutdown()
        self._server.server_close()

    def mode(self) -> tuple[str, float | int | None]:
        """Return the current ``(mode, argument)``."""
        with self._lock:
            return self._mode

    def fail(self, status: int = 500) -> None:
        """Answer every request with ``status`` (500 InternalError or 503 SlowDown)."""
        self._set(("fail", status))

    def reset(self) -> None:
        """Reset every connection without answering."""
        self._set(("reset", None))

    def stall(self, seconds: float) -> None:
        """Hold every request ``seconds`` (or until :meth:`heal`) before forwarding it."""
        self._set(("stall", seconds))

    def heal(self) -> None:
        """Forward every request again and release any request being held."""
        self._set(("ok", None))
        self._release.set()

    def _set(self, mode: tuple[str, float | int | None]) -> None:
        with self._lock:
            self._mode = mode
            if mode[0] == "stall":
                self._release.clear()

    def _hold(self, seconds: float) -> None:
        with self._lock:
            self.stalled_now += 1
        self._note("stalled")
        self._release.wait(seconds)
        with self._lock:
            self.stalled_now -= 1

    def _note(self, what: str) -> None:
        with self._lock:
            self.log.append(what)
