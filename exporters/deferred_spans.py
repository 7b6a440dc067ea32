"""Handoff spans made on the hot path, emitted to the SDK after the step ends, on a background thread.

Starting an SDK span validates its attributes, builds bounded collections and runs every span
processor's ``on_start``; ending it copies it into a ``ReadableSpan`` and runs ``on_end``: about
25 µs of the application's time per handoff, more than the hash and everything else handoff
does. So a handoff's span is a :class:`DeferredSpan` while the step runs: the ids come from the
provider's id generator, the sampling decision from its sampler (both on the caller's thread, at
the start, so child spans and propagated headers carry the final ids and flags), and the rest
(attributes, events, links, status, name) is kept in plain Python objects. When it ends it joins
the :class:`SpanEmitter`'s queue; the emitter's daemon thread replays it onto the real SDK span
through the provider's own ``Tracer.start_span`` (a twin tracer whose sampler returns the decision
already taken and whose id generator returns the ids already given), so span processors see
``on_start`` and ``on_end`` with the same name, attributes, links, events, status, times, ids,
resource and instrumentation scope as a span started the ordinary way, only later.

``flush`` emits everything ended so far; the recorder calls it before flushing the writer and
the OTLP processors, and at exit. The provider's own ``force_flush`` emits them too (a processor
added to it flushes every emitter first, then the provider's processors once more), so an
application that flushes its provider at the end of a request still exports every handoff span.
A span that cannot be emitted is counted (``span_errors``) and logged once; nothing here raises
into the application.
"""

from __future__ import annotations

import atexit
import collections
import logging
import os
import threading
import time
import traceback
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanContext, Status, StatusCode, TraceFlags

from handoff.diagnostics import Counters, warn_once

log = logging.getLogger("handoff.spans")

#: Pending ended spans beyond which new ones are dropped and counted (the emitter is starved).
MAX_PENDING = 100_000
#: The emitter wakes when this many spans are pending, or every ``INTERVAL_S``.
BATCH = 512
INTERVAL_S = 0.1
_SAMPLED = TraceFlags.SAMPLED
_RANDOM = getattr(TraceFlags, "RANDOM_TRACE_ID", 0)


