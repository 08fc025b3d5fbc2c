"""Lint and type checks are part of the test suite, so CI enforces them."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed: CI must run every check")
        pytest.skip(f"{name} is not installed (pip install -e '.[dev]')")
    return found


def test_ruff_lint_and_format() -> None:
    ruff = _tool("ruff")
    lint = subprocess.run([ruff, "check", "src", "tests"], cwd=ROOT, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = subprocess.run(
        [ruff, "format", "--check", "src", "tests"], cwd=ROOT, capture_output=True, text=True
    )
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy_strict_on_src() -> None:
    mypy = _tool("mypy")
    done = subprocess.run([mypy], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_modules_stay_small() -> None:
    big = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "src").rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert not big, f"split these modules (over 600 lines): {big}"


# Calls that read the wall clock; only kenning/clock.py may make them, so a
# frozen test clock is seen by every part of Kenning at once.
_WALL_CLOCK_READS = {
    ("time", "time"),
    ("time", "time_ns"),
    ("time", "localtime"),
    ("time", "gmtime"),
    ("time", "ctime"),
    ("time", "strftime"),
    ("datetime", "now"),
    ("datetime", "utcnow"),
    ("datetime", "today"),
    ("date", "today"),
}


def _wall_clock_reads(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and (node.value.id, node.attr) in _WALL_CLOCK_READS
        ):
            found.append((node.lineno, f"{node.value.id}.{node.attr}"))
    return found


def test_only_the_clock_module_reads_the_wall_clock() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in sorted((ROOT / "src").rglob("*.py"))
        if path.name != "clock.py"
        for line, name in _wall_clock_reads(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not offenders, "read time through kenning.clock instead:\n" + "\n".join(offenders)


def test_the_wall_clock_check_can_fail() -> None:
    sample = "import time\nfrom datetime import datetime\nx = time.time\ny = datetime.now()\n"
    assert [name for _, name in _wall_clock_reads(ast.parse(sample))] == [
        "time.time",
        "datetime.now",
    ]
