"""``kenning cron add … --goal``: a goal job re-queued by its schedule until it is done."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from kenning.agent.goal import GoalState
from kenning.cli import cli
from kenning.home import Home
from kenning.testing.models import tool_call
from kenning.testing.wire import OpenAIServer


def kenning(server: OpenAIServer | None, *args: str) -> Result:
    prefix = ["--set", f"model.base_url={server.base_url}"] if server else []
    return CliRunner().invoke(cli, [*prefix, "--set", "embedding.provider=none", *args])


def test_a_goal_job_continues_its_goal_on_the_next_run_until_done(tmp_path: Path) -> None:
    added = kenning(
        None,
        "cron",
        "add",
        "hourly",
        "create done.txt",
        "--name",
        "finish",
        "--goal",
        "--check",
        "test -f done.txt",
        "--max-turns",
        "1",
        "--cwd",
        str(tmp_path),
        "-m",
        "m",
    )
    assert added.exit_code == 0, added.output
    stored = json.loads((Home.open().root / "cron" / "jobs.json").read_text())["jobs"][0]
    assert stored["goal"] is True and stored["check"] == "test -f done.txt"
    write = tool_call("write_file", path="a.txt", content="x\n")
    with OpenAIServer([write, "a step"]) as server:
        first = kenning(server, "cron", "run", "finish", "--json")
    assert first.exit_code == 1, first.output  # the run ended without the goal done
    assert "goal stopped: budget after 1 turn" in json.loads(first.stdout)["summary"]
    sessions = Home.open().archive.sessions(limit=5, sources=["cron"])
    assert len(sessions) == 1
    done = tool_call("write_file", path="done.txt", content="ok\n")
    with OpenAIServer([done, "finished"]) as server:
        second = kenning(server, "cron", "run", "finish", "--json")
        asks = [
            m["content"] for m in list(server.requests)[-1].body["messages"] if m["role"] == "user"
        ]
    assert second.exit_code == 0, second.output
    assert "goal done (check passed) after 2 turns" in json.loads(second.stdout)["summary"]
    again = Home.open().archive.sessions(limit=5, sources=["cron"])
    assert [s.id for s in again] == [s.id for s in sessions]  # the same session, continued
    assert "turn 2 of at most 2" in asks[-1]
    state = GoalState.from_meta(again[0].meta["goal"])
    assert state is not None and state.job == "finish" and state.status == "done (check passed)"


def test_goal_options_need_goal() -> None:
    result = kenning(None, "cron", "add", "hourly", "x", "--check", "true")
    assert result.exit_code == 2 and "go with --goal" in result.output
