"""What a replay calls: the step's function imported by its recorded path, and its arguments rebuilt.

Importing runs the module's code. Only :func:`load_target` imports, and only the path a person
named by running ``handoff replay`` on a record (or gave as ``--target``): nothing a stored
record names is imported otherwise.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import os
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from handoff.capture.render import Rendered, render_value
from handoff.capture.replayable import input_mode
from handoff.capture.spec import StepSpec
from handoff.errors import ReplayError
from handoff.model import JSON

#: The shapes a step's function can have, as the decorator tells them apart.
SHAPES = ("sync", "async", "gen", "asyncgen")


@dataclass(frozen=True)
class Target:
    """An imported step function, ready to be called on a stored input.

    ``fn`` is the undecorated function (a ``@handoff.step`` wrapper is unwrapped: the replay
    records its own handoff); ``spec`` is the decorated step's, when it is one.
    """

    path: str
    fn: Callable[..., Any]
    shape: str
    spec: StepSpec | None

    def render_output(self, value: Any) -> Rendered:
        """The output bytes of one call, as the step itself would record them."""
        return self.spec.render_output(value) if self.spec is not None else render_value(value)

    def arguments(self, stored: Any) -> tuple[tuple, dict]:
        """``(args, kwargs)`` for one call on the decoded stored input (a fresh copy every time)."""
        hook = self.spec.replay if self.spec is not None else None
        if hook is not None:
            return _checked(self.path, hook(stored))
        if self.spec is not None and _declares_render(self.spec):
            raise ReplayError(f"step {self.path} renders its input with render= and declares no replay=")
        return bind_arguments(self.path, self.fn, stored)


def _declares_render(spec: StepSpec) -> bool:
    return (spec.config.get("replay") or {}).get("input") == "render"


def _checked(path: str, rebuilt: Any) -> tuple[tuple, dict]:
    try:
        args, kwargs = rebuilt
        return tuple(args), dict(kwargs)
    except (TypeError, ValueError):
        raise ReplayError(f"replay= of {path} must return (args, kwargs), not {type(rebuilt).__name__}") from None


def decode_input(data: bytes, content_type: str | None) -> Any:
    """The stored input as the value it was rendered from: text as ``str``, JSON parsed, else ``bytes``."""
    kind = (content_type or "").split(";", 1)[0].strip()
    if kind.startswith("text/"):
        return data.decode("utf-8", errors="replace")
    if kind == JSON:
        try:
            return json.loads(data)
        except ValueError:
            raise ReplayError("the stored input is not valid JSON") from None
    return data


def bind_arguments(path: str, fn: Callable[..., Any], stored: Any) -> tuple[tuple, dict]:
    """Rebuild a call from a stored input the way the decorator rendered it (one argument, or a mapping)."""
    mode = input_mode(fn)
    params = _data_params(fn)
    if mode == "single":
        param = params[0]
        return ((), {param.name: stored}) if param.kind is inspect.Parameter.KEYWORD_ONLY else ((stored,), {})
    if mode == "positional":
        raise ReplayError(f"the signature of {path} cannot be read, so its arguments cannot be rebuilt")
    if not isinstance(stored, dict):
        raise ReplayError(f"{path} takes several arguments, but the stored input is not a JSON object of them")
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in params:
        if param.name not in stored:
            continue
        value = stored[param.name]
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(value)
        elif param.kind is inspect.Parameter.VAR_KEYWORD:
            kwargs.update(value)
        elif param.kind is inspect.Parameter.POSITIONAL_ONLY:
            args.append(value)
        else:
            kwargs[param.name] = value
    return tuple(args), kwargs


def _data_params(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    params = list(inspect.signature(fn).parameters.values())
    return params[1:] if params and params[0].name in ("self", "cls") else params


def shape_of(fn: Callable[..., Any]) -> str:
    """``sync``, ``async``, ``gen`` or ``asyncgen``, told apart as the decorator does."""
    if inspect.isasyncgenfunction(fn):
        return "asyncgen"
    if inspect.isgeneratorfunction(fn):
        return "gen"
    if inspect.iscoroutinefunction(fn):
        return "async"
    return "sync"


def load_target(path: str) -> Target:
    """Import ``module:qualname`` (from the current directory or the installed packages) and unwrap it.

    Raises :class:`ReplayError` with one line when the path is malformed, names a function
    defined inside another function or in a script run as ``__main__``, cannot be imported, or
    is a method that needs an instance.
    """
    module_name, _, qualname = path.partition(":")
    if not module_name or not qualname:
        raise ReplayError(f"bad target {path!r}: use module:function (e.g. handoff.demo:compress_v4)")
    if "<locals>" in qualname:
        raise ReplayError(f"{path} is defined inside a function and cannot be imported; give --target module:function")
    if module_name == "__main__":
        raise ReplayError(f"{path} was defined in a script run as __main__; give --target module:function")
    found = _resolve(path, _import(path, module_name), qualname)
    spec = getattr(found, "__handoff_step__", None)
    fn = _unwrapped(found)
    if _needs_instance(fn, qualname):
        raise ReplayError(f"{path} is a method and replaying it needs an instance; give --target module:function")
    return Target(path, fn, shape_of(fn), spec if isinstance(spec, StepSpec) else None)


@contextlib.contextmanager
def _cwd_importable() -> Iterator[None]:
    """Modules in the current directory import as with ``python -m`` (a console script's path lacks it)."""
    cwd = os.getcwd()
    added = cwd not in sys.path
    if added:
        sys.path.insert(0, cwd)
    try:
        yield
    finally:
        if added and cwd in sys.path:
            sys.path.remove(cwd)


def _import(path: str, module_name: str) -> types.ModuleType:
    with _cwd_importable():
        try:
            return importlib.import_module(module_name)
        except Exception as exc:  # noqa: BLE001 - any failure of user code to import is one line
            detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise ReplayError(
                f"cannot import {module_name} for {path}: {type(exc).__name__}" + (f": {detail}" if detail else "")
            ) from None


def _resolve(path: str, module: types.ModuleType, qualname: str) -> Any:
    found: Any = module
    for part in qualname.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise ReplayError(f"module {module.__name__} has no {qualname} (for {path})") from None
    if not callable(found):
        raise ReplayError(f"{path} is not callable")
    return found


def _unwrapped(found: Any) -> Callable[..., Any]:
    if isinstance(found, types.MethodType):  # a classmethod: unwrap the function, keep the class bound
        return types.MethodType(inspect.unwrap(found.__func__), found.__self__)
    return inspect.unwrap(found)


def _needs_instance(fn: Callable[..., Any], qualname: str) -> bool:
    if "." not in qualname or isinstance(fn, types.MethodType):
        return False
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return False
    return bool(params) and params[0] == "self"
