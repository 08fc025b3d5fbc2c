"""A search that cannot update the index (a read-only open) still finds what is new.

Messages archived since the last writable search are queued for the text
index and for vectors; a read-only reader can write neither. It matches the
queued messages by keyword (through the index's own tokenizer, writing
nothing), embeds only the query, and uses the vectors that are stored.
"""

from __future__ import annotations

from typing import Any

from kenning.archive.store import Archive, Message
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.storage import open_storage
from kenning.testing import FakeEmbedder

from .conftest import add_session

FLAT = RankParams(recency_weight=0.0)


def reader_of(archive: Archive) -> Archive:
    """The same archive opened read-only, on its backend."""
    storage: Any = archive.storage
    if type(storage).__name__ == "PostgresStorage":
        made = open_storage(archive.path, url=storage.url, schema=storage.schema, read_only=True)
    else:
        made = open_storage(archive.path, read_only=True)
    return Archive(archive.path, storage=made)


def test_a_read_only_search_finds_messages_the_index_does_not_hold_yet(archive: Archive) -> None:
    sid, _ = add_session(archive, [("ada", "we deploy staging tonight after the freeze")])
    SearchEngine(archive, FakeEmbedder(), params=FLAT).search("deploy")  # indexed and embedded
    new = archive.append(sid, Message("user", "the quartz-lantern key was rotated today"))
    archive.append(sid, Message("user", "lunch was soup"))
    assert archive.storage.index.pending() == 2 and archive.storage.vectors.pending() == 2

    reader = reader_of(archive)
    embedder = FakeEmbedder()
    engine = SearchEngine(reader, embedder, params=FLAT, record_recalls=False)
    result = engine.search("rotated quartz-lantern key")
    assert result.hits[0].id == new.id and result.mode == "hybrid"
    assert any("could not be updated" in n for n in result.notes)
    # Only the query was embedded: the new messages' vectors could not be kept.
    assert (embedder.query_calls, embedder.passage_calls) == (1, 0)
    # The stored vectors and index still serve the older messages.
    assert "staging" in engine.search("deploy staging").hits[0].content
    # In scope only: another session's filter leaves the new message out.
    from kenning.storage.query import SearchFilters

    other = SearchFilters(session_ids=("nobody",))
    assert engine.search("quartz-lantern", filters=other).hits == []
    # And nothing was written: the queues are as they were.
    assert archive.storage.index.pending() == 2 and archive.storage.vectors.pending() == 2
    reader.close()


def test_pending_matches_names_the_terms_each_queued_message_holds(archive: Archive) -> None:
    sid, _ = add_session(archive, [("ada", "already indexed: rotating keys")])
    archive.storage.index.sync()
    rotated = archive.append(sid, Message("user", "Keys were rotated on Tuesday"))
    archive.append(sid, Message("system", "a system row is never indexed: keys rotated"))
    held = archive.storage.index.pending_matches(["rotate", "keys", "tuesday", "zebra"], *_all())
    assert held == {rotated.id: [0, 1, 2]}  # stemmed as the index stems; indexed rows left out


def _all() -> tuple[Any, int]:
    from kenning.storage.query import SearchFilters

    return SearchFilters(), 100
