"""`kenning review`, `dream`, `cron` and `daemon` as people and scripts use them."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from click.testing import CliRunner, Result

from kenning.agent.loop import AgentSession
from kenning.cli import cli
from kenning.home import Home
from kenning.runtime.factory import build_tools
from kenning.testing.models import ScriptedModel, tool_call
from kenning.testing.wire import OpenAIServer

NO_EMBEDDER = ["--set", "embedding.provider=none"]


def run(*args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, [*NO_EMBEDDER, *args])
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def _chat(home_root: Path, tmp_path: Path) -> str:
    home = Home.open(home_root, overrides={"embedding": {"provider": "none"}})
    session = AgentSession.start(home, ScriptedModel(["Use npm."]), build_tools(home), cwd=tmp_path)
    asyncio.run(session.run("No, we use pnpm here."))
    return session.session_id


def test_review_last_with_a_served_model(_hermetic_home: Path, tmp_path: Path) -> None:
    sid = _chat(_hermetic_home, tmp_path)
    script = [
        tool_call("memory", action="add", target="user", content="User uses pnpm, not npm."),
        "Saved the correction.",
    ]
    with OpenAIServer(script) as server:
        result = run(
            "--set", f"model.base_url={server.base_url}",
            "review", "--last", "--model", "local-model", "--json",
        )  # fmt: skip
    report = json.loads(result.output)
    assert report["status"] == "saved" and report["summary"] == "memory updated"
    assert report["session_id"] == sid and report["commit"]
    assert "pnpm" in (_hermetic_home / "memories" / "USER.md").read_text()
    # a second review finds nothing new
    again = run("review", sid, "--model", "local-model")
    assert "nothing new to review" in again.output


def test_review_errors_are_clear(_hermetic_home: Path, tmp_path: Path) -> None:
    assert "give a SESSION_ID or --last" in run("review", code=2).output
    assert "no session 'nope'" in run("review", "nope", code=1).output
    _chat(_hermetic_home, tmp_path)
    assert "No model is configured" in run("review", "--last", code=2).output


def test_dream_dry_run_and_json(_hermetic_home: Path) -> None:
    run("journal", "add", "--", "- The build server is ci-7.internal.")
    shown = run("dream", "--dry-run").output
    assert "deep: 1 considered, would promote 0" in shown
    assert not (_hermetic_home / "DREAMS.md").exists()
    report = json.loads(run("dream", "--json").output)
    assert report["considered"][0]["verdict"] == "recalled 0× < 3"
    assert (_hermetic_home / "DREAMS.md").is_file()


def test_cron_add_without_a_model_is_refused_with_how_to_set_one(_hermetic_home: Path) -> None:
    refused = run("cron", "add", "daily 08:00", "Summarise my notes", code=1).output
    assert "this job has no model to run with: pass --model PROVIDER:MODEL" in refused
    assert 'default = "ollama:qwen3"' in refused
    assert not json.loads(run("cron", "list", "--json").output)[2:]
    # [model] default (here from the environment's layer, --set) is enough
    run("--set", "model.default=ollama:qwen3", "cron", "add", "hourly", "Check the inbox")


def test_cron_add_list_run_remove(_hermetic_home: Path, tmp_path: Path) -> None:
    out = tmp_path / "digest.md"
    job = ("daily 08:00", "Summarise my notes", "--model", "local-model")
    added = run("cron", "add", *job, "--output", str(out)).output
    assert "added job 'summarise-my-notes' (daily 08:00)" in added
    assert "a job named" in run("cron", "add", *job, code=1).output
    unreadable = run("cron", "add", "sometimes", "x", "-m", "m", code=1).output
    assert "cannot read the schedule" in unreadable
    jobs = json.loads(run("cron", "list", "--json").output)
    assert [j["name"] for j in jobs] == ["dream", "curator", "summarise-my-notes"]
    with OpenAIServer(["Three notes, all done."]) as server:
        ran = run(
            "--set", f"model.base_url={server.base_url}",
            "cron", "run", "summarise-my-notes", "--json",
        )  # fmt: skip
    result = json.loads(ran.output)
    assert result["ok"] and result["summary"] == "Three notes, all done."
    assert "Three notes, all done." in out.read_text()
    assert "last " in run("cron", "list").output
    assert "built in" in run("cron", "remove", "dream", code=1).output
    assert "removed job" in run("cron", "remove", "summarise-my-notes").output
    assert "no job named" in run("cron", "run", "summarise-my-notes", code=1).output


def test_daemon_once_runs_what_is_due(_hermetic_home: Path) -> None:
    run("--set", "cron.dream_schedule=", "--set", "cron.curator_schedule=", "daemon", "--once")


def test_review_last_is_the_last_conversation_not_an_mcp_connection_or_import(
    _hermetic_home: Path,
) -> None:
    from kenning.archive.store import Message

    archive = Home.open(_hermetic_home).archive
    chat = archive.start_session("cli", started_at=1_800_000_000.0)
    for source, offset in (("mcp", 60.0), ("import", 120.0)):
        newer = archive.start_session(source, started_at=1_800_000_000.0 + offset)  # type: ignore[arg-type]
        archive.append(newer, Message("user", "remember the staging port"))
    out = run("review", "--last").output
    assert f"nothing new to review in session {chat}" in out


def test_a_host_session_archived_live_is_reviewable_an_import_is_not(
    _hermetic_home: Path,
) -> None:
    from kenning.archive.store import Message

    archive = Home.open(_hermetic_home).archive
    live = archive.start_session("import", meta={"host": "claude-code", "session_id": "h1"})
    bulk = archive.start_session("import", meta={"format": "claude-code"})
    for sid in (live, bulk):
        archive.append(sid, Message("user", "we deploy with make ship"))
    assert "automated session" in run("review", bulk, code=1).output
    assert "No model is configured" in run("review", live, code=2).output
