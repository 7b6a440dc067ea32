"""Service B for the cross-process test: an HTTP pricing service that joins the caller's run.

Run as ``python service_b.py``; it records into ``HANDOFF_STORE``, prints its port, and
serves ``POST /price`` and an OpenAI-compatible ``POST /v1/chat/completions`` until stdin closes.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import handoff
from handoff.adapters.fake_server import chat_completion


@handoff.step(to="pricer.compute", model="fake-pricer")
def compute(brief: str) -> str:
    return audit(f"total for [{brief}]: 171312.00")


@handoff.step(to="pricer.audit", kind="verifier")
def audit(line: str) -> str:
    return line + " (checked)"


def generate(body: bytes) -> bytes:
    """An OpenAI-compatible endpoint whose model call is itself a recorded step."""
    request = json.loads(body)
    with handoff.record(to="model_server.generate", model=request["model"]) as h:
        h.input(request["messages"])
        text = "total 171312.00"
        h.output(text)
    return json.dumps(chat_completion(request, text, body)).encode()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with handoff.extract(self.headers):
            answer = generate(body) if self.path == "/v1/chat/completions" else compute(body.decode()).encode()
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
