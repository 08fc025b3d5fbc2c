"""The hybrid engine: modes, scope, identity, lazy embedding, recalls, ranking rules."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import raw_sql
from tests.search.conftest import add_session

from kenning.archive.store import Archive, Message
from kenning.embed.base import Calibration, EmbedderIdentity
from kenning.home import Home
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.search.meta import CandidateMeta
from kenning.storage.identity import IndexIdentityError
from kenning.storage.query import SearchFilters
from kenning.testing import FakeEmbedder

FUZZ = [
    "",
    "   \t\n ",
    '"',
    '""""',
    "'",
    "AND",
    "OR OR OR",
    "NOT NEAR(a b, 3)",
    "a AND NOT b",
    "body: hack",
    "ctx:postgres",
    "{body ctx}: x",
    "*",
    "post*",
    "^start",
    "(((",
    ")]}",
    "[x](y)",
    "-minus +plus",
    "emoji 🚀🔥 deploy 👍🏽",
    "\x00nul\x00",
    "x" * 10_000,
    "word " * 2_000,
    "部",
    "部署 AND 生产",
    "SELECT * FROM messages; DROP TABLE messages;--",
    "\\ \\\\ ' \" ` $ % & #",
    "\u202eright-to-left\u200b",
]


@pytest.fixture
def filled(archive: Archive) -> Archive:
    add_session(
        archive,
        [
            ("Ada", "I deployed the new version to production yesterday"),
            ("Bot", "Did the postgres migration work?"),
            ("Ada", "Yes, the migration finished in four minutes"),
        ],
        user_id="ada",
        workspace="/repo/a",
    )
    add_session(
        archive,
        [("Bob", "我们昨天把新版本部署到生产环境了"), ("Bot", "数据库迁移成功了吗？")],
        user_id="bob",
        workspace="/repo/b",
    )
    return archive


@pytest.mark.parametrize("query", FUZZ)
def test_any_string_is_a_valid_query(filled: Archive, engine: SearchEngine, query: str) -> None:
    result = engine.search(query, limit=5)
    assert result.mode in ("hybrid", "keyword")


@pytest.mark.parametrize("query", ["部署", "生产环境", "数据库", "迁移"])
def test_chinese_queries_find_their_messages(filled: Archive, archive: Archive, query: str) -> None:
    for embedder in (FakeEmbedder(), None):
        engine = SearchEngine(archive, embedder, params=RankParams(recency_weight=0.0))
        hits = engine.search(query, kinds=("message",)).hits
        assert hits and query[:2] in (hits[0].content or ""), (embedder, hits)


def test_english_is_stemmed(filled: Archive, engine: SearchEngine) -> None:
    hits = engine.search("deploying", kinds=("message",), limit=1).hits
    assert hits[0].content == "I deployed the new version to production yesterday"


def test_keyword_mode_without_embedder(filled: Archive, archive: Archive) -> None:
    result = SearchEngine(archive, None).search("postgres migration")
    assert result.mode == "keyword"
    assert any("no embedder" in n for n in result.notes)
    assert result.hits and "migration" in (result.hits[0].content or "")
    assert SearchEngine(archive, None).search("zzzqqq nothing").hits == []


def test_nonsense_returns_nothing_with_fake_embedder(filled: Archive, engine: SearchEngine) -> None:
    assert engine.search("qorvax blint zuphem").hits == []


def test_compacted_messages_are_still_found(archive: Archive, engine: SearchEngine) -> None:
    sid, _ = add_session(archive, [("Ada", "the kiwi deadline is friday"), ("Ada", "ok")])
    archive.mark_compacted(sid, [1, 2])
    hits = engine.search("kiwi deadline").hits
    assert hits and hits[0].content == "the kiwi deadline is friday"


