"""Shared fixtures for the skills layer: a library on a real home (real files, real git)
with a clock the test moves by hand."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kenning.config import SkillsConfig
from kenning.home import Home
from kenning.skills.library import SkillLibrary
from kenning.skills.model import compose_skill_md

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@dataclass
class Clock:
    now: datetime = field(default=START)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, days: float = 0, hours: float = 0) -> None:
        self.now += timedelta(days=days, hours=hours)


@pytest.fixture
def clock() -> Clock:
    return Clock()


def make_library(
    home: Home, clock: Clock, *, mode: str = "auto", bundled: Path | None = None
) -> SkillLibrary:
    config = SkillsConfig(mode=mode)
    return SkillLibrary(home.layout, config, home.history, bundled_dir=bundled, clock=clock)


@pytest.fixture
def library(home: Home, clock: Clock) -> SkillLibrary:
    return make_library(home, clock)


def skill_md(
    name: str,
    description: str = "Does one recurring thing well. Use when that thing comes up.",
    body: str = "## Steps\n1. Do the first thing.\n2. Do the second thing.\n",
    tags: tuple[str, ...] = (),
) -> str:
    return compose_skill_md(name, description, body, tags=list(tags))


def git(home: Home, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=home.root, capture_output=True, text=True, check=True)
    return done.stdout


def subjects(home: Home) -> list[str]:
    """Commit subjects, newest first ([] before the first commit)."""
    if not (home.root / ".git").is_dir():
        return []
    return git(home, "log", "--format=%s").splitlines()


def last_message(home: Home) -> str:
    return git(home, "log", "-1", "--format=%B")


def disk(home: Home) -> dict[str, bytes]:
    """Every file under skills/ except the lock and use counters: what a change may touch."""
    root = home.layout.skills_dir
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in (".library.lock", ".usage.json")
    }
