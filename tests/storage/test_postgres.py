"""The PostgreSQL backend beyond the contract: ranking parity with SQLite, isolation, faults.

Every test runs against the real scratch server (``postgres_server``).
"""

from __future__ import annotations

import json
import secrets
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from tests.conftest import drop_schema, raw_sql, storage_on
from tests.storage.conftest import StatementRecorder

from kenning.archive.store import Archive
from kenning.home import Home
from kenning.memory.store import Target
from kenning.search.engine import SearchEngine
from kenning.search.fusion import RankParams
from kenning.storage import Storage, StorageError, StorageUnavailable, open_storage
from kenning.storage.postgres import migrations
from kenning.storage.query import SearchFilters
from kenning.storage.records import Message
from kenning.storage.text import query_terms
from kenning.testing import FakeEmbedder, make_home

EVERYTHING = SearchFilters()

CONVERSATION = [
    ("Ada", "I deployed the new version to production yesterday"),
    ("Bot", "Did the postgres migration work on the staging database?"),
    ("Ada", "Yes, the migration finished in four minutes, staging is fine"),
    ("Bot", "Great. Remember the movers are coming on Friday at nine"),
    ("Ada", "我最喜欢龙井,每天早上泡一杯。"),
    ("Bot", "龙井是绿茶，辣椒不是茶。"),
    ("Ada", "The café on the corner serves naïve espresso; crème brûlée too"),
    ("Bot", "Deploys freeze on Friday; production stays on version 41"),
    ("Ada", "My database password rotation is monthly, keys rotate weekly"),
    ("Bot", "Noted: rotate keys weekly, rotate the password monthly"),
]
QUERIES = [
    "when is the mover coming",
    "postgres migration staging",
    "production version deployed",
    "我喜欢喝龙井",
    "辣",
    "cafe creme brulee",
    "password rotation",
    "friday",
    "nothing matches zzqx",
]


@pytest.fixture
def both(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Archive]]:
    """The same conversation in a SQLite and a PostgreSQL archive."""
    made = {}
    for name in ("sqlite", "postgres"):
        path = tmp_path / name / "state.db"
        archive = Archive(path, storage=storage_on(name, request, path))
        for sid in ("s1", "s2"):
            archive.start_session("cli", session_id=sid, user_id=sid, workspace=f"/{sid}")
            for speaker, text in CONVERSATION[: 6 if sid == "s1" else 10]:
                archive.append(sid, Message("user", text, speaker=speaker))
        archive.storage.index.sync()
        made[name] = archive
    yield made
    for archive in made.values():
        archive.close()


def test_full_text_scores_are_sqlites_bm25(both: dict[str, Archive]) -> None:
    lite, pg = both["sqlite"].storage.index, both["postgres"].storage.index
    assert pg.doc_count() == lite.doc_count() == 16
    for query in QUERIES:
        terms = query_terms(query)
        for scope in (EVERYTHING, SearchFilters(user_id="s2"), SearchFilters(roles=("tool",))):
            want = lite.match_messages(terms, scope, 50)
            got = pg.match_messages(terms, scope, 50)
            assert [i for i, _ in got] == [i for i, _ in want], (query, scope)
            assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-6)
        assert pg.term_doc_counts("message", terms) == lite.term_doc_counts("message", terms)
    # Stems are the index's own (snowball English here, porter on SQLite: "deploi"),
    # the same for every form of a word, which is all their users compare.
    assert len(set(pg.stems(["deployed", "deploys", "deploying"]))) == 1


def test_hybrid_search_ranks_the_same_hits(both: dict[str, Archive], home: Home) -> None:
    engines = {
        name: SearchEngine(
            archive, FakeEmbedder(), layout=home.layout, params=RankParams(recency_weight=0.0)
        )
        for name, archive in both.items()
    }
    for query in QUERIES:
        results = {name: engine.search(query, limit=5) for name, engine in engines.items()}
        ranked = {name: [(h.session_id, h.seq) for h in r.hits] for name, r in results.items()}
        assert ranked["postgres"] == ranked["sqlite"], query
        assert results["postgres"].mode == results["sqlite"].mode
    for engine in engines.values():
        engine.close()


