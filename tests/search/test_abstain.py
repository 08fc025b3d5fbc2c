"""Abstention (``search.abstain``): language guess, coverage over the real FTS5 index,
the floor decision, and the engine returning nothing — or not — because of it."""

from __future__ import annotations

import pytest
from tests.search.conftest import add_session

from kenning.archive.store import Archive
from kenning.embed.base import Calibration
from kenning.search import abstain
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.storage.text import query_terms
from kenning.testing import FakeEmbedder

CAL = Calibration(floors={"en": 0.80, "zh": 0.85}, coverage_weight=0.1, no_word_margin=0.05)


@pytest.mark.parametrize(
    ("text", "query", "expected"),
    [
        ("Which telescope did I buy?", True, "en"),
        ("staging db port", True, "en"),  # keyword query: plain ASCII
        ("我的牙医叫什么名字?", True, "zh"),
        ("我们用 Kubernetes 部署吗?", True, "zh"),  # mixed counts as Chinese
        ("東京の天気はどうですか", True, None),  # Japanese: not calibrated
        ("내 치과 의사 이름이 뭐야?", True, None),
        ("Где живёт мой брат?", True, None),
        ("¿Dónde vive mi hermano?", True, None),
        ("12345 !!!", True, None),
        ("Yes! It was amazing and I loved the food there", False, "en"),
        ("Hey Nate! Just finished something - pretty wild journey!", False, "en"),
        ("Mi hermano vive en Sevilla desde el año pasado, cerca del río", False, None),
        ("Das Café in der Straße hat am Montag geschlossen", False, None),
        ("I had a café au lait and the croissant was great", False, "en"),
    ],
)
def test_language(text: str, query: bool, expected: str | None) -> None:
    assert abstain.language(text, query=query) == expected


def test_idf_weights_fall_with_document_frequency_and_never_go_negative() -> None:
    rare, common, everywhere = abstain.idf_weights([0, 5, 100], 100)
    assert rare > common > everywhere >= 0.0
    assert abstain.idf_weights([500], 100) == [0.0]  # counts above n (stale) stay at 0


def test_coverage_uses_the_index_tokenizer(archive: Archive) -> None:
    _, ids = add_session(
        archive,
        [
            ("u", "The movers are coming on Tuesday with twelve boxes"),
            ("u", "My dentist appointment moved to Friday"),
            ("u", "我最喜欢龙井,每天早上泡一杯。"),
        ],
    )
    engine = SearchEngine(archive, None)
    engine.index_pending()
    conn = archive.storage.index
    terms = query_terms("When is the mover coming?")  # "mover" stems like "movers"
    weights = [1.0] * len(terms)
    assert terms == ["mover", "coming"]
    assert abstain.coverage(conn, "message", terms, weights, [ids[0]]) == 1.0
    assert abstain.coverage(conn, "message", terms, weights, [ids[1]]) == 0.0
    # the best single hit counts, not the union of hits
    two = query_terms("dentist coming")
    assert abstain.coverage(conn, "message", two, [1.0, 1.0], ids[:2]) == 0.5
    zh = query_terms("我喜欢喝什么茶")
    got = abstain.coverage(conn, "message", zh, [1.0] * len(zh), [ids[2]])
    assert 0.0 < got < 1.0  # 我喜 is not in the text, 喜欢 is
    assert abstain.coverage(conn, "message", [], [], [ids[0]]) == 0.0


def test_the_verdict() -> None:
    en_hit = "The staging server went down again this morning"
    ask = "Which telescope did I buy?"
    # at or below the English floor: abstain
    assert abstain.verdict(CAL, ask, 0.70, en_hit, 0.5) is True
    # coverage lifts a weak cosine over it
    assert abstain.verdict(CAL, ask, 0.76, en_hit, 0.5) is False
    # no shared word at all: the floor is raised by the margin
    assert abstain.verdict(CAL, ask, 0.82, en_hit, 0.0) is True
    assert abstain.verdict(CAL, ask, 0.86, en_hit, 0.0) is False
    # Chinese has its own floor
    zh_hit = "我最喜欢龙井,每天早上泡一杯。"
    assert abstain.verdict(CAL, "我的牙医叫什么名字?", 0.82, zh_hit, 0.2) is True
    assert abstain.verdict(CAL, "我的牙医叫什么名字?", 0.84, zh_hit, 0.2) is False
    # cross-lingual best hit, an uncalibrated language, no hit text: not judged
    assert abstain.verdict(CAL, "我的牙医叫什么名字?", 0.5, en_hit, 0.2) is None
    assert abstain.verdict(CAL, "Which tea do I like?", 0.5, zh_hit, 0.0) is None
    assert abstain.verdict(CAL, "Где живёт мой брат?", 0.1, "Брат живёт в Москве", 0) is None
    assert abstain.verdict(CAL, ask, 0.5, None, 0.0) is None
    assert abstain.judges(CAL, ask) and not abstain.judges(CAL, "Где живёт мой брат?")
    assert not abstain.judges(None, ask)


