"""The exporter that writes records into a store: scrub, extract constraints, pack, write.

Work is split in two so a failed write can be retried or spooled without redoing it and
without ever holding raw content: :meth:`StoreExporter.prepare` turns a batch into finished
objects (scrubbed, encoded Parquet and compressed blobs, each with its final key), and
:meth:`StoreExporter.write` puts them. Writing the same prepared objects twice is harmless:
same keys, same bytes.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import logging
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from handoff.analysis.empty import is_empty_output
from handoff.analysis.scrub.routes import scrub_mapping, scrub_payload, scrub_value
from handoff.exporters.base import Record, StagedExporter
from handoff.model import BINARY, SCHEMA_VERSION, TEXT, Event, Handoff, RunRecord, describe_error, describe_value
from handoff.store.base import ObjectStore, PendingObject
from handoff.store.blobs import encode_blob
from handoff.store.layout import blob_key, content_ref, day_of_ns, table_key
from handoff.store.tables import SCHEMAS, encode_parquet, to_table

log = logging.getLogger("handoff.exporters")

WITHHELD = b"<withheld: scrubbing failed, see events>"
SIDES = (("in", "input"), ("out", "output"))


def paragraph_tokens() -> Callable[[str], list[str]]:
    """Return the function giving a stored text's constraint tokens: :func:`stored_tokens` (its
    :func:`extract_constraints` and its ``terms``).

    Prompts repeat lines, paragraphs and table cells across handoffs and runs; extraction itself
    remembers each distinct piece a text can be cut into without changing its tokens (a bounded
    cache shared by threads), so the writer gets exactly the whole text's tokens at the cost of
    its new pieces only.
    """
    from handoff.analysis.constraints import stored_tokens

    return stored_tokens


@dataclass
class Analysis:
    """What :meth:`StoreExporter.analyze` found for one record: scrubbed texts, stored sides and constraint tokens.

    ``sides`` maps ``in``/``out`` to ``(stored bytes, scrub status, constraint tokens)``;
    ``events`` are recorder events it raised (a payload whose scrubbing failed); ``texts`` holds the
    scrubbed names (``from_step``, ``to_step``, ``model``, ``effort``, ``prompt_pack``, ``template``,
    a run's or event's ``name``) and ``config`` the scrubbed config.
    """

    attributes: dict[str, str] = field(default_factory=dict)
    error_message: str | None = None
    texts: dict[str, str | None] = field(default_factory=dict)
    config: Any = None
    sides: dict[str, tuple[bytes, str, list[str]]] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    withheld: bool = False
    capture_error: str | None = None


# The digest columns that hold names and config values from the application, scrubbed like content.
_NAMED_COLUMNS = ("from_step", "to_step", "model", "effort", "prompt_pack", "template")


def _unencodable_columns(table: str, row: dict[str, Any]) -> list[str]:
    """The columns of ``row`` whose value the table's schema cannot hold (too large, wrong type)."""
    schema = SCHEMAS[table]
    left_out = []
    for name in schema.names:
        value = row.get(name)
        if value is None:
            continue
        if pa.types.is_map(schema.field(name).type):
            value = sorted((str(k), str(v)) for k, v in value.items())
        try:
            pa.array([value], type=schema.field(name).type)
        except (pa.ArrowException, OverflowError, TypeError, ValueError):
            left_out.append(name)
    return left_out


def _join_errors(*errors: str | None) -> str | None:
    return "; ".join(error for error in errors if error) or None


def _ts_us(ts_ns: int | None) -> int | None:
    return None if ts_ns is None else ts_ns // 1000


def _estimate_tokens(data: bytes | None) -> int | None:
    return None if data is None else math.ceil(len(data) / 4)


