"""Where Kenning keeps its files.

One function decides where the home is; everything Kenning writes lives below
it. Precedence: an explicit ``home`` argument > ``KENNING_HOME`` > ``~/.kenning``.
A named profile (``--profile NAME`` or ``KENNING_PROFILE``) is a separate home
under ``<base>/profiles/NAME`` so agents with different identities never share
memory by accident.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

HOME_ENV = "KENNING_HOME"
PROFILE_ENV = "KENNING_PROFILE"
DEFAULT_PROFILE = "default"

_PROFILE_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


class InvalidProfileError(ValueError):
    """A profile name that cannot safely become a directory name."""


def validate_profile(name: str) -> str:
    if not _PROFILE_NAME.match(name) or ".." in name:
        raise InvalidProfileError(
            f"invalid profile name {name!r}: use 1-64 lowercase letters, digits, '.', '_' or '-',"
            " starting with a letter or digit"
        )
    return name


def base_dir() -> Path:
    """The root home: ``KENNING_HOME`` if set, else ``~/.kenning``."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override).expanduser().absolute()
    return Path.home() / ".kenning"


def home(profile: str | None = None) -> Path:
    """The home of ``profile`` (or ``KENNING_PROFILE``, or the default profile)."""
    name = profile if profile is not None else os.environ.get(PROFILE_ENV) or DEFAULT_PROFILE
    validate_profile(name)
    root = base_dir()
    if name == DEFAULT_PROFILE:
        return root
    return root / "profiles" / name


class HomeLayout:
    """Named paths inside one home. Pure path arithmetic: creates nothing."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def config_file(self) -> Path:
        return self.root / "config.toml"

    @property
    def memories_dir(self) -> Path:
        return self.root / "memories"

    @property
    def memory_file(self) -> Path:
        return self.memories_dir / "MEMORY.md"

    @property
    def user_file(self) -> Path:
        return self.memories_dir / "USER.md"

    @property
    def journal_dir(self) -> Path:
        return self.root / "memory"

    @property
    def skills_dir(self) -> Path:
        return self.root / "skills"

    @property
    def soul_file(self) -> Path:
        return self.root / "SOUL.md"

    @property
    def agents_file(self) -> Path:
        return self.root / "AGENTS.md"

    @property
    def state_db(self) -> Path:
        return self.root / "state.db"

    @property
    def spill_dir(self) -> Path:
        return self.root / "spill"

    @property
    def backups_dir(self) -> Path:
        return self.root / "backups"
