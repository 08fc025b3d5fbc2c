"""``kenning doctor`` (and ``kenning home check``) as people and scripts use it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kenning import clock
from kenning.cli import cli
from kenning.testing.files import touch


@pytest.fixture(autouse=True)
def _model_and_user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A configured hosted model (doctor checks its key, never calls it) and a
    user home of the test's own (where MCP hosts keep their config)."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.setenv("KENNING_MODEL__DEFAULT", "openai:gpt-4.1-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def run(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def init() -> None:
    assert run("home", "init").exit_code == 0


def stale_lock(home: Path) -> Path:
    lock = home / ".git" / "index.lock"
    touch(lock)
    when = clock.timestamp() - 300
    os.utime(lock, (when, when))
    return lock


def test_a_missing_home_fails_says_how_to_create_it_and_creates_nothing(
    _hermetic_home: Path,
) -> None:
    done = run("doctor")
    assert done.exit_code == 1
    assert "fail  home" in done.output and "fix: create it with `kenning home init`" in done.output
    data = json.loads(run("doctor", "--json").output)
    assert data["ok"] is False and data["checks"][0]["name"] == "home"
    assert not _hermetic_home.exists()


def test_a_profile_home_gets_fixes_that_name_the_profile(_hermetic_home: Path) -> None:
    done = run("--profile", "work", "doctor")
    assert done.exit_code == 1 and "`kenning --profile work home init`" in done.output


def test_a_healthy_home_exits_zero_with_one_line_per_check(_hermetic_home: Path) -> None:
    init()
    done = run("doctor")
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[0].startswith("ok    home")
    assert lines[-1].endswith("0 warning(s), 0 failure(s).")
    assert all(line.startswith("ok ") for line in lines[:-1]), done.output
    assert run("home", "check").output == done.output  # the alias


def test_a_stale_git_lock_fails_until_fix_removes_it(_hermetic_home: Path) -> None:
    init()
    lock = stale_lock(_hermetic_home)
    done = run("doctor")
    assert done.exit_code == 1
    assert "fail  git-locks" in done.output and "fix: `kenning doctor --fix`" in done.output
    assert lock.exists()  # doctor without --fix writes nothing
    fixed = run("doctor", "--fix")
    assert fixed.exit_code == 0, fixed.output
    assert "fixed removed .git/index.lock (a stale git lock" in fixed.output
    assert not lock.exists()


def test_warnings_alone_exit_zero(_hermetic_home: Path) -> None:
    init()
    touch(_hermetic_home / ".git" / "index.lock")  # fresh: maybe a git at work
    done = run("doctor")
    assert done.exit_code == 0 and "warn  git-locks" in done.output
    data = json.loads(run("doctor", "--json").output)
    assert data["ok"] is True and data["counts"]["warn"] == 1
    [locks] = [c for c in data["checks"] if c["name"] == "git-locks"]
    assert locks["status"] == "warn" and locks["fix"] and not locks["fixable"]


def test_a_broken_config_is_reported_not_raised(_hermetic_home: Path) -> None:
    init()
    (_hermetic_home / "config.toml").write_text("[memory\n")
    done = run("doctor")
    assert done.exit_code == 1 and "fail  config" in done.output and "not valid TOML" in done.output


def test_json_from_a_real_process(_hermetic_home: Path) -> None:
    init()
    stale_lock(_hermetic_home)
    done = subprocess.run(
        [sys.executable, "-m", "kenning", "doctor", "--json"],
        env={**os.environ, "KENNING_HOME": str(_hermetic_home)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    [locks] = [c for c in data["checks"] if c["name"] == "git-locks"]
    assert locks["status"] == "fail" and locks["fixable"] is True
    assert ".git/index.lock" in locks["details"][0]
