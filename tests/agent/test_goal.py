"""Goal mode end to end: `kenning run --goal` over the OpenAI-format wire server."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kenning.agent.goal import EXIT_CODES, GoalState, parse_duration
from kenning.cli import cli
from kenning.home import Home
from kenning.testing.models import tool_call
from kenning.testing.wire import AuthError, OpenAIServer
from kenning.testing.wire.script import Delay


def goal_run(server: OpenAIServer, cwd: Path, *args: str) -> Result:
    return CliRunner().invoke(
        cli,
        ["--set", f"model.base_url={server.base_url}", "run", "-m", "m", "--cwd", str(cwd), *args],
    )


def write(name: str) -> Any:
    return tool_call("write_file", path=name, content="x\n")


def stored_goal(session_id: str | None = None) -> tuple[str, GoalState]:
    home = Home.open()
    session = home.archive.session(session_id) if session_id else home.archive.sessions(limit=1)[0]
    assert session is not None
    state = GoalState.from_meta(session.meta.get("goal"))
    assert state is not None
    return session.id, state


def user_messages(server: OpenAIServer) -> list[str]:
    last = list(server.requests)[-1].body["messages"]
    return [str(m["content"]) for m in last if m["role"] == "user"]


def test_a_goal_whose_check_passes_on_the_third_turn_ends_done(tmp_path: Path) -> None:
    script = [write("a.txt"), "step 1", write("b.txt"), "step 2", write("done.txt"), "done"]
    with OpenAIServer(script) as server:
        result = goal_run(
            server, tmp_path, "--goal", "create done.txt", "--check", "test -f done.txt"
        )
        asks = user_messages(server)
    assert result.exit_code == 0, result.output
    assert "goal done (check passed) after 3 turns" in result.stderr
    assert "Goal mode" in asks[0] and "test -f done.txt" in asks[0]
    assert "The check `test -f done.txt` failed" in asks[1] and "turn 2 of at most 10" in asks[1]
    sid, state = stored_goal()
    assert state.status == "done (check passed)" and state.turns == 3
    # What the goal learned stays with the session, as one commit (review scope "session").
    outcome = Home.open().root / "goals" / f"{sid}.md"
    assert "status: done (check passed) after 3 turn(s)" in outcome.read_text()
    log = subprocess.run(
        ["git", "log", "--format=%s", "-1", "--", str(outcome)],
        cwd=outcome.parent.parent,
        capture_output=True,
        text=True,
    )
    assert log.stdout.startswith("goal: done (check passed)")


def test_a_goal_that_runs_out_of_turns_stops_on_budget(tmp_path: Path) -> None:
    script = [write("a.txt"), "step 1", write("b.txt"), "step 2"]
    with OpenAIServer(script) as server:
        result = goal_run(
            server, tmp_path, "--goal", "never", "--check", "false", "--max-turns", "2"
        )
    assert result.exit_code == EXIT_CODES["stopped: budget"] != 0
    assert "goal stopped: budget after 2 turns: 2 of 2 turns used" in result.stderr
    assert stored_goal()[1].status == "stopped: budget"


def test_turns_without_a_tool_effect_stop_as_no_progress(tmp_path: Path) -> None:
    script = ["thinking", "still thinking", "more thinking"]
    with OpenAIServer(script) as server:
        result = goal_run(server, tmp_path, "--goal", "ponder")
    assert result.exit_code == EXIT_CODES["stopped: no progress"]
    assert "goal stopped: no progress after 3 turns" in result.stderr


def test_a_declared_goal_without_a_check_is_done_but_says_so(tmp_path: Path) -> None:
    declare = tool_call("goal_progress", note="wrote it", done=True, evidence="notes.md exists")
    script = [write("notes.md"), "step", declare, "all done"]
    with OpenAIServer(script) as server:
        result = goal_run(server, tmp_path, "--goal", "write notes", "--json")
    assert result.exit_code == EXIT_CODES["done (declared, no check)"] == 10
    assert '"status": "done (declared, no check)"' in result.stdout
    state = stored_goal()[1]
    assert state.turns == 2 and state.evidence == "notes.md exists"


def test_a_model_error_stops_the_goal_with_its_own_code(tmp_path: Path) -> None:
    with OpenAIServer([AuthError()]) as server:
        result = goal_run(server, tmp_path, "--goal", "anything")
    assert result.exit_code == EXIT_CODES["stopped: error"]
    assert "goal stopped: error after 1 turn" in result.stderr


def test_budget_options_need_a_goal_and_durations_are_checked(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["run", "--check", "true", "task"])
    assert result.exit_code == 2 and "go with --goal" in result.output
    bad = CliRunner().invoke(cli, ["run", "--goal", "g", "--max-time", "soon"])
    assert bad.exit_code == 2 and "90s, 30m, 2h" in bad.output
    assert parse_duration("1h30m") == 5400 and parse_duration("45") == 45


# A hang guard, not a speed check: a `kenning run` started under subprocess
# coverage on a busy machine took over 30 s to send its first request.
def _wait(condition: Callable[[], bool], within_s: float = 300.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_crash_mid_goal_then_resume_continues_where_it_stopped(tmp_path: Path) -> None:
    script = [write("a.txt"), "step 1", Delay(30, "never seen")]
    with OpenAIServer(script) as server:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kenning",
                "--set",
                f"model.base_url={server.base_url}",
                "run",
                "-m",
                "m",
                "--cwd",
                str(tmp_path),
                "--goal",
                "create done.txt",
                "--check",
                "test -f done.txt",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert _wait(lambda: len(server.requests) >= 3), "the second turn never started"
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
    sid, state = stored_goal()
    assert state.status == "running" and state.turns == 1
    with OpenAIServer([write("done.txt"), "done"]) as server:
        result = goal_run(server, tmp_path, "--resume", sid)
        asks = user_messages(server)
    assert result.exit_code == 0, result.output
    assert "turn 2 of at most 10" in asks[-1] and "The check `test -f done.txt` failed" in asks[-1]
    assert stored_goal(sid)[1].turns == 2
    assert "goal done (check passed) after 2 turns" in result.stderr


@pytest.mark.parametrize("scope", ["global"])
def test_the_global_scope_keeps_the_usual_review(tmp_path: Path, scope: str) -> None:
    declare = tool_call("goal_progress", note="n", done=True, evidence="e")
    with OpenAIServer([declare, "done"]) as server:
        result = CliRunner().invoke(
            cli,
            [
                "--set",
                f"model.base_url={server.base_url}",
                "--set",
                f"agent.goal_review_scope={scope}",
                "run",
                "-m",
                "m",
                "--cwd",
                str(tmp_path),
                "--goal",
                "g",
            ],
        )
    assert result.exit_code == 10, result.output
    sid, _ = stored_goal()
    assert not (Home.open().root / "goals" / f"{sid}.md").exists()


def test_a_budget_stopped_goal_goes_on_when_resumed_with_a_larger_budget(tmp_path: Path) -> None:
    check = ("--check", "test -f done.txt")
    with OpenAIServer([write("a.txt"), "step 1"]) as server:
        first = goal_run(server, tmp_path, "--goal", "make done.txt", *check, "--max-turns", "1")
    assert first.exit_code == EXIT_CODES["stopped: budget"]
    sid, _ = stored_goal()
    with OpenAIServer([write("done.txt"), "done"]) as server:
        again = goal_run(server, tmp_path, "--resume", sid, "--max-turns", "2")
    assert again.exit_code == 0, again.output
    assert stored_goal(sid)[1].turns == 2
    # Finished for good: resuming without a task is now an ordinary run, which needs one.
    done = CliRunner().invoke(cli, ["run", "--resume", sid])
    assert done.exit_code == 2 and 'kenning run "TASK"' in done.output
