"""The source files a module depends on within this package, so that editing the code of a bound or a builder
reruns exactly the outputs that use it (the workflow declares these files as inputs of each rule)."""

from __future__ import annotations

import ast
import functools
import os
import sys
from pathlib import Path

PACKAGE = "adaptive_repro"
ROOT = Path(__file__).resolve().parent.parent  # the imported package, wherever it is


def package_root(checkout: str | Path | None = None) -> Path:
    """The package directory whose files are code inputs: ``<checkout>/src/adaptive_repro`` if the checkout has one
    (the code the workflow's jobs run), else the imported package."""
    if checkout is not None:
        candidate = Path(checkout) / "src" / PACKAGE
        if candidate.is_dir():
            return candidate
    return ROOT


def run_jobs_on_checkout(checkout: str | Path) -> None:
    """If ``checkout`` has ``src/adaptive_repro``, put ``src`` first on this process's path and on the PYTHONPATH its
    jobs inherit, so that the jobs run the checkout's code (the code whose edits rerun them, :func:`package_root`),
    not another installed copy."""
    src = Path(checkout) / "src"
    if not (src / PACKAGE).is_dir():
        return
    if str(src) not in sys.path:
        sys.path.insert(0, str(src))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")]))


def _module_file(name: str, root: Path = ROOT) -> Path | None:
    """The file of a package module (without importing it), or None if ``name`` is not a module of the package."""
    parts = name.split(".")
    if parts[0] != PACKAGE:
        return None
    base = root.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _runtime_statements(tree: ast.Module):
    """Every statement of ``tree``, nested ones included (imports are statements: this skips the expressions), except
    those under ``if TYPE_CHECKING:`` (imports for type checkers only)."""
    todo: list = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            todo.extend(node.orelse)
            continue
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):  # handlers and match cases have a body
            todo.extend(getattr(node, block, ()))


def _imports(path: Path, name: str, root: Path = ROOT) -> frozenset[str]:
    """Package modules imported anywhere in a file (top level and inside functions). Each file is parsed once per
    version (its modification time is part of the cache key): the workflow asks for the sources of dozens of
    modules that share most of their imports."""
    return _parsed_imports(path, name, root, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=None)
def _parsed_imports(path: Path, name: str, root: Path, mtime_ns: int) -> frozenset[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _runtime_statements(ast.parse(path.read_text(encoding="utf-8"))):
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
                if _module_file(f"{base}.{alias.name}", root) is not None:
                    found.add(f"{base}.{alias.name}")
    return frozenset(found)


def imported_modules(name: str, root: Path = ROOT) -> frozenset[str]:
    """The package modules that module ``name``'s own file imports (top level and inside functions, not under
    ``if TYPE_CHECKING:``); empty for a name that is not a module of the package."""
    path = _module_file(name, root)
    return frozenset() if path is None else _imports(path, name, root)


@functools.lru_cache(maxsize=None)
def module_sources(name: str, root: Path = ROOT) -> tuple[str, ...]:
    """Sorted paths of ``name`` and of every package module it imports, transitively (parents' __init__ too), in the
    package at ``root`` (default: the imported one)."""
    seen: dict[str, Path] = {}
    todo = [name]
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        path = _module_file(mod, root)
        if path is None:
            continue
        seen[mod] = path
        parent = mod.rpartition(".")[0]
        todo.extend(([parent] if parent.startswith(PACKAGE) else []) + sorted(_imports(path, mod, root)))
    return tuple(sorted(str(p) for p in seen.values()))
