"""A git killed mid-commit leaves its lock behind: history recovers, or says why on every write.

Real git, real lock files, real processes: a stale lock is a file nobody
holds; a live one is held by a running ``git`` working in the home.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kenning import gitlocks
from kenning.home import Home
from kenning.memory.store import Target
from kenning.memory.tool import MemoryTool
from kenning.testing import frozen_clock, make_home
from kenning.testing.files import touch
from kenning.testing.procs import running_git


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


def subjects(root: Path) -> list[str]:
    return git(root, "log", "--format=%s").splitlines()


def age(path: Path, seconds: float) -> None:
    """Make ``path`` look as if it was last written ``seconds`` ago."""
    touch(path, age_s=seconds)


@pytest.fixture
def repo(tmp_path: Path) -> Home:
    home = make_home(tmp_path / "home")
    home.memory.add(Target.MEMORY, "before the crash")
    return home


@pytest.fixture
def live_git(repo: Home) -> Iterator[subprocess.Popen[bytes]]:
    """A real git process running in the home (it waits on stdin until closed)."""
    with running_git(repo.root) as proc:
        yield proc


@pytest.mark.parametrize("lock", ["index.lock", "HEAD.lock", "refs/heads/main.lock"])
def test_a_stale_lock_is_removed_and_the_commit_retried(
    repo: Home, lock: str, caplog: pytest.LogCaptureFixture
) -> None:
    stale = repo.root / ".git" / lock
    touch(stale)
    age(stale, 120)
    with caplog.at_level(logging.WARNING, logger="kenning.history"):
        result = repo.memory.add(Target.MEMORY, "after the crash")
    assert result.commit is not None and result.history_problem is None
    assert not stale.exists()
    assert subjects(repo.root)[0] == "memory: added in MEMORY.md — after the crash"
    messages = [r.getMessage() for r in caplog.records]
    assert any("removed a stale git lock" in m and lock in m for m in messages), messages
    assert git(repo.root, "status", "--porcelain") == ""


def test_a_fresh_lock_is_left_alone_and_every_write_says_why(
    repo: Home, caplog: pytest.LogCaptureFixture
) -> None:
    fresh = repo.root / ".git" / "index.lock"
    touch(fresh)  # as a git that has just started would have it
    with caplog.at_level(logging.WARNING, logger="kenning.history"):
        first = repo.memory.add(Target.MEMORY, "one")
        second = repo.memory.add(Target.MEMORY, "two")
    assert fresh.exists()
    assert repo.memory.read(Target.MEMORY).entries == ("before the crash", "one", "two")
    for result in (first, second):
        assert result.commit is None
        assert result.history_problem is not None
        assert ".git/index.lock" in result.history_problem
        assert "kenning doctor --fix" in result.history_problem
    warned = [r for r in caplog.records if "NOT recorded" in r.getMessage()]
    assert len(warned) == 2
    # Once the lock has aged with no git around, the next write recovers and
    # its commit names the writes that history missed meanwhile.
    age(fresh, 60)
    assert repo.memory.add(Target.MEMORY, "three").commit is not None
    log = git(repo.root, "log", "-n2", "--format=%s%n%b%x00").split("\x00")
    assert log[0].strip().startswith("memory: added in MEMORY.md — three")
    assert log[1].strip().startswith("catch-up of memories/MEMORY.md")
    assert "- memory: added in MEMORY.md — one" in log[1]
    assert "- memory: added in MEMORY.md — two" in log[1]
    assert not (repo.root / ".git" / "kenning-missed").exists()


def test_a_lock_held_by_a_running_git_is_never_removed_however_old(
    repo: Home, live_git: subprocess.Popen[bytes]
) -> None:
    held = repo.root / ".git" / "index.lock"
    touch(held)
    age(held, 7200)
    [found] = gitlocks.inspect(repo.root)
    assert found.holders == (live_git.pid,) and not found.stale
    result = repo.memory.add(Target.MEMORY, "while the user's git runs")
    assert held.exists()
    assert result.commit is None
    assert result.history_problem is not None
    assert f"running git (pid {live_git.pid})" in result.history_problem


def test_without_proc_only_a_very_old_lock_counts_as_stale(
    repo: Home, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gitlocks, "_PROC", repo.root / "no-proc-here")
    lock = repo.root / ".git" / "index.lock"
    touch(lock)
    age(lock, 600)
    [found] = gitlocks.inspect(repo.root)
    assert not found.checked and not found.stale
    age(lock, 2 * gitlocks.UNVERIFIED_AGE_S)
    assert gitlocks.remove_stale(repo.root) and not lock.exists()


def test_memory_tool_result_says_the_write_is_not_in_history(repo: Home) -> None:
    touch(repo.root / ".git" / "index.lock")
    result = MemoryTool(repo.memory)({"action": "add", "target": "memory", "content": "fact"})
    assert result["success"] is True and result["done"] is True
    assert "not recorded in history" in result["message"]
    assert ".git/index.lock" in result["history"]


def test_cli_warns_on_stderr_on_every_write(_hermetic_home: Path) -> None:
    env = {**os.environ, "KENNING_HOME": str(_hermetic_home)}

    def kenning(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "kenning", *args],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    assert kenning("home", "init").returncode == 0
    touch(_hermetic_home / ".git" / "index.lock")
    # The lock belongs to a running git, so it stays however long each process
    # takes to start: a merely fresh lock turns stale after MIN_AGE_S, which a
    # loaded machine can spend starting one Python.
    with running_git(_hermetic_home):
        for entry in ("x", "y"):
            done = kenning("memory", "add", entry)
            assert done.returncode == 0, done.stderr  # the write itself stands
            assert "kenning: warning: history: this change is saved but NOT recorded" in done.stderr
            assert "kenning doctor --fix" in done.stderr


def test_a_lock_age_is_measured_on_the_system_clock_not_kenning_s(repo: Home) -> None:
    # Kenning's clock may be frozen or moved (tests, KENNING_NOW); file mtimes are
    # not, so a fresh lock must stay fresh whatever date Kenning thinks it is.
    fresh = repo.root / ".git" / "index.lock"
    touch(fresh)
    with frozen_clock("2100-01-01T00:00:00Z"):
        (found,) = gitlocks.inspect(repo.root)
        assert found.age_s < 60
        assert repo.memory.add(Target.MEMORY, "while the lock is fresh").commit is None
    assert fresh.exists()
