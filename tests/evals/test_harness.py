"""The harness: scratch homes, determinism, one broken scenario not losing the others."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kenning.evals import fact_update, harness
from kenning.evals.reference import ReferenceAgent

Make = Callable[..., ReferenceAgent]


def test_a_scenario_that_raises_is_reported_and_the_next_still_runs(reference: Make) -> None:
    seen: list[Path] = []

    def broken(
        agent: harness.Agent, scratch: harness.Scratch, meter: harness.Meter, seed: int
    ) -> harness.Outcome:
        seen.append(scratch.root)
        raise RuntimeError("the model answered in Klingon")

    bad = harness.Scenario("broken", 9, "Broken", "kenning", "", broken)
    report = harness.run([bad, fact_update.SCENARIO], reference())
    first, second = report["scenarios"]
    (run,) = first["runs"]
    assert run["passed"] is False and run["failed"] == ["completed"]
    assert "RuntimeError: the model answered in Klingon" in run["notes"][0]
    assert not seen[0].exists()  # its scratch directory is removed all the same
    assert second["passed"] == 1


def test_the_same_seed_measures_the_same(reference: Make) -> None:
    agent = reference()
    first = harness.run_one(fact_update.SCENARIO, agent, 11)
    second = harness.run_one(fact_update.SCENARIO, agent, 11)
    assert first["metrics"] == second["metrics"]
    assert first["requests"] == second["requests"]
