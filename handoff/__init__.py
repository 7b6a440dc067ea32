"""Record every edge of multi-step LLM and agent pipelines.

import handoff

@handoff.step(to="price", kind="agent", model="gpt-x")
def price(brief: str) -> str: ...

with handoff.run("invoice", invoice="INV-88214") as run:
    price(compress(validate(extract(doc))))
print(run.run_id)
"""

from __future__ import annotations

from typing import Any

from handoff.capture import Handle, bind, current, extract, fallback, inject, record, run, step, verdict
from handoff.errors import HandoffError

__version__ = "0.1.0"

_UNSET: Any = object()


def configure(
    store: Any = _UNSET,
    *,
    scrub: bool = _UNSET,
    scrub_key: str | bytes | None = _UNSET,
    spacy_model: str | None = _UNSET,
    digest_key: str | bytes | None = _UNSET,
    inline_limit_bytes: int = _UNSET,
    flush_interval_s: float = _UNSET,
    max_queue: int = _UNSET,
    max_queue_bytes: int = _UNSET,
    max_batch: int = _UNSET,
    spool_dir: str | None = _UNSET,
    spool_max_bytes: int = _UNSET,
    otlp_endpoint: str | None = _UNSET,
    tracer_provider: Any = _UNSET,
    enabled: bool = _UNSET,
    writer: str = _UNSET,
    writer_pool: int | None = _UNSET,
) -> None:
    """Configure recording for this process; unset arguments keep their current value.

    ``store``: a directory (default ``./.handoff``, env ``HANDOFF_STORE``) or ``s3://bucket/prefix``.
    ``scrub``: redact PII and secrets before anything is written (default on).
    ``scrub_key``: key for consistent pseudonyms across processes (env ``HANDOFF_SCRUB_KEY``).
    ``spacy_model``: an installed spaCy NER pipeline whose PERSON and LOCATION findings are added to
    the built-in name and address detectors (env ``HANDOFF_SPACY_MODEL``; a model that is not
    installed raises ``ValueError`` here, or is logged as an error and ignored from the environment).
    ``digest_key``: make digests HMAC-SHA256 under this key instead of plain SHA-256.
    ``inline_limit_bytes``: payloads above this go to their own compressed object (default 8 MiB).
    ``flush_interval_s``, ``max_queue``, ``max_queue_bytes``, ``max_batch``: the background writer's
    timer and bounds (records held in memory by count and by bytes; past them they spill to disk, encrypted).
    ``spool_dir``, ``spool_max_bytes``: where records wait while the store is unreachable.
    ``otlp_endpoint``: also export handoff spans over OTLP/HTTP to this endpoint.
    ``tracer_provider``: the OpenTelemetry provider to use (default: the global SDK one, if any).
    ``enabled``: turn recording off entirely.
    ``writer``: ``"process"`` (default, env ``HANDOFF_WRITER``): scrubbing, extraction and writing run in a
    process of their own; ``"thread"``: on a thread of this process (also the fallback where no process can start).
    ``writer_pool``: processes that scrub and extract (default cores - 1, at least 1; env ``HANDOFF_WRITER_POOL``).

    Records queued before this call are flushed to the previous store first. Bad values raise
    ``ValueError``.
    """
    given = {name: value for name, value in locals().items() if value is not _UNSET}
    from handoff.capture.recorder import Recorder, replace_recorder
    from handoff.config import update_settings

    settings = update_settings(**given)
    replace_recorder(Recorder(settings))


def flush(timeout_s: float = 30.0) -> bool:
    """Write everything recorded so far (and export pending OTLP spans); ``False`` if ``timeout_s`` ran out."""
    from handoff.capture.recorder import flush as flush_recorder

    return flush_recorder(timeout_s)


def shutdown(timeout_s: float = 30.0) -> bool:
    """Flush and stop the background writer (done automatically at interpreter exit)."""
    from handoff.capture.recorder import get_recorder, replace_recorder

    done = get_recorder().flush(timeout_s)
    replace_recorder(None, timeout_s)
    return done


def replay(
    run_id: str,
    handoff_id: str,
    times: int = 20,
    target: str | None = None,
    *,
    concurrency: int = 1,
    model: str | None = None,
    allow_side_effects: bool = False,
) -> Any:
    """Replay a recorded handoff ``times`` times on its stored input and score what each replay kept.

    Imports the step's function by its recorded ``module:qualname`` (or ``target``, to try a fix):
    this runs that module's code. The replays are recorded as a new run linked to the original
    (``replay_of``); the original run is never written. Returns a
    :class:`~handoff.replays.ReplayReport`: per constraint the original lost, in how many replays
    the output kept it; distinct outputs; how many reproduce the original output by digest;
    errors per exception type. See :func:`handoff.replays.replay`.
    """
    from handoff.replays import replay as replay_handoff

    return replay_handoff(
        run_id, handoff_id, times, target, concurrency=concurrency, model=model, allow_side_effects=allow_side_effects
    )


def stats() -> dict[str, int]:
    """Return this process's recorder counters: enqueued, written, spooled, retried, dropped, errors."""
    from handoff.capture.recorder import get_recorder

    return get_recorder().counters.snapshot()


__all__ = [
    "Handle",
    "HandoffError",
    "__version__",
    "bind",
    "configure",
    "current",
    "extract",
    "fallback",
    "flush",
    "inject",
    "record",
    "replay",
    "run",
    "shutdown",
    "stats",
    "step",
    "verdict",
]
