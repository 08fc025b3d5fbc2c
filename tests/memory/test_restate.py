"""The word test shared by ``memory add`` (may_update) and dreaming (superseded candidates)."""

from __future__ import annotations

import pytest

from kenning.memory.restate import contradicts, restates
from kenning.storage.text import query_terms


def words(text: str) -> frozenset[str]:
    return frozenset(query_terms(text))


@pytest.mark.parametrize(
    ("older", "newer", "restated", "contradicted"),
    [
        ("The staging DB is on port 5432", "The staging DB moved to port 6543", True, True),
        ("Project uses pnpm 8 for installs", "Project uses pnpm 9 for installs", True, True),
        ("The staging DB is on port 5432", "The staging DB is on port 5432", False, False),
        ("The staging DB is on port 5432 behind pgbouncer", "staging DB port 5432", True, False),
        ("Deploys use make release", "Builds use make test", False, False),  # 2 words: a pattern
        ("The staging DB is on port 5432", "Grafana needs the VPN", False, False),
    ],
)
def test_restates_and_contradicts(
    older: str, newer: str, restated: bool, contradicted: bool
) -> None:
    assert restates(older, newer) is restated
    assert contradicts(words(older), words(newer)) is contradicted
