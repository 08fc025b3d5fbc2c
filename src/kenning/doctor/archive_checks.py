"""Checks of ``state.db``: it opens, it is sound, it is Kenning's, and its search index is in step.

The database is looked at read-only and never migrated, creating no file
(``storage.sqlite.inspect``). The embedder is only *built* from the config,
to read its identity; no model is loaded.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kenning.config import Config
from kenning.doctor.model import Check, ok
from kenning.storage import StorageError, StorageMissing
from kenning.storage.identity import recipe_changed
from kenning.storage.sqlite import inspect as sqlite_inspect
from kenning.storage.sqlite.inspect import HEADER as _HEADER
from kenning.storage.sqlite.inspect import Inspection, inspect, is_wal_file


def check_archive(db: Path, cfg: Config, cmd: str) -> list[Check]:
    if cfg.storage.url:
        return [check_server_archive(db, cfg)]
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
    try:
        facts = inspect(db)
    except StorageError as exc:
        return [_damaged(db, str(exc))]
    return _checks(facts, db, cfg, cmd, wal=is_wal_file(header) or not st.st_size)


def check_server_archive(db: Path, cfg: Config) -> Check:
    """The archive on ``[storage] url``'s server: reachable, Kenning's, not newer than
    this Kenning (opened read-only: nothing is created or migrated)."""
    from kenning.storage import admin, open_storage

    store = open_storage(db, url=cfg.storage.url, schema=cfg.storage.schema or None, read_only=True)
    try:
        info = admin.status(store)
    except StorageMissing:
        return ok(
            "archive", f"{admin.location(store)}: no archive yet (the first session creates it)"
        )
    except StorageError as exc:
        return Check(
            "archive",
            "fail",
            str(exc),
            fix="see the message; `kenning storage status` checks again",
        )
    finally:
        store.close()
    counts = info["counts"]
    return ok(
        "archive",
        f"{admin.location(store)}: PostgreSQL {info['server_version']}, pgvector "
        f"{info['pgvector']}, schema version {info['schema_version']}, "
        f"{counts['messages']} messages ({counts['index_pending']} waiting for the text index)",
    )


def _checks(facts: Inspection, db: Path, cfg: Config, cmd: str, *, wal: bool) -> list[Check]:
    if facts.problems != ["ok"]:
        return [_damaged(db, "; ".join(facts.problems[:5]))]
    checks = []
    known, done = facts.migrations_known, facts.migrations_done
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
    summary = f"sound ({facts.messages:,} messages"
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
    if facts.fts_queued is not None:
        checks.append(_check_fts(facts, cmd))
    if facts.embed_queued is not None:
        checks.append(_check_vectors(facts, cfg, cmd))
    return checks


def _check_fts(facts: Inspection, cmd: str) -> Check:
    """Every searchable message has a full-text row or is queued for one; no row is orphaned."""
    missing, orphans, queued = facts.fts_missing or 0, facts.fts_orphans or 0, facts.fts_queued
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


def _check_vectors(facts: Inspection, cfg: Config, cmd: str) -> Check:
    from kenning.embed import EmbedderError, from_config
    from kenning.storage.identity import IndexIdentity

    waiting = facts.embed_queued or 0
    stored = facts.identity
    try:
        embedder = from_config(cfg.embedding)  # built, not loaded
    except EmbedderError as exc:
        return Check("embeddings", "fail", str(exc), fix="fix [embedding] in config.toml")
    if embedder is None:
        held = f"; vectors of {stored.describe()} are kept but unused" if stored else ""
        return ok("embeddings", f"keyword-only search ([embedding] provider = 'none'){held}")
    current = IndexIdentity.of(embedder)
    if stored is not None and stored != current and not recipe_changed(stored, current):
        return Check(
            "embeddings",
            "fail",
            f"the stored vectors were built with {stored.describe()}, but the configured "
            f"embedder is {current.describe()}",
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


def switch_to_wal(db: Path) -> str | None:
    """Put a sound ``state.db`` in WAL mode (``--fix``); what was done, or None."""
    return "state.db: switched to WAL journal mode" if sqlite_inspect.switch_to_wal(db) else None


def journal_mode(db: Path) -> str:
    return sqlite_inspect.journal_mode(db)
