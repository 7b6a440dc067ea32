"""Spans leave the process scrubbed: :class:`ScrubbingSpanExporter` wraps any OpenTelemetry span exporter.

Capture opens spans on the application's thread, where nothing is scrubbed (scrubbing is the
writer's work, off the hot path). What a span carries from the application (its name, which holds
the step names, string attributes, event names and attributes such as ``exception.message``, the
status description, link attributes) is therefore scrubbed here, in the span processor's export
thread, by the same scrubber as the store, so a name gets the same pseudonym on the wire as on disk.
Attributes handoff itself makes from ids and digests are passed as they are.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from handoff.diagnostics import warn_once

# Attributes handoff makes from ids, digests, counts and its own vocabulary: nothing from the app.
_OWN_ATTRIBUTES = frozenset(
    {
        "handoff.run_id",
        "handoff.id",
        "handoff.kind",
        "handoff.status",
        "handoff.attempt",
        "handoff.parent_id",
        "handoff.retry_of",
        "handoff.input.sha256",
        "handoff.output.sha256",
    }
)
_WITHHELD = "<withheld: scrubbing failed>"


class ScrubbingSpanExporter:
    """A ``SpanExporter`` that scrubs each span, then hands it to ``exporter``.

    ``scrubber`` is a function returning the scrubber (built on first export, in the export
    thread). A span whose scrubbing fails is dropped, counted in the log once, never sent raw.
    """

    def __init__(self, exporter: Any, scrubber: Callable[[], Any]) -> None:
        self._exporter = exporter
        self._make_scrubber = scrubber
        self._scrubber: Any = None
        self._lock = threading.Lock()

    def export(self, spans: Sequence[Any]) -> Any:
        """Scrub ``spans`` and export them through the wrapped exporter; return its result."""
        scrubbed = []
        for span in spans:
            try:
                scrubbed.append(self._scrub_span(span))
            except Exception as exc:  # noqa: BLE001 - a span that cannot be scrubbed is not sent
                warn_once("handoff: a span was not exported because scrubbing it failed: %s", exc)
        return self._exporter.export(scrubbed)

    def shutdown(self) -> None:
        """Shut the wrapped exporter down."""
        self._exporter.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Flush the wrapped exporter."""
        return self._exporter.force_flush(timeout_millis)

    def _get_scrubber(self) -> Any:
        with self._lock:
            if self._scrubber is None:
                self._scrubber = self._make_scrubber()
            return self._scrubber

    def _scrub_span(self, span: Any) -> Any:
        from opentelemetry.sdk.trace import Event, ReadableSpan
        from opentelemetry.trace import Link, Status

        scrubber = self._get_scrubber()
        events = [
            Event(scrubber.scrub_text(e.name), _scrub_attributes(scrubber, e.attributes), e.timestamp)
            for e in span.events
        ]
        links = [Link(link.context, _scrub_attributes(scrubber, link.attributes)) for link in span.links]
        description = span.status.description
        return ReadableSpan(
            name=scrubber.scrub_text(span.name),
            context=span.context,
            parent=span.parent,
            resource=span.resource,
            attributes=_scrub_attributes(scrubber, span.attributes),
            events=events,
            links=links,
            kind=span.kind,
            status=Status(span.status.status_code, scrubber.scrub_text(description) if description else None),
            start_time=span.start_time,
            end_time=span.end_time,
            instrumentation_scope=span.instrumentation_scope,
        )


def _scrub_attributes(scrubber: Any, attributes: Any) -> dict[str, Any]:
    """Scrub the attributes that come from the application as one JSON object (keys give context)."""
    from handoff.analysis.scrub.routes import scrub_value

    attributes = dict(attributes or {})
    own = {key: value for key, value in attributes.items() if key in _OWN_ATTRIBUTES}
    foreign = {key: value for key, value in attributes.items() if key not in _OWN_ATTRIBUTES}
    if foreign:
        # Keys are scrubbed too (a key can be an e-mail address), so the result is built anew.
        own.update({key: _as_attribute(value) for key, value in scrub_value(scrubber, foreign).items()})
    return own


def _as_attribute(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(str(item) if isinstance(item, (dict, list)) else item for item in value)
    return str(value) if isinstance(value, dict) else value