TEXTS = [
    ("u", "The movers are coming on Tuesday with twelve boxes"),
    ("u", "Remember to renew the TLS certificate before March"),
    ("u", "I bought a blue coffee cup at the market"),
    ("u", "The flight to Lisbon leaves at seven"),
]


def engine_with(archive: Archive, calibration: Calibration | None) -> SearchEngine:
    engine = SearchEngine(
        archive, FakeEmbedder(abstention=calibration), params=RankParams(recency_weight=0.0)
    )
    engine.index_pending()
    return engine


def test_engine_abstains_when_only_a_word_is_shared(archive: Archive) -> None:
    """Bag-of-words cosines: one shared word gives ~.4; a floor of .6
    refuses that but keeps a query that matches a message nearly word for word."""
    add_session(archive, TEXTS)
    strict = Calibration(floors={"en": 0.6}, coverage_weight=0.1)
    engine = engine_with(archive, strict)
    never = engine.search("Where did I buy the coffee grinder?")
    assert never.hits == [] and any("never discussed" in n for n in never.notes)
    kept = engine.search("when are the movers coming with the boxes")
    assert kept.hits and "movers" in (kept.hits[0].content or "")
    # the same query without a calibration: the old rule keeps the shared-word hit
    loose = engine_with(archive, None).search("Where did I buy the coffee grinder?")
    assert loose.hits and "coffee" in (loose.hits[0].content or "")


def test_engine_never_abstains_in_keyword_mode_or_an_uncalibrated_language(
    archive: Archive,
) -> None:
    add_session(archive, [*TEXTS, ("u", "Брат живёт в Москве с прошлого года")])
    everything = Calibration(floors={"en": 2.0, "zh": 2.0}, coverage_weight=0.0)
    engine = engine_with(archive, everything)
    assert engine.search("movers coming Tuesday").hits == []  # English: over any floor
    assert engine.search("Где живёт брат?").hits  # Russian: not calibrated
    keyword = SearchEngine(archive, None)
    assert keyword.search("movers coming Tuesday").hits


class _HighFloor(FakeEmbedder):
    @property
    def relevance_floor(self) -> float | None:
        return 0.99


def test_the_plain_floor_still_holds_under_a_calibration(archive: Archive) -> None:
    """No word matched (only stopwords) and the best cosine under the plain floor:
    nothing, even when the language's calibrated floor would keep the hits."""
    add_session(archive, TEXTS)
    query = "on with"  # stopwords only: no search term, yet a positive cosine
    params = RankParams(recency_weight=0.0)
    lenient = Calibration(floors={"en": -1.0}, coverage_weight=0.0)
    for embedder in (_HighFloor(), _HighFloor(abstention=lenient)):
        engine = SearchEngine(archive, embedder, params=params)
        engine.index_pending()
        assert engine.search(query).hits == []
    assert SearchEngine(archive, FakeEmbedder(abstention=lenient), params=params).search(query).hits


def test_keyword_hits_stand_while_nothing_is_embedded_yet(archive: Archive) -> None:
    """A backlog larger than ``embed_on_search``: no vector to compare, so the
    calibration has nothing to judge and the keyword matches are returned."""
    from kenning.config import SearchConfig

    add_session(archive, TEXTS)
    strict = Calibration(floors={"en": 2.0}, coverage_weight=0.0)
    engine = SearchEngine(archive, FakeEmbedder(abstention=strict), SearchConfig(embed_on_search=0))
    result = engine.search("movers coming Tuesday")
    assert result.hits and "movers" in (result.hits[0].content or "")
    assert any("not embedded yet" in n for n in result.notes)
