"""Time words in queries: the parser's table (English, Chinese, false positives),
the score factors, and the engine ranking by them over a real SQLite archive."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from kenning.archive.store import Archive, Message
from kenning.search import when
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.testing import FakeEmbedder

NOW = datetime(2026, 12, 1, 10, 0).timestamp()  # local time, like the parser's calendar
DAY = 86_400.0


def at(*parts: int) -> float:
    return datetime(*parts).timestamp()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "intent", "since", "until"),
    [
        ("What port is the staging DB on now?", "recent", None, None),
        ("Which company am I currently employed by?", "recent", None, None),
        ("what have I been reading lately", "recent", None, None),
        ("what do I eat these days", "recent", None, None),
        ("who is on call at the moment", "recent", None, None),
        ("Do I still live in Leeds?", "recent", None, None),
        ("Wo arbeite ich jetzt?", "recent", None, None),
        ("我现在住在哪里", "recent", None, None),
        ("我目前的工作是什么？", "recent", None, None),
        ("我最近在读什么书", "recent", None, None),
        ("我如今住在哪个城市？", "recent", None, None),
        ("我这几天做什么运动？", "recent", None, None),
        ("我还开着普锐斯吗？", "recent", None, None),
        ("what was my job in 2023", "range", at(2023, 1, 1), at(2024, 1, 1)),
        ("where did I live in March 2024", "range", at(2024, 3, 1), at(2024, 4, 1)),
        ("what did we discuss last year", "range", at(2025, 1, 1), at(2026, 1, 1)),
        ("what did I decide last month", "range", at(2026, 11, 1), at(2026, 12, 1)),
        ("what did I say two years ago", "range", at(2024, 1, 1), at(2025, 1, 1)),
        ("the plan from 3 days ago", "range", at(2026, 11, 28), at(2026, 11, 29)),
        ("on 1 February, 2023 what happened", "range", at(2023, 2, 1), at(2023, 2, 2)),
        ("what happened on May 23, 2023", "range", at(2023, 5, 23), at(2023, 5, 24)),
        ("the 2024-03 release notes", "range", at(2024, 3, 1), at(2024, 4, 1)),
        ("what did I do in May", "range", at(2026, 5, 1), at(2026, 6, 1)),
        ("what did we do last December", "range", at(2025, 12, 1), at(2026, 1, 1)),
        ("since May 2024 what changed", "range", at(2024, 5, 1), None),
        ("What did I do before 2023", "range", None, at(2023, 1, 1)),
        ("what did I do after 2023", "range", at(2024, 1, 1), None),
        ("from 2022 to 2023 where did I work", "range", at(2022, 1, 1), at(2024, 1, 1)),
        ("the last week of October 2023", "range", at(2023, 10, 1), at(2023, 11, 1)),
        ("2023年我的工作是什么", "range", at(2023, 1, 1), at(2024, 1, 1)),
        ("2024年3月我们住在哪里？", "range", at(2024, 3, 1), at(2024, 4, 1)),
        ("去年我在哪里工作", "range", at(2025, 1, 1), at(2026, 1, 1)),
        ("上个月讨论了什么", "range", at(2026, 11, 1), at(2026, 12, 1)),
        ("三年前我在哪里", "range", at(2023, 1, 1), at(2024, 1, 1)),
        ("两年前我做什么运动？", "range", at(2024, 1, 1), at(2025, 1, 1)),
        ("昨天的会议说了什么", "range", at(2026, 11, 30), at(2026, 12, 1)),
    ],
)
def test_time_words_are_read(
    query: str, intent: str, since: float | None, until: float | None
) -> None:
    got = when.read(query, NOW)
    assert (got.intent, got.since, got.until) == (intent, since, until)
    assert got.phrase and got.phrase.lower() in query.lower()


@pytest.mark.parametrize(
    ("query", "intent", "anchor"),
    [
        ("Where did I work before I joined Fabrikam?", "before", "I joined Fabrikam"),
        ("before the move, where did I live?", "before", "the move"),
        ("before the move where did I live", "before", "the move"),
        ("where did I work after I moved to Berlin?", "after", "I moved to Berlin"),
        ("How has my fitness improved since starting boot camps?", "after", "starting boot camps"),
        ("我搬到柏林之后在哪里工作？", "after", "我搬到柏林"),
        ("集群重建之前测试库的端口是多少？", "before", "集群重建"),
    ],
)
def test_before_and_after_an_event_name_the_event(query: str, intent: str, anchor: str) -> None:
    got = when.read(query, NOW)
    assert (got.intent, got.anchor, got.since, got.until) == (intent, anchor, None, None)


@pytest.mark.parametrize(
    "query",
    [
        "may I ask where the staging DB is?",
        "this may be wrong",
        "march on with the plan",
        "now that you mention it, which port?",
        "I need a second opinion",
        "a sunday roast recipe",
        "the deadline is friday",
        "what did we do after that",  # "that" names no event
        "How many tournaments has John organized till date?",
        "what changed since then",
        "Would Caroline still want to pursue counseling?",  # what-if, not now
        "At which 2023 event did they both speak?",  # a year without a preposition
        "the port is 2023",
        "When did Caroline go to the support group?",
        "我们讨论了什么",
        "",
    ],
)
def test_ordinary_text_has_no_time_intent(query: str) -> None:
    assert when.read(query, NOW).intent == "none"


def test_impossible_dates_are_skipped_not_raised() -> None:
    assert when.read("on February 30, 2023", NOW).intent == "none"
    assert when.read("2023年2月30日", NOW).intent == "none"


def test_to_dict_shows_the_range_in_iso() -> None:
    shown = when.read("where did I live in March 2024", NOW).to_dict()
    assert shown["intent"] == "range" and shown["phrase"] == "March 2024"
    assert shown["since"].startswith("2024-03-01T00:00:00")


def test_factors() -> None:
    p = RankParams()
    stamps = np.array([at(2023, 5, 1), at(2024, 3, 5), at(2025, 4, 8)])
    score = np.array([1.0, 0.9, 0.8])
    ones = np.ones(3, dtype=bool)
    recent, shaped = when.factor(when.read("now?", NOW), stamps, score, NOW, p, ones)
    assert shaped and recent[2] == 1.0 and recent[0] <= recent[1] < 1.0
    assert recent.min() >= 1.0 - p.time_recent_weight
    ranged, shaped = when.factor(when.read("in March 2024", NOW), stamps, score, NOW, p, ones)
    assert shaped and ranged[1] == 1.0 and ranged[0] < 1.0 and ranged[2] < 1.0
    # nothing relevant inside the range: plain recency, not shaped
    far, shaped = when.factor(when.read("in 2019", NOW), stamps, score, NOW, p, ones)
    assert not shaped and np.allclose(far, far[0] * np.array([1, 1, 1]), atol=0.01)
    # memory files that never decay are never moved by time either
    never = np.zeros(3, dtype=bool)
    assert np.all(when.factor(when.read("now?", NOW), stamps, score, NOW, p, never)[0] == 1)


# -- the engine, over a real archive ------------------------------------------


def fill(archive: Archive) -> dict[str, int]:
    """One fact said three times, a year apart; the oldest matches the words a little best."""
    said = {
        "leeds": (at(2023, 5, 9, 19), "I live in Leeds, a city I love."),
        "berlin": (at(2024, 3, 5, 19), "The move is done: I live in Berlin."),
        "lisbon": (at(2025, 4, 8, 19), "Bought a house, I live in Lisbon, a lovely city."),
        "other": (at(2025, 4, 20, 19), "The neighbours' dog barked all night."),
    }
    ids = {}
    for name, (stamp, text) in said.items():
        sid = archive.start_session("cli", started_at=stamp)
        stored = archive.append(sid, Message("user", text, created_at=stamp))
        assert stored.id is not None
        ids[name] = stored.id
    return ids


def engine_for(archive: Archive, **params: float) -> SearchEngine:
    now = at(2025, 5, 1, 12)
    return SearchEngine(archive, FakeEmbedder(), params=RankParams(**params), clock=lambda: now)


def top(engine: SearchEngine, query: str) -> int:
    return engine.search(query, kinds=("message",)).hits[0].id


def test_now_prefers_the_newest_statement(archive: Archive) -> None:
    ids = fill(archive)
    off = engine_for(archive, time_recent_weight=0.0, time_range_weight=0.0)
    assert top(off, "which city do I live in") == ids["leeds"]  # the words win
    result = engine_for(archive).search("which city do I live in now", kinds=("message",))
    assert result.hits[0].id == ids["lisbon"]
    assert result.time == {"intent": "recent", "phrase": "now", "applied": True}
    assert {h.id for h in result.hits} >= {ids["leeds"], ids["berlin"]}  # older stays found


def test_a_date_range_prefers_what_was_said_then(archive: Archive) -> None:
    ids = fill(archive)
    engine = engine_for(archive)
    assert top(engine, "which city did I live in, in March 2024") == ids["berlin"]
    assert top(engine, "which city did I live in last year") == ids["berlin"]
    assert top(engine, "which city did I live in two years ago") == ids["leeds"]
    assert top(engine, "我 live in 哪个 city, 2024年3月") == ids["berlin"]
    # a range where nothing relevant was said changes nothing (and says so)
    result = engine.search("which city did I live in, in 2019", kinds=("message",))
    assert result.hits[0].id == ids["leeds"] and result.time is not None
    assert result.time["applied"] is False


def test_the_hard_scope_still_wins_over_the_time_words(archive: Archive) -> None:
    from kenning.storage.query import SearchFilters

    ids = fill(archive)
    scope = SearchFilters(until=at(2025, 1, 1))
    hits = engine_for(archive).search("which city do I live in now", filters=scope).hits
    assert hits and ids["lisbon"] not in {h.id for h in hits}


def test_before_an_event_uses_the_event_date(archive: Archive) -> None:
    ids = fill(archive)
    query = "which city did I live in before I bought a house"
    # without time words, and without recency (an edge replaces it)
    off = {"time_recent_weight": 0.0, "time_range_weight": 0.0, "recency_weight": 0.0}
    plain = engine_for(archive, **off).search(query)
    result = engine_for(archive).search(query, kinds=("message",))
    assert result.time is not None and result.time["anchor"] == "I bought a house"
    assert result.time["until"].startswith("2025-04-08T00:00:00")  # the event's day begins
    score = {h.id: h.score for h in result.hits}
    before = {h.id: h.score for h in plain.hits}
    # the event's own message (it matches the query's words best) is on the wrong side
    step = 1 - RankParams().time_range_weight
    assert score[ids["lisbon"]] == pytest.approx(before[ids["lisbon"]] * step)
    assert score[ids["berlin"]] >= before[ids["berlin"]] - 1e-9
    after = engine_for(archive).search("which city did I live in after the move is done")
    assert after.hits[0].id in (ids["berlin"], ids["lisbon"])
    # the event lookups were not recorded as recalls: three searches, three rows
    assert archive.storage.connection().execute("SELECT count(*) FROM recalls").fetchone()[0] == 3


def test_an_event_never_mentioned_dates_nothing(archive: Archive) -> None:
    ids = fill(archive)
    result = engine_for(archive).search(
        "which city did I live in before zeppelin regattas", kinds=("message",)
    )
    assert result.hits[0].id == ids["leeds"]
    assert result.time is None and any("zeppelin" in n for n in result.notes)
