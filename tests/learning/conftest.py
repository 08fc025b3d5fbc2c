"""Homes and sessions for the learning-loop tests: real files, real git, scripted models."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from kenning.agent.loop import AgentSession
from kenning.config import Config, DreamConfig, EmbeddingConfig, ReviewConfig
from kenning.home import Home
from kenning.models.types import Model
from kenning.runtime.factory import build_tools


def learning_home(root: Path, *, review: dict[str, Any] | None = None, **sections: Any) -> Home:
    """A home with keyword-only search (no model download) and the given review settings."""
    config = Config(
        embedding=EmbeddingConfig(provider="none"),
        review=ReviewConfig(**(review or {})),
        dream=sections.pop("dream", DreamConfig()),
        **sections,
    )
    return Home(root, config)


@pytest.fixture
def lhome(tmp_path: Path) -> Home:
    return learning_home(
        tmp_path / "home", review={"memory_every_user_turns": 2, "skills_every_iterations": 0}
    )


def start(home: Home, model: Model, cwd: Path) -> AgentSession:
    return AgentSession.start(home, model, build_tools(home), cwd=cwd)


def git_log(home: Home) -> list[str]:
    """Commit subjects, newest first ([] before the first commit)."""
    if not (home.root / ".git").is_dir():
        return []
    out = subprocess.run(
        ["git", "log", "--format=%s"], cwd=home.root, capture_output=True, text=True, check=True
    )
    return out.stdout.splitlines()


def tree_state(home: Home) -> dict[str, bytes]:
    """Every versioned-looking file under memories/ and skills/ (what a review may touch)."""
    found: dict[str, bytes] = {}
    for folder in (home.layout.memories_dir, home.layout.skills_dir):
        if not folder.exists():
            continue
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.endswith(".lock") and path.name != ".usage.json":
                found[str(path.relative_to(home.root))] = path.read_bytes()
    return found
