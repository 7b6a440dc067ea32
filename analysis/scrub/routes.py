"""Every route into the store through one :class:`~handoff.analysis.scrub.Scrubber`.

The scrubber itself scrubs text, UTF-8 payloads and JSON documents. The writer and the span
exporter also meet bytes in other encodings, JSON values that are not a document yet (config,
attributes) and short names (steps, runs, events); this module puts each of them through the
same scrubber, so one value gets one pseudonym whichever way it arrived:

- :func:`scrub_payload`: bytes in any encoding. UTF-8 (and JSON) go to ``Scrubber.scrub_bytes``;
  a declared ``charset``, a byte-order mark, BOM-less UTF-16 and Latin-1 text are decoded,
  scrubbed and encoded back in their own encoding; anything else is binary, and every run of
  text in it (ASCII/UTF-8/Latin-1 and UTF-16) is scrubbed in place. Raw bytes are never kept
  because they did not decode.
- :func:`scrub_value`: a JSON value of any type (nested keys and values, numbers that are cards).
- :func:`scrub_mapping`: string attributes, scrubbed with their keys as context.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any, NamedTuple

_JSON = "application/json"
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_CHARSET = re.compile(r";\s*charset\s*=\s*\"?([A-Za-z0-9._:\-]+)", re.IGNORECASE)
# Runs of text inside binary data: UTF-16 (little- and big-endian) and single-byte/UTF-8 text.
_TEXT_RUNS = re.compile(
    rb"(?P<le>(?:[\t\n\r\x20-\x7e\xa0-\xff]\x00){4,})"
    rb"|(?P<be>(?:\x00[\t\n\r\x20-\x7e\xa0-\xff]){4,})"
    rb"|(?P<bytes>[\t\n\r\x20-\x7e\x80-\xff]{4,})"
)
_RUN_CODECS = {"le": "utf-16-le", "be": "utf-16-be"}
_MIN_PRINTABLE = 0.97


class ScrubbedPayload(NamedTuple):
    """A scrubbed payload: the bytes to store, the scrubbed text (for constraint tokens), the encoding read."""

    data: bytes
    text: str
    encoding: str


def scrub_payload(scrubber: Any, data: bytes, content_type: str) -> ScrubbedPayload:
    """Scrub ``data`` whatever its encoding; raise what the scrubber raises (the writer then withholds).

    The result is in the payload's own encoding (a UTF-16 prompt stays UTF-16), so the stored bytes
    are what the consumer received with every finding replaced by its pseudonym.
    """
    declared = _declared_codec(content_type)
    if declared is not None and declared != "utf-8":
        text = _decode(data, declared)
        if text is not None:
            return _recoded(scrubber, text, declared, b"")
    for bom, codec in _BOMS:
        if data.startswith(bom):
            text = _decode(data[len(bom) :], codec)
            if text is not None:
                return _recoded(scrubber, text, codec, bom)
    # ASCII in UTF-16 is valid UTF-8 too (a NUL after every letter): look for UTF-16 first.
    codec = _bomless_utf16(data)
    if codec is not None:
        return _recoded(scrubber, _decode(data, codec) or "", codec, b"")
    if _decode(data, "utf-8") is not None:
        stored = scrubber.scrub_bytes(data, content_type)
        return ScrubbedPayload(stored, stored.decode("utf-8", "replace"), "utf-8")
    latin = data.decode("latin-1")
    if _printable(latin) >= _MIN_PRINTABLE:
        return _recoded(scrubber, latin, "latin-1", b"")
    return _scrub_binary(scrubber, data)


def scrub_value(scrubber: Any, value: Any) -> Any:
    """Return a JSON value of any type with every key and value scrubbed (a card given as an integer too).

    Values JSON cannot hold become their ``str`` first, as the renderer does.
    """
    document = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return json.loads(scrubber.scrub_bytes(document.encode("utf-8"), _JSON))


def scrub_mapping(scrubber: Any, attributes: dict[str, Any]) -> dict[str, str]:
    """Return string attributes scrubbed as one JSON object, so a key such as ``password`` marks its value."""
    if not attributes:
        return {}
    scrubbed = scrub_value(scrubber, {str(key): value for key, value in attributes.items()})
    return {key: value if isinstance(value, str) else json.dumps(value) for key, value in scrubbed.items()}


def _declared_codec(content_type: str) -> str | None:
    match = _CHARSET.search(content_type or "")
    if match is None:
        return None
    try:
        return codecs.lookup(match.group(1)).name
    except LookupError:
        return None


def _decode(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def _recoded(scrubber: Any, text: str, codec: str, bom: bytes) -> ScrubbedPayload:
    scrubbed = scrubber.scrub_text(text)
    return ScrubbedPayload(bom + scrubbed.encode(codec, "replace"), scrubbed, codec)


def _bomless_utf16(data: bytes) -> str | None:
    """``utf-16-le``/``-be`` when every other byte is mostly NUL and the text decodes cleanly, else ``None``."""
    if len(data) < 4 or len(data) % 2:
        return None
    half = len(data) // 2
    for codec, zeros in (("utf-16-le", data[1::2]), ("utf-16-be", data[0::2])):
        if zeros.count(0) >= 0.4 * half:
            text = _decode(data, codec)
            if text is not None and _printable(text) >= _MIN_PRINTABLE:
                return codec
    return None


def _printable(text: str) -> float:
    if not text:
        return 1.0
    return sum(ch.isprintable() or ch in "\t\n\r" for ch in text) / len(text)


def _scrub_binary(scrubber: Any, data: bytes) -> ScrubbedPayload:
    """Scrub every run of text in binary data in place; the bytes between runs stay as they are."""
    pieces: list[bytes] = []
    texts: list[str] = []
    cursor = 0
    for match in _TEXT_RUNS.finditer(data):
        kind = match.lastgroup or "bytes"
        run = match.group()
        codec = _RUN_CODECS.get(kind) or ("utf-8" if _decode(run, "utf-8") is not None else "latin-1")
        scrubbed = scrubber.scrub_text(run.decode(codec))
        pieces += [data[cursor : match.start()], scrubbed.encode(codec, "replace")]
        texts.append(scrubbed)
        cursor = match.end()
    pieces.append(data[cursor:])
    return ScrubbedPayload(b"".join(pieces), "\n".join(texts), "binary")