class StoreExporter(StagedExporter):
    """Writes batches as packed Parquet files (and large payloads as blobs) into ``store``.

    ``scrubber`` is an object with ``scrub_bytes(data, content_type)`` and ``scrub_text(text)``
    (see :class:`handoff.analysis.scrub.Scrubber`), or ``None`` to store content unscrubbed.
    """

    def __init__(
        self,
        store: ObjectStore,
        writer: str,
        *,
        scrubber: Any = None,
        inline_limit_bytes: int = 8 * 1024 * 1024,
    ) -> None:
        self.store = store
        self.writer = writer
        self.scrubber = scrubber
        self.inline_limit_bytes = inline_limit_bytes
        self._n = 0
        self._pool = None
        #: Records written without a value they held that could not be encoded (see ``capture_error``).
        self.encode_errors = 0
        from handoff.analysis.constraints import CONSTRAINTS_VERSION

        self._extract = paragraph_tokens()
        self._constraints_version = CONSTRAINTS_VERSION

    # -- prepare -------------------------------------------------------------------------

    def prepare(self, batch: Sequence[Record]) -> list[PendingObject]:
        """Turn a batch into finished objects; content files come before the digest rows that name them.

        One record that cannot be encoded never costs the rest of its batch: it is kept as what
        can be encoded, with ``capture_error`` saying what was left out (counted in ``encode_errors``).
        """
        return self.assemble(batch, [self.analyze(record) for record in batch])

    def analyze(self, record: Record) -> Analysis:
        """The CPU work for one record, independent of every other: scrub its texts, extract constraints.

        Safe to run in another process (the writer's pool): takes and returns plain data.
        """
        try:
            if isinstance(record, Handoff):
                return self._analyze_handoff(record)
            return Analysis(
                attributes=self._scrub_attrs(record.attributes),
                error_message=self._scrub_text(getattr(record, "error_message", None)),
                texts={"name": self._scrub_text(record.name)},
            )
        except Exception as exc:  # noqa: BLE001 - withhold what could not be analyzed, keep the record
            return Analysis(withheld=True, capture_error=f"writer: {describe_error(exc)}")

    def assemble(self, batch: Sequence[Record], analyses: Sequence[Analysis]) -> list[PendingObject]:
        """Build and encode the batch's files from its records and their analyses (same order)."""
        rows: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
        content_keys: dict[str, str] = {}
        blobs: list[PendingObject] = []
        events: list[tuple[Event, Analysis]] = []
        for record, analysis in zip(batch, analyses):
            if isinstance(record, Handoff):
                day = day_of_ns(record.ts_ns)
                if day not in content_keys:
                    content_keys[day] = self._next_key("content", day)
                self._add_handoff(record, analysis, content_keys[day], rows[day], blobs)
                events += [
                    (
                        event,
                        Analysis(
                            attributes=event.attributes, error_message=event.error_message, texts={"name": event.name}
                        ),
                    )
                    for event in analysis.events
                ]
            elif isinstance(record, RunRecord):
                rows[day_of_ns(record.start_ns)]["runs"].append(self._run_row(record, analysis))
            elif isinstance(record, Event):
                events.append((record, analysis))
        for event, analysis in events:
            rows[day_of_ns(event.ts_ns)]["events"].append(self._event_row(event, analysis))
        objects = list(blobs)
        for day in sorted(rows):
            for table in ("content", "handoffs", "runs", "events"):
                if rows[day].get(table):
                    key = content_keys[day] if table == "content" else self._next_key(table, day)
                    objects.append(PendingObject(key, encode_parquet(self._encode(table, rows[day][table]))))
        return objects

    def _encode(self, table: str, rows: list[dict[str, Any]]) -> Any:
        """The Arrow table of ``rows``; a row with a value its column cannot hold loses that value, not its batch."""
        try:
            return to_table(table, rows)
        except (pa.ArrowException, OverflowError, TypeError, ValueError):
            pass
        for row in rows:
            left_out = _unencodable_columns(table, row)
            for name in left_out:
                row[name] = None
            if left_out and table == "handoffs":
                self.encode_errors += 1
                row["capture_error"] = _join_errors(
                    row.get("capture_error"), f"not encodable, left out: {', '.join(left_out)}"
                )
        return to_table(table, rows)

    def _next_key(self, table: str, day: str) -> str:
        self._n += 1
        return table_key(table, day, self.writer, self._n)

    def _scrub_text(self, text: str | None) -> str | None:
        if text is None or self.scrubber is None:
            return text
        try:
            return self.scrubber.scrub_text(text)
        except Exception:  # noqa: BLE001 - never store raw text when scrubbing fails
            return "<withheld: scrubbing failed>"

    def _scrub_attrs(self, attrs: dict[str, str]) -> dict[str, str]:
        attrs = {str(key): describe_value(value) for key, value in attrs.items()}
        if self.scrubber is None or not attrs:
            return attrs
        try:
            return scrub_mapping(self.scrubber, attrs)
        except Exception:  # noqa: BLE001 - never store raw attributes when scrubbing fails
            return {"withheld": "<withheld: scrubbing failed>"}

    def _scrub_config(self, config: dict[str, Any]) -> Any:
        if self.scrubber is None or not config:
            return config
        try:
            return scrub_value(self.scrubber, config)
        except Exception:  # noqa: BLE001 - never store raw config when scrubbing fails
            return {"withheld": "<withheld: scrubbing failed>"}

    def _text(self, analysis: Analysis, column: str, raw: str | None) -> str | None:
        """The scrubbed ``column`` from ``analysis``; never the raw value when scrubbing is on but missing."""
        if column in analysis.texts:
            return analysis.texts[column]
        return raw if self.scrubber is None or raw is None else "<withheld: scrubbing failed>"

    def _stored_bytes(
        self, record: Handoff, raw: bytes, content_type: str, events: list[Event]
    ) -> tuple[bytes, str, str | None]:
        if self.scrubber is None or not record.scrub:
            return raw, "off", None
        try:
            stored = scrub_payload(self.scrubber, raw, content_type or BINARY)
            return stored.data, "scrubbed", stored.text
        except Exception as exc:  # noqa: BLE001 - withhold, record why, keep the digest row
            events.append(
                Event(
                    run_id=record.run_id,
                    handoff_id=record.handoff_id,
                    name="scrub-failed",
                    kind="recorder",
                    ts_ns=record.ts_ns,
                    error_type=type(exc).__name__,
                    error_message="content withheld: the scrubber failed on this payload",
                )
            )
            return WITHHELD, "withheld", None

    def _constraints(self, stored: bytes | None, status: str, text: str | None) -> list[str]:
        if stored is None or status == "withheld":
            return []
        return self._extract(text if text is not None else stored.decode("utf-8", errors="replace"))

    def _analyze_handoff(self, record: Handoff) -> Analysis:
        analysis = Analysis(
            attributes=self._scrub_attrs(record.attributes),
            error_message=self._scrub_text(record.error_message),
            texts={column: self._scrub_text(getattr(record, column)) for column in _NAMED_COLUMNS},
            config=self._scrub_config(record.config),
        )
        for side, name in SIDES:
            raw: bytes | None = getattr(record, name)
            if raw is None:
                continue
            content_type = getattr(record, f"{name}_content_type") or TEXT
            stored, status, text = self._stored_bytes(record, raw, content_type, analysis.events)
            analysis.sides[side] = (stored, status, self._constraints(stored, status, text))
        return analysis

    def _add_handoff(
        self,
        record: Handoff,
        analysis: Analysis,
        content_key: str,
        tables: dict[str, list[dict]],
        blobs: list[PendingObject],
    ) -> None:
        day = day_of_ns(record.ts_ns)
        row = self._handoff_row(record, analysis)
        for side, name in SIDES:
            if getattr(record, name) is None:
                continue
            content_type = getattr(record, f"{name}_content_type") or TEXT
            stored, status, constraints = analysis.sides.get(side) or (WITHHELD, "withheld", [])
            row[f"{name}_constraints"] = constraints
            if len(stored) > self.inline_limit_bytes:
                key = blob_key(day, record.run_id, record.handoff_id, side)
                blobs.append(PendingObject(key, encode_blob(stored)))
                row[f"{name}_ref"] = key
                continue
            row[f"{name}_ref"] = content_ref(content_key, record.run_id, record.handoff_id, side)
            tables["content"].append(
                {
                    "run_id": record.run_id,
                    "handoff_id": record.handoff_id,
                    "side": side,
                    "ts": _ts_us(record.ts_ns),
                    "content": stored,
                    "content_type": content_type,
                    "stored_sha256": hashlib.sha256(stored).hexdigest(),
                    "scrub_status": status,
                }
            )
        tables["handoffs"].append(row)

    def _config_json(self, record: Handoff, analysis: Analysis, errors: list[str]) -> str | None:
        config = record.config if self.scrubber is None else analysis.config
        if not config:
            return None
        try:
            return json.dumps(config, sort_keys=True, default=describe_value)
        except (TypeError, ValueError, RecursionError) as exc:
            errors.append(f"config not encodable: {describe_error(exc)}")
            self.encode_errors += 1
            return None

    def _handoff_row(self, record: Handoff, analysis: Analysis) -> dict[str, Any]:
        estimated = record.input_tokens is None or record.output_tokens is None
        errors = [error for error in (record.capture_error, analysis.capture_error) if error]
        return {
            "run_id": record.run_id,
            "handoff_id": record.handoff_id,
            "seq": record.seq,
            "from_step": self._text(analysis, "from_step", record.from_step),
            "to_step": self._text(analysis, "to_step", record.to_step),
            "kind": record.kind,
            "parent_handoff_id": record.parent_handoff_id,
            "fan_in": list(record.fan_in),
            "ts": _ts_us(record.ts_ns),
            "duration_ms": record.duration_ms,
            "status": record.status,
            "error_type": record.error_type,
            "error_message": analysis.error_message,
            "input_sha256": record.input_sha256,
            "output_sha256": record.output_sha256,
            "digest_alg": record.digest_alg,
            "input_bytes": None if record.input is None else len(record.input),
            "output_bytes": None if record.output is None else len(record.output),
            "input_content_type": record.input_content_type,
            "output_content_type": record.output_content_type,
            "input_tokens": record.input_tokens if record.input_tokens is not None else _estimate_tokens(record.input),
            "output_tokens": record.output_tokens
            if record.output_tokens is not None
            else _estimate_tokens(record.output),
            "tokens_estimated": estimated,
            "model": self._text(analysis, "model", record.model),
            "effort": self._text(analysis, "effort", record.effort),
            "prompt_pack": self._text(analysis, "prompt_pack", record.prompt_pack),
            "template": self._text(analysis, "template", record.template),
            "config": self._config_json(record, analysis, errors),
            "attempt": record.attempt,
            "retry_of": record.retry_of,
            "trace_id": record.trace_id,
            "span_id": record.span_id,
            "input_constraints": [],
            "output_constraints": [],
            "constraints_version": self._constraints_version,
            "tier": "full",
            "attributes": analysis.attributes,
            "writer": self.writer,
            "schema_version": SCHEMA_VERSION,
            "verdict": record.verdict,
            "verdict_reason": self._scrub_text(record.verdict_reason),
            "output_empty": None if record.output is None else is_empty_output(record.output),
            "allow_empty": record.allow_empty,
            "capture_error": "; ".join(errors) or None,
        }

    def _run_row(self, record: RunRecord, analysis: Analysis) -> dict[str, Any]:
        return {
            "run_id": record.run_id,
            "name": self._text(analysis, "name", record.name),
            "start_ts": _ts_us(record.start_ns),
            "end_ts": _ts_us(record.end_ns),
            "status": record.status,
            "attributes": analysis.attributes,
            "recorded_ts": _ts_us(record.recorded_ns),
            "writer": self.writer,
        }

    def _event_row(self, event: Event, analysis: Analysis) -> dict[str, Any]:
        return {
            "run_id": event.run_id,
            "handoff_id": event.handoff_id,
            "ts": _ts_us(event.ts_ns),
            "kind": event.kind,
            "name": self._text(analysis, "name", event.name),
            "error_type": event.error_type,
            "error_message": analysis.error_message,
            "attributes": analysis.attributes,
            "writer": self.writer,
        }

    # -- write ---------------------------------------------------------------------------

    def write(self, objects: Sequence[PendingObject]) -> None:
        """Put prepared objects; raise ``StoreError`` if any fails.

        Digest rows (``handoffs/``) go up only after every content file and blob they name is
        stored, so a reader never finds a ref to a missing object. Within each phase a store
        that offers ``upload_threads`` (S3) gets the objects put in parallel.
        """
        content = [obj for obj in objects if not obj.key.startswith("handoffs/")]
        digests = [obj for obj in objects if obj.key.startswith("handoffs/")]
        for phase in (content, digests):
            self._put_all(phase)

    def _create(self, key: str, data: bytes) -> None:
        # Create only (If-None-Match: * on S3), so a writer key can never overwrite a file; a key
        # that exists already is this batch's own earlier attempt (keys are unique per writer).
        self.store.put_if_absent(key, data)

    def _put_all(self, objects: Sequence[PendingObject]) -> None:
        threads = min(len(objects), getattr(self.store, "upload_threads", 1))
        if threads <= 1:
            for obj in objects:
                self._create(obj.key, obj.data)
            return
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=self.store.upload_threads, thread_name_prefix="handoff-upload")
        # Run each put in the worker's context, so instrumentation stays suppressed in the upload threads.
        futures = [
            self._pool.submit(contextvars.copy_context().run, self._create, obj.key, obj.data) for obj in objects
        ]
        for future in futures:
            future.result()

    def shutdown(self) -> None:
        """Stop the upload threads."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def export_failed(self, batch: Sequence[Record], exc: Exception) -> None:
        """Log a failed :meth:`export` (the writer without a spool then drops the batch)."""
        log.warning("handoff: writing %d records to %s failed: %s", len(batch), self.store.url, exc)
