"""No import cycles between the packages of ``src/kenning``.

Each top-level package (``agent/``, ``context/``, …) and each top-level module
(``home.py``, ``clock.py``, …) is one node; the package's ``__init__`` is the
node ``kenning``. Every ``kenning`` import counts, wherever it stands: at module
level, inside a function, under ``TYPE_CHECKING``. A late import hides a cycle
from the interpreter, not from the reader, so it is a cycle all the same.

The layering this keeps, top to bottom: ``cli`` → ``bench`` → ``cron`` →
``runtime`` (the composition root) → ``learning`` → ``agent`` → ``context`` →
``prompt`` → ``skills`` / ``tools`` → ``memory`` / ``archive`` / ``search`` → …

``python tests/test_architecture.py`` prints the graph, one node per line.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "kenning"
ROOT = "kenning"

Edges = dict[str, dict[str, str]]  # node -> imported node -> first place ("path:line")


def node_of(path: Path, package: Path) -> str:
    """The node a source file belongs to."""
    parts = path.relative_to(package).parts
    if len(parts) == 1:
        return ROOT if parts[0] == "__init__.py" else parts[0].removesuffix(".py")
    return parts[0]


def module_of(path: Path, package: Path) -> list[str]:
    """``.../kenning/context/engine.py`` → ``["kenning", "context", "engine"]``."""
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def imported(path: Path, package: Path) -> Iterator[tuple[list[str], int]]:
    """Every module ``path`` imports, as dotted parts, with its line."""
    here = module_of(path, package)
    is_init = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split("."), node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_init else here[:-1]
                base = base[: len(base) - (node.level - 1)]
            else:
                base = []
            target = base + (node.module.split(".") if node.module else [])
            if target == [package.name]:
                # ``from kenning import clock`` imports the module ``kenning.clock``.
                for alias in node.names:
                    yield [package.name, alias.name], node.lineno
            else:
                yield target, node.lineno


def import_graph(package: Path = SRC) -> Edges:
    """The package import graph of ``package``: node -> {imported node: first place}."""
    nodes = {node_of(p, package) for p in package.rglob("*.py")}
    edges: Edges = {n: {} for n in nodes}
    for path in sorted(package.rglob("*.py")):
        source = node_of(path, package)
        for target, line in imported(path, package):
            if target[0] != package.name:
                continue
            dest = target[1] if len(target) > 1 and target[1] in nodes else ROOT
            if dest != source:
                edges[source].setdefault(dest, f"{path.relative_to(package.parent)}:{line}")
    return edges


def cycles(edges: Edges) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def describe(edges: Edges, component: list[str]) -> str:
    inside = [
        f"    {a} -> {b}  ({edges[a][b]})"
        for a in component
        for b in sorted(edges[a])
        if b in component
    ]
    return " ⇄ ".join(component) + "\n" + "\n".join(inside)


def test_no_import_cycles_between_packages() -> None:
    edges = import_graph()
    found = cycles(edges)
    assert not found, (
        "Import cycles between packages of src/kenning (every import counts, late and "
        "TYPE_CHECKING ones too); move the shared part down or hand it in from above:\n"
        + "\n".join(describe(edges, c) for c in found)
    )


def _write(root: Path, files: dict[str, str]) -> Path:
    package = root / "kenning"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_late_and_type_checking_imports_count(tmp_path: Path) -> None:
    package = _write(
        tmp_path,
        {
            "__init__.py": "",
            "home.py": "from kenning import clock\n",
            "clock.py": "",
            "a/__init__.py": "",
            "a/x.py": "import typing\nif typing.TYPE_CHECKING:\n    from kenning.b.y import Y\n",
            "b/__init__.py": "",
            "b/y.py": "def f():\n    from ..a import x\n",
            "c/__init__.py": "import kenning.home\n",
        },
    )
    edges = import_graph(package)
    assert edges["a"] == {"b": "kenning/a/x.py:3"}
    assert edges["b"] == {"a": "kenning/b/y.py:2"}
    assert edges["home"] == {"clock": "kenning/home.py:1"}
    assert edges["c"] == {"home": "kenning/c/__init__.py:1"}
    found = cycles(edges)
    assert found == [["a", "b"]]
    assert "a -> b  (kenning/a/x.py:3)" in describe(edges, found[0])


if __name__ == "__main__":
    graph = import_graph(Path(sys.argv[1]) if len(sys.argv) > 1 else SRC)
    for name in sorted(graph):
        if graph[name]:
            print(f"{name} -> {', '.join(sorted(graph[name]))}")
    for component in cycles(graph):
        print("CYCLE:", describe(graph, component))


def test_the_version_module_matches_the_package_metadata() -> None:
    import tomllib

    from kenning.version import __version__

    pyproject = tomllib.loads((SRC.parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    assert __version__ == pyproject["project"]["version"]
