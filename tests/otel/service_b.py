"""Service B for the cross-process test: an HTTP pricing service that joins the caller's run.

Run as ``python service_b.py``; it records into ``HANDOFF_STORE``, prints its port, and
serves ``POST /price`` until stdin closes.
"""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import handoff


@handoff.step(to="pricer.compute", model="fake-pricer")
def compute(brief: str) -> str:
    return audit(f"total for [{brief}]: 171312.00")


@handoff.step(to="pricer.audit", kind="verifier")
def audit(line: str) -> str:
    return line + " (checked)"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        brief = self.rfile.read(int(self.headers["Content-Length"])).decode()
        with handoff.extract(self.headers):
            answer = compute(brief).encode()
        handoff.flush()
        self.send_response(200)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()
    server.shutdown()
    handoff.shutdown()