def test_scope_filters_never_leak(filled: Archive, archive: Archive, engine: SearchEngine) -> None:
    sid_c, _ = add_session(archive, [("Ada", "postgres version deployed")], source="cron")
    old = time.time() - 90 * 86_400
    sid_old = archive.start_session("cli", user_id="ada", started_at=old)
    archive.append(sid_old, Message("user", "postgres deployed long ago", created_at=old))
    archive.append(sid_old, Message("assistant", "postgres noted", created_at=old))
    queries = ["postgres", "部署 version", "migration deployed production", "数据库", "noted"]
    scopes = [
        (SearchFilters(user_id="bob"), lambda h, s: s.user_id == "bob"),
        (SearchFilters(user_id="ada"), lambda h, s: s.user_id == "ada"),
        (SearchFilters(workspace="/repo/a"), lambda h, s: s.workspace == "/repo/a"),
        (SearchFilters(sources=("cron",)), lambda h, s: s.source == "cron"),
        (SearchFilters(roles=("assistant",)), lambda h, s: h.role == "assistant"),
        (SearchFilters(session_ids=(sid_old,)), lambda h, s: s.id == sid_old),
        (SearchFilters(exclude_session_ids=(sid_c,)), lambda h, s: s.id != sid_c),
        (SearchFilters(since=old + 1), lambda h, s: h.created_at > old + 1),
        (SearchFilters(until=old + 1), lambda h, s: h.created_at < old + 1),
    ]
    for scope, allowed in scopes:
        seen = 0
        for query in queries:
            for hit in engine.search(query, kinds=("message",), limit=50, filters=scope).hits:
                session = archive.session(hit.session_id or "")
                assert session is not None and allowed(hit, session), (scope, query, hit)
                seen += 1
        assert seen, scope


def test_automated_sessions_rank_below_interactive(archive: Archive, engine: SearchEngine) -> None:
    add_session(archive, [("Bot", "the quarterly invoice export ran")], source="cron")
    add_session(archive, [("Ada", "the quarterly invoice export ran")], source="cli")
    add_session(archive, [("Bot", "the quarterly invoice export ran")], source="subagent")
    hits = engine.search("quarterly invoice export", kinds=("message",)).hits
    assert hits[0].source == "cli"
    assert hits[0].score > hits[1].score


def test_every_search_is_recorded(filled: Archive, archive: Archive, engine: SearchEngine) -> None:
    result = engine.search("postgres migration", limit=3)
    assert result.recall_id is not None
    row = raw_sql(
        archive.storage, "SELECT query, mode FROM recalls WHERE id = ?", (result.recall_id,)
    ).fetchone()
    assert tuple(row) == ("postgres migration", "hybrid")
    hits = raw_sql(
        archive.storage,
        "SELECT rank, kind, item_id FROM recall_hits WHERE recall_id = ? ORDER BY rank",
        (result.recall_id,),
    ).fetchall()
    assert [(r[1], r[2]) for r in hits] == [(h.kind, h.id) for h in result.hits]
    engine.search("nothing at all zzqx")
    assert raw_sql(archive.storage, "SELECT count(*) FROM recalls").fetchone()[0] == 2


def test_changed_embedding_identity_is_detected(filled: Archive, archive: Archive) -> None:
    SearchEngine(archive, FakeEmbedder(version="1")).index_pending()
    other = SearchEngine(archive, FakeEmbedder(version="2"))
    result = other.search("postgres migration")
    assert result.mode == "keyword" and result.hits
    assert any("kenning index rebuild" in n for n in result.notes)
    with pytest.raises(IndexIdentityError, match="kenning index rebuild"):
        other.index_pending()
    report = other.index_pending(reembed=True)
    assert report.messages_embedded == 5
    assert other.rebuild().messages_embedded == 5
    assert other.search("postgres migration").mode == "hybrid"


