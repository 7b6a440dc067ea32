"""Every route into the store goes through one scrubber: one set of planted values, sent by every route
at once, is found nowhere under the store root, in the spool, in the status file or in the exported spans."""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import zstandard

import handoff
from handoff.analysis.scrub import Scrubber
from handoff.analysis.scrub.routes import scrub_payload, scrub_value
from handoff.exporters.spool import decode_batch
from tests.exporters.conftest import OTLPReceiver

NAME = "Maria Schneider"
EMAIL = "maria.schneider@gmail.com"
PHONE = "+1 415-555-0134"
CARD = "4539 1488 0343 6467"
IBAN = "DE89 3704 0044 0532 0130 00"
API_KEY = "sk-proj-Q7fK2mXpL9vR4tYb8nW3zH6cJ1dG5sAe"
PASSWORD = "Tr0ub4dor-secret"
STREET = "1428 Elm Street"
PLANTED = [NAME, EMAIL, PHONE, CARD, IBAN, API_KEY, PASSWORD, STREET]
TEXT = (
    f"Dear {NAME}, contact {EMAIL} or {PHONE}. Card {CARD}, IBAN {IBAN}, key {API_KEY}, "
    f"db postgres://app:{PASSWORD}@db.internal:5432/prod, ship to {STREET}, Springfield, IL 62704. "
    "Invoice INV-88214 total $171,312.00 per clause 7.2(b)."
)
DOCUMENT = {
    "customer": {"name": NAME, "phone": 14155550134, "card": int(CARD.replace(" ", ""))},
    EMAIL: [IBAN, {"password": PASSWORD}],
    "note": TEXT,
    "invoice": "INV-88214",
}
BINARY = (
    b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe\x9f" + TEXT.encode() + b"\x00\x81\x9d" + NAME.encode("utf-16-le") + b"\x00\x8f"
)
KEEP = ["INV-88214", "$171,312.00", "7.2(b)"]


def needles(value: str) -> set[bytes]:
    """Every byte form a planted value could take on disk or on the wire."""
    forms = {value, value.lower(), value.upper()}
    found = {form.encode(codec) for form in forms for codec in ("utf-8", "utf-16-le", "utf-16-be")}
    digits = re.sub(r"\D", "", value)
    if len(digits) >= 8:
        found |= {digits.encode(), digits[1:].encode(), digits.encode("utf-16-le")}
    return found


def haystacks(path: Path) -> list[bytes]:
    """The bytes of ``path`` and of everything it holds: Parquet cells, zstd blobs, spooled objects."""
    data = path.read_bytes()
    found = [data]
    if path.suffix == ".parquet":
        found += _cells(data)
    elif path.suffix == ".zst":
        found.append(zstandard.ZstdDecompressor().decompressobj().decompress(data))
    elif path.parent.name == "batches":
        found += [piece for obj in decode_batch(data, str(path))[0] for piece in [obj.data, *_cells(obj.data)]]
    return found


def _cells(data: bytes) -> list[bytes]:
    import pyarrow as pa

    if not data.startswith(b"PAR1"):
        return [zstandard.ZstdDecompressor().decompressobj().decompress(data)] if data[:4] == b"(\xb5/\xfd" else []
    rows = pq.read_table(pa.BufferReader(data)).to_pylist()
    cells = [cell for row in rows for cell in row.values()]
    return [c if isinstance(c, bytes) else json.dumps(c, default=str, ensure_ascii=False).encode() for c in cells]


def leaks(blobs: list[bytes]) -> list[str]:
    """The planted values found in any of ``blobs``, in any of their forms."""
    return [value for value in PLANTED if any(needle in blob for blob in blobs for needle in needles(value))]


def every_byte_under(*roots: Path) -> list[bytes]:
    return [blob for root in roots for path in sorted(root.rglob("*")) if path.is_file() for blob in haystacks(path)]


def record_every_route() -> None:
    """Send the planted values through every route into the store at once."""

    @handoff.step(to="validate", model="gpt-x", prompt_pack="receivables@4")
    def validate(prompt: str) -> str:
        return "\n".join([TEXT] * 8)  # above the inline limit: stored as a blob

    @handoff.step(to="extract")
    def extract(payload: bytes) -> bytes:
        return payload

    @handoff.step(to="crm.sync", kind="tool")
    def sync(record: dict) -> dict:
        return record

    @handoff.step(to="ledger.lookup", kind="tool")
    def lookup(email: str) -> str:
        raise LookupError(f"no ledger account for {email} (card {CARD}, key {API_KEY})")

    with handoff.run(f"invoice for {NAME}", customer=NAME, contact=EMAIL, card=CARD, password=PASSWORD):
        validate(TEXT)
        for payload in (
            TEXT.encode("utf-8"),
            TEXT.encode("utf-16"),
            TEXT.encode("utf-16-le"),
            TEXT.encode("utf-16-be"),
            codecs.BOM_UTF8 + TEXT.encode(),
            (TEXT + " Grüße").encode("latin-1"),
            BINARY,
        ):
            extract(payload)
        sync(DOCUMENT)
        with pytest.raises(LookupError):
            lookup(EMAIL)
        with handoff.record(f"notify {EMAIL}", from_=f"desk of {NAME}") as h:
            h.config(api_key=API_KEY, owner=EMAIL, dsn=f"postgres://app:{PASSWORD}@db/prod", model=f"ft:{EMAIL}")
            h.input({"card": int(CARD.replace(" ", "")), "to": EMAIL})
            h.output(TEXT.encode("utf-16"))
            h.fallback(f"retry for {EMAIL}", error=ValueError(f"{NAME} at {STREET} declined"), contact=EMAIL)
        handoff.fallback(f"escalate {NAME}", card=CARD, iban=IBAN)


