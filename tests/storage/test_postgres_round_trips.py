"""What a search asks a PostgreSQL server, statement by statement.

On a busy machine every round trip costs a scheduling of the server process
(1-5 ms measured under load), so the search path asks once where it can:
bm25 with its own counts, a query's coverage, an index sync with nothing
queued, the hits of one kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import storage_on
from tests.storage.conftest import StatementRecorder

from kenning.search import abstain
from kenning.storage import Storage
from kenning.storage.postgres import index as pg_index
from kenning.storage.query import SearchFilters
from kenning.storage.records import Message
from kenning.storage.text import query_terms

TEXTS = [
    "the staging migration finished in four minutes",
    "rotate the staging keys weekly",
    "我最喜欢龙井,每天早上泡一杯。",
    "the movers are coming on Friday",
]


@pytest.fixture
def pg(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    storage: Storage = storage_on("postgres", request, tmp_path / "state.db")
    storage.sessions.insert("s1", "cli", started_at=1000.0)
    for text in TEXTS:
        storage.sessions.append("s1", Message("user", text))
    storage.index.sync()
    yield storage
    storage.close()


@contextmanager
def statements(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every statement and transaction ``storage``'s connection sends meanwhile."""
    conn = storage.connection()  # type: ignore[attr-defined]
    sent: list[str] = []
    cls = type(conn)
    execute, transaction = cls.execute, cls.transaction

    def counted_execute(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        if self is conn:
            sent.append(" ".join(str(query).split()))
        return execute(self, query, *args, **kwargs)

    def counted_transaction(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self is conn:
            sent.append("BEGIN")
        return transaction(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(cls, "execute", counted_execute)
        patch.setattr(cls, "transaction", counted_transaction)
        yield sent


def test_ranking_one_lexeme_terms_is_one_statement(
    pg: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """N, the average length and each idf come with the ranking, not before it."""
    terms = query_terms("staging keys migration")
    want = pg.index.match_messages(terms, SearchFilters(), 10)  # the terms' forms cached
    with statements(pg, monkeypatch) as sent:
        got = pg.index.match_messages(terms, SearchFilters(), 10)
    assert got == want and len(got) == 2
    assert len(sent) == 1


def test_pruning_then_ranking_new_terms_is_two_statements(
    pg: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search's term counts and its ranking need two forms of each term and the
    counts of its lexemes; the first statement brings all three."""
    # New to this process: another test's search may have cached their forms.
    monkeypatch.setattr(pg_index, "_INDEXED", {})
    monkeypatch.setattr(pg_index, "_MATCH", {})
    terms = query_terms("weekly movers coming")
    with statements(pg, monkeypatch) as sent:
        counts = pg.index.term_doc_counts("message", terms)
        ranked = pg.index.match_messages(terms, SearchFilters(), 10)
    assert counts == [1, 1, 1] and len(ranked) == 2
    assert len(sent) == 2  # the forms with their counts, then the ranking


def test_a_full_cache_of_term_forms_still_answers_every_term(
    pg: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Emptied when full, the cache is refilled with every term asked for, not only
    the new ones (the ones held before were gone with it)."""
    monkeypatch.setattr(pg_index, "_CACHE_MAX", 2)
    monkeypatch.setattr(pg_index, "_INDEXED", {})
    monkeypatch.setattr(pg_index, "_MATCH", {})
    assert pg.index.stems(["staging", "keys"]) == ["stage", "key"]
    assert pg.index.stems(["staging", "movers"]) == ["stage", "mover"]
    assert pg.index.term_doc_counts("message", ["keys", "movers"]) == [1, 1]


def test_coverage_asks_once_for_every_term(pg: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [int(r[0]) for r in pg.connection().execute("SELECT id FROM messages ORDER BY id")]  # type: ignore[attr-defined]
    terms = ["staging", "keys", "龙井", "zzqx", "friday"]
    pg.index.stems(terms)  # their forms, cached by the search before its coverage
    with statements(pg, monkeypatch) as sent:
        share = abstain.coverage(pg.index, "message", terms, [1.0, 1.0, 1.0, 1.0, 0.0], ids)
    assert share == pytest.approx(2 / 4)  # "rotate the staging keys weekly"
    assert len(sent) == 1


def test_a_sync_with_nothing_queued_is_one_statement(
    pg: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    with statements(pg, monkeypatch) as sent:
        assert pg.index.sync() == 0
    assert len(sent) == 1 and "BEGIN" not in sent


def test_hits_of_one_kind_ask_only_for_that_kind(
    pg: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = int(pg.connection().execute("SELECT min(id) FROM messages").fetchone()[0])  # type: ignore[attr-defined]
    with statements(pg, monkeypatch) as sent:
        hits = pg.index.hits([(1.0, "message", first)])
        assert pg.index.hits([]) == []
    assert [h.content for h in hits] == [TEXTS[0]]
    assert len(sent) == 1


def test_ranking_streams_each_terms_postings_in_message_order(pg: Storage) -> None:
    """Unscoped, the postings come in message order and are summed as they pass (no
    hash table over every matching message), each message's in term order: the
    scores are bit for bit those of the per-term form (``ranked``)."""
    from kenning.storage.postgres import fts, postings

    terms = query_terms("staging keys migration weekly 龙井")
    conn = pg.connection()  # type: ignore[attr-defined]
    lexemes = [t.lexemes[0] for t in pg.index._match_terms(terms)]  # type: ignore[attr-defined]
    streamed = postings.ranked_lexemes(conn, lexemes, 0.35, ("", []), 10)
    docs = postings.lexeme_docs(conn, lexemes, body_only=False)
    stats = pg.index._stats("message")  # type: ignore[attr-defined]
    idf = [stats.idf(docs[x]) for x in lexemes]
    per_term = [fts.Term((x,)) for x in lexemes]
    assert len(streamed) == 3
    assert streamed == postings.ranked(conn, per_term, idf, stats, 0.35, ("", []), 10)
    recorder = StatementRecorder()
    postings.ranked_lexemes(recorder, lexemes, 0.35, ("", []), 10)  # type: ignore[arg-type]
    ((sql, params),) = recorder.sent
    plan = "\n".join(str(r[0]) for r in conn.execute("EXPLAIN " + sql, params).fetchall())
    # grouped from input in (message, term) order: merged from the key on a big table,
    # sorted here, where the planner finds that cheaper
    assert "GroupAggregate" in plan and "HashAggregate" not in plan, plan
    assert re.search(r"Sort Key: \S*message_id, \(1\)", plan), plan


def test_a_scope_takes_its_hits_from_the_unscoped_ranking_or_ranks_inside_itself(
    pg: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scope filters messages, not scores: its best are the first of the unscoped
    ranking it holds. Found among the first few (one statement), they are taken
    from there; else the ranking runs inside the scope (a second)."""
    pg.sessions.insert("s2", "cli", started_at=2000.0)
    for n in range(8):
        pg.sessions.append("s2", Message("user", "staging " + "word " * n))
    pg.sessions.append("s2", Message("assistant", "staging " + "word " * 30))
    pg.index.sync()
    terms = query_terms("staging")
    everything = pg.index.match_messages(terms, SearchFilters(), 50)
    roles = {int(r[0]): str(r[1]) for r in pg.connection().execute("SELECT id, role FROM messages")}  # type: ignore[attr-defined]
    for scope, limit, asked in (
        (SearchFilters(roles=("user",)), 3, 1),  # the first 3 are users' messages
        (SearchFilters(roles=("assistant",)), 1, 2),  # the one is last: not among 4
    ):
        want = [hit for hit in everything if roles[hit[0]] in scope.roles][:limit]
        with statements(pg, monkeypatch) as sent:
            got = pg.index.match_messages(terms, scope, limit)
        assert got == want and len(sent) == asked
