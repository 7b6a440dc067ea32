"""The architecture the code enforces: one-way layers, no import cycles, no friend privates, small modules.

The layers and the contracts are written once, as import-linter contracts in ``pyproject.toml``;
the other checks walk every module of the folders ``pyproject.toml`` maps into ``handoff``.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
#: import name -> folder, as setuptools maps them ("handoff.store" = "store").
PACKAGE_DIRS: dict[str, str] = PYPROJECT["tool"]["setuptools"]["package-dir"]
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
#: Private names of other projects we rely on: documented (namedtuple's ``_asdict``) or the only
#: way in (OpenTelemetry's key for suppressing instrumentation, which the writer thread sets; the
#: span limits and instrumentation scope of an SDK tracer, which the twin tracer that emits handoff
#: spans after the step must be built with, in exporters/deferred_spans.py; the delegates of the
#: SDK's ``ParentBased`` sampler and a ``StaticSampler``'s decision, read once per tracer so the
#: default sampler's constant decisions are not asked for per span, same file).
FOREIGN_PRIVATES = {
    "_asdict", "_SUPPRESS_INSTRUMENTATION_KEY", "_span_limits", "_instrumentation_scope", "_root", "_decision",
    "_local_parent_not_sampled", "_local_parent_sampled", "_remote_parent_not_sampled", "_remote_parent_sampled",
    "_id",  # Presidio's recognizer id: the gated IP recognizer's subsets keep the stock one (scrub/engine.py)
}  # fmt: skip


def _modules() -> dict[str, Path]:
    """Every module of the mapped folders by its import name (``handoff.store.blobs``)."""
    found: dict[str, Path] = {}
    for package, folder in PACKAGE_DIRS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join((package, *parts))
            found.setdefault(name, path)  # "handoff" maps handoff/, whose subfolders map themselves
    return found


MODULES = _modules()


def _imported(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules of ours an import statement (at any depth, lazy ones too) loads by name."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in MODULES]
    base = node.module or ""
    if node.level:
        package = module.split(".")
        if MODULES[module].name != "__init__.py":
            package = package[:-1]
        base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
    targets = []
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        targets.append(submodule if submodule in MODULES else base)
    return [target for target in targets if target in MODULES]


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))
        nodes = [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]
        graph[module] = {target for node in nodes for target in _imported(module, node)} - {module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _namespace_tree(root: Path) -> Path:
    """Lay the import namespace out as one directory of symlinks and return it.

    import-linter (grimp) finds a package's modules by walking its directory; ours is spread over
    several top-level folders that ``pyproject.toml`` maps into ``handoff``, so it gets one tree.
    """
    top = root / "handoff"
    top.mkdir()
    for entry in (REPO / PACKAGE_DIRS["handoff"]).iterdir():
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    for package, folder in PACKAGE_DIRS.items():
        if package != "handoff":
            (root / package.replace(".", "/")).symlink_to(REPO / folder)
    return root


def test_import_linter_contracts_are_kept(tmp_path):
    """lint-imports keeps every contract in pyproject.toml: the layers, capture's forbidden imports, independence."""
    tree = _namespace_tree(tmp_path)
    command = [
        str(Path(sys.executable).with_name("lint-imports")),
        "--config",
        str(REPO / "pyproject.toml"),
        "--no-cache",
    ]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    result = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_the_namespace_tree_holds_every_mapped_module(tmp_path):
    """The tree import-linter reads has exactly the modules the cycle and size checks walk."""
    tree = _namespace_tree(tmp_path)
    on_disk = set()
    for folder, _dirs, files in os.walk(tree / "handoff", followlinks=True):  # as grimp walks it
        for name in files:
            if name.endswith(".py"):
                parts = (Path(folder) / name).relative_to(tree).with_suffix("").parts
                on_disk.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert on_disk == set(MODULES)


def test_no_import_cycle_between_modules():
    """No module imports, even lazily or for type checking, a module that imports it back through any chain."""
    assert _cycles(_graph()) == []


def test_the_cycle_check_sees_lazy_and_relative_imports():
    """The graph the cycle check walks includes function-level imports (recorder -> metrics is one)."""
    graph = _graph()
    assert "handoff.exporters.metrics" in graph["handoff.capture.recorder"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_modules_and_functions_stay_small():
    """No module is over 600 lines and no function over 80 (def line to last line), so each reads in one sitting."""
    too_long = []
    for module, path in MODULES.items():
        text = path.read_text()
        if len(text.splitlines()) > MAX_MODULE_LINES:
            too_long.append(f"{module}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{module}.{node.name}: {length} lines")
    assert too_long == []


def _on_self(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")


def _defined_names(tree: ast.AST) -> set[str]:
    """Names a module defines: functions, classes, assignments, ``self._x = ...`` and ``__slots__`` strings."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _on_self(node):
            names.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    return names


def test_no_module_reaches_into_another_modules_privates():
    """Underscore names stay in the module that defines them: no ``other._attr`` and no ``import _name`` across modules."""
    reaches = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text())
        own = _defined_names(tree) | FOREIGN_PRIVATES
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                if not _on_self(node) and node.attr not in own:
                    reaches.append(f"{module}:{node.lineno} .{node.attr}")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("handoff"):
                reaches += [f"{module}:{node.lineno} import {a.name}" for a in node.names if a.name.startswith("_")]
    assert reaches == []
