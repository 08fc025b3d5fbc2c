"""`kenning hosts install|uninstall|status claude-code` and the worker's archiving step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kenning.archive.importers import import_claude_code
from kenning.archive.store import Archive
from kenning.bench import hosts as hosts_bench
from kenning.cli import cli
from kenning.hosts.sync import HookEvent, archive_new_lines

HARNESS = Path(__file__).parents[1] / "archive" / "fixtures" / "claude_code_harness"
HARNESS_ID = "7c9d1e22-4b8a-4c3f-9d10-2f6a8e4b1c33"


def run(*args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def files(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): p.read_bytes() if p.is_file() else None
        for p in sorted(root.rglob("*"))
    }


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def test_a_damaged_settings_file_stops_the_install_and_changes_nothing(user_home: Path) -> None:
    (user_home / ".claude").mkdir()
    (user_home / ".claude" / "settings.json").write_text('{"model": "opus",')
    before = files(user_home)
    failed = run("hosts", "install", "claude-code", "--no-claude-md", code=1)
    assert (
        "settings.json is not valid JSON" in failed.output
        and "Nothing was changed" in failed.output
    )
    assert files(user_home) == before
    assert "not installed" in run("hosts", "status", "claude-code").output


def test_project_scope_writes_the_project_files_and_uninstall_removes_them(
    user_home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# Project rules\n")
    before, home_before = files(project), files(user_home)
    out = run(
        "hosts", "install", "claude-code", "--scope", "project", "--project", str(project),
        "--yes", "--no-review",
    ).output  # fmt: skip
    assert "(background review off)" in out
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert servers["kenning"]["args"][-1] == "mcp"
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    command = local["hooks"]["SessionEnd"][0]["hooks"][0]["command"]
    assert "hook_entry.py claude-code --no-review" in command
    assert (project / "CLAUDE.md").read_text().startswith("# Project rules\n@")
    assert files(user_home) == home_before  # the user scope is not touched
    again = run(
        "hosts", "install", "claude-code", "--scope", "project", "--project", str(project), code=1
    )
    assert "already installed" in again.output
    status = run("hosts", "status", "claude-code", "--scope", "project", "--project", str(project))
    assert "background review off" in status.output
    run("hosts", "uninstall", "claude-code", "--scope", "project", "--project", str(project))
    assert files(project) == before


def test_without_a_terminal_claude_md_is_not_changed_unless_asked(user_home: Path) -> None:
    out = run("hosts", "install", "claude-code").output
    assert "Not asked (no terminal)" in out and "--yes" in out
    assert not (user_home / ".claude" / "CLAUDE.md").exists()
    run("hosts", "uninstall", "claude-code")
    assert files(user_home) == {}
    assert (
        "contradict"
        in run("hosts", "install", "claude-code", "--yes", "--no-claude-md", code=2).output
    )


def test_archiving_is_incremental_idempotent_and_waits_for_a_whole_line(tmp_path: Path) -> None:
    transcript = tmp_path / f"{HARNESS_ID}.jsonl"
    lines = (HARNESS / f"{HARNESS_ID}.jsonl").read_bytes().splitlines(keepends=True)
    transcript.write_bytes(b"".join(lines[:7]) + lines[7][:40])  # the tool result half written
    event = HookEvent.parse(
        json.dumps(
            {
                "session_id": HARNESS_ID,
                "transcript_path": str(transcript),
                "hook_event_name": "Stop",
            }
        )
    )
    archive = Archive(tmp_path / "state.db")
    first = archive_new_lines(archive, event)
    assert first.added == 6 and first.offset == sum(len(line) for line in lines[:7])
    assert archive_new_lines(archive, event).added == 0  # nothing new: nothing twice
    transcript.write_bytes(b"".join(lines[:7]) + b"not json\n" + b"".join(lines[7:]))
    rest = archive_new_lines(archive, event)
    assert rest.damaged == 1 and rest.session_id == first.session_id
    (session,) = archive.sessions_by_host_id(HARNESS_ID)
    stored = archive.messages(session)
    assert [m.role for m in stored] == ["system"] * 4 + [
        "user",
        "assistant",
        "tool",
        "system",
        "user",
    ]
    assert stored[6].tool_name == "Edit"  # the call's name carried across passes
    archive.close()


def test_a_session_imported_first_is_taken_over_by_the_hooks_not_doubled(tmp_path: Path) -> None:
    transcript = tmp_path / f"{HARNESS_ID}.jsonl"
    lines = (HARNESS / f"{HARNESS_ID}.jsonl").read_bytes().splitlines(keepends=True)
    transcript.write_bytes(b"".join(lines[:8]))
    archive = Archive(tmp_path / "state.db")
    (imported,) = import_claude_code(archive, transcript).session_ids
    had = len(archive.messages(imported))
    transcript.write_bytes(b"".join(lines))  # the session went on: two more main-thread lines
    event = {
        "session_id": HARNESS_ID,
        "transcript_path": str(transcript),
        "hook_event_name": "Stop",
    }
    first = archive_new_lines(archive, HookEvent.parse(json.dumps(event)))
    assert (first.session_id, first.added) == (imported, 2)
    assert archive_new_lines(archive, HookEvent.parse(json.dumps(event))).added == 0
    assert archive.sessions_by_host_id(HARNESS_ID) == [imported]
    assert len(archive.messages(imported)) == had + 2
    taken = archive.session(imported)
    assert taken is not None and taken.meta["host"] == "claude-code"  # reviewed as the hooks' own
    # The sub-agent line that came meanwhile is archived too, as the session's child.
    (agent,) = archive.children(imported)
    assert [m.content for m in archive.messages(agent.id)] == ["Search for other quokka callers."]
    # From now on the hooks keep it: an import leaves it to them, and finds the
    # sub-agent already there under the key it would give it.
    again = import_claude_code(archive, transcript)
    assert (again.sessions_imported, again.sessions_skipped, again.messages_updated) == (0, 1, 0)
    assert again.skipped_events["session archived live by kenning hosts"] == 1
    assert (again.subagent_sessions, again.messages_imported) == (0, 0)
    assert len(archive.messages(imported)) == had + 2 and len(archive.children(imported)) == 1
    archive.close()


def test_sub_agent_lines_archived_live_go_to_one_child_session_per_sub_agent(
    tmp_path: Path,
) -> None:
    transcript = tmp_path / "t.jsonl"

    def line(uuid: str, parent: str | None, kind: str, text: str, side: bool = False) -> bytes:
        message: dict[str, object] = {"role": kind, "content": text}
        if kind == "assistant":
            message = {"id": f"m-{uuid}", "role": kind, "content": [{"type": "text", "text": text}]}
        data = {"type": kind, "sessionId": "live-1", "uuid": uuid, "parentUuid": parent,
                "isSidechain": side, "message": message}  # fmt: skip
        return json.dumps(data).encode() + b"\n"

    event = HookEvent.parse(
        json.dumps({"session_id": "live-1", "transcript_path": str(transcript)})
    )
    archive = Archive(tmp_path / "state.db")
    transcript.write_bytes(
        line("u1", None, "user", "Audit the pantry.")
        + line("u2", "u1", "user", "Find the expiry code.", side=True)
    )
    first = archive_new_lines(archive, event)
    assert first.session_id is not None
    with transcript.open("ab") as handle:  # the next pass: the chain goes on across passes
        handle.write(line("u3", "u2", "assistant", "expiry.py line 12.", side=True))
        handle.write(line("u4", "u1", "user", "Find the label code.", side=True))
        handle.write(line("u5", "u1", "assistant", "Both found."))
    archive_new_lines(archive, event)
    main = [m.content for m in archive.messages(first.session_id)]
    assert main == ["Audit the pantry.", "Both found."]
    talks = sorted(
        [m.content for m in archive.messages(c.id)] for c in archive.children(first.session_id)
    )
    assert talks == [["Find the expiry code.", "expiry.py line 12."], ["Find the label code."]]
    archive.close()


def test_the_hook_bench_runs_and_reports_the_budget() -> None:
    report = hosts_bench.run(lines=200, runs=2)
    assert report["budget_ms"] == 300 and report["hook_ms"]["p95"] > 0
    assert "budget" in hosts_bench.table(report)[1]


def test_the_hook_never_fails_the_host_on_input_it_cannot_use() -> None:
    for stdin in ("", "not json", '{"no": "session"}'):
        result = CliRunner().invoke(cli, ["hosts", "hook", "claude-code"], input=stdin)
        assert result.exit_code == 0 and result.output == ""
    bad = run("hosts", "sync", "claude-code", "--event", '{"session_id": "x"}', code=1)
    assert "no transcript_path" in bad.output
