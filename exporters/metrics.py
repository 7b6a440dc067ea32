"""The writer's counters as OpenTelemetry metrics.

One asynchronous instrument per counter, read when the SDK collects (never on the hot path):

==================================  =====================  ======================================
instrument                          kind                   meaning
==================================  =====================  ======================================
``handoff.writer.enqueued``         ObservableCounter      records handed to the writer
``handoff.writer.written``          ObservableCounter      records now in the store
``handoff.writer.export_failures``  ObservableCounter      store writes that failed (batches)
``handoff.writer.spooled``          ObservableCounter      records put in the local spool
``handoff.writer.retried``          ObservableCounter      spooled records later delivered
``handoff.writer.dropped``          ObservableCounter      records lost (queue and spool full)
``handoff.writer.capture_errors``   ObservableCounter      failures inside the recorder itself
``handoff.writer.encode_errors``    ObservableCounter      records written without a value that could not be encoded
``handoff.writer.spilled``          ObservableCounter      raw records the application spilled to disk, encrypted
``handoff.writer.span_errors``      ObservableCounter      handoff spans that could not be emitted to the provider
``handoff.writer.queued``           ObservableUpDownCounter records waiting in memory now
``handoff.spool.bytes``             ObservableUpDownCounter bytes waiting in the spool now
==================================  =====================  ======================================
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Counter name -> unit.
COUNTERS = {
    "enqueued": "{record}",
    "written": "{record}",
    "export_failures": "{batch}",
    "spooled": "{record}",
    "retried": "{record}",
    "dropped": "{record}",
    "capture_errors": "{error}",
    "encode_errors": "{record}",
    "spilled": "{record}",
    "span_errors": "{span}",
}


def register_metrics(status: Callable[[], dict[str, Any]], meter_provider: Any = None) -> list[Any]:
    """Create the instruments on ``meter_provider`` (default: the global one); return them.

    ``status`` returns ``{"counters": {...}, "queued": n, "spool_bytes": n}`` for the writer in
    force; it is called from the SDK's collection thread.
    """
    from opentelemetry import metrics

    meter = (meter_provider or metrics.get_meter_provider()).get_meter("handoff")
    instruments = [
        meter.create_observable_counter(
            f"handoff.writer.{name}",
            callbacks=[_counter_callback(status, name)],
            unit=unit,
            description=f"handoff writer: {name.replace('_', ' ')}",
        )
        for name, unit in COUNTERS.items()
    ]
    instruments.append(
        meter.create_observable_up_down_counter(
            "handoff.writer.queued",
            callbacks=[_value_callback(status, "queued")],
            unit="{record}",
            description="handoff writer: records waiting in memory",
        )
    )
    instruments.append(
        meter.create_observable_up_down_counter(
            "handoff.spool.bytes",
            callbacks=[_value_callback(status, "spool_bytes")],
            unit="By",
            description="handoff writer: bytes waiting in the local spool",
        )
    )
    return instruments


def _counter_callback(status: Callable[[], dict[str, Any]], name: str):
    from opentelemetry.metrics import Observation

    def observe(_options: Any) -> list[Observation]:
        return [Observation(int(status().get("counters", {}).get(name, 0)))]

    return observe


def _value_callback(status: Callable[[], dict[str, Any]], field: str):
    from opentelemetry.metrics import Observation

    def observe(_options: Any) -> list[Observation]:
        return [Observation(int(status().get(field) or 0))]

    return observe
