"""Two homes and a bare remote in tmp_path, real git, no network."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from kenning.config import SyncConfig
from kenning.home import Home
from kenning.sync.engine import Syncer
from kenning.testing import make_home


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    return bare


def home_at(
    root: Path, remote: Path, *, memory_budget: int = 2200, by_config: bool = False
) -> Home:
    """A home that syncs with ``remote``: its git remote ``kenning`` (as ``kenning sync
    --remote`` sets it), or ``[sync] remote`` in its config."""
    home = make_home(root, memory_budget=memory_budget)
    if by_config:
        home.config = replace(home.config, sync=SyncConfig(remote=str(remote)))
    else:
        Syncer(home).set_remote(str(remote))
    return home


@pytest.fixture
def a(tmp_path: Path, remote: Path) -> Home:
    return home_at(tmp_path / "a", remote)


@pytest.fixture
def b(tmp_path: Path, remote: Path) -> Home:
    return home_at(tmp_path / "b", remote)


def sync(home: Home) -> list[str]:
    """Sync ``home``; the kinds of what it reported."""
    return [r.kind for r in Syncer(home).sync().reports]


def run_cli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``kenning`` in a real process, as a user runs it."""
    src = Path(__file__).resolve().parents[2] / "src"
    environ = {**os.environ, "KENNING_HOME": str(home), "PYTHONPATH": str(src), **env}
    return subprocess.run(
        [sys.executable, "-m", "kenning", *args],
        env=environ,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