def test_profiles_sharing_a_database_never_see_each_other(
    pg_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    homes = {}
    for name in ("work", "private"):
        schema = f"test_{name}_{secrets.token_hex(4)}"
        request.addfinalizer(lambda s=schema: drop_schema(pg_url, s))
        homes[name] = open_storage(tmp_path / name / "state.db", url=pg_url, schema=schema)
    homes["work"].sessions.insert("w1", "cli", started_at=1.0)
    homes["work"].sessions.append("w1", Message("user", "the quarterly numbers"))
    homes["work"].index.sync()
    assert homes["private"].sessions.get("w1") is None
    assert homes["private"].index.match_messages(["quarterly"], EVERYTHING, 5) == []
    assert homes["private"].sessions.count_messages() == 0
    for made in homes.values():
        made.close()


def test_the_default_schema_follows_the_profile(tmp_path: Path, pg_url: str) -> None:
    storage = open_storage(tmp_path / "profiles" / "Work-1" / "state.db", url=pg_url)
    assert storage.schema == "kenning_work_1"  # type: ignore[attr-defined]


def test_writers_appending_to_one_session_never_share_a_position(
    pg_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    schema = f"test_{secrets.token_hex(6)}"
    request.addfinalizer(lambda: drop_schema(pg_url, schema))
    first = open_storage(tmp_path / "state.db", url=pg_url, schema=schema)
    first.sessions.insert("s", "cli", started_at=1.0)
    errors: list[BaseException] = []

    def write(n: int) -> None:
        mine = open_storage(tmp_path / "state.db", url=pg_url, schema=schema)
        try:
            for i in range(20):
                mine.sessions.append("s", Message("user", f"writer {n} line {i}"))
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            mine.close()

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [m.seq for m in first.sessions.messages("s")] == list(range(1, 81))
    first.close()


def test_processes_opening_a_fresh_schema_at_once_all_succeed(
    pg_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """CREATE … IF NOT EXISTS races in PostgreSQL; creation and migration are serialised."""
    for attempt in range(3):
        schema = f"test_{secrets.token_hex(6)}"
        request.addfinalizer(lambda s=schema: drop_schema(pg_url, s))
        errors: list[BaseException] = []
        start = threading.Barrier(6)

        def open_it(
            schema: str = schema,
            start: threading.Barrier = start,
            errors: list[BaseException] = errors,
        ) -> None:
            made = open_storage(tmp_path / "state.db", url=pg_url, schema=schema)
            start.wait()
            try:
                made.sessions.count_messages()
            except BaseException as exc:  # reported below
                errors.append(exc)
            finally:
                made.close()

        threads = [threading.Thread(target=open_it) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == [], attempt


def test_a_home_with_a_storage_url_keeps_its_archive_on_the_server(
    pg_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    schema = f"test_{secrets.token_hex(6)}"
    request.addfinalizer(lambda: drop_schema(pg_url, schema))
    env = {"KENNING_STORAGE__URL": pg_url, "KENNING_STORAGE__SCHEMA": schema}
    home = Home.open(tmp_path / "home", environ=env)
    sid = home.archive.start_session("cli")
    home.archive.append(sid, Message("user", "kept on the server"))
    home.close()
    assert not (tmp_path / "home" / "state.db").exists()
    again = Home.open(tmp_path / "home", environ=env)
    assert [m.content for m in again.archive.messages(sid)] == ["kept on the server"]
    assert again.search.search("server").hits[0].content == "kept on the server"
    again.close()


def test_read_only_creates_nothing_and_reads_what_is_there(
    pg_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    schema = f"test_{secrets.token_hex(6)}"
    request.addfinalizer(lambda: drop_schema(pg_url, schema))
    reader = open_storage(tmp_path / "state.db", url=pg_url, schema=schema, read_only=True)
    with pytest.raises(StorageError, match="no archive in PostgreSQL schema"):
        reader.sessions.count_messages()
    with psycopg.connect(pg_url) as admin:
        found = admin.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,))
        assert found.fetchone() is None
    writer = open_storage(tmp_path / "state.db", url=pg_url, schema=schema)
    writer.sessions.insert("s", "cli", started_at=1.0)
    writer.sessions.append("s", Message("user", "seen by the reader"))
    reader = open_storage(tmp_path / "state.db", url=pg_url, schema=schema, read_only=True)
    assert [m.content for m in reader.sessions.messages("s")] == ["seen by the reader"]
    with pytest.raises(StorageError, match="read-only"):
        reader.sessions.insert("t", "cli", started_at=2.0)
    for made in (reader, writer):
        made.close()


def test_doctor_checks_the_server_archive(
    pg_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from kenning.doctor import diagnose

    schema = f"test_{secrets.token_hex(6)}"
    request.addfinalizer(lambda: drop_schema(pg_url, schema))
    env = {"KENNING_STORAGE__URL": pg_url, "KENNING_STORAGE__SCHEMA": schema}
    made = make_home(tmp_path / "home")
    made.memory.add(Target.MEMORY, "Project uses pnpm")  # the first write makes the home
    home = Home.open(made.root, environ=env)

    def archive_check() -> Any:
        return next(c for c in diagnose(home.root, environ=env).checks if c.name == "archive")

    assert archive_check().status == "ok" and "no archive yet" in archive_check().summary
    home.archive.start_session("cli")
    home.close()
    found = archive_check()
    latest = f"schema version {len(migrations.MIGRATIONS)}"
    assert found.status == "ok" and latest in found.summary and "***" in found.summary
    env["KENNING_STORAGE__URL"] = "postgresql://k@127.0.0.1:1/none"
    down = archive_check()
    assert down.status == "fail" and "cannot reach PostgreSQL" in down.summary


# -- faults: each says what happened and what to do ------------------------------


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_server_says_to_check_it(tmp_path: Path) -> None:
    url = f"postgresql://kenning:secret@127.0.0.1:{_closed_port()}/kenning"
    storage = open_storage(tmp_path / "state.db", url=url)
    with pytest.raises(StorageUnavailable, match="cannot reach PostgreSQL") as caught:
        storage.sessions.count_messages()
    assert "secret" not in str(caught.value) and "server is running" in str(caught.value)


def test_wrong_credentials_say_which_setting_to_fix(postgres_server: Any, tmp_path: Path) -> None:
    url = postgres_server.url(password="not-the-password")
    storage = open_storage(tmp_path / "state.db", url=url, schema="never_made")
    with pytest.raises(StorageUnavailable, match="refused the credentials") as caught:
        storage.sessions.count_messages()
    assert "not-the-password" not in str(caught.value) and "[storage] url" in str(caught.value)


def test_a_database_without_pgvector_says_how_to_enable_it(
    postgres_server: Any, tmp_path: Path
) -> None:
    """A user who may not create extensions, in a database where nobody enabled pgvector."""
    name = f"novec_{secrets.token_hex(4)}"
    with psycopg.connect(postgres_server.url(), autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {name} LOGIN PASSWORD 'pw'")
        admin.execute(f"CREATE DATABASE {name} OWNER {name}")
    storage = open_storage(
        tmp_path / "state.db", url=postgres_server.url(name, user=name, password="pw")
    )
    with pytest.raises(StorageError, match="CREATE EXTENSION vector") as caught:
        storage.sessions.count_messages()
    assert "pgvector" in str(caught.value)
    storage.close()


def test_a_server_without_pgvector_installed_says_how_to_install_it(tmp_path: Path) -> None:
    """Debian's own PostgreSQL (bookworm ships no pgvector for it), where installed."""
    from kenning.storage.postgres import local

    debian = Path("/usr/lib/postgresql/15/bin")
    if not (debian / "pg_ctl").exists():
        pytest.skip("Debian's postgresql-15 is not installed here")
    server = local.start(debian)
    try:
        storage = open_storage(tmp_path / "state.db", url=server.url())
        with pytest.raises(StorageError, match="pgvector is not installed") as caught:
            storage.sessions.count_messages()
        assert "apt install postgresql-" in str(caught.value)
        storage.close()
    finally:
        server.stop()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_schema_from_a_newer_kenning_is_refused(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    from tests.conftest import raw_sql

    storage: Storage = storage_on(backend, request, tmp_path / "state.db")
    storage.sessions.count_messages()  # migrated
    raw_sql(storage, "INSERT INTO _migrations VALUES ('m999_from_the_future', 0)")
    storage.close()
    again: Storage = open_storage(
        tmp_path / "state.db",
        url=getattr(storage, "url", None),
        schema=getattr(storage, "schema", None),
    )
    with pytest.raises(StorageError, match=r"newer Kenning.*m999_from_the_future.*upgrade Kenning"):
        again.sessions.count_messages()
    again.close()


def _ranked_on_both(both: dict[str, Archive], queries: list[str]) -> None:
    lite, pg = both["sqlite"].storage.index, both["postgres"].storage.index
    for query in queries:
        want = lite.match_messages(query_terms(query), EVERYTHING, 50)
        got = pg.match_messages(query_terms(query), EVERYTHING, 50)
        assert [i for i, _ in got] == [i for i, _ in want], query
        assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-6)


def test_an_edited_message_is_ranked_by_its_new_text(both: dict[str, Archive]) -> None:
    """The postings (and the counts cached from them) follow an edit and a rebuild."""
    queries = ["postgres migration staging", "rotate keys weekly", "龙井", "辣"]
    _ranked_on_both(both, queries)  # fills the per-index caches first
    for archive in both.values():
        sql = "UPDATE messages SET content = ? WHERE session_id = 's2' AND seq = 2"
        raw_sql(archive.storage, sql, ("rotate the staging keys, 辣椒 weekly",))
        archive.storage.index.sync()
    _ranked_on_both(both, queries)
    _stats_match_the_rows(both["postgres"].storage)
    for archive in both.values():
        archive.storage.index.reset()
        archive.storage.index.sync()
    _ranked_on_both(both, queries)
    _stats_match_the_rows(both["postgres"].storage)


def _reopened_before(
    both: dict[str, Archive], tmp_path: Path, pg_url: str, migration: str, *undo: str
) -> Storage:
    """The PostgreSQL archive as a Kenning before ``migration`` left it (``undo``'s
    statements run, its row in ``_migrations`` gone), opened again: the migration runs."""
    pg = both["postgres"].storage
    schema = pg.schema
    for statement in undo:
        raw_sql(pg, statement)
    raw_sql(pg, "DELETE FROM _migrations WHERE name = ?", (migration,))
    pg.close()
    reopened = open_storage(tmp_path / "again" / "state.db", url=pg_url, schema=schema)
    both["postgres"] = Archive(reopened.path, storage=reopened)
    return reopened


def test_a_schema_from_before_the_lexeme_counts_gets_them_counted(
    both: dict[str, Archive], tmp_path: Path, pg_url: str
) -> None:
    """m006 counts the postings already there, and the counts follow writes after."""
    reopened = _reopened_before(
        both, tmp_path, pg_url, "m006_lexeme_counts",
        "DROP TABLE message_lexemes", "DROP FUNCTION message_terms_counts CASCADE",
    )  # fmt: skip
    _stats_match_the_rows(reopened)
    _ranked_on_both(both, QUERIES)
    raw_sql(reopened, "DELETE FROM messages WHERE session_id = 's1' AND seq = 2")
    both["postgres"].append("s2", Message("user", "rotate the staging keys, 龙井 weekly"))
    reopened.index.sync()
    _stats_match_the_rows(reopened)


def test_a_schema_from_before_the_postings_gets_them_built(
    both: dict[str, Archive], tmp_path: Path, pg_url: str
) -> None:
    _reopened_before(
        both, tmp_path, pg_url, "m004_message_postings",
        "DROP TABLE message_terms", "DROP FUNCTION message_fts_ad CASCADE",
    )  # fmt: skip
    _ranked_on_both(both, QUERIES)


def test_a_bulk_load_builds_the_hnsw_index_once_at_the_end(tmp_path: Path, request: Any) -> None:
    storage = storage_on("postgres", request, tmp_path / "state.db")
    sid = "s1"
    storage.sessions.insert(sid, "cli", started_at=1000.0)
    ids = [storage.sessions.append(sid, Message("user", f"note {n}")).id for n in range(3)]
    fake = FakeEmbedder(dims=32)
    storage.vectors.claim_identity(fake)

    def indexes() -> list[str]:
        rows = raw_sql(
            storage,
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
            "AND indexname LIKE '%%hnsw%%' ORDER BY 1",
        ).fetchall()
        return [str(r[0]) for r in rows]

    built = indexes()
    assert built == ["chunk_vectors_hnsw_32", "message_vectors_hnsw_32"]
    with storage.vectors.bulk_load():
        assert indexes() == []  # no graph upkeep per row while loading
        vectors = fake.embed_passages([f"note {n}" for n in range(3)])
        storage.vectors.put_messages(list(zip(ids, vectors, strict=True)))
    assert indexes() == built
    storage.close()


def _stats_match_the_rows(storage: Storage) -> None:
    """fts_stats (bm25's N and token total) and each lexeme's message counts, kept
    by trigger, equal a recount."""
    kept = raw_sql(storage, "SELECT docs, tokens FROM fts_stats WHERE tbl = 'message_fts'")
    counted = raw_sql(
        storage, "SELECT count(*), coalesce(sum(body_len + ctx_len), 0) FROM message_fts"
    )
    assert tuple(kept.fetchone()) == tuple(counted.fetchone())
    lexemes = "SELECT lexeme, docs, body_docs FROM message_lexemes WHERE docs > 0 ORDER BY 1"
    recount = (
        "SELECT lexeme, count(*), count(*) FILTER (WHERE a > 0) FROM message_terms "
        "GROUP BY 1 ORDER BY 1"
    )
    assert [tuple(r) for r in raw_sql(storage, lexemes)] == [
        tuple(r) for r in raw_sql(storage, recount)
    ]


def _key_oid(storage: Storage) -> int:
    return int(raw_sql(storage, "SELECT 'message_terms_pkey'::regclass::oid").fetchone()[0])


@pytest.fixture
def bulk_sync(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sync of more queued messages than indexed ones is a bulk load."""
    from kenning.storage.postgres import index

    monkeypatch.setattr(index, "BULK_AT", 2, raising=False)


def test_a_bulk_sync_indexes_as_row_by_row_does(bulk_sync: None, both: dict[str, Archive]) -> None:
    """The fixture's sync was a bulk load (16 queued, none indexed): the postings'
    key and the GIN index are rebuilt, and the ranking is SQLite's, after an
    edit (row by row) and a reset (bulk again) too."""
    pg = both["postgres"].storage
    names = (
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
        "AND indexname = ANY(%s)"
    )
    wanted = ["message_fts_tsv", "message_terms_pkey"]
    assert sorted(r[0] for r in raw_sql(pg, names, (wanted,))) == wanted
    _ranked_on_both(both, QUERIES)
    _stats_match_the_rows(pg)
    built = _key_oid(pg)
    raw_sql(pg, "UPDATE messages SET content = 'rotate the staging keys' WHERE seq = 2")
    both["sqlite"].storage.connection().execute(
        "UPDATE messages SET content = 'rotate the staging keys' WHERE seq = 2"
    )
    for archive in both.values():
        archive.storage.index.sync()
    assert _key_oid(pg) == built  # 4 queued, 16 indexed: row by row
    _ranked_on_both(both, QUERIES)
    for archive in both.values():
        archive.storage.index.reset()
        archive.storage.index.sync()
    assert _key_oid(pg) != built  # a reset queues everything: bulk, key built anew
    _ranked_on_both(both, QUERIES)
    _stats_match_the_rows(pg)


def test_the_index_counters_are_written_once_per_statement(both: dict[str, Archive]) -> None:
    """bm25's counters follow inserts, upserts and deletes, with one fts_stats update
    per statement (per row, a batch's updates of one row grew quadratically)."""
    from kenning.storage.postgres.index import write_docs

    pg = both["postgres"].storage
    _stats_match_the_rows(pg)
    conn = pg.connection()  # type: ignore[attr-defined]
    ids = [int(r[0]) for r in raw_sql(pg, "SELECT message_id FROM message_fts ORDER BY 1")]
    # the backend's updates of fts_stats not yet sent to the statistics (a difference
    # of two readings: earlier ones may be pending too)
    updates = "SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relid = 'fts_stats'::regclass"
    with conn.transaction():
        before = conn.execute(updates).fetchone()[0]
        write_docs(conn, "message", [(i, f"rewritten {i} once more", "") for i in ids[:5]])
        assert conn.execute(updates).fetchone()[0] - before == 1  # five upserts: one update
    _stats_match_the_rows(pg)
    raw_sql(pg, "DELETE FROM messages WHERE id = ANY(%s)", (ids[5:8],))
    _stats_match_the_rows(pg)
    found = pg.index.match_messages(["rewritten"], EVERYTHING, 10)
    assert sorted(i for i, _ in found) == ids[:5]


def test_vectors_go_in_by_copy_bit_for_bit(tmp_path: Path, request: Any) -> None:
    """``put``'s binary COPY stores the float32 blob as given and the same values
    in the pgvector column; an upsert replaces, a plain put skips what is there."""
    import numpy as np

    from kenning.storage.postgres.vectors import literal, put

    storage = storage_on("postgres", request, tmp_path / "state.db")
    storage.sessions.insert("s1", "cli", started_at=1000.0)
    ids = [storage.sessions.append("s1", Message("user", f"note {n}")).id for n in range(3)]
    rng = np.random.default_rng(5)
    first, second = rng.standard_normal((2, 3, 7)).astype(np.float32)
    conn = storage.connection()  # type: ignore[attr-defined]
    assert put(conn, "message", list(zip(ids, first, strict=True)), False) == 3
    assert put(conn, "message", list(zip(ids, second, strict=True)), False) == 0
    assert put(conn, "message", list(zip(ids[:1], second[:1], strict=True)), True) == 1
    rows = conn.execute("SELECT message_id, v, e::text FROM message_vectors ORDER BY 1").fetchall()
    want = [second[0], first[1], first[2]]
    assert [bytes(r[1]) for r in rows] == [w.tobytes() for w in want]
    assert [np.array(json.loads(r[2]), np.float32).tobytes() for r in rows] == [
        w.tobytes() for w in want
    ]
    assert [r[2] for r in rows] == [
        conn.execute("SELECT %s::vector::text", (literal(w),)).fetchone()[0] for w in want
    ]
    storage.close()


def test_ascii_text_is_tokenized_as_the_char_by_char_fold_does() -> None:
    """The ASCII shortcut of ``fts.tokens`` (nothing to fold) gives the folded tokens."""
    from kenning.storage.postgres import fts

    for text in ["Deploy src/api/v2.py at 09:30, RETRY_COUNT=3!", "Café crème", "部署 ok"]:
        slow = fts._TOKEN.findall("".join(fts._fold(c) for c in text.lower()))
        assert fts.tokens(text) == slow


@pytest.mark.parametrize("terms", [["rotate", "keys"], ["staging database", "龙"]])
def test_bm25_is_summed_in_floating_point(both: dict[str, Archive], terms: list[str]) -> None:
    """No numeric arithmetic in the ranked query (an integer times a decimal literal
    is numeric in PostgreSQL: several times slower than float8 per posting)."""
    from kenning.storage.postgres import fts, postings

    pg = both["postgres"].storage
    matched = [fts.Term(tuple(t.split()), prefix=len(t) == 1) for t in terms]
    recorder = StatementRecorder()
    stats = fts.Stats(16, 160)
    postings.ranked(recorder, matched, [1.0] * len(matched), stats, 0.35, ("", []), 10)  # type: ignore[arg-type]
    if all(len(t.lexemes) == 1 and not t.prefix for t in matched):  # idf in the statement
        postings.ranked_lexemes(recorder, [t.lexemes[0] for t in matched], 0.35, ("", []), 10)  # type: ignore[arg-type]
    for sql, params in recorder.sent:
        plan = raw_sql(pg, "EXPLAIN VERBOSE " + sql, params).fetchall()
        assert not [row[0] for row in plan if "numeric" in row[0]]
