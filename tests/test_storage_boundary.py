"""No SQL outside ``kenning.storage``: the boundary a second backend relies on.

Every read and write of sessions, messages, the indexes, vectors, recalls and
caches goes through the storage interface (``kenning.storage.base``); a
PostgreSQL backend can only replace SQLite if no other module speaks SQL. The
scan is syntactic (``ast``): ``sqlite3`` imports, ``.execute``-style calls,
reaching for a connection (``.conn``) and string literals that read as SQL,
each reported as ``file:line``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import kenning

SRC = Path(kenning.__file__).parent
EXECUTE = {"execute", "executemany", "executescript"}
# A backend's connection, which callers would run SQL on (``archive.conn``,
# ``storage.connection()``): only the storage itself may hold one.
CONNECTION = {"conn", "_conn", "connection"}
# A statement: an upper-case verb followed by the word that makes it SQL.
STATEMENT = re.compile(
    r"^\s*(SELECT\b.*\bFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
    r"|CREATE\s+(VIRTUAL\s+|TEMP\s+|UNIQUE\s+)?(TABLE|INDEX|TRIGGER|VIEW)|DROP\s+(TABLE|INDEX)"
    r"|ALTER\s+TABLE|PRAGMA\s+\w+|BEGIN(\s+IMMEDIATE|\s+EXCLUSIVE)?\s*$|COMMIT\s*$|ROLLBACK\s*$)",
    re.DOTALL,
)
# A fragment: a bound parameter compared with a column (``m.created_at >= ?``,
# ``{column} = ?``) or an ``IN (?, …)`` list.
FRAGMENT = re.compile(r"(\w+\.\w+|\{\})\s*(=|<=?|>=?|!=|(NOT\s+)?IN)\s*(\?|\(\{\}\))")


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}"
            for v in node.values
        )
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def violations(root: Path = SRC) -> list[str]:
    found: list[tuple[str, int, str]] = []
    for path in sorted(root.rglob("*.py")):
        if root / "storage" in path.parents:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        docs = _docstrings(tree)
        where = path.relative_to(root.parent)
        inside_fstring: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                inside_fstring.update(id(v) for v in node.values)
        for node in ast.walk(tree):
            line = getattr(node, "lineno", 0)
            if isinstance(node, ast.Import) and any(
                a.name.split(".")[0] == "sqlite3" for a in node.names
            ):
                found.append((str(where), line, "import sqlite3"))
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sqlite3"):
                found.append((str(where), line, "from sqlite3 import"))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in EXECUTE
            ):
                found.append((str(where), line, f".{node.func.attr}(...) call"))
            elif isinstance(node, ast.Attribute) and node.attr in CONNECTION:
                found.append((str(where), line, f"database connection .{node.attr}"))
            elif id(node) not in docs and id(node) not in inside_fstring:
                text = _text(node)
                if text is not None and (STATEMENT.search(text) or FRAGMENT.search(text)):
                    found.append((str(where), line, f"SQL literal {text.strip()[:50]!r}"))
    return [f"{file}:{line}: {what}" for file, line, what in sorted(found)]


def test_no_sql_outside_storage() -> None:
    found = violations()
    assert not found, f"{len(found)} SQL uses outside kenning/storage/:\n" + "\n".join(found)


def test_the_scan_finds_each_kind_of_sql(tmp_path: Path) -> None:
    """The scan itself: each form it must catch is caught, prose is not."""
    pkg = tmp_path / "kenning"
    (pkg / "storage").mkdir(parents=True)
    (pkg / "storage" / "ok.py").write_text("import sqlite3\nq = 'SELECT x FROM t'\n")
    (pkg / "bad.py").write_text(
        '"""SELECT words FROM a docstring are prose."""\n'
        "import sqlite3\n"
        "conn.execute('x')\n"
        "q = 'SELECT id FROM messages'\n"
        "w = f'{col} = ?'\n"
        "b = 'BEGIN IMMEDIATE'\n"
        "fine = 'Select the best hit from the pool'\n"
        "rows = archive.conn\n"
    )
    found = violations(pkg)
    assert [f.split(":")[1] for f in found] == ["2", "3", "4", "5", "6", "8"], found
