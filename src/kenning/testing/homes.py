"""Throw-away Kenning homes for tests."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from kenning.config import Config, HistoryConfig, MemoryConfig, StorageConfig
from kenning.home import Home
from kenning.paths import HOME_ENV, PROFILE_ENV


def make_home(
    root: Path,
    *,
    memory_budget: int = 2200,
    user_budget: int = 1375,
    history: bool = True,
    storage: StorageConfig | None = None,
) -> Home:
    """A home at ``root`` with explicit settings (no config file or environment read)."""
    config = Config(
        memory=MemoryConfig(memory_budget=memory_budget, user_budget=user_budget),
        history=HistoryConfig(enabled=history),
        storage=storage or StorageConfig(),
    )
    return Home(root, config)


@contextlib.contextmanager
def isolated_home() -> Iterator[Path]:
    """Point ``KENNING_HOME`` at a fresh temporary directory for the duration."""
    saved = {name: os.environ.get(name) for name in (HOME_ENV, PROFILE_ENV)}
    with tempfile.TemporaryDirectory(prefix="kenning-home-") as tmp:
        os.environ[HOME_ENV] = tmp
        os.environ.pop(PROFILE_ENV, None)
        try:
            yield Path(tmp)
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
