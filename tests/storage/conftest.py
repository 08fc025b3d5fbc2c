"""The ``storage`` fixture: every contract test runs once per backend.

A backend joins by adding a factory to ``FACTORIES`` (and its name to
``kenning.storage.BACKENDS``). PostgreSQL runs on the session's scratch server
(``postgres_server`` in tests/conftest.py), each test in a schema of its own;
where no server can be started it skips with the reason, in CI it fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import storage_on

from kenning.storage import BACKENDS, Storage, open_storage


def _sqlite(request: pytest.FixtureRequest, tmp_path: Path) -> Storage:
    return open_storage(tmp_path / "state.db", backend="sqlite")


def _postgres(request: pytest.FixtureRequest, tmp_path: Path) -> Storage:
    made: Storage = storage_on("postgres", request, tmp_path / "state.db")
    return made


# backend name -> a fresh, empty storage for one test
FACTORIES: dict[str, Callable[[pytest.FixtureRequest, Path], Storage]] = {
    "sqlite": _sqlite,
    "postgres": _postgres,
}


@pytest.fixture(params=sorted(BACKENDS))
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    name = request.param
    if name not in FACTORIES:
        pytest.fail(f"backend {name!r} has no factory in tests/storage/conftest.py")
    made = FACTORIES[name](request, tmp_path)
    yield made
    made.close()


class StatementRecorder:
    """A connection stand-in that keeps each statement it is given and returns no rows:
    what a query builder would send, to EXPLAIN on a real server."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []

    def execute(self, sql: str, params: Any = ()) -> Any:
        self.sent.append((sql, params))
        return self

    def fetchall(self) -> list[Any]:
        return []
