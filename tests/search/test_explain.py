"""``SearchEngine.explain``: the parts of one hit's score, from the same search, unrecorded."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.search.conftest import add_session

from kenning.archive.store import Archive
from kenning.home import Home
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.testing import FakeEmbedder

PARTS = [
    "lexical",
    "dense",
    "cosine",
    "fused",
    "with_context",
    "automated_penalty",
    "time",
    "score",
]


@pytest.fixture
def engine(tmp_path: Path, home: Home) -> SearchEngine:
    archive = Archive(tmp_path / "state.db")
    add_session(archive, [("Ada", "The staging database runs on port 5433"), ("Bo", "noted")])
    add_session(archive, [("Cy", "Lunch is at noon on Fridays")], source="review")
    return SearchEngine(
        archive, FakeEmbedder(), layout=home.layout, params=RankParams(mmr_lambda=1.0)
    )


def test_the_parts_multiply_to_the_hits_score(engine: SearchEngine) -> None:
    result = engine.search("staging database port", kinds=("message",))
    top = result.hits[0]
    parts = engine.explain("staging database port", "message", top.id, kinds=("message",))
    assert parts is not None and list(parts) == PARTS
    assert parts["lexical"] == 1.0  # the best bm25 of the candidates
    assert parts["score"] == pytest.approx(top.score, abs=1e-3)
    product = parts["with_context"] * parts["automated_penalty"] * parts["time"]
    assert product == pytest.approx(parts["score"], abs=1e-3)


def test_an_automated_sessions_message_shows_its_penalty(engine: SearchEngine) -> None:
    hits = engine.search("lunch noon fridays", kinds=("message",)).hits
    parts = engine.explain("lunch noon fridays", "message", hits[0].id, kinds=("message",))
    assert parts is not None and parts["automated_penalty"] == engine.params.automated_penalty


def test_explaining_is_not_a_recall_and_leaves_later_searches_alone(
    engine: SearchEngine,
) -> None:
    engine.search("staging database", kinds=("message",))
    before = len(engine.storage.recalls.hits_since(0))
    engine.explain("staging database", "message", 1, kinds=("message",))
    assert len(engine.storage.recalls.hits_since(0)) == before
    assert engine.record_recalls and engine._parts is None
    assert engine.explain("staging database", "message", 999_999) is None  # not a candidate
