"""What ``@step`` and ``record`` resolve once, at decoration time: :class:`StepSpec`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from handoff.capture.render import Rendered
from handoff.model import KINDS


class StepSpec:
    """What ``@step``/``record`` were given, resolved once at decoration time."""

    __slots__ = (
        "to",
        "from_",
        "kind",
        "parent",
        "config",
        "attributes",
        "scrub",
        "render",
        "render_output",
        "allow_empty",
        "replay",
    )

    def __init__(
        self,
        to: str,
        from_: str | None,
        kind: str,
        parent: Any,
        config: dict[str, Any],
        attributes: dict[str, Any],
        scrub: bool,
        render: Callable[..., Rendered] | None,
        render_output: Callable[[Any], Rendered],
        allow_empty: bool = False,
        replay: Callable[[Any], Any] | None = None,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if not to:
            raise ValueError("a step needs a consumer name: to=...")
        self.to = to
        self.from_ = from_
        self.kind = kind
        self.parent = parent
        self.config = config
        self.attributes = {str(k): str(v) for k, v in attributes.items()}
        self.scrub = scrub
        self.render = render
        self.render_output = render_output
        self.allow_empty = bool(allow_empty)
        #: ``replay=``: rebuilds ``(args, kwargs)`` from a stored input (``handoff replay``).
        self.replay = replay


def merge_config(
    model: str | None, effort: str | None, prompt_pack: str | None, template: str | None, config: dict[str, Any] | None
) -> dict[str, Any]:
    """The config a step records: ``config`` with the four named keys that are given set on top."""
    merged = dict(config or {})
    for name, value in (("model", model), ("effort", effort), ("prompt_pack", prompt_pack), ("template", template)):
        if value is not None:
            merged[name] = value
    return merged