def test_lazy_embedding_small_backlog_and_big_backlog(archive: Archive) -> None:
    fake = FakeEmbedder()
    engine = SearchEngine(archive, fake)
    add_session(archive, [("Ada", f"note number {i} about kiwis") for i in range(10)])
    assert engine.search("kiwis").mode == "hybrid"
    assert engine.pending() == (0, 0) and fake.passages_embedded == 10
    add_session(archive, [("Ada", f"more about mangos {i}") for i in range(100)])
    result = engine.search("mangos")
    assert any("not embedded yet" in n for n in result.notes) and result.hits
    done: list[int] = []
    report = engine.index_pending(progress=done.append)
    assert report.messages_embedded == 100 and sum(done) == 100
    assert engine.pending() == (0, 0)


def test_edits_and_deletes_keep_the_index_in_step(archive: Archive, engine: SearchEngine) -> None:
    sid, ids = add_session(archive, [("Ada", "the password rotation is monthly")])
    assert engine.search("rotation").hits
    raw_sql(
        archive.storage, "UPDATE messages SET content = 'we rotate keys weekly' WHERE id = ?", ids
    )
    assert not engine.search("password").hits
    assert engine.search("weekly").hits[0].id == ids[0]
    raw_sql(archive.storage, "DELETE FROM sessions WHERE id = ?", (sid,))
    assert not engine.search("weekly").hits
    assert raw_sql(archive.storage, "SELECT count(*) FROM message_vectors").fetchone()[0] == 0


def test_tool_results_are_indexed_system_prompts_are_not(
    archive: Archive, engine: SearchEngine
) -> None:
    sid = archive.start_session("cli")
    archive.append(sid, Message("system", "You are Kenning. Secret rules about zebras."))
    archive.append(sid, Message("tool", "zebra count: 42 " + "x" * 50_000, tool_name="count"))
    hits = engine.search("zebra count", kinds=("message",)).hits
    assert [h.role for h in hits] == ["tool"]


def test_memory_chunks_are_searched_with_messages(
    home: Home, archive: Archive, engine: SearchEngine
) -> None:
    home.layout.memories_dir.mkdir(parents=True)
    home.layout.memory_file.write_text("The staging database listens on port 5433\n")
    add_session(archive, [("Ada", "lunch was nice")])
    hits = engine.search("staging database port").hits
    assert hits[0].kind == "chunk" and hits[0].path == "memories/MEMORY.md"
    assert (hits[0].line_start, hits[0].line_end) == (1, 1)
    only = engine.search("staging database port", kinds=("message",)).hits
    assert all(h.kind == "message" for h in only)


def test_mmr_spreads_near_duplicates(archive: Archive) -> None:
    # Three identical statements (identical vectors: one voice, so no reply context),
    # and two other matches, so a diverse pick is not also the pool's floor.
    add_session(archive, [("Ada", "kiwi kiwi kiwi smoothie recipe")] * 3)
    add_session(archive, [("Ada", "kiwi kiwi farm visit")])
    add_session(
        archive, [("Bo", "we talked about a kiwi once, among many other things like trains")]
    )
    plain = SearchEngine(archive, FakeEmbedder(), params=RankParams(recency_weight=0.0))
    diverse = SearchEngine(
        archive, FakeEmbedder(), params=RankParams(recency_weight=0.0, mmr_lambda=0.3)
    )
    top_plain = [h.content for h in plain.search("kiwi", limit=2).hits]
    top_diverse = [h.content for h in diverse.search("kiwi", limit=2).hits]
    assert top_plain[0] == top_plain[1]
    assert len(set(top_diverse)) == 2


