"""Connecting to PostgreSQL: one schema per home, errors in Kenning's own words.

A home's tables live in its own schema (``[storage] schema``, by default
``kenning_<profile>``), so profiles sharing one server never see each other's
rows; ``search_path`` is set on connect and every statement names tables
unqualified. Connections run in autocommit: each statement commits on its
own unless it is inside ``txn`` (psycopg's transaction block; a nested one
is a savepoint, so it joins the outer transaction's fate).

Driver errors never reach callers: ``storage_error`` turns each into a
``StorageError`` that says what happened and what to do.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import errors as pg_errors
from psycopg.adapt import Buffer
from psycopg.rows import RowMaker
from psycopg.types.string import (
    StrBinaryDumper,
    StrDumper,
    StrDumperUnknown,
    TextBinaryLoader,
    TextLoader,
)

from kenning.storage.base import StorageConflict, StorageError, StorageUnavailable

Conn = psycopg.Connection["Record"]

CONNECT_TIMEOUT_S = 10
_SCHEMA = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class Record(tuple[Any, ...]):
    """A row read by position (like a tuple) or by column name (like ``sqlite3.Row``)."""

    _names: dict[str, int]

    def __new__(cls, values: Sequence[Any], names: dict[str, int]) -> Record:
        made = super().__new__(cls, values)
        made._names = names
        return made

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return super().__getitem__(self._names[key])
        return super().__getitem__(key)

    def keys(self) -> list[str]:
        return list(self._names)


def _records(cursor: Any) -> RowMaker[Record]:
    names = {c.name: i for i, c in enumerate(cursor.description or ())}
    return lambda values: Record(values, names)


# PostgreSQL text cannot hold NUL, which tool output and imported transcripts
# can. Every string crosses the driver escaped: NUL as U+FFFF "0", U+FFFF (a
# noncharacter, itself as good as never in text) doubled; read back exactly.
_ESC = "\uffff"
_ESCAPED = re.compile("\uffff([\uffff0])")


def escape_nul(text: str) -> str:
    if "\x00" not in text and _ESC not in text:
        return text
    return text.replace(_ESC, _ESC * 2).replace("\x00", _ESC + "0")


def unescape_nul(text: str) -> str:
    if _ESC not in text:
        return text
    return _ESCAPED.sub(lambda m: _ESC if m.group(1) == _ESC else "\x00", text)


class _Dumper(StrDumper):
    def dump(self, obj: str) -> Buffer | None:
        return super().dump(escape_nul(obj))


class _UnknownDumper(StrDumperUnknown):
    def dump(self, obj: str) -> Buffer | None:
        return super().dump(escape_nul(obj))


class _BinaryDumper(StrBinaryDumper):
    def dump(self, obj: str) -> Buffer | None:
        return super().dump(escape_nul(obj))


class _Loader(TextLoader):
    def load(self, data: Buffer) -> str | bytes:
        got = super().load(data)
        return unescape_nul(got) if isinstance(got, str) else got


class _BinaryLoader(TextBinaryLoader):
    def load(self, data: Buffer) -> str | bytes:
        got = super().load(data)
        return unescape_nul(got) if isinstance(got, str) else got


def _nul_safe(conn: Conn) -> None:
    for dumper in (_UnknownDumper, _Dumper, _BinaryDumper):
        conn.adapters.register_dumper(str, dumper)
    conn.adapters.register_dumper(str, _UnknownDumper)  # the default for %s again
    for loader in (_Loader, _BinaryLoader):
        conn.adapters.register_loader("text", loader)


def schema_name(raw: str) -> str:
    """``raw`` as a schema name (lower case, ``[a-z0-9_]``), or ``StorageError``."""
    name = re.sub(r"[^a-z0-9_]", "_", raw.lower())
    if not _SCHEMA.match(name):
        raise StorageError(
            f"{raw!r} cannot name a PostgreSQL schema; set [storage] schema to 1-63 "
            "letters, digits or '_' starting with a letter"
        )
    return name


def redacted(url: str) -> str:
    """``url`` without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def connect(url: str, schema: str) -> Conn:
    """An autocommit connection to ``url`` working in ``schema`` (see ``migrations.prepare``)."""
    try:
        conn = psycopg.connect(
            url, autocommit=True, row_factory=_records, connect_timeout=CONNECT_TIMEOUT_S
        )
    except psycopg.Error as exc:
        raise connect_error(url, exc) from exc
    _nul_safe(conn)
    try:
        conn.execute(f'SET search_path TO "{schema}", public')
    except psycopg.Error as exc:
        conn.close()
        raise storage_error(exc) from exc
    return conn


