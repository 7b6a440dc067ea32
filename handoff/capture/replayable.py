"""How a step can be called again on its stored input, decided once at decoration time.

``@handoff.step`` records, in the handoff's config under ``"replay"``, where its function lives
and how its recorded input maps back to its arguments, so ``handoff replay`` can call it again::

    {"callable": "handoff.demo:compress", "input": "single"}     one argument (after self/cls)
    {"callable": "pipeline:price", "input": "mapping"}           {name: value} of all arguments
    {"callable": "pipeline:route", "input": "replay"}            render= with replay= rebuilding the arguments
    {"callable": "pipeline:route", "input": "render"}            render= without replay=: cannot be replayed

Nothing here imports anything: the record only names the function, and only ``handoff replay``,
run by a person on that record, imports it.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

#: The config key the description is recorded under.
REPLAY_KEY = "replay"

_ONE_VALUE = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
)


def callable_path(fn: Callable[..., Any]) -> str:
    """``module:qualname`` of ``fn``; a script run as ``python -m pkg.mod`` gives ``pkg.mod``, not ``__main__``."""
    module = getattr(fn, "__module__", None) or "?"
    if module == "__main__":
        spec = getattr(sys.modules.get("__main__"), "__spec__", None)
        module = getattr(spec, "name", None) or module
    return f"{module}:{getattr(fn, '__qualname__', getattr(fn, '__name__', '?'))}"


def input_mode(fn: Callable[..., Any]) -> str:
    """How ``fn``'s recorded input maps to its arguments: ``single``, ``mapping`` or ``positional``.

    The same rule the input renderer uses (:func:`handoff.capture.render.make_input_renderer`):
    one parameter after ``self``/``cls`` is the input itself, several are ``{name: value}``.
    """
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return "positional"
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    return "single" if len(params) == 1 and params[0].kind in _ONE_VALUE else "mapping"


def describe_replay(
    fn: Callable[..., Any], render: Callable[..., Any] | None, replay: Callable[[Any], Any] | None
) -> dict[str, str]:
    """The ``"replay"`` config entry of a step decorating ``fn`` (see the module docstring)."""
    if replay is not None and not callable(replay):
        raise ValueError("replay= must be a callable(stored_input) -> (args, kwargs)")
    if replay is not None:
        mode = "replay"
    elif render is not None:
        mode = "render"
    else:
        mode = input_mode(fn)
    return {"callable": callable_path(fn), "input": mode}