def test_recency_decay_prefers_recent_but_never_buries(archive: Archive) -> None:
    now = time.time()
    old = now - 365 * 86_400
    sid = archive.start_session("cli", started_at=old)
    archive.append(sid, Message("user", "the vpn config changed", created_at=old))
    sid2 = archive.start_session("cli", started_at=now)
    archive.append(sid2, Message("user", "the vpn config changed", created_at=now))
    # recency alone: the year-old copy is also superseded by the new one, which
    # lowers it by supersede_stale on top (it stays second, marked)
    params = RankParams(recency_weight=0.2, supersede_stale=1.0)
    engine = SearchEngine(archive, FakeEmbedder(), params=params)
    hits = engine.search("vpn config", kinds=("message",)).hits
    assert hits[0].session_id == sid2
    assert hits[1].score >= 0.8 * hits[0].score - 1e-6
    stale = SearchEngine(archive, FakeEmbedder(), params=RankParams(recency_weight=0.2))
    hits = stale.search("vpn config", kinds=("message",)).hits
    assert hits[1].superseded_by == hits[0].id
    assert hits[1].score >= 0.8 * RankParams().supersede_stale * hits[0].score - 1e-6


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=8),
            st.sampled_from(['"', "*", ":", "(", ")", "AND", "OR", "NOT", "NEAR", "^", "部署"]),
        ),
        max_size=10,
    ).map(" ".join)
)
def test_fuzzed_queries_never_raise(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    engine = _shared_engine(tmp_path_factory)
    result = engine.search(text, limit=5)
    assert all(h.score > 0 for h in result.hits)


_ENGINES: dict[str, SearchEngine] = {}


def _shared_engine(factory: pytest.TempPathFactory) -> SearchEngine:
    if "e" not in _ENGINES:
        archive = Archive(factory.mktemp("fuzz") / "state.db")
        add_session(archive, [("Ada", "deploy NEAR the AND gate"), ("Bo", "部署到生产环境 ok")])
        _ENGINES["e"] = SearchEngine(archive, FakeEmbedder(), record_recalls=False)
    return _ENGINES["e"]


def test_neighbours_are_found_when_sessions_interleave(
    archive: Archive, engine: SearchEngine
) -> None:
    # Ids alternate between two sessions, so id ± 1 is never a neighbour:
    # the (session, seq) fallback must find them; system messages are skipped.
    a = archive.start_session("cli")
    b = archive.start_session("cli")
    ids: dict[str, list[int]] = {a: [], b: []}
    for i in range(4):
        for sid in (a, b):
            role = "system" if (sid == b and i == 2) else "user"
            stored = archive.append(sid, Message(role, f"{sid[:4]} message {i}"))  # type: ignore[arg-type]
            assert stored.id is not None
            ids[sid].append(stored.id)
    cands, sessions, everything = CandidateMeta(), archive.storage.sessions, SearchFilters()
    for sid, mid in ((a, ids[a][1]), (b, ids[b][1])):
        found = cands.lookup(sessions, [mid], everything)
        meta = cands.with_neighbours(sessions, list(found), everything)
        expected = {ids[sid][0], ids[sid][1]} | ({ids[sid][2]} if sid == a else set())
        assert set(meta) == expected
    scoped = SearchFilters(roles=("user",))
    meta = cands.with_neighbours(
        sessions, list(cands.lookup(sessions, [ids[a][1]], scoped)), scoped
    )
    assert set(meta) == set(ids[a][:3])


def test_term_counts_follow_index_changes(archive: Archive, engine: SearchEngine) -> None:
    # The per-engine document-frequency cache must not outlive an index change.
    add_session(archive, [("ann", f"rare{i} filler") for i in range(30)])
    engine.search("zebra filler")
    assert engine._term_docs.get("zebra") == 0
    add_session(archive, [("ann", "zebra crossing")])
    engine.search("zebra filler")
    assert engine._term_docs.get("zebra") == 1


def test_a_reply_is_embedded_with_what_it_answers_a_statement_alone(archive: Archive) -> None:

    sid = archive.start_session("cli")
    for role, text in [
        ("user", "Where is the staging database?"),
        ("assistant", "On db-7, port 5433."),
        ("user", "Thanks."),
        ("user", "Also: deploys freeze on Fridays."),
    ]:
        archive.append(sid, Message(role, text))  # type: ignore[arg-type]
    passages = archive.storage.vectors.pending_passages()
    assert passages == [
        "user: Where is the staging database?",
        "user: Where is the staging database?\nassistant: On db-7, port 5433.",
        "assistant: On db-7, port 5433.\nuser: Thanks.",
        "user: Also: deploys freeze on Fridays.",  # same voice as before it: a statement of its own
    ]


def test_vectors_of_an_older_passage_recipe_are_re_embedded_without_a_command(
    archive: Archive,
) -> None:
    import json

    from kenning.storage import identity as index

    add_session(archive, [("Ada", "the vpn config changed"), ("Bo", "when?")])
    fake = FakeEmbedder()
    engine = SearchEngine(archive, fake)
    engine.index_pending()
    row = raw_sql(
        archive.storage, "SELECT value FROM search_state WHERE key = 'identity'"
    ).fetchone()
    stored = json.loads(row[0])
    stored["passage"] = "prev+current v1"
    raw_sql(
        archive.storage,
        "UPDATE search_state SET value = ? WHERE key = 'identity'",
        (json.dumps(stored),),
    )
    assert archive.storage.vectors.check_identity(fake) is None  # same model: no rebuild asked for
    report = SearchEngine(archive, fake).index_pending()
    assert report.messages_embedded == 2
    identity = archive.storage.vectors.stored_identity()
    assert identity is not None and identity.passage == index.PASSAGE_RECIPE


class _AtCosine:
    """Each text's vector at a chosen cosine to the one query (e5's narrow band, exactly):
    a * q + sqrt(1 - a^2) * its own orthogonal direction."""

    def __init__(self, cosines: dict[str, float]) -> None:
        self.cosines = cosines
        self.row = {text: n + 1 for n, text in enumerate(cosines)}
        self._identity = EmbedderIdentity("test/at-cosine", len(cosines) + 1, "1")

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    @property
    def relevance_floor(self) -> float | None:
        return None

    @property
    def abstention(self) -> Calibration | None:
        return None

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._identity.dims), dtype=np.float32)
        for i, text in enumerate(texts):
            # "speaker: text", under what it answers when it is a reply
            own = text.splitlines()[-1].split(": ", 1)[-1]
            a = self.cosines[own]
            out[i, 0], out[i, self.row[own]] = a, math.sqrt(1 - a * a)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        vec = np.zeros(self._identity.dims, dtype=np.float32)
        vec[0] = 1.0
        return vec


