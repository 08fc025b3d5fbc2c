"""Scenario 5: correction and isolation, with a real `kenning mcp --read-only` subprocess."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kenning.evals import correction, harness
from kenning.evals.reference import ReferenceAgent

Make = Callable[..., ReferenceAgent]


def run(agent: ReferenceAgent, *, read_only: bool = True) -> dict[str, Any]:
    scenario = harness.Scenario(
        "correction",
        5,
        "test",
        "kenning",
        "",
        lambda a, s, m, seed: correction.run_with(a, s, m, seed, read_only=read_only),
    )
    return harness.run_one(scenario, agent, 0)


def test_each_viewer_sees_what_it_should(reference: Make) -> None:
    result = run(reference())
    assert result["passed"], result["failed"]
    m = result["metrics"]
    assert m["same_profile_new_session"] == "new" and m["other_profile"] == "nothing"
    assert m["mcp_read_only_memory"] == "new" and m["mcp_read_only_write_refused"] is True
    assert m["memory_after_delete"] == m["mcp_memory_after_delete"] == "nothing"
    # deleting from memory does not rewrite the raw history, and a new session can find it there
    assert m["archive_messages_after_delete"] > 0 and m["git_versions_after_delete"] >= 2
    assert m["new_session_after_delete_source"] == "search"


def test_an_appended_correction_without_sources_is_seen_everywhere(reference: Make) -> None:
    result = run(reference("adds_instead_of_replacing", "saves_without_source"))
    assert {"saved_with_source", "corrected", "mcp_sees_new_only"} <= set(result["failed"])
    assert result["metrics"]["mcp_read_only_memory"] == "both"
    assert result["metrics"]["stale_in_memory_after_correction"] is True


def test_a_writable_server_in_place_of_the_read_only_one_is_caught(reference: Make) -> None:
    result = run(reference(), read_only=False)
    assert {"mcp_write_refused", "mcp_home_unchanged"} <= set(result["failed"])
    assert result["metrics"]["mcp_read_only_write_refused"] is False
