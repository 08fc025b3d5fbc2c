"""Scenario 2: a corrected mistake becomes a skill with review on, and is repeated without."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kenning.evals import harness, procedural
from kenning.evals.fixtures import converters, materialise
from kenning.evals.reference import ReferenceAgent

Make = Callable[..., ReferenceAgent]


def run(agent: ReferenceAgent) -> dict[str, Any]:
    return harness.run_one(procedural.SCENARIO, agent, 0)


def test_the_fixture_repository_has_the_trap(tmp_path: Path) -> None:
    repo = materialise(converters.FILES, tmp_path / "repo")
    assert converters.tests_pass(repo)
    converters.task_test(repo, "km_to_mi", 0.621371)
    assert not converters.tests_pass(repo)  # the new test fails until the converter exists


def test_review_on_learns_a_skill_that_stops_the_repeated_error(reference: Make) -> None:
    result = run(reference())
    assert result["passed"], result["failed"]
    m = result["metrics"]
    assert m["on_skills_created"] == ["add-unit-converter"]
    assert m["on_later_tasks_using_skill"] == 3 and m["on_repeated_errors"] == 0
    assert m["off_skill_created"] is False and m["off_repeated_errors"] == 3
    assert m["on_first_task_corrected"] and m["off_first_task_corrected"]
    assert m["on_requests"] > 0 and m["off_tokens"] > 0


def test_an_agent_that_ignores_skills_repeats_its_error(reference: Make) -> None:
    result = run(reference("ignores_skills"))
    assert set(result["failed"]) == {"skill_used", "no_repeats_with_review"}
    assert result["metrics"]["on_repeated_errors"] == 3


def test_a_review_that_never_runs_creates_no_skill(
    reference: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(procedural, "SKILL_REVIEW_EVERY", 10_000)
    result = run(reference())
    assert {"skill_created", "skill_used", "no_repeats_with_review"} <= set(result["failed"])


def test_the_checker_runs_the_real_tests(reference: Make, monkeypatch: pytest.MonkeyPatch) -> None:
    real = converters.task_test

    def impossible(repo: Path, name: str, factor: float) -> None:
        real(repo, name, factor + 1.0)  # no converter of the asked factor can pass this

    monkeypatch.setattr(converters, "task_test", impossible)
    result = run(reference())
    assert "all_tasks_pass" in result["failed"]
    assert result["metrics"]["on_success_rate"] == 0.0
