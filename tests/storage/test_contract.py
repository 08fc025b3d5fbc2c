"""The storage contract: what every backend must do, tested only through the interface.

Each test runs once per backend (the ``storage`` fixture), so a second
backend proves itself by passing this file unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest

from kenning.storage import Storage, StorageConflict, StorageError
from kenning.storage.identity import IndexIdentityError
from kenning.storage.query import SearchFilters, SearchHit
from kenning.storage.records import Chunk, Message
from kenning.storage.text import query_terms
from kenning.testing import FakeEmbedder

EVERYTHING = SearchFilters()


def _session(storage: Storage, sid: str = "s1", source: str = "cli", **kw: object) -> str:
    storage.sessions.insert(sid, source, started_at=1000.0, **kw)  # type: ignore[arg-type]
    return sid


def _say(storage: Storage, sid: str, *texts: str, role: str = "user") -> list[int]:
    ids = []
    for i, text in enumerate(texts):
        stored = storage.sessions.append(sid, Message(role, text, created_at=2000.0 + i))  # type: ignore[arg-type]
        assert stored.id is not None
        ids.append(stored.id)
    return ids


def test_append_many_continues_the_session_in_order(storage: Storage) -> None:
    sid = _session(storage)
    first = storage.sessions.append(sid, Message("user", "before"))
    call = [{"id": "c1", "name": "read_file", "arguments": "{}"}]
    batch = [
        Message("assistant", "", tool_calls=call, input_tokens=3, output_tokens=4),
        Message("tool", "file text", tool_name="read_file", tool_call_id="c1"),
        Message("user", "after", speaker="Ada", created_at=2500.0, meta={"dia_id": "D2"}),
    ]
    stored = storage.sessions.append_many(sid, batch)
    assert [m.seq for m in stored] == [2, 3, 4]
    assert [m.id for m in stored] == sorted({m.id for m in stored}) and first.id < stored[0].id  # type: ignore[operator]
    got = storage.sessions.messages(sid)
    assert got[1:] == stored  # what it returned is what was stored, field for field
    assert (got[3].created_at, got[3].meta, got[3].speaker) == (2500.0, {"dia_id": "D2"}, "Ada")
    assert got[1].tool_calls == call and (got[1].input_tokens, got[1].output_tokens) == (3, 4)
    assert got[1].created_at is not None and got[1].created_at >= (first.created_at or 0)
    assert storage.sessions.append_many(sid, []) == []
    assert storage.index.pending() == 4  # queued for the index like any append


def test_sessions_and_messages_round_trip(storage: Storage) -> None:
    sid = _session(storage, title="first", workspace="/repo", import_key="k1", meta={"a": 1})
    first = storage.sessions.append(sid, Message("user", "hello", meta={"dia_id": "D1"}))
    call = [{"id": "c1", "name": "read_file", "arguments": "{}"}]
    storage.sessions.append(sid, Message("assistant", "", tool_calls=call))
    assert (first.seq, first.session_id) == (1, sid) and first.created_at is not None
    got = storage.sessions.messages(sid)
    assert [(m.seq, m.role, m.content) for m in got] == [(1, "user", "hello"), (2, "assistant", "")]
    assert got[1].tool_calls == call and got[0].meta == {"dia_id": "D1"}
    assert storage.sessions.message(first.id or 0) == got[0]
    session = storage.sessions.get(sid)
    assert session is not None
    assert (session.title, session.workspace, session.meta, session.message_count) == (
        "first",
        "/repo",
        {"a": 1},
        2,
    )
    assert storage.sessions.by_import_key("k1") == sid and storage.sessions.import_key(sid) == "k1"
    storage.sessions.end(sid, "done", 3000.0)
    storage.sessions.set_title(sid, "renamed")
    storage.sessions.add_usage(sid, 10, 5)
    storage.sessions.merge_meta(sid, {"b": 2})
    session = storage.sessions.get(sid)
    assert session is not None
    assert (session.ended_at, session.end_reason, session.title) == (3000.0, "done", "renamed")
    assert (session.input_tokens, session.output_tokens, session.meta) == (10, 5, {"a": 1, "b": 2})
    assert storage.sessions.by_meta_key("dia_id")[0] == ("D1", first.id, sid)
    assert storage.sessions.count_messages() == 2


def test_any_text_is_stored_exactly(storage: Storage) -> None:
    """NUL (tool output has it; PostgreSQL text cannot hold it) and its look-alikes
    come back exactly, and stay searchable around them."""
    sid = _session(storage, title="a\x00b", meta={"k": "v\x00"})
    texts = ["bin\x00ary dump", "\uffff0 and \uffff\uffff", "\x00", "tail\uffff"]
    ids = _say(storage, sid, *texts)
    assert [m.content for m in storage.sessions.messages(sid)] == texts
    session = storage.sessions.get(sid)
    assert session is not None and (session.title, session.meta) == ("a\x00b", {"k": "v\x00"})
    storage.index.sync()
    assert [i for i, _ in storage.index.match_messages(["dump"], EVERYTHING, 5)] == [ids[0]]
    assert storage.index.message_texts(ids) == dict(zip(ids, texts, strict=True))


def test_positions_compaction_and_lineage(storage: Storage) -> None:
    parent = _session(storage, "p")
    child = _session(storage, "c", parent_id="p")
    assert storage.sessions.parent(child) == parent and storage.sessions.parent(parent) is None
    _say(storage, child, "one", "two", "three")
    assert storage.sessions.mark_compacted(child, [1, 2]) == 2
    live = storage.sessions.messages(child, include_inactive=False)
    assert [m.content for m in live] == ["three"]
    assert set(storage.sessions.message_ids(child, [1, 3])) == {1, 3}
    # newest first; same start time: by id, descending
    assert [s.id for s in storage.sessions.recent(limit=5)] == ["p", "c"]
    second = _session(storage, "c2", "review", parent_id="p")
    assert [s.id for s in storage.sessions.children(parent)] == [child, second]
    assert storage.sessions.children(child) == []


def test_a_taken_session_id_is_a_conflict(storage: Storage) -> None:
    _session(storage)
    with pytest.raises(StorageConflict):
        _session(storage)
    with pytest.raises(StorageError, match="no session"):
        storage.sessions.merge_meta("nope", {"x": 1})


def test_a_transaction_is_all_or_nothing(storage: Storage) -> None:
    sid = _session(storage)
    with pytest.raises(RuntimeError), storage.transaction():
        _say(storage, sid, "kept only if the whole transaction commits")
        with storage.transaction():  # nested: joins the outer one
            _say(storage, sid, "inner")
        raise RuntimeError("crash in the middle")
    assert storage.sessions.messages(sid) == []
    with storage.transaction():
        _say(storage, sid, "committed")
    assert [m.content for m in storage.sessions.messages(sid)] == ["committed"]


def test_full_text_matches_words_stems_and_chinese(storage: Storage) -> None:
    sid = _session(storage)
    ids = _say(storage, sid, "The movers are coming on Friday", "我最喜欢龙井,每天早上泡一杯。")
    _say(storage, sid, "movers confirmed", role="assistant")
    assert storage.index.pending() == 3
    assert storage.index.sync() == 3 and storage.index.pending() == 0
    hits = storage.index.match_messages(query_terms("when is the mover coming"), EVERYTHING, 10)
    assert hits[0][0] == ids[0] and all(score > 0 for _, score in hits)
    zh = storage.index.match_messages(query_terms("我喜欢喝龙井"), EVERYTHING, 10)
    # the reply after it matches too, weaker, through its context (the message it answers)
    assert zh[0][0] == ids[1] and len(zh) == 2 and zh[1][1] < zh[0][1]
    only_users = storage.index.match_messages(["movers"], SearchFilters(roles=("user",)), 10)
    assert [i for i, _ in only_users] == [ids[0]]
    assert storage.index.match_messages(['"unbalanced ( AND'], EVERYTHING, 10) == []
    assert storage.index.doc_count() == 3
    assert storage.index.term_doc_counts("message", ["movers", "龙井"]) == [2, 1]
    assert storage.index.containing("message", "coming", ids) == [ids[0]]
    every = [*ids, ids[1] + 1]
    held = storage.index.containing_each("message", ["coming", "龙井", "zzqx", "movers"], every)
    assert held == [[ids[0]], [ids[1], ids[1] + 1], [], [ids[0], ids[1] + 1]]
    assert storage.index.containing_each("message", [], every) == []
    assert storage.index.containing_each("message", ["coming"], []) == [[]]
    shown = storage.index.hits([(1.0, "message", ids[1])])
    assert shown == [
        SearchHit(
            "message", 1.0, ids[1], session_id=sid, seq=2, role="user", speaker=None,
            created_at=2001.0, content="我最喜欢龙井,每天早上泡一杯。", source="cli",
        )
    ]  # fmt: skip


def test_vectors_are_filled_from_the_queue_and_found_nearest(storage: Storage) -> None:
    sid = _session(storage)
    ids = _say(storage, sid, "staging database on db-7", "lunch at noon", "deploys freeze friday")
    fake = FakeEmbedder(dims=64)
    assert storage.vectors.pending() == 3
    assert storage.vectors.embed_pending(fake) == 3 and storage.vectors.pending() == 0
    nearest = storage.vectors.nearest("message", fake.embed_query("staging database"), 2)
    assert nearest[0][0] == ids[0] and nearest[0][1] > nearest[1][1]
    rows = storage.vectors.since("message", 0)
    assert sorted(r[1] for r in rows) == ids and all(len(r[2]) == 64 * 4 for r in rows)
    assert storage.vectors.since("message", rows[-1][0]) == []
    other = FakeEmbedder(dims=64, version="2")
    assert storage.vectors.check_identity(other) is not None
    with pytest.raises(IndexIdentityError):
        storage.vectors.embed_pending(other)
    marker = storage.vectors.deletions("message")
    storage.vectors.reset(other)
    assert storage.vectors.deletions("message") != marker and storage.vectors.pending() == 3


def test_vectors_stored_in_a_bulk_load_are_found_and_scoped(storage: Storage) -> None:
    ada = _say(storage, _session(storage, "s1", user_id="ada"), "staging database", "lunch")
    bob = _say(storage, _session(storage, "s2", user_id="bob"), "staging database db-7", "tea")
    fake = FakeEmbedder(dims=64)
    storage.vectors.claim_identity(fake)
    with storage.vectors.bulk_load():
        texts = ["staging database", "lunch", "staging database db-7", "tea"]
        vectors = fake.embed_passages(texts)
        storage.vectors.put_messages(list(zip(ada + bob, vectors, strict=True)))
    query = fake.embed_query("staging database")
    assert storage.vectors.nearest("message", query, 1)[0][0] == ada[0]
    found = storage.vectors.indexed_nearest(query, 10, SearchFilters(user_id="bob"))
    if found is not None:  # a backend with a vector index: only the scope's rows, best first
        assert [i for i, _ in found] == bob
        assert found[0][1] > found[1][1]
        assert [i for i, _ in storage.vectors.indexed_nearest(query, 1, EVERYTHING) or []] == [
            ada[0]
        ]


def test_memory_chunks_are_replaced_per_file(storage: Storage) -> None:
    chunks = [Chunk(1, 2, "Project uses pnpm"), Chunk(3, 3, "Tea, not coffee")]
    with storage.transaction():
        written = storage.chunks.replace_file(
            "MEMORY.md", size=10, mtime_ns=1, digest="d1", decays=False, dated_at=5.0, chunks=chunks
        )
    assert written == 2 and storage.chunks.files() == {"MEMORY.md": (10, 1, "d1")}
    found = storage.index.match_chunks(["pnpm"], EVERYTHING, 10)
    assert len(found) == 1 and storage.index.doc_count("chunk") == 2
    ids = sorted(storage.chunks.ids_in(EVERYTHING))
    assert [r[1:] for r in storage.chunks.dating(ids)] == [(False, 5.0), (False, 5.0)]
    assert [r[1:] for r in storage.chunks.lines(ids)] == [("MEMORY.md", 1, 2), ("MEMORY.md", 3, 3)]
    assert storage.vectors.pending_chunks() == 2
    storage.chunks.remove_file("MEMORY.md")
    assert storage.chunks.files() == {}
    assert storage.index.match_chunks(["pnpm"], EVERYTHING, 10) == []


def test_recalls_are_recorded_with_their_hits(storage: Storage) -> None:
    hits = [SearchHit("message", 0.9, 7), SearchHit("chunk", 0.5, 3)]
    rid = storage.recalls.record("staging db", hits, "hybrid", EVERYTHING, 100.0)
    assert storage.recalls.hits_since(50.0) == [
        (rid, "staging db", 100.0, "message", 7, 1),
        (rid, "staging db", 100.0, "chunk", 3, 2),
    ]
    assert storage.recalls.hits_since(101.0) == []


def test_the_embedding_cache_keeps_vectors_by_identity_kind_and_hash(storage: Storage) -> None:
    cache = storage.embedding_cache
    v = np.arange(4, dtype=np.float32)
    cache.put_many("fake@1", "p", [(b"h1", v), (b"h2", v * 2)])
    got = cache.get_many("fake@1", "p", [b"h1", b"h2", b"h3"])
    assert set(got) == {b"h1", b"h2"} and np.array_equal(got[b"h2"], v * 2)
    assert cache.get_many("fake@1", "q", [b"h1"]) == {}
    assert cache.get_many("fake@2", "p", [b"h1"]) == {}
    many = [bytes([i % 256, i // 256]) for i in range(1200)]  # more than one batch
    cache.put_many("fake@1", "q", [(h, v) for h in many])
    assert len(cache.get_many("fake@1", "q", many)) == 1200
