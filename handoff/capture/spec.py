"""What ``@step`` and ``record`` resolve once, at decoration time: :class:`StepSpec`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from handoff.capture.render import Rendered
from handoff.model import KINDS, describe_value


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
        "span_attributes",
        "span_kind",
        "config_strings",
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
        operation: str | None = None,
        provider: str | None = None,
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
        #: What every span of this step carries from the start, built once (GenAI semantic conventions).
        self.span_attributes = genai_attributes(to, kind, config, operation, provider)
        #: ``CLIENT`` for a call to a model API, else ``INTERNAL`` (as the GenAI conventions ask).
        self.span_kind = "CLIENT" if operation in MODEL_OPERATIONS else "INTERNAL"
        #: The record's model, effort, prompt_pack and template of a call that adds no config of its own.
        self.config_strings = config_strings(config)


def config_strings(config: dict[str, Any]) -> tuple[str | None, str | None, str | None, str | None]:
    """A record's ``model``, ``effort``, ``prompt_pack`` and ``template``, as strings (``None``: not given)."""
    return tuple(  # type: ignore[return-value]
        value if value is None or type(value) is str else describe_value(value)
        for value in (config.get(key) for key in ("model", "effort", "prompt_pack", "template"))
    )


#: Operations of a model API call (``gen_ai.operation.name``), as the adapters know them.
MODEL_OPERATIONS = frozenset({"chat", "text_completion", "embeddings", "generate_content"})


def genai_operation(kind: str, config: dict[str, Any]) -> str:
    """``gen_ai.operation.name`` of a step: agents are invoked, tools executed.

    A transform or verifier step with a model is an LLM doing that work (``invoke_agent``);
    without one it is plain code the pipeline calls (``execute_tool``).
    """
    if kind == "agent" or (kind in ("transform", "verifier") and config.get("model") is not None):
        return "invoke_agent"
    return "execute_tool"


def genai_attributes(
    to: str, kind: str, config: dict[str, Any], operation: str | None, provider: str | None
) -> dict[str, Any]:
    """The span attributes a step's every call shares: handoff's own and the GenAI ones known up front."""
    operation = operation or genai_operation(kind, config)
    attributes: dict[str, Any] = {"handoff.to": to, "handoff.kind": kind, "gen_ai.operation.name": operation}
    if operation == "invoke_agent":
        attributes["gen_ai.agent.name"] = to
    elif operation == "execute_tool":
        attributes["gen_ai.tool.name"] = to
    if config.get("model") is not None:
        attributes["gen_ai.request.model"] = describe_value(config["model"])
    provider = provider if provider is not None else config.get("provider")
    if provider is not None:
        attributes["gen_ai.provider.name"] = describe_value(provider)
    return attributes


def merge_config(
    model: str | None, effort: str | None, prompt_pack: str | None, template: str | None, config: dict[str, Any] | None
) -> dict[str, Any]:
    """The config a step records: ``config`` with the four named keys that are given set on top."""
    merged = dict(config or {})
    for name, value in (("model", model), ("effort", effort), ("prompt_pack", prompt_pack), ("template", template)):
        if value is not None:
            merged[name] = value
    return merged
