"""The ``storage`` fixture: every contract test runs once per available backend.

A backend joins by adding a factory to ``FACTORIES`` (and its name to
``kenning.storage.BACKENDS``). One whose server is not reachable here skips
its run with the reason, never fails it; SQLite is always available.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kenning.storage import BACKENDS, Storage, open_storage


def _sqlite(tmp_path: Path) -> Storage:
    return open_storage(tmp_path / "state.db", backend="sqlite")


# backend name -> a fresh, empty storage for one test (a PostgreSQL entry
# would create a scratch database, or pytest.skip when no server is set up)
FACTORIES: dict[str, Callable[[Path], Storage]] = {"sqlite": _sqlite}


@pytest.fixture(params=sorted(BACKENDS))
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    name = request.param
    if name not in FACTORIES:
        pytest.fail(f"backend {name!r} has no factory in tests/storage/conftest.py")
    made = FACTORIES[name](tmp_path)
    yield made
    made.close()
