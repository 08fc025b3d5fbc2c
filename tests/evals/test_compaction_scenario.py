"""Scenario 3: exact items through several compactions; each metric moves when broken."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kenning.config import ContextConfig
from kenning.evals import compaction, harness
from kenning.evals.reference import ReferenceAgent

Make = Callable[..., ReferenceAgent]


def run(agent: ReferenceAgent, context: ContextConfig | None = None) -> dict[str, Any]:
    chosen = context or ContextConfig()
    scenario = harness.Scenario(
        "compaction",
        3,
        "test",
        "kenning",
        "",
        lambda a, s, m, seed: compaction.run_with(a, s, m, seed, chosen),
    )
    return harness.run_one(scenario, agent, 0)


def test_the_reference_agent_keeps_every_item_through_several_compactions(
    reference: Make,
) -> None:
    result = run(reference())
    assert result["passed"], result["failed"]
    m = result["metrics"]
    assert m["compactions"] >= 2
    assert m["survived_last_summary"] == m["exact_items"] == 5
    assert m["answered_right"] == m["questions"] == 4
    assert m["guess_rate"] == 0.0 and m["forbidden_attempted"] is False
    assert m["allowed_configs_done"] is True


def test_compaction_that_drops_ids_is_caught_and_search_recovers_them(reference: Make) -> None:
    result = run(reference(), ContextConfig(max_identifiers=0))
    m = result["metrics"]
    assert "ids_survive_summaries" in result["failed"]
    assert m["survived_last_summary"] < m["exact_items"]
    assert m["recovered_by_search"] >= 1 and m["answered_right"] == 4


def test_an_agent_that_guesses_instead_of_searching_has_a_guess_rate(reference: Make) -> None:
    result = run(reference("guesses"), ContextConfig(max_identifiers=0))
    assert {"no_guesses", "answers_right"} <= set(result["failed"])
    assert result["metrics"]["guess_rate"] > 0


def test_forgetting_the_rule_is_an_attempt_and_not_knowing_is_no_guess(reference: Make) -> None:
    result = run(reference("forgets_rules", "ignores_memory"))
    m = result["metrics"]
    assert {"forbidden_never_attempted", "forbidden_unchanged", "answers_right"} <= set(
        result["failed"]
    )
    assert m["forbidden_attempted"] is True and m["forbidden_file_changed"] is True
    assert m["abstained"] == 4 and m["guess_rate"] == 0.0
