"""No import cycle inside the code: every module's imports — at the top and inside functions alike
(a late import is still an import) — form no loop. A cycle held together by late imports is a
decision made in two places; the layers contracts (tests/test_layers.py) do not see one that stays
inside a package."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("world", "memories", "voyage")


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, name: str, known: set[str]) -> set[str]:
    """The known modules a module's source imports, wherever the import statement stands."""
    found = set()
    package = name if name in known and _is_package(name, known) else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + ([base] if base else []))
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names}
    return {m for m in found if m in known and m != name}


def _is_package(name: str, known: set[str]) -> bool:
    return any(other.startswith(name + ".") for other in known)


def import_graph(root: Path = ROOT, packages=PACKAGES) -> dict[str, set[str]]:
    paths = {module_name(p, root): p for package in packages for p in (root / package).rglob("*.py")
             if "migrations" not in p.parts}
    known = set(paths)
    return {name: imports_of(path.read_text(), name, known) for name, path in paths.items()}


def a_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph (its modules in import order, the first again at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node], _ = 1, path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node], _ = 2, path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_no_module_imports_itself_back():
    cycle = a_cycle(import_graph())
    assert cycle is None, "an import cycle: " + " → ".join(cycle)


def test_a_late_import_that_closes_a_loop_is_found(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "jobs.py").write_text("from pkg.attempts import settle\n")
    (tmp_path / "pkg" / "attempts.py").write_text("def settle():\n    from pkg import jobs\n    return jobs\n")
    (tmp_path / "pkg" / "alone.py").write_text("from . import jobs\n")
    graph = import_graph(tmp_path, ("pkg",))
    assert graph["pkg.alone"] == {"pkg.jobs"}
    cycle = a_cycle(graph)
    assert cycle[0] == cycle[-1] and sorted(cycle[:-1]) == ["pkg.attempts", "pkg.jobs"]
