"""Homes for the cron tests: real files, real git, keyword-only search (no model download)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from kenning.config import Config, EmbeddingConfig
from kenning.home import Home


def cron_home(root: Path, **sections: Any) -> Home:
    """A home with keyword-only search and the given config sections (``cron=...``)."""
    return Home(root, Config(embedding=EmbeddingConfig(provider="none"), **sections))


def git_log(home: Home) -> list[str]:
    """Commit subjects, newest first ([] before the first commit)."""
    if not (home.root / ".git").is_dir():
        return []
    out = subprocess.run(
        ["git", "log", "--format=%s"], cwd=home.root, capture_output=True, text=True, check=True
    )
    return out.stdout.splitlines()
