"""Lint and type checks are part of the test suite, so CI enforces them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
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
