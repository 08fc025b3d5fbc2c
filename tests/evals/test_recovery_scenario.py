"""Scenario 4: SIGKILL of a real `kenning run` mid-tool-call and mid-review, then --resume."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

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
    assert any("goal run" in todo for todo in recovery.SCENARIO.todo)


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
