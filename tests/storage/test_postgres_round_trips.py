"""What a search asks a PostgreSQL server, statement by statement.

On a busy machine every round trip costs a scheduling of the server process
(1-5 ms measured under load), so the search path asks once where it can:
bm25 with its own counts, a query's coverage, an index sync with nothing
queued, the hits of one kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import storage_on

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
