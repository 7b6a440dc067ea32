"""Turning what a consumer receives into the exact bytes that are hashed and stored."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from handoff.model import BINARY, JSON, TEXT

__all__ = [
    "BINARY",
    "JSON",
    "TEXT",
    "Rendered",
    "canonical_json",
    "make_input_renderer",
    "make_output_renderer",
    "render_stream",
    "render_value",
]

Rendered = tuple[bytes, str]


def _json_default(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    for method in ("model_dump", "dict", "to_dict"):
        dump = getattr(value, method, None)
        if callable(dump):
            return dump()
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)


def canonical_json(value: Any) -> bytes:
    """Serialize ``value`` as canonical JSON: sorted keys, compact separators, UTF-8."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_json_default)
    return text.encode("utf-8")


def render_value(value: Any) -> Rendered:
    """Render one value: ``str`` as UTF-8, ``bytes`` as is, anything else as canonical JSON."""
    if isinstance(value, str):
        return value.encode("utf-8"), TEXT
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value), BINARY
    return canonical_json(value), JSON


def render_stream(items: list[Any]) -> Rendered:
    """Render what a generator yielded: text chunks joined, byte chunks joined, else a JSON list."""
    if items and all(isinstance(item, str) for item in items):
        return "".join(items).encode("utf-8"), TEXT
    if items and all(isinstance(item, (bytes, bytearray)) for item in items):
        return b"".join(bytes(item) for item in items), BINARY
    return canonical_json(items), JSON


def coerce_rendered(value: Any) -> Rendered:
    """Accept what a user ``render=`` function returned: bytes or str as is, anything else as JSON."""
    return render_value(value)


def make_output_renderer(render_output: Callable[[Any], Any] | None) -> Callable[[Any], Rendered]:
    """Choose, once at decoration time, how a step's return value becomes its output bytes."""
    if render_output is None:
        return render_value
    return lambda value: coerce_rendered(render_output(value))


def make_input_renderer(fn: Callable[..., Any], render: Callable[..., Any] | None) -> Callable[..., Rendered]:
    """Choose, once at decoration time, how a step's call arguments become its input bytes.

    A user ``render`` gets the call's arguments and returns str, bytes or a JSON-able value.
    Otherwise a function of one argument (after ``self``/``cls``) renders that argument, and a
    function of several renders ``{name: value}`` of its bound arguments.
    """
    if render is not None:
        return lambda args, kwargs: coerce_rendered(render(*args, **kwargs))
    import inspect

    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return lambda args, kwargs: render_value(list(args) + [kwargs] if kwargs else list(args))
    params = list(signature.parameters.values())
    skip_self = 1 if params and params[0].name in ("self", "cls") else 0
    data_params = params[skip_self:]
    if len(data_params) == 1 and data_params[0].kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    ):
        name = data_params[0].name

        def render_single(args: tuple, kwargs: dict) -> Rendered:
            if len(args) > skip_self:
                return render_value(args[skip_self])
            return render_value(kwargs.get(name))

        return render_single

    def render_bound(args: tuple, kwargs: dict) -> Rendered:
        bound = signature.bind_partial(*args, **kwargs)
        values = dict(bound.arguments)
        if skip_self:
            values.pop(params[0].name, None)
        return render_value(values)

    return render_bound
