"""The home as a git repository: every write a commit; git trouble never blocks a write."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest

from kenning.history import History
from kenning.memory.store import Target
from kenning.testing import make_home


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True
    ).stdout


def test_each_write_is_a_commit_saying_what_and_why(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    home.memory.add(Target.USER, "User prefers dark mode", reason="user said so in chat")
    home.memory.remove(Target.USER, "dark mode", reason="user changed their mind")
    log = git(tmp_path, "log", "--format=%s%n%b%x00")
    commits = [c.strip() for c in log.split("\x00") if c.strip()]
    assert commits[0].startswith("memory: removed in USER.md — User prefers dark mode")
    assert "Why: user changed their mind" in commits[0]
    assert commits[1].startswith("memory: added in USER.md — User prefers dark mode")
    assert "Why: user said so in chat" in commits[1]
    assert commits[2] == "initialise Kenning home"
    assert git(tmp_path, "status", "--porcelain") == ""


def test_gitignore_keeps_database_and_locks_out(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    home.memory.add(Target.MEMORY, "fact")
    (tmp_path / "state.db").write_bytes(b"x")
    tracked = git(tmp_path, "ls-files").split()
    assert tracked == [".gitignore", "memories/MEMORY.md"]
    assert git(tmp_path, "status", "--porcelain") == ""


def test_history_off_writes_without_git(tmp_path: Path) -> None:
    home = make_home(tmp_path, history=False)
    result = home.memory.add(Target.MEMORY, "fact")
    assert result.commit is None
    assert not (tmp_path / ".git").exists()


def test_missing_git_warns_on_every_write_and_writes_continue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    home = make_home(tmp_path / "home")
    with caplog.at_level(logging.WARNING, logger="kenning.history"):
        first = home.memory.add(Target.MEMORY, "first")
        home.memory.add(Target.MEMORY, "second")
    assert home.memory.read(Target.MEMORY).entries == ("first", "second")
    warnings = [r.getMessage() for r in caplog.records if "NOT recorded" in r.getMessage()]
    assert len(warnings) == 2  # every write says so, not just the first of a process
    assert first.history_problem is not None
    assert "git is not installed" in first.history_problem
    assert "enabled = false" in first.history_problem


def test_broken_repository_does_not_block_writes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home = make_home(tmp_path)
    home.memory.add(Target.MEMORY, "before breakage")
    (tmp_path / ".git" / "HEAD").write_text("garbage\n")
    with caplog.at_level(logging.WARNING, logger="kenning.history"):
        home.memory.add(Target.MEMORY, "after breakage")
    assert home.memory.read(Target.MEMORY).entries == ("before breakage", "after breakage")
    assert any("NOT recorded" in r.getMessage() for r in caplog.records)


def test_hostile_user_git_config_is_neutralised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    global_config = tmp_path / "gitconfig"
    global_config.write_text(
        "[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = /bin/false\n[core]\n\thooksPath = "
        f"{tmp_path / 'hooks'}\n"
    )
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 1\n")
    (hooks / "pre-commit").chmod(0o755)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(global_config))
    home = make_home(tmp_path / "home")
    result = home.memory.add(Target.MEMORY, "fact")
    assert result.commit is not None


def test_log_and_diff(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    home.memory.add(Target.MEMORY, "one")
    first = home.memory.add(Target.MEMORY, "two").commit
    assert first is not None
    history = History(tmp_path)
    log = history.log(["memories"])
    assert [c.message for c in log] == [
        "memory: added in MEMORY.md — two",
        "memory: added in MEMORY.md — one",
    ]
    assert log[0].files == ("memories/MEMORY.md",)
    (tmp_path / "memories" / "MEMORY.md").write_text("one\n§\ntwo\n§\nthree\n")
    assert "+three" in history.diff(None, ["memories"])
    assert "+three" in history.diff(first, ["memories"])


def test_change_is_the_commits_own_patch_not_everything_since(tmp_path: Path) -> None:
    from kenning.history import HistoryError

    home = make_home(tmp_path)
    first = home.memory.add(Target.MEMORY, "Alpha fact").commit
    home.memory.add(Target.MEMORY, "Beta fact")
    assert first is not None
    patch = home.history.change(first)
    assert "+Alpha fact" in patch and "Beta fact" not in patch
    assert "Beta fact" in home.history.diff(first)  # diff is since, change is what it did
    assert home.history.change(first, ["memories/USER.md"]) == ""
    with pytest.raises(HistoryError, match="unknown revision"):
        home.history.change("no-such-rev")
