"""Fixtures for the exporter tests: a real OTLP/HTTP receiver on loopback, and a fresh local store."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

import handoff
from handoff.config import reset_settings


class OTLPReceiver:
    """Decodes every ``ExportTraceServiceRequest`` posted to ``/v1/traces`` into plain span dicts."""

    def __init__(self) -> None:
        self.spans: list[dict] = []
        self.requests = 0
        self._server: ThreadingHTTPServer | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def receive(self, body: bytes) -> None:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.requests += 1
        for resource_spans in request.resource_spans:
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    self.spans.append(_span_dict(scope_spans.scope.name, span))

    def start(self) -> OTLPReceiver:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                owner.receive(body) if self.path == "/v1/traces" else None
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200 if self.path == "/v1/traces" else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def by_handoff(self) -> dict[str, dict]:
        """Handoff spans keyed by ``handoff.id``."""
        return {s["attributes"]["handoff.id"]: s for s in self.spans if "handoff.id" in s["attributes"]}


def _value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def _span_dict(scope: str, span) -> dict:
    return {
        "scope": scope,
        "name": span.name,
        "trace_id": span.trace_id.hex(),
        "span_id": span.span_id.hex(),
        "parent_span_id": span.parent_span_id.hex(),
        "attributes": _attributes(span.attributes),
        "kind": span.kind,
        "status": (span.status.code, span.status.message),
        "links": [(link.trace_id.hex(), link.span_id.hex(), _attributes(link.attributes)) for link in span.links],
        "events": [(event.name, _attributes(event.attributes)) for event in span.events],
    }


def _attributes(key_values) -> dict:
    return {kv.key: _value(kv.value) for kv in key_values}


@pytest.fixture
def otlp_receiver():
    receiver = OTLPReceiver().start()
    yield receiver
    receiver.stop()


@pytest.fixture
def store_dir(tmp_path):
    """Record into a fresh local store (scrubbing off unless a test turns it on)."""
    handoff.configure(store=str(tmp_path / "store"), scrub=False, flush_interval_s=0.05)
    yield tmp_path / "store"
    handoff.shutdown(10.0)
    reset_settings()
