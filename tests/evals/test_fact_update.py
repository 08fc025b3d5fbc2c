"""Scenario 1: each metric passes with the reference agent and moves when broken."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kenning.config import Config
from kenning.evals import fact_update, harness
from kenning.evals.reference import ReferenceAgent
from kenning.home import Home

Make = Callable[..., ReferenceAgent]


def run(agent: ReferenceAgent, seed: int = 0) -> dict[str, Any]:
    return harness.run_one(fact_update.SCENARIO, agent, seed)


def test_the_reference_agent_passes_over_real_http(reference: Make, _hermetic_home: Path) -> None:
    agent = reference()
    result = run(agent)
    assert result["passed"], result["failed"]
    metrics = result["metrics"]
    assert metrics["written_layer"] == "memory"
    assert metrics["d_answer_source"] == "hot memory"
    assert metrics["history_versions_old"] >= 1 and metrics["history_versions_new"] >= 1
    # every request went over the socket, and was counted
    assert len(agent.server.requests) == result["requests"] > 0
    assert result["input_tokens"] > 0 and result["output_tokens"] > 0
    assert not _hermetic_home.exists()  # the user's home was never touched


def test_the_same_seed_gives_the_same_fact_and_another_seed_another() -> None:
    assert fact_update.facts(3) == fact_update.facts(3)
    assert len({fact_update.facts(s) for s in range(6)}) > 1


def test_an_agent_that_ignores_memory_fails_adoption(reference: Make) -> None:
    result = run(reference("ignores_memory"))
    assert {"b_uses_fact", "d_adopts_new", "d_from_memory"} <= set(result["failed"])
    assert result["metrics"]["d_answer_source"] == "none"
    assert result["metrics"]["new_fact_adopted"] is False


def test_appending_a_correction_leaves_stale_residue(reference: Make) -> None:
    result = run(reference("adds_instead_of_replacing"))
    assert result["failed"] == ["memory_no_stale"]
    assert result["metrics"]["stale_in_memory"] is True


def test_an_agent_that_never_saves_leaves_nothing_written(reference: Make) -> None:
    result = run(reference("no_memory_writes"))
    assert {"written", "versioned", "d_adopts_new"} <= set(result["failed"])
    assert result["metrics"]["written_layer"] == "none"


def test_profiles_sharing_one_home_are_caught_as_a_leak(
    reference: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    def shared(self: harness.Scratch, profile: str | None = None, **_: Any) -> Home:
        home = Home(self.root / "home", harness.scratch_config())  # every profile, one home
        self._homes.append(home)
        return home

    monkeypatch.setattr(harness.Scratch, "home", shared)
    result = run(reference())
    assert "no_leak" in result["failed"]
    assert result["metrics"]["leaked_to_other_profile"] is True
    assert isinstance(harness.scratch_config(), Config)
