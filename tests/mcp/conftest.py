"""Fixtures for the MCP server tests: a home, server settings, a log file for server stderr."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from kenning.archive.store import Archive, Message


@pytest.fixture
def home_dir(_hermetic_home: Path) -> Path:
    """The test's home: the same directory the in-process API opens (KENNING_HOME)."""
    return _hermetic_home


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[IO[str]]:
    """Where stdio servers write stderr (their stdout is the protocol)."""
    with (tmp_path / "server-stderr.log").open("w+", encoding="utf-8") as log:
        yield log


@pytest.fixture
def past_session(home_dir: Path) -> str:
    """An earlier `kenning chat` session about the staging deploy, already in the archive."""
    archive = Archive(home_dir / "state.db")
    sid = archive.start_session("cli", title="staging deploy")
    for role, text in [
        ("user", "how do we deploy to staging?"),
        ("assistant", "Run make deploy-staging on bastion-7; it needs the VPN."),
        ("user", "and the database migration?"),
        ("assistant", "alembic upgrade head, run from the api container."),
    ]:
        archive.append(sid, Message(role, text))  # type: ignore[arg-type]
    archive.close()
    return sid