def test_a_clear_dense_only_match_in_a_small_archive_survives_recency(archive: Archive) -> None:
    # 45 messages: the answer said 300 days ago, sharing no word with the query
    # (cosine .90); 12 recent, merely plausible ones (.87); 32 recent unrelated
    # ones (.70-.78). The dense scale's floor was the 200th cosine, in so small an
    # archive its very bottom: the answer then led the plausible ones by .06 of
    # the scale, and recency (x.8) put all 12 above it.
    now = 1_750_000_000.0
    old = now - 300 * 86_400
    answer = "the removal company arrives at eight"
    plausible = [f"plausible note {i}" for i in range(12)]
    unrelated = [f"unrelated chatter {i}" for i in range(32)]
    cosines = {answer: 0.90} | dict.fromkeys(plausible, 0.87)
    cosines |= {text: 0.78 - 0.0025 * i for i, text in enumerate(unrelated)}
    sid = archive.start_session("cli", started_at=old)
    archive.append(sid, Message("user", answer, created_at=old))
    for text in plausible + unrelated:
        sid = archive.start_session("cli", started_at=now - 3_600)
        archive.append(sid, Message("user", text, created_at=now - 3_600))
    engine = SearchEngine(
        archive, _AtCosine(cosines), params=RankParams(recency_weight=0.2), clock=lambda: now
    )
    hits = engine.search("who moves my furniture", kinds=("message",)).hits
    assert hits[0].content == answer