@pytest.fixture
def receiver():
    """A real OTLP/HTTP receiver on loopback that keeps every request body as received."""
    receiver = OTLPReceiver()
    receiver.bodies = []
    receive = receiver.receive

    def keep(body: bytes) -> None:
        receiver.bodies.append(body)
        receive(body)

    receiver.receive = keep
    yield receiver.start()
    receiver.stop()


def test_planted_values_reach_no_byte_of_the_store_the_spool_the_status_file_or_the_spans(tmp_path, receiver):
    """With the store down and then back, nothing a user planted is anywhere on disk or on the wire,
    while the business values around it survive."""
    store, spool_dir = tmp_path / "store", tmp_path / "spool"
    store.write_text("not a directory")  # the store is down: everything goes to the spool first
    handoff.configure(
        store=str(store), scrub_key="k", spool_dir=str(spool_dir), inline_limit_bytes=1024,
        otlp_endpoint=receiver.endpoint,
    )  # fmt: skip
    record_every_route()
    assert handoff.flush(60) is True
    spooled = every_byte_under(spool_dir)
    assert (handoff.stats()["spooled"] > 0, list(spool_dir.rglob("status/*.json")) != []) == (True, True)
    store.unlink()
    assert handoff.flush(60) is True
    stored = every_byte_under(store)
    written = handoff.stats()["written"]
    handoff.shutdown(30)
    assert (written > 0, list(store.rglob("*.zst")) != [], len(receiver.spans) >= 12) == (
        True,
        True,
        True,
    )
    assert (leaks(spooled), leaks(stored), leaks(every_byte_under(spool_dir)), leaks(receiver.bodies)) == (
        [],
        [],
        [],
        [],
    )
    assert [value for value in KEEP if not any(value.encode() in blob for blob in stored)] == []


@pytest.mark.parametrize("codec", ["utf-8", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252"])
def test_a_payload_in_any_text_encoding_is_scrubbed_and_kept_in_that_encoding(codec):
    """A prompt sent as bytes in another encoding is stored scrubbed, still readable in its own encoding."""
    scrubber = Scrubber("k")
    expected = scrubber.scrub_text(TEXT)
    payload = scrub_payload(scrubber, TEXT.encode(codec), "text/plain; charset=" + codec)
    assert (payload.data.decode(codec).lstrip("\ufeff"), payload.text) == (expected, expected)


def test_undecodable_bytes_keep_their_binary_parts_and_lose_every_planted_value():
    """Bytes that are no text have each text run scrubbed in place; the bytes around them stay."""
    payload = scrub_payload(Scrubber("k"), BINARY, "application/octet-stream")
    assert (payload.encoding, payload.data[:13], payload.data[-1:], leaks([payload.data])) == (
        "binary",
        BINARY[:13],
        b"\x8f",
        [],
    )


def test_a_json_value_of_any_type_has_keys_values_and_card_integers_scrubbed():
    """Config and attributes that are dicts, lists or numbers lose their PII, keys included."""
    scrubber = Scrubber("k")
    card = int(CARD.replace(" ", ""))
    assert scrub_value(scrubber, {EMAIL: [card, "INV-88214"], "total": 171312.0}) == {
        scrubber.pseudonym("EMAIL_ADDRESS", EMAIL): [scrubber.pseudonym("CREDIT_CARD", str(card)), "INV-88214"],
        "total": 171312.0,
    }


def test_an_app_span_sent_through_handoffs_otlp_export_loses_its_exception_message(tmp_path, receiver):
    """A span of my own on the provider handoff exports from arrives with name, attributes and exception scrubbed."""
    from opentelemetry.sdk.trace import TracerProvider

    provider = TracerProvider()
    handoff.configure(
        store=str(tmp_path / "store"), scrub_key="k", otlp_endpoint=receiver.endpoint, tracer_provider=provider
    )
    with handoff.record("price", from_="compress") as h:  # attaches the OTLP export to my provider
        h.input("brief")
    with provider.get_tracer("app").start_as_current_span(
        f"lookup {EMAIL}", attributes={"db.password": PASSWORD}
    ) as span:
        span.record_exception(LookupError(f"no account for {NAME} at {STREET}, card {CARD}"))
        span.set_status(handoff_status_error(f"{EMAIL} declined"))
    assert handoff.flush(30) is True
    names = sorted(span["name"] for span in receiver.spans)
    scrubber = Scrubber("k")
    assert (leaks(receiver.bodies), names) == (
        [],
        ["handoff compress -> price", f"lookup {scrubber.pseudonym('EMAIL_ADDRESS', EMAIL)}"],
    )


def handoff_status_error(description: str):
    from opentelemetry.trace import Status, StatusCode

    return Status(StatusCode.ERROR, description)
