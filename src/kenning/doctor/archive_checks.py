"""Checks of ``state.db``: it opens, it is sound, it is Kenning's, and its search index is in step.

The database is opened read-only and never migrated. If no ``-wal`` file
exists, no connection is open (SQLite removes it when the last one closes),
so the file is opened ``immutable``: that creates no ``-wal``/``-shm`` files,
and doctor writes nothing. Otherwise a normal read-only connection shares
the live WAL. The embedder is only *built* from the config, to read its
identity; no model is loaded.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path
from urllib.parse import quote

from kenning.archive import migrations
from kenning.config import Config
from kenning.doctor.model import Check, ok

_HEADER = b"SQLite format 3\x00"


def check_archive(db: Path, cfg: Config, cmd: str) -> list[Check]:
    try:
        st = os.lstat(db)
    except FileNotFoundError:
        return [ok("archive", "no state.db yet (the first session creates it)")]
    if not stat.S_ISREG(st.st_mode):
        return [
            Check(
                "archive",
                "fail",
                f"{db} is not a regular file",
                fix=f"move it away (`mv {db} {db}.moved`); Kenning starts a new archive",
            )
        ]
    with open(db, "rb") as handle:
        header = handle.read(20)
    if st.st_size and header[: len(_HEADER)] != _HEADER:
        return [_damaged(db, "it is not a SQLite database")]
    # Bytes 18-19 of the header say the file's journal mode (2 = WAL); a PRAGMA
    # would report the mode of doctor's own immutable connection instead.
    wal = header[18:20] == b"\x02\x02"
    try:
        conn = _open_readonly(db)
    except sqlite3.Error as exc:
        return [_damaged(db, str(exc))]
    try:
        return _check_open(conn, db, cfg, cmd, wal=wal or not st.st_size)
    except sqlite3.DatabaseError as exc:
        return [_damaged(db, str(exc))]
    finally:
        conn.close()


def _check_open(
    conn: sqlite3.Connection, db: Path, cfg: Config, cmd: str, *, wal: bool
) -> list[Check]:
    problems = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
    if problems != ["ok"]:
        return [_damaged(db, "; ".join(problems[:5]))]
    checks = []
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    done = (
        {row[0] for row in conn.execute("SELECT name FROM _migrations")}
        if "_migrations" in tables
        else set()
    )
    known = [name for name, _ in migrations.MIGRATIONS]
    newer = sorted(done - set(known))
    if newer:
        return [
            Check(
                "archive",
                "fail",
                f"state.db was changed by a newer Kenning ({', '.join(newer)})",
                fix="upgrade Kenning (`pip install -U kenning`) to use this archive",
            )
        ]
    pending = [name for name in known if name not in done]
    messages = (
        int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
        if "messages" in tables
        else 0
    )
    summary = f"sound ({messages:,} messages"
    summary += f"; {len(pending)} schema step(s) run on next use)" if pending else ")"
    if not wal:
        checks.append(
            Check(
                "archive",
                "warn",
                f"{summary}, but not in WAL journal mode: writers would block readers",
                fix=f"`{cmd} doctor --fix` switches it to WAL (so does Kenning's next write)",
                fixable=True,
            )
        )
    else:
        checks.append(ok("archive", summary))
    if "message_fts" in tables and "search_fts_queue" in tables:
        checks.append(_check_fts(conn, cmd))
    if "search_state" in tables and "search_embed_queue" in tables:
        checks.append(_check_vectors(conn, cfg, cmd))
    return checks


def _check_fts(conn: sqlite3.Connection, cmd: str) -> Check:
    """Every searchable message has a full-text row or is queued for one; no row is orphaned."""
    missing = conn.execute(
        "SELECT count(*) FROM messages m WHERE m.role != 'system' "
        "AND NOT EXISTS (SELECT 1 FROM message_fts f WHERE f.rowid = m.id) "
        "AND NOT EXISTS (SELECT 1 FROM search_fts_queue q WHERE q.message_id = m.id)"
    ).fetchone()[0]
    orphans = conn.execute(
        "SELECT count(*) FROM message_fts f "
        "WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = f.rowid)"
    ).fetchone()[0]
    queued = conn.execute("SELECT count(*) FROM search_fts_queue").fetchone()[0]
    if missing or orphans:
        return Check(
            "full-text",
            "fail",
            f"the full-text index is out of step: {missing:,} message(s) missing, "
            f"{orphans:,} row(s) of messages that no longer exist",
            fix=f"`{cmd} index rebuild`",
        )
    note = f"; {queued:,} new message(s) queued for the next search" if queued else ""
    return ok("full-text", f"in step with the archive{note}")


def _check_vectors(conn: sqlite3.Connection, cfg: Config, cmd: str) -> Check:
    from kenning.embed import EmbedderError, from_config
    from kenning.search import index

    waiting = int(conn.execute("SELECT count(*) FROM search_embed_queue").fetchone()[0])
    stored = index.stored_identity(conn)
    try:
        embedder = from_config(cfg.embedding)  # built, not loaded
    except EmbedderError as exc:
        return Check("embeddings", "fail", str(exc), fix="fix [embedding] in config.toml")
    if embedder is None:
        held = f"; vectors of {stored.describe()} are kept but unused" if stored else ""
        return ok("embeddings", f"keyword-only search ([embedding] provider = 'none'){held}")
    problem = index.check_identity(conn, embedder)
    if problem is not None:
        return Check(
            "embeddings",
            "fail",
            problem.split("; run")[0],
            fix=f"`{cmd} index rebuild` re-embeds every message with the configured embedder "
            "(or set [embedding] back to the one that built them)",
        )
    if waiting > cfg.search.embed_on_search:
        return Check(
            "embeddings",
            "warn",
            f"{waiting:,} message(s) have no embedding yet; search finds them by keyword only",
            fix=f"`{cmd} index update`",
        )
    tail = f"; {waiting:,} queued for the next search" if waiting else ""
    ident = embedder.identity
    return ok("embeddings", f"vectors of {ident.name} ({ident.dims} dims){tail}")


def _damaged(db: Path, why: str) -> Check:
    return Check(
        "archive",
        "fail",
        f"state.db cannot be used: {why}",
        fix=f"keep a copy (`cp {db} {db}.broken`), try `sqlite3 {db} .recover | sqlite3 "
        f"{db}.recovered` and move the result in place; or move it away and let Kenning "
        "start a new archive",
    )


def _open_readonly(db: Path) -> sqlite3.Connection:
    live = db.with_name(db.name + "-wal").exists()
    flag = "mode=ro" if live else "immutable=1"
    conn = sqlite3.connect(f"file:{quote(str(db))}?{flag}", uri=True)
    conn.execute("PRAGMA query_only = ON")
    return conn


def switch_to_wal(db: Path) -> str | None:
    """Put a sound ``state.db`` in WAL mode (``--fix``); what was done, or None."""
    conn = sqlite3.connect(db, timeout=30)
    try:
        mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
    finally:
        conn.close()
    return "state.db: switched to WAL journal mode" if mode == "wal" else None
