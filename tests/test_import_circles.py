"""Imports between the package's modules point one way: no module imports, directly or through others, a module
that imports it back. An import inside a function counts too, unless the line above it says ``# import cost:``
why it waits (the console script's entry point loads the CLI only under its Ctrl-C handler). The circles still
open are listed by name; a new one fails here."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "src" / "bediscover_inspect"

OPEN_CIRCLES: set[frozenset[str]] = set()
"""Circles known and still to be taken apart (module names under ``bediscover_inspect``)."""


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(name: str, modules: set[str]) -> str | None:
    """The module of ``name`` (a module or a name inside one), or ``None`` outside the package."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name if name in modules else None


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package modules it imports (anywhere in its file), names relative to the package."""
    files = {_module_name(path, root): path for path in root.rglob("*.py")}
    modules = set(files)
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str] = set()
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            names: list[str] = []
            if isinstance(node, (ast.Import, ast.ImportFrom)) and lines[node.lineno - 2].strip().startswith(
                "# import cost:"
            ):
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".") if package else []
                    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                    prefix = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    prefix = node.module or ""
                    if prefix != "bediscover_inspect" and not prefix.startswith("bediscover_inspect."):
                        continue
                    prefix = prefix.removeprefix("bediscover_inspect").lstrip(".")
                names = [f"{prefix}.{alias.name}".lstrip(".") for alias in node.names]
            for name in names:
                name = name.removeprefix("bediscover_inspect.") if name.startswith("bediscover_inspect.") else name
                target = _resolve(name, modules)
                if target is not None and target != module:
                    targets.add(target)
        graph[module] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_new_import_circle() -> None:
    found = circles(import_graph())
    assert found - OPEN_CIRCLES == set(), "new import circle(s): let the lower module not import the higher one"


def test_a_circle_is_found(tmp_path: Path) -> None:
    """Two modules importing each other (one inside a function, one relative) form a circle; a third that only
    imports them does not join it."""
    (tmp_path / "run").mkdir()
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "run" / "__init__.py").write_text("")
    (tmp_path / "run" / "guard.py").write_text("from .lock import LOCK\n")
    (tmp_path / "run" / "lock.py").write_text("def f():\n    from bediscover_inspect.run.guard import g\n")
    (tmp_path / "cli.py").write_text("from bediscover_inspect.run import guard, lock\n")
    (tmp_path / "run" / "entry.py").write_text("def main():\n    # import cost: …\n    from .. import cli\n")
    graph = import_graph(tmp_path)
    assert graph["cli"] == {"run.guard", "run.lock"} and graph["run.entry"] == set()
    assert circles(graph) == {frozenset({"run.guard", "run.lock"})}