def connect_error(url: str, exc: psycopg.Error) -> StorageError:
    """Why ``url`` could not be opened, and what to do about it."""
    # libpq's message spans lines ("… failed: Connection refused\n\tIs the server …")
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    where = redacted(url)
    if "password authentication failed" in text or "no password supplied" in text:
        return StorageUnavailable(
            f"PostgreSQL at {where} refused the credentials ({text}); "
            "check the user and password in [storage] url (or KENNING_STORAGE__URL, "
            "or ~/.pgpass)"
        )
    if "does not exist" in text and "database" in text:
        return StorageUnavailable(f"{where}: {text}; create it first (createdb NAME)")
    return StorageUnavailable(
        f"cannot reach PostgreSQL at {where}: {text or repr(exc)}; "
        "check that the server is running and [storage] url (or KENNING_STORAGE__URL) "
        "names its host and port"
    )


@contextmanager
def txn(conn: Conn) -> Iterator[None]:
    """One transaction (a savepoint inside an open one)."""
    with conn.transaction():
        yield


# An index built in one go sorts (B-tree, GIN) or holds its graph (pgvector's
# HNSW) in maintenance_work_mem; past it, it spills to disk or carries on many
# times slower. The server default (64 MB) holds ~30k 384-dim HNSW vectors.
BUILD_MEMORY_MB = 1024


def raise_build_memory(conn: Conn, megabytes: int = BUILD_MEMORY_MB) -> None:
    """``maintenance_work_mem`` at least ``megabytes`` for the rest of the
    transaction (``SET LOCAL``), never lowered."""
    row = conn.execute(
        "SELECT pg_size_bytes(current_setting('maintenance_work_mem')) < %s",
        (int(megabytes) * 2**20,),
    ).fetchone()
    if row is not None and row[0]:
        conn.execute(f"SET LOCAL maintenance_work_mem = '{int(megabytes)}MB'")


def vacuum(conn: Conn, tables: Sequence[str]) -> None:
    """``VACUUM (ANALYZE)`` freshly bulk-loaded tables, when not inside a transaction
    (VACUUM cannot run in one). Left to autovacuum, a loaded table is swept while
    the next searches run, taking a core from them, and until then index-only
    scans read the table too (its pages are not marked all-visible)."""
    if conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE:
        for table in tables:
            conn.execute(f"VACUUM (ANALYZE) {table}")


def storage_error(exc: psycopg.Error) -> StorageError:
    """The backend-neutral error for ``exc`` (its message kept, ``exc`` chained)."""
    if isinstance(exc, pg_errors.IntegrityError):
        return StorageConflict(str(exc))
    if isinstance(exc, psycopg.OperationalError | pg_errors.ReadOnlySqlTransaction):
        # A read-only open cannot write now, as SQLite's read-only open cannot:
        # callers that can go on without the write (a search's index sync) do.
        return StorageUnavailable(f"PostgreSQL: {exc}")
    return StorageError(f"PostgreSQL: {exc}")


_F = TypeVar("_F", bound=Callable[..., Any])
_T = TypeVar("_T", bound=type)


def _translating(fn: _F) -> _F:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except psycopg.Error as exc:
            raise storage_error(exc) from exc

    return call  # type: ignore[return-value]


def translate_errors(cls: _T) -> _T:
    """Callers of a storage class see ``StorageError``s, never ``psycopg`` ones."""
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and callable(value):
            setattr(cls, name, _translating(value))
    return cls
