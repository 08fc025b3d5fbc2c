"""``kenning storage …``: where the archive lives, and moving it to PostgreSQL.

``status`` reads and changes nothing (SQLite opened read-only; a PostgreSQL
schema is not created or migrated). ``migrate --to URL`` copies the home's
SQLite ``state.db`` into PostgreSQL (see ``storage.admin.copy_archive``):
resumable, idempotent, verified by per-table counts and checksums; it never
changes the home's config, so the user switches with ``[storage] url`` when
the copy checks out. Storage errors exit 1 with their message.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from kenning.cli.context import CliState, echo_json, pass_state
from kenning.storage import StorageError, StorageMissing, admin, open_storage


@click.group()
def storage() -> None:
    """Where the archive and its indexes live: state.db, or a shared PostgreSQL."""


@storage.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@pass_state
def status_cmd(state: CliState, as_json: bool) -> None:
    """The backend, its schema version, what it holds and the index's state."""
    home = state.home()
    if not home.has_archive:
        info: dict[str, Any] = {"backend": "sqlite", "path": str(home.layout.state_db)}
        info["archive"] = None
        if as_json:
            echo_json(info)
        else:
            click.echo(f"backend   sqlite\nlocation  {info['path']} (no archive yet)")
        return
    store = home.open_storage(read_only=True)
    try:
        info = admin.status(store)
    except StorageMissing:
        info = {"backend": "postgres", "location": admin.location(store), "archive": None}
        if as_json:
            echo_json(info)
        else:
            click.echo(f"backend   postgres\nlocation  {info['location']} (no archive yet)")
        return
    except StorageError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        store.close()
    if as_json:
        echo_json(info)
        return
    for line in _status_lines(info):
        click.echo(line)


def _status_lines(info: dict[str, Any]) -> list[str]:
    c = info["counts"]
    where = (
        f"{info['url']} (schema {info['schema']})"
        if info["backend"] == "postgres"
        else info["path"]
    )
    lines = [f"backend   {info['backend']}", f"location  {where}"]
    if info["backend"] == "postgres":
        lines.append(f"server    PostgreSQL {info['server_version']}, pgvector {info['pgvector']}")
    lines += [
        f"schema    version {info['schema_version']} of {info['schema_latest']}",
        f"sessions  {c['sessions']}",
        f"messages  {c['messages']} ({c['indexed_messages']} in the text index, "
        f"{c['index_pending']} waiting)",
        f"vectors   {c['message_vectors']} messages ({c['vectors_pending']} waiting), "
        f"{c['chunk_vectors']} chunks",
        f"          {info['vectors_identity'] or 'no embedder has claimed them yet'}",
        f"memory    {c['memory_files']} files, {c['memory_chunks']} chunks",
        f"recalls   {c['recalls']}; embedding cache {c['embedding_cache']}",
    ]
    if info["backend"] == "postgres":
        lines.append(f"ann index {', '.join(info['vector_indexes']) or 'none yet (no identity)'}")
    return lines


@storage.command("migrate")
@click.option("--to", "url", required=True, metavar="URL", help="postgresql://user@host:5432/db")
@click.option("--schema", default=None, help="The schema to fill (default: the home's).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_state
def migrate_cmd(state: CliState, url: str, schema: str | None, as_json: bool) -> None:
    """Copy this home's SQLite archive into the PostgreSQL database at URL.

    Safe to repeat and to interrupt: rows already there are skipped, so a
    second run resumes or changes nothing. Prints each table's rows and
    whether its checksum matches; exits 1 if any does not.
    """
    home = state.home()
    db = home.layout.state_db
    if not db.exists():
        raise click.ClickException(f"no SQLite archive at {db} to copy")
    if not url.startswith(("postgresql://", "postgres://")):
        raise click.ClickException(f"--to takes a postgresql:// URL, not {url!r}")
    source = open_storage(db, backend="sqlite")
    target = open_storage(db, url=url, schema=schema or home.config.storage.schema or None)
    try:
        with click.progressbar(length=_rows(source), label="copying", file=sys.stderr) as bar:
            report = admin.copy_archive(source, target, lambda _t, n: bar.update(n))
        where = admin.location(target)
    except StorageError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        source.close()
        target.close()
    if as_json:
        echo_json(
            {
                "target": where,
                "identical": report.identical,
                "copied": report.copied,
                "indexed": report.indexed,
                "tables": {
                    t: {"rows": report.source[t][0], "sha256": report.source[t][1],
                        "target_rows": report.target[t][0],
                        "match": report.source[t] == report.target[t]}
                    for t in report.source
                },
            }
        )  # fmt: skip
    else:
        click.echo(f"Copied {db} to {where}:")
        for table, (rows, digest) in report.source.items():
            match = "ok" if report.target[table] == (rows, digest) else "DIFFERS"
            click.echo(
                f"  {table:<16} {rows:>8} rows  +{report.copied.get(table, 0):<8} "
                f"sha256 {digest[:16]}  {match}"
            )
        if report.identical:
            click.echo(
                "Every table matches. To use it, set [storage] url (keep the password in "
                "~/.pgpass or KENNING_STORAGE__URL, not in config.toml)."
            )
    if not report.identical:
        raise click.ClickException(
            "the target's rows differ from the archive's (it holds other data for some "
            "ids?); copy into an empty schema with --schema NAME"
        )


def _rows(store: Any) -> int:
    return sum(admin.row_counts(store).values())
