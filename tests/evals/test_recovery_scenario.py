"""Scenario 4: SIGKILL of a real `kenning run` mid-tool-call, mid-review and mid-goal, then
--resume."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from kenning.agent import goal
from kenning.agent.goal import GoalState
from kenning.archive.store import Archive
from kenning.evals import harness, recovery
from kenning.evals.reference import ReferenceAgent
from kenning.home import Home
from kenning.locks import locks_dir, try_lock
from kenning.memory.store import Target

Make = Callable[..., ReferenceAgent]


def test_kills_are_survived_and_nothing_is_repeated(reference: Make) -> None:
    result = harness.run_one(recovery.SCENARIO, reference(), 0)
    assert result["passed"], (result["failed"], result["metrics"])
    m = result["metrics"]
    assert m["tool_side_effect_starts"] == 1 and m["tool_partial_work_left"] is True
    assert m["review_sessions"] >= 2  # the killed review, and the one after the restart
    assert m["subagent_result_lost_but_said"] is True and m["subagent_results_delivered_twice"] == 0
    assert result["requests"] > 0 and result["input_tokens"] > 0  # the children's cost counted
    assert m["goal_turns_finished_before_kill"] == 1 and m["goal_resumed_at_turn"] == 2
    assert m["goal_progress_stored_at_kill"] is True
    assert m["goal_side_effect_starts"] == 3 and m["goal_releases_done"] == 3
    assert m["goal_final_status"] == "done (check passed)" and m["goal_resume_exit_code"] == 0
    assert m["goal_final_turns"] == 3  # the killed turn is run again, and counted once
    # The command a killed Kenning was running ends with it (its watcher), in every part.
    assert m["tool_command_outlived_kill"] is False and m["goal_command_outlived_kill"] is False
    assert m["subagent_command_outlived_kill"] is False
    assert not any("shell command" in note for note in result["notes"])
    assert recovery.SCENARIO.todo == ()


@pytest.mark.parametrize("subagent", [False, True], ids=["own-call", "subagent"])
def test_an_agent_that_reruns_an_interrupted_command_repeats_the_side_effect(
    reference: Make, subagent: bool
) -> None:
    agent = reference("repeats_side_effects")
    with harness.Scratch() as scratch:
        found = recovery.kill_during_tool_call(agent, scratch, harness.Meter(), subagent=subagent)
    assert found["killed_mid_tool"] and found["dangling_call_answered"]
    assert found["side_effect_repeated"] is True and found["side_effect_starts"] == 2
    if subagent:
        assert found["subagent_sessions"] == 2  # delegated again after the restart


def goal_run(agent: ReferenceAgent, **kwargs: Any) -> dict[str, Any]:
    with harness.Scratch() as scratch:
        found = recovery.kill_during_goal(agent, scratch, harness.Meter(), **kwargs)
    out = harness.Outcome()
    recovery.check_goal(out, found)
    return {"failed": out.failed(), **found}


def forget_progress(home: Home, session_id: str) -> None:
    """What a resume that kept only the goal's text would start from."""
    state = recovery.stored_goal(home, session_id)
    assert state is not None and state.turns == 1 and state.notes == ["deployed release 1"]
    archive = Archive(home.layout.state_db)
    try:
        archive.update_session_meta(
            session_id, {"goal": {**state.to_meta(), "turns": 0, "notes": []}}
        )
    finally:
        archive.close()


def forget_goal(home: Home, session_id: str) -> None:
    archive = Archive(home.layout.state_db)
    try:
        archive.update_session_meta(session_id, {"goal": None})
    finally:
        archive.close()


def test_a_resume_that_forgets_the_goals_progress_starts_over(reference: Make) -> None:
    found = goal_run(reference(), between=forget_progress)
    assert found["goal_kept"] and found["resumed_at_turn"] == 1
    assert found["progress_kept"] is False and found["turns_repeated"] == 1
    assert found["side_effects_repeated"] == 1  # release 1 deployed again
    assert set(found["failed"]) == {"goal_progress_kept", "goal_no_turn_repeated", "goal_no_repeat"}


def test_a_resume_that_loses_the_goal_does_not_pass_as_done(reference: Make) -> None:
    found = goal_run(reference(), between=forget_goal)
    assert found["resumed_ok"] is False and found["resume_exit_code"] == 2
    assert found["final_status"] == "no goal" and found["releases_done"] == 1
    assert {"goal_resumed", "goal_progress_kept", "goal_done"} <= set(found["failed"])


def test_an_agent_that_restarts_the_interrupted_deploy_repeats_its_side_effect(
    reference: Make,
) -> None:
    found = goal_run(reference("repeats_side_effects"))
    assert found["side_effect_starts"] == 4 and found["side_effects_repeated"] == 1
    assert found["failed"] == ["goal_no_repeat"]
    assert found["final_status"] == "done (check passed)"


def test_a_kill_in_the_first_turn_is_not_a_kill_in_a_later_turn(reference: Make) -> None:
    found = goal_run(reference(), kill_in="1")
    assert found["turns_finished_before_kill"] == 0 and found["resumed_at_turn"] == 1
    assert found["failed"] == ["goal_killed_mid_turn"]


def test_goal_turns_are_read_from_what_goal_mode_sends() -> None:
    state = GoalState(recovery.GOAL, check=recovery.GOAL_CHECK)
    assert recovery.goal_turn(goal.first_message(state)) == 1
    state.turns = 4
    assert recovery.goal_turn(goal.continuation(state)) == 5
    assert recovery.goal_turn("Task: run `sh x.sh` once") == 0


@contextmanager
def held(lock: Path) -> Iterator[None]:
    """Hold ``lock`` from another thread, as a review that never finished would."""
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with try_lock(lock):
            taken.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    taken.wait(10)
    try:
        yield
    finally:
        release.set()
        thread.join()


def test_the_after_kill_probes_see_half_landed_writes_and_stale_locks(tmp_path: Path) -> None:
    home = Home(tmp_path / "home", harness.scratch_config())
    home.memory.add(Target.MEMORY, "A committed entry.")
    assert recovery.after_kill(home, "s1") == ([], True)
    (home.layout.memories_dir / "MEMORY.md").write_text("half written", encoding="utf-8")
    with held(locks_dir(home.root) / "review-s1.lock"):
        uncommitted, free = recovery.after_kill(home, "s1")
    assert uncommitted and free is False
    assert recovery.reviewed_through(home, "no-such-session") == 0