class DeferredSpan(trace.Span):
    """A handoff span while its step runs: the OpenTelemetry ``Span`` API over plain Python objects.

    ``trace.get_current_span()`` inside a step returns it, so application code can set
    attributes, add events and links, set the status or rename it; child spans take it as their
    parent. Nothing is validated here: the SDK span built from it at emission validates and
    bounds everything exactly as it would have at the call.
    """

    __slots__ = (
        "_tracer", "_context", "_parent", "_parent_context", "_sampling", "_start_name", "_name", "_kind", "_start_ns",
        "_end_ns", "_start_links", "_attributes", "_events", "_links", "_status",
    )  # fmt: skip

    def __init__(
        self, tracer: DeferredTracer, span_context: SpanContext, parent: SpanContext | None, parent_context: Any,
        sampling: Any, name: str, kind: Any, start_ns: int, links: Sequence[Any],
    ) -> None:  # fmt: skip
        self._tracer = tracer
        self._context = span_context
        self._parent = parent
        self._parent_context = parent_context
        self._sampling = sampling
        self._start_name = self._name = name
        self._kind = kind
        self._start_ns = start_ns
        self._end_ns: int | None = None
        self._start_links = links
        self._attributes: dict[str, Any] = {}
        self._events: list[tuple[str, Any, int]] = []
        self._links: list[tuple[SpanContext, Any]] = []
        self._status: Status | None = None

    def get_span_context(self) -> SpanContext:
        """The span's context: final trace id, span id, flags and trace state."""
        return self._context

    def is_recording(self) -> bool:
        """True until the span ends."""
        return self._end_ns is None

    def set_attributes(self, attributes: Mapping[str, Any]) -> None:
        """Set attributes (ignored once ended, as the SDK does)."""
        if self._end_ns is None:
            self._attributes.update(attributes)

    def set_attribute(self, key: str, value: Any) -> None:
        """Set one attribute (ignored once ended)."""
        if self._end_ns is None:
            # A list is copied as the SDK does at the call, so later changes to it do not leak in.
            self._attributes[key] = tuple(value) if type(value) is list else value

    def add_event(self, name: str, attributes: Any = None, timestamp: int | None = None) -> None:
        """Add an event, timestamped now unless ``timestamp`` is given."""
        if self._end_ns is None:
            self._events.append((name, dict(attributes) if attributes else None, timestamp or time.time_ns()))

    def add_link(self, context: SpanContext, attributes: Any = None) -> None:
        """Add a link to another span."""
        if self._end_ns is None:
            self._links.append((context, dict(attributes) if attributes else None))

    def update_name(self, name: str) -> None:
        """Rename the span (samplers saw the name it started with, as with the SDK)."""
        if self._end_ns is None:
            self._name = name

    def set_status(self, status: Status | StatusCode, description: str | None = None) -> None:
        """Set the status with the SDK's rules: ``OK`` is final, ``UNSET`` is ignored."""
        if self._end_ns is not None or (self._status is not None and self._status.status_code is StatusCode.OK):
            return
        if isinstance(status, StatusCode):
            status = Status(status, description)
        if status.status_code is not StatusCode.UNSET:
            self._status = status

    def record_exception(
        self, exception: BaseException, attributes: Any = None, timestamp: int | None = None, escaped: bool = False
    ) -> None:
        """Add the ``exception`` event, formatted now (as the SDK does) so the traceback is not kept alive."""
        module, qualname = type(exception).__module__, type(exception).__qualname__
        event = {
            "exception.type": f"{module}.{qualname}" if module and module != "builtins" else qualname,
            "exception.message": str(exception),
            "exception.stacktrace": "".join(traceback.format_exception(exception)),
            "exception.escaped": str(escaped),
        }
        if attributes:
            event.update(attributes)
        self.add_event("exception", event, timestamp)

    def end(self, end_time: int | None = None) -> None:
        """End the span and queue it for emission; only the first call counts."""
        if self._end_ns is not None:
            return
        self._end_ns = end_time if end_time is not None else time.time_ns()
        self._tracer.emitter.submit(self)

    # What the SDK's span also lets code read (ReadableSpan), for code that looks at the current span.

    @property
    def name(self) -> str:
        """The span's name."""
        return self._name

    @property
    def context(self) -> SpanContext:
        """The span's context (as ``get_span_context()``)."""
        return self._context

    @property
    def parent(self) -> SpanContext | None:
        """The parent span's context, ``None`` for a root span."""
        return self._parent

    @property
    def kind(self) -> Any:
        """The ``SpanKind``."""
        return self._kind

    @property
    def start_time(self) -> int:
        """Start, in ns since the epoch."""
        return self._start_ns

    @property
    def end_time(self) -> int | None:
        """End, in ns since the epoch (``None`` while running)."""
        return self._end_ns

    @property
    def attributes(self) -> Mapping[str, Any]:
        """The attributes so far (not yet bounded or validated: the SDK does that at emission)."""
        return {**self._sampling.attributes, **self._attributes}

    @property
    def status(self) -> Status:
        """The status so far."""
        return self._status or Status(StatusCode.UNSET)

    @property
    def resource(self) -> Any:
        """The provider's resource."""
        return self._tracer.resource

    @property
    def instrumentation_scope(self) -> Any:
        """The instrumentation scope (``handoff``)."""
        return self._tracer.instrumentation_scope

    def __exit__(self, exc_type: Any, exc_val: BaseException | None, exc_tb: Any) -> None:
        if exc_val is not None and self._end_ns is None:
            self.record_exception(exc_val, escaped=True)
            self.set_status(Status(StatusCode.ERROR, f"{type(exc_val).__name__}: {exc_val}"))
        self.end()

    def __repr__(self) -> str:
        return f'DeferredSpan(name="{self._name}", context={self._context})'


class _DecidedSampler:
    """The twin tracer's sampler: returns the decision taken on the hot path for the span being emitted."""

    def __init__(self) -> None:
        self.result: Any = None

    def should_sample(self, *args: Any, **kwargs: Any) -> Any:
        return self.result

    def get_description(self) -> str:
        return "handoff.DecidedSampler"


