"""``kenning sessions``: import, list, show and path against a real archive in a temp home."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kenning.cli import cli

FIXTURES = Path(__file__).resolve().parents[1] / "archive" / "fixtures"
LOCOMO = FIXTURES / "locomo_small.json"
CLAUDE = FIXTURES / "claude_code"


def run(*args: str | Path, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


def as_json(*args: str | Path) -> Any:
    return json.loads(run(*args, "--json").stdout)


def test_import_summarises_and_a_second_import_adds_nothing() -> None:
    first = as_json("sessions", "import", "locomo", LOCOMO)
    assert first["format"] == "locomo" and first["paths"] == [str(LOCOMO)]
    assert (first["sessions_imported"], first["sessions_skipped"]) == (3, 0)
    assert first["messages_imported"] == 7 and len(first["session_ids"]) == 3
    human = run("sessions", "import", "locomo", LOCOMO)
    assert "Imported 0 sessions (0 messages); skipped 3 already in the archive." in human.stdout
    # The progress bar is on stderr, so stdout stays clean for --json.
    assert "Importing 3 sessions" in human.stderr
    assert "Importing" not in human.stdout


def test_import_reports_what_was_left_out() -> None:
    out = run("sessions", "import", "claude-code", CLAUDE).stdout
    assert "Imported 2 sessions (12 messages)" in out
    assert "Sub-agents: 1 session linked to their parent" in out
    assert "Left out: 1 × duplicate event, 1 × file-history-snapshot event" in out
    assert "1 × thinking block" in out


def test_malformed_file_is_a_clear_error_and_imports_nothing(tmp_path: Path) -> None:
    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    data[1]["conversation"]["session_1"][0]["speaker"] = None
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data), encoding="utf-8")
    result = run("sessions", "import", "locomo", broken, code=1)
    assert str(broken) in result.stderr
    where = "conversation 1 (conv-x2), session_1, turn 0: 'speaker' must be a string"
    assert where in result.stderr
    assert "nothing was imported" in result.stderr
    assert as_json("sessions", "list") == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["openai", str(FIXTURES / "openai_chat.jsonl"), "--sample", "x"], "only applies to"),
        (["openai", str(FIXTURES)], "is a folder"),
        (["docx", str(LOCOMO)], "'docx' is not one of"),
    ],
)
def test_import_usage_errors(args: list[str], message: str) -> None:
    result = run("sessions", "import", *args, code=2)
    assert message in result.stderr


def test_import_one_locomo_conversation() -> None:
    summary = as_json("sessions", "import", "locomo", LOCOMO, "--sample", "conv-x2")
    assert summary["sessions_imported"] == 1
    assert [s["title"] for s in as_json("sessions", "list")] == ["conv-x2 session 1"]


def test_list_is_newest_first_and_filters_by_source() -> None:
    run("sessions", "import", "locomo", LOCOMO)
    listed = as_json("sessions", "list")
    assert [s["title"] for s in listed] == [
        "conv-x2 session 1",  # January 2024
        "conv-x1 session 2",  # June 2023
        "conv-x1 session 1",  # May 2023
    ]
    assert listed[0]["message_count"] == 2 and listed[0]["source"] == "import"
    assert len(as_json("sessions", "list", "--limit", "1")) == 1
    assert as_json("sessions", "list", "--source", "cli") == []
    human = run("sessions", "list").stdout.splitlines()
    assert human[0].startswith(listed[0]["id"])
    assert "2024-01-03 12:15  import       2 msgs  conv-x2 session 1" in human[0]


def test_list_with_nothing_says_how_to_start() -> None:
    assert "kenning sessions import" in run("sessions", "list").stdout


def test_show_prints_header_messages_and_tool_calls() -> None:
    run("sessions", "import", "claude-code", CLAUDE)
    fix = next(s for s in as_json("sessions", "list") if s["title"].startswith("Fix failing"))
    out = run("sessions", "show", fix["id"]).stdout
    assert out.startswith(f"{fix['id']}  Fix failing pantry expiry test\n")
    assert "source import, started 2025-07-14 09:30 UTC, 5 messages" in out
    assert "workspace: /home/ada/src/pantry" in out
    assert "tokens: 20,710 in, 135 out" in out
    assert '"3b6f0a52-7c1e-4d7a-9e55-0c2d8b1f4a10.jsonl"' in out  # meta as JSON, not repr
    assert "#1  2025-07-14 09:30  user\n  The expiry test fails since yesterday" in out
    assert '  → Bash({"command": "pytest tests/test_expiry.py -q"' in out
    assert "#3  2025-07-14 09:30  tool Bash [toolu_01Run]" in out
    limited = run("sessions", "show", fix["id"], "--limit", "2").stdout
    assert "#3" not in limited and "… 3 more messages" in limited


def test_show_json_and_speakers() -> None:
    run("sessions", "import", "locomo", LOCOMO)
    newest = as_json("sessions", "list")[0]
    shown = as_json("sessions", "show", newest["id"])
    assert shown["session"]["meta"] == {"format": "locomo", "sample_id": "conv-x2", "session": 1}
    assert [m["seq"] for m in shown["messages"]] == [1, 2]
    assert shown["messages"][0]["meta"]["dia_id"] == "D1:1"
    assert "assistant/Dara" in run("sessions", "show", newest["id"]).stdout


def test_show_missing_id_exits_1_and_points_to_list() -> None:
    result = run("sessions", "show", "20990101-000000-abcdef", code=1)
    assert "no session '20990101-000000-abcdef'" in result.stderr
    assert "kenning sessions list" in result.stderr


def test_path_is_the_state_db_in_the_home(_hermetic_home: Path) -> None:
    assert run("sessions", "path").stdout.strip() == str(_hermetic_home / "state.db")


# -- damaged sources ---------------------------------------------------------------


def _kenning(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`kenning` in its own process, so a read that blocks fails the test instead of hanging it."""
    return subprocess.run(
        [sys.executable, "-m", "kenning", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=os.environ.copy(),
    )


def test_damaged_lines_are_skipped_and_listed(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    shutil.copytree(CLAUDE, folder)
    good = b'{"type": "user", "sessionId": "s2", "message": {"role": "user", "content": "ok"}}'
    (folder / "zz.jsonl").write_bytes(b"\n".join([good] + [b"{broken"] * 13) + b"\n")
    result = run("sessions", "import", "claude-code", folder)
    out = result.stdout
    assert "Imported 3 sessions (13 messages)" in out
    assert "Skipped 13 damaged parts:" in out
    assert f"  {folder / 'zz.jsonl'}:2:2: invalid JSON" in out
    assert f"{folder / 'zz.jsonl'}:11:2:" in out and ":12:2:" not in out  # the first 10
    assert "… and 3 more (--json lists them all)" in out
    folder_copy = tmp_path / "again"
    shutil.copytree(folder, folder_copy)
    summary = as_json("sessions", "import", "claude-code", folder_copy)
    assert (summary["sessions_imported"], summary["sessions_skipped"]) == (0, 3)
    assert len(summary["problems"]) == 13
    assert summary["problems"][0] == {
        "path": str(folder_copy / "zz.jsonl"),
        "where": "line 2 column 2",
        "line": 2,
        "problem": "invalid JSON (Expecting property name enclosed in double quotes)",
    }


@pytest.mark.parametrize("fmt", ["claude-code", "openai", "locomo"])
def test_a_fifo_is_refused_up_front(tmp_path: Path, fmt: str) -> None:
    fifo = tmp_path / "export.jsonl"
    os.mkfifo(fifo)
    result = _kenning("sessions", "import", fmt, fifo)
    assert result.returncode == 1, result.stderr
    assert f"{fifo}: is a FIFO (named pipe), not a regular file" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_device_is_refused_up_front() -> None:
    result = _kenning("sessions", "import", "openai", "/dev/null")
    assert result.returncode == 1
    assert "/dev/null: is a character device, not a regular file" in result.stderr


def test_a_fifo_inside_a_folder_is_skipped_and_reported(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    shutil.copytree(CLAUDE, folder)
    fifo = folder / "0-pipe.jsonl"
    os.mkfifo(fifo)
    result = _kenning("sessions", "import", "claude-code", folder)
    assert result.returncode == 0, result.stderr
    assert "Imported 2 sessions (12 messages)" in result.stdout
    assert f"{fifo}: is a FIFO (named pipe), not a regular file" in result.stdout


@pytest.mark.parametrize(
    ("fmt", "name", "body"),
    [
        ("openai", "deep.json", '{"messages": [\n' + "[" * 5000 + "]" * 5000 + "]}"),
        ("openai", "deep.jsonl", '{"messages": ' + "[" * 5000 + "]" * 5000 + "}\n"),
        ("locomo", "deep.json", "[" * 5000 + "]" * 5000),
    ],
)
def test_a_deeply_nested_file_is_a_clear_error(
    tmp_path: Path, fmt: str, name: str, body: str
) -> None:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    result = run("sessions", "import", fmt, path, code=1)
    assert "too deeply nested" in result.stderr and str(path) in result.stderr
    assert "line " in result.stderr and "Traceback" not in result.output


def test_a_deeply_nested_transcript_line_is_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    shutil.copytree(CLAUDE, folder)
    (folder / "deep.jsonl").write_text('{"type": "user", "x": ' + "[" * 5000 + "]" * 5000 + "}")
    out = run("sessions", "import", "claude-code", folder).stdout
    assert "Imported 2 sessions (12 messages)" in out
    assert f"{folder / 'deep.jsonl'}:1:" in out and "too deeply nested" in out


def _jsonl(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    text = "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def test_import_jsonl_appends_new_lines_and_reports_damaged_ones(tmp_path: Path) -> None:
    first = {"session_id": "s1", "role": "user", "content": "The cat is called Miso",
             "timestamp": "2024-05-01T10:00:00Z"}  # fmt: skip
    second = {**first, "role": "assistant", "content": "Noted", "timestamp": "2024-05-01T10:00:05Z"}
    path = _jsonl(tmp_path / "history.jsonl", [first])
    summary = as_json("sessions", "import", "jsonl", path)
    assert (summary["sessions_imported"], summary["messages_imported"]) == (1, 1)
    _jsonl(path, [first, "{oops", second])
    human = run("sessions", "import", "jsonl", path).stdout
    assert "Imported 0 new sessions (0 messages); appended 1 message to 1 session" in human
    assert "already there: 1 message." in human
    assert f"Skipped 1 damaged part:\n  {path}:2: invalid JSON at column 2" in human
    shown = as_json("sessions", "show", "s1")
    assert [m["content"] for m in shown["messages"]] == ["The cat is called Miso", "Noted"]


def test_import_jsonl_with_no_valid_line_is_an_error(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "bad.jsonl", ['{"session_id": "s1"}'])
    result = run("sessions", "import", "jsonl", path, code=1)
    assert f"cannot import: {path}: line 1: no line is a valid message" in result.stderr
    assert "nothing was imported" in result.stderr


def test_show_finds_a_session_by_its_claude_code_session_id() -> None:
    run("sessions", "import", "claude-code", CLAUDE)
    shown = json.loads(
        run(
            "sessions", "show", "--host-id", "3b6f0a52-7c1e-4d7a-9e55-0c2d8b1f4a10", "--json"
        ).stdout
    )
    assert shown["session"]["title"] == "Fix failing pantry expiry test"
    (agent,) = shown["children"]  # its sub-agent, listed apart from the conversation
    assert agent["title"] == "Find where expiry dates are computed."
    human = run("sessions", "show", "--host-id", "3b6f0a52-7c1e-4d7a-9e55-0c2d8b1f4a10").stdout
    assert "Sessions started from this one (1):" in human and agent["id"] in human
    missing = run("sessions", "show", "--host-id", "nope", code=1)
    assert "no session with host id 'nope'" in missing.stderr
    both = run("sessions", "show", "x", "--host-id", "y", code=2)
    assert "one of the two" in both.stderr


def test_chatgpt_is_a_format_name() -> None:
    report = as_json("sessions", "import", "chatgpt", FIXTURES / "chatgpt_conversations.json")
    assert report["sessions_imported"] == 1
