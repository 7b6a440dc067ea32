"""Is an output empty? The question the ``empty-output`` check asks of every ok handoff.

An empty reply is neither an abstention nor a value: a consumer that reads ``[]`` from a RAG step
as "nothing relevant" carries on confidently on nothing. :func:`is_empty_output` runs in the
writer on the raw output bytes (before scrubbing), and its answer is stored on the digest row
(``output_empty``), so the check keeps working once retention has dropped the content.

Empty means: no bytes; only whitespace (Unicode whitespace, zero-width spaces and byte-order
marks included); or JSON that holds nothing: ``[]``, ``{}``, ``""`` or a string of whitespace,
with any whitespace around or inside. ``null``, ``0`` and ``false`` are values, not empty: a
step that returns ``None`` has answered.
"""

from __future__ import annotations

import json

#: Characters that show nothing: Unicode whitespace (all below U+3001), zero-width spaces and joiners, BOM.
#: One ``str.strip(chars)`` pass: linear on hostile input, where a regex anchored at the end is not.
_INVISIBLE = "".join(chr(code) for code in range(0x3001) if chr(code).isspace()) + "\u200b\u200c\u200d\u2060\ufeff"

#: Outputs longer than this (after stripping) are not parsed as JSON: an empty container is short.
_MAX_JSON_BYTES = 256


def is_empty_output(data: bytes | str | None) -> bool:
    """``True`` when ``data`` says nothing: empty, whitespace, or an empty JSON list, object or string.

    ``None`` (no output recorded) is not empty: there is nothing to judge. Bytes that are not
    UTF-8 are a value.
    """
    if data is None:
        return False
    if isinstance(data, bytes):
        if len(data) > 4 * _MAX_JSON_BYTES and data[:1].isalnum():
            return False  # fast path: long text that starts with a character is not empty
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            return False
    text = _strip(data)
    if not text:
        return True
    if len(text) > _MAX_JSON_BYTES or text[0] not in '[{"':
        return False
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return value in ([], {}) or (isinstance(value, str) and not _strip(value))


def _strip(text: str) -> str:
    return text.strip(_INVISIBLE)