class _PresetIds:
    """The twin tracer's id generator: returns the ids given on the hot path for the span being emitted."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.trace_id = 0
        self.span_id = 0

    def generate_trace_id(self) -> int:
        return self.trace_id

    def generate_span_id(self) -> int:
        return self.span_id

    def is_trace_id_random(self) -> bool:
        return self._real.is_trace_id_random()


class DeferredTracer:
    """Starts :class:`DeferredSpan`\\ s for one SDK tracer and replays them onto it at emission."""

    def __init__(self, tracer: Any, emitter: SpanEmitter) -> None:
        from opentelemetry.sdk.trace import Tracer
        from opentelemetry.sdk.trace.sampling import Decision, SamplingResult

        self.emitter = emitter
        self._real = tracer
        self._sampler = tracer.sampler
        self._static = _static_decisions(tracer.sampler)
        self._result, self._drop = SamplingResult, Decision.DROP
        self._ids = tracer.id_generator
        self._random_roots = bool(self._ids.is_trace_id_random())
        self._decided = _DecidedSampler()
        self._preset = _PresetIds(tracer.id_generator)
        # Tracer's constructor is public; the limits and scope it needs are what the SDK gave the real one.
        self._scope = tracer._instrumentation_scope
        self._twin = Tracer(
            self._decided, tracer.resource, tracer.span_processor, self._preset, tracer.instrumentation_info,
            tracer._span_limits, self._scope,
        )  # fmt: skip
        is_enabled = getattr(tracer, "_is_enabled", None)
        self._enabled = is_enabled if callable(is_enabled) else (lambda: True)
        _hook_flush(tracer.span_processor)

    def start(self, name: str, attributes: dict[str, Any], start_ns: int, kind: Any, links: Any) -> trace.Span:
        """Start a span as a child of the current context, as ``Tracer.start_span`` would; nothing is emitted yet."""
        context = otel_context.get_current()
        parent = trace.get_current_span(context).get_span_context()
        if not self._enabled():
            return trace.NonRecordingSpan(parent)
        if parent.is_valid:
            trace_id, random_id = parent.trace_id, parent.trace_flags & _RANDOM
        else:
            trace_id, random_id = self._ids.generate_trace_id(), _RANDOM if self._random_roots else 0
        links = links or ()
        static = self._static
        if static is not None:
            # ParentBased over ALWAYS_ON/ALWAYS_OFF (the SDK default): the decision its delegates would return.
            if parent.is_valid:
                decision = static[1 + parent.is_remote * 2 + parent.trace_flags.sampled]
                trace_state = parent.trace_state
            else:
                decision, trace_state = static[0], None
            result = self._result(decision, None if decision is self._drop else attributes, trace_state)
        else:
            result = self._sampler.should_sample(context, trace_id, name, kind, attributes, links)
        flags = TraceFlags((_SAMPLED if result.decision.is_sampled() else 0) | random_id)
        span_context = SpanContext(trace_id, self._ids.generate_span_id(), False, flags, result.trace_state)
        if not result.decision.is_recording():
            return trace.NonRecordingSpan(span_context)
        return DeferredSpan(
            self, span_context, parent if parent.is_valid else None, context, result, name, kind, start_ns, links
        )

    @property
    def resource(self) -> Any:
        """The provider's resource (read at emission: the SDK lets a provider update it)."""
        return self._real.resource

    @property
    def instrumentation_scope(self) -> Any:
        """The tracer's instrumentation scope."""
        return self._scope

    def emit(self, span: DeferredSpan) -> bool:
        """Build and end the SDK span of ``span`` (emitter thread); ``False`` if its ids came out different."""
        ours = span._context
        self._decided.result = span._sampling
        self._preset.trace_id, self._preset.span_id = ours.trace_id, ours.span_id
        self._twin.resource = self._real.resource
        sdk_span = self._twin.start_span(
            span._start_name, span._parent_context, span._kind, None, span._start_links, span._start_ns
        )
        if span._attributes:
            sdk_span.set_attributes(span._attributes)
        for context, attributes in span._links:
            sdk_span.add_link(context, attributes)
        for name, attributes, timestamp in span._events:
            sdk_span.add_event(name, attributes, timestamp)
        if span._status is not None:
            sdk_span.set_status(span._status)
        if span._name != span._start_name:
            sdk_span.update_name(span._name)
        sdk_span.end(span._end_ns)
        return sdk_span.get_span_context() == ours


def _static_decisions(sampler: Any) -> tuple[Any, ...] | None:
    """For a ``ParentBased`` sampler whose delegates all are ``StaticSampler`` (the SDK default:
    ``ParentBased(ALWAYS_ON)``), its decisions for (root, local not sampled, local sampled, remote not
    sampled, remote sampled); ``None`` for any other sampler (asked on every span).

    Exact types only: a subclass may decide otherwise, and so may a sampler set by the application.
    """
    from opentelemetry.sdk.trace.sampling import ParentBased, StaticSampler

    if type(sampler) is not ParentBased:
        return None
    try:
        delegates = (
            sampler._root, sampler._local_parent_not_sampled, sampler._local_parent_sampled,
            sampler._remote_parent_not_sampled, sampler._remote_parent_sampled,
        )  # fmt: skip
        if any(type(delegate) is not StaticSampler for delegate in delegates):
            return None
        return tuple(delegate._decision for delegate in delegates)
    except AttributeError:  # another SDK version's layout: ask the sampler
        return None


