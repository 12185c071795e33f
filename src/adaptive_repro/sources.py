"""The source files a module depends on within this package, so that editing the code of a bound or a builder
reruns exactly the outputs that use it (the workflow declares these files as inputs of each rule)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = "adaptive_repro"
ROOT = Path(__file__).resolve().parent  # the installed package, wherever it is


def _module_file(name: str) -> Path | None:
    """The file of a package module (without importing it), or None if ``name`` is not a module of the package."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = ROOT.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: Path, name: str) -> set[str]:
    """Package modules imported anywhere in a file (top level and inside functions)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative import
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            if base.split(".")[0] != PACKAGE:
                continue
            found.add(base)
            for alias in node.names:  # "from adaptive_repro import seeds" imports a module
                if _module_file(f"{base}.{alias.name}") is not None:
                    found.add(f"{base}.{alias.name}")
    return found


@functools.lru_cache(maxsize=None)
def module_sources(name: str) -> tuple[str, ...]:
    """Sorted paths of ``name`` and of every package module it imports, transitively (parents' __init__ too)."""
    seen: dict[str, Path] = {}
    todo = [name]
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        path = _module_file(mod)
        if path is None:
            continue
        seen[mod] = path
        parent = mod.rpartition(".")[0]
        todo.extend(([parent] if parent.startswith(PACKAGE) else []) + sorted(_imports(path, mod)))
    return tuple(sorted(str(p) for p in seen.values()))
