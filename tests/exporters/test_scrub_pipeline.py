"""End to end: the scrub corpus through an instrumented pipeline leaves no planted value anywhere on disk."""

from __future__ import annotations

import hashlib
import hmac
import json
import pathlib

import pyarrow.parquet as pq
import pytest
import zstandard
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import handoff

CORPUS = pathlib.Path(__file__).resolve().parent.parent / "data" / "scrub_corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())
PLANTED = [value for values in MANIFEST["planted"].values() for value in values]
TEXTS = {path.name: path.read_text() for path in sorted(CORPUS.glob("*.txt"))}
CRM = json.loads((CORPUS / "crm.json").read_text())
KEY = "k"


def token(entity: str, value: str) -> str:
    return f"<{entity}:{hmac.new(KEY.encode(), value.encode(), hashlib.sha256).hexdigest()[:6]}>"


def everything_under(root: pathlib.Path) -> str:
    """Every file under ``root`` as text: Parquet decoded row by row, ``.zst`` blobs decompressed."""
    parts = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.suffix == ".parquet":
            rows = pq.read_table(path).to_pylist()
            parts.append(json.dumps(rows, default=_decode, ensure_ascii=False))
        elif path.suffix == ".zst":
            parts.append(
                zstandard.ZstdDecompressor().decompressobj().decompress(path.read_bytes()).decode("utf-8", "replace")
            )
        else:
            parts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def _decode(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


@pytest.fixture
def spans(tmp_path, spool_dir):
    """Recording into ``tmp_path/store`` with scrub key ``k``, small inline limit, spans kept in memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    handoff.configure(
        store=str(tmp_path / "store"),
        scrub_key=KEY,
        spool_dir=str(spool_dir),
        inline_limit_bytes=1024,
        tracer_provider=provider,
    )
    yield exporter
    handoff.shutdown(10)


def run_pipeline(run_name: str) -> None:
    """Every corpus payload through validate -> compress -> price, the CRM record as JSON, and a failing lookup."""

    @handoff.step(to="validate", kind="agent")
    def validate(document: str) -> str:
        return document + "\nvalidator: ok"

    @handoff.step(to="orchestrator.compress_v3", kind="transform")
    def compress(report: str) -> str:
        return report[: len(report) // 2]

    @handoff.step(to="price", kind="agent")
    def price(brief: str) -> str:
        return brief

    @handoff.step(to="crm.sync", kind="tool")
    def sync(record: dict) -> dict:
        return {"synced": record["account"]["contacts"], "integration": record["integration"]}

    @handoff.step(to="ledger.lookup", kind="tool")
    def lookup(email: str) -> str:
        raise LookupError(f"no ledger account for {email} (card 4111 1111 1111 1111)")

    with handoff.run(run_name, customer="dana.whitfield@northwind-logistics.com", invoice="INV-88214"):
        for text in TEXTS.values():
            price(compress(validate(text)))
        sync(CRM)
        with pytest.raises(LookupError):
            lookup("j.becker@northwind-logistics.de")


def test_no_planted_value_reaches_the_store_or_spans_and_keep_values_survive(tmp_path, spans):
    """After two runs, no planted value is anywhere under the store root, the spool or the spans;
    every keep value is stored, and one email is one pseudonym across handoffs and runs."""
    run_pipeline("invoice-run-1")
    run_pipeline("invoice-run-2")
    assert handoff.flush(30)
    stored = everything_under(tmp_path)
    assert list((tmp_path / "store").rglob("*.zst")), "the inline limit should push some payloads to blobs"
    assert [value for value in PLANTED if value in stored] == []
    assert [value for value in MANIFEST["keep"] if value not in stored] == []
    email = token("EMAIL_ADDRESS", "dana.whitfield@northwind-logistics.com")
    content = (
        pq.read_table(tmp_path / "store" / "content").to_pylist() if (tmp_path / "store" / "content").exists() else []
    )
    runs_with_email = {row.get("run_id") for row in content if email in json.dumps(row, default=_decode)}
    assert len(runs_with_email) == 2
    span_text = json.dumps([dict(span.attributes or {}) for span in spans.get_finished_spans()], default=str)
    assert spans.get_finished_spans()
    assert [value for value in PLANTED if value in span_text] == []
