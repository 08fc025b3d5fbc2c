"""Undoing a recorded change works entry by entry, as a new commit."""

from __future__ import annotations

import pytest

from kenning.history import HistoryError
from kenning.home import Home
from kenning.memory.revert import revert_change
from kenning.memory.store import Target

M = Target.MEMORY


def test_revert_an_add_removes_only_that_entry(home: Home) -> None:
    home.memory.add(M, "alpha")
    rev = home.memory.add(M, "beta").commit
    home.memory.add(M, "gamma")  # a later change touching the neighbouring lines
    assert rev is not None
    outcome = revert_change(home.memory, home.history, rev)
    assert home.memory.read(M).entries == ("alpha", "gamma")
    assert outcome.results and outcome.results[0].commit
    assert home.history.log(["memories"], limit=1)[0].message.startswith("memory: removed")


def test_revert_a_replace_restores_the_old_entry(home: Home) -> None:
    home.memory.add(M, "db on port 5432")
    rev = home.memory.replace(M, "5432", "db on port 6543").commit
    assert rev is not None
    revert_change(home.memory, home.history, rev)
    assert home.memory.read(M).entries == ("db on port 5432",)


def test_revert_a_remove_brings_the_entry_back(home: Home) -> None:
    home.memory.add(M, "keep")
    home.memory.add(M, "gone")
    rev = home.memory.remove(M, "gone").commit
    assert rev is not None
    revert_change(home.memory, home.history, rev)
    assert set(home.memory.read(M).entries) == {"keep", "gone"}


def test_revert_leaves_entries_changed_since_and_says_so(home: Home) -> None:
    rev = home.memory.add(M, "fact v1").commit
    home.memory.replace(M, "fact v1", "fact v2")
    assert rev is not None
    outcome = revert_change(home.memory, home.history, rev)
    assert home.memory.read(M).entries == ("fact v2",)
    assert outcome.notes and "changed since" in outcome.notes[0]


def test_unknown_revision_is_a_clear_error(home: Home) -> None:
    home.memory.add(M, "x")
    with pytest.raises(HistoryError, match="unknown revision"):
        revert_change(home.memory, home.history, "deadbeef")
    with pytest.raises(HistoryError, match="not a revision"):
        revert_change(home.memory, home.history, "--all")