_emitters: weakref.WeakSet[SpanEmitter] = weakref.WeakSet()
_hooked: weakref.WeakSet[Any] = weakref.WeakSet()
_hook_lock = threading.Lock()


def flush_all(timeout_s: float = 30.0) -> bool:
    """Emit the pending spans of every emitter in this process (before a provider or OTLP flush)."""
    return all([emitter.flush(timeout_s) for emitter in list(_emitters)])


def _hook_flush(chain: Any) -> None:
    """Add (once per provider) the processor that emits pending handoff spans when the provider is flushed."""
    from opentelemetry.sdk.trace import SpanProcessor

    class FlushHook(SpanProcessor):
        """Emits every pending handoff span, then flushes the provider's processors again (they now hold them)."""

        def __init__(self) -> None:
            self._chain = weakref.ref(chain)
            self._inside = threading.local()

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            owner = self._chain()
            if owner is None or getattr(self._inside, "flag", False) or not _emitters:
                return True
            self._inside.flag = True
            try:
                emitted = flush_all(timeout_millis / 1000)
                return owner.force_flush(timeout_millis) and emitted
            finally:
                self._inside.flag = False

    with _hook_lock:
        if chain not in _hooked:
            chain.add_span_processor(FlushHook())
            _hooked.add(chain)


class SpanEmitter:
    """Emits ended :class:`DeferredSpan`\\ s on one daemon thread, in the order they ended.

    :meth:`submit` runs on the application's thread: one append, no lock, no I/O. The thread wakes
    on ``BATCH`` pending spans or every ``INTERVAL_S``; :meth:`flush` emits everything pending on
    the caller's thread. After ``fork`` the child starts with an empty queue and a thread of its own.
    """

    def __init__(self, counters: Counters | None = None) -> None:
        self.counters = counters or Counters()
        self._pending: collections.deque[DeferredSpan] = collections.deque()
        self._lock = threading.RLock()  # a processor flushing the provider while we emit re-enters
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._stopped = False
        emitter = weakref.ref(self)
        _emitters.add(self)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=lambda: (e := emitter()) is not None and e._after_fork())
        atexit.register(lambda: (e := emitter()) is not None and e.shutdown(10.0))

    def submit(self, span: DeferredSpan) -> None:
        """Queue an ended span (the application's thread: never blocks, never raises)."""
        pending = self._pending
        if self._stopped:
            # Ended after shutdown (a run closed after configure() or during exit): emitted here, not lost.
            pending.append(span)
            self.flush()
            return
        if len(pending) >= MAX_PENDING:
            self._lost("the span queue is full")
            return
        pending.append(span)
        if self._thread is None:
            self._start()
        elif len(pending) == BATCH:
            self._wake.set()

    def pending(self) -> int:
        """How many ended spans wait for emission."""
        return len(self._pending)

    def flush(self, timeout_s: float = 30.0) -> bool:
        """Emit every span ended before this call; ``False`` if the emitter thread held it past ``timeout_s``."""
        if not self._lock.acquire(timeout=max(0.0, timeout_s)):
            return False
        try:
            self._emit_pending()
        finally:
            self._lock.release()
        return True

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Emit what is pending and stop the thread; a span ended afterwards is emitted on the caller's thread."""
        done = self.flush(timeout_s)
        self._stopped = True
        self._wake.set()
        _emitters.discard(self)
        return done

    def _start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="handoff-spans", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while not self._stopped:
            self._wake.wait(INTERVAL_S)
            self._wake.clear()
            with self._lock:
                self._emit_pending()

    def _emit_pending(self) -> None:
        pending = self._pending
        while pending:
            span = pending.popleft()
            try:
                ok = span._tracer.emit(span)
            except Exception as exc:  # noqa: BLE001 - a processor or exporter that raises must not stop the others
                self._lost(f"emitting it raised {type(exc).__name__}")
                continue
            if not ok:
                self._lost("the SDK gave it other ids than the ones its children carry")

    def _lost(self, why: str) -> None:
        self.counters.add("span_errors")
        warn_once("handoff: a handoff span was not emitted as recorded (%s); counted in span_errors", why)

    def _after_fork(self) -> None:
        self._pending = collections.deque()
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._thread = None
