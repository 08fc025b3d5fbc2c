"""Damaged sources: one bad line, one bad conversation or one deep value costs only itself.

Real-format fixtures (tests/archive/fixtures) with damage inserted: invalid
JSON, the wrong shape, bytes that are not UTF-8, nesting deep enough to blow
the parser's stack. Whatever is intact is imported, the damage is reported
with its file and line, and importing again adds nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from kenning.archive.importers import (
    ImportFormatError,
    import_claude_code,
    import_openai,
    parse_claude_code,
    parse_locomo,
    parse_openai,
)
from kenning.archive.importers.sources import MAX_DEPTH, too_deep
from kenning.archive.store import Archive

FIXTURES = Path(__file__).parent / "fixtures"
CLAUDE = FIXTURES / "claude_code"
FIX_FILE = CLAUDE / "3b6f0a52-7c1e-4d7a-9e55-0c2d8b1f4a10.jsonl"
DEEP = "[" * 5000 + "]" * 5000  # past the JSON parser's own recursion limit


@pytest.fixture
def archive(archive_on: Archive) -> Archive:
    """An empty archive, on each storage backend in turn."""
    return archive_on


def _messages(archive: Archive) -> int:
    return int(archive.storage.connection().execute("SELECT count(*) FROM messages").fetchone()[0])


def _insert_lines(source: Path, target: Path, after: dict[int, bytes]) -> None:
    """Copy ``source`` to ``target`` with raw lines inserted after the given line numbers."""
    out: list[bytes] = []
    for number, line in enumerate(source.read_bytes().splitlines(keepends=True), 1):
        out.append(line)
        if number in after:
            out.append(after[number] + b"\n")
    target.write_bytes(b"".join(out))


# -- Claude Code ------------------------------------------------------------------


def test_damaged_lines_in_a_transcript_cost_only_themselves(
    archive: Archive, tmp_path: Path
) -> None:
    folder = tmp_path / "project"
    shutil.copytree(CLAUDE, folder)
    damaged = folder / FIX_FILE.name
    _insert_lines(
        FIX_FILE,
        damaged,
        {
            2: b'{"type": "user", "sessionId": "3b6f0a52", "message": {"role": "us',  # cut JSON
            4: b'{"type": "assistant", "sessionId": "3b6f0a52-7c1e"}',  # no message
            6: b'{"type": "user", "message": {"content": "caf\xe9"}}',  # Latin-1, not UTF-8
            8: b'{"type": "user", "x": ' + DEEP.encode() + b"}",
            9: b"[1, 2, 3]",  # JSON, but not an event
        },
    )
    report = import_claude_code(archive, folder)
    # Everything the intact import has (tests/archive/test_importers.py) is still there.
    assert (report.sessions_imported, report.messages_imported) == (2, 12)
    assert report.subagent_sessions == 1  # the two sidechain lines: one sub-agent
    lines = [(p.path, p.line) for p in report.problems]
    assert lines == [(str(damaged), n) for n in (3, 6, 9, 12, 14)]
    reasons = [p.problem for p in report.problems]
    assert reasons[0].startswith("invalid JSON (Unterminated string")
    assert reasons[1] == "an assistant event without a 'message' object"
    assert reasons[2] == "not UTF-8 text"
    assert reasons[3].startswith("too deeply nested")
    assert reasons[4] == "expected a JSON object"
    assert str(report.problems[0]).startswith(f"{damaged}:3:63: invalid JSON")
    assert str(report.problems[1]) == f"{damaged}:6: {reasons[1]}"
    # The damage added nothing to the sessions' content, so importing the
    # repaired folder adds nothing.
    shutil.copy(FIX_FILE, damaged)
    again = import_claude_code(archive, folder)
    assert (again.sessions_imported, again.sessions_skipped) == (0, 2)
    assert again.problems == [] and _messages(archive) == 12


def test_reimporting_a_damaged_folder_adds_nothing(archive: Archive, tmp_path: Path) -> None:
    folder = tmp_path / "project"
    shutil.copytree(CLAUDE, folder)
    (folder / "zz.jsonl").write_bytes(
        b'{"type": "user", "sessionId": "s9", "message": {"role": "user", "content": "hi"}}\n'
        b"not json at all\n"
        b'{"type": "assistant", "sessionId": "s9", "message": {"id": "m1", "content": "yo"}}\n'
    )
    first = import_claude_code(archive, folder)
    assert (first.sessions_imported, first.messages_imported, len(first.problems)) == (3, 14, 1)
    second = import_claude_code(archive, folder)
    assert (second.sessions_imported, second.sessions_skipped) == (0, 3)
    assert _messages(archive) == 14


def test_a_file_of_nothing_but_damage_is_an_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b"{oops\n\xff\xfe\n")
    with pytest.raises(ImportFormatError) as caught:
        parse_claude_code(broken)
    assert "broken.jsonl: line 1 column 2: invalid JSON" in str(caught.value)
    assert "(and 1 more problems)" in str(caught.value)


def test_a_line_break_inside_a_json_string_is_not_a_line_end(tmp_path: Path) -> None:
    # U+2028 is valid inside a JSON string; str.splitlines() would cut there.
    line = {
        "type": "user",
        "sessionId": "s1",
        "uuid": "u1",
        "message": {"role": "user", "content": "one\u2028two"},
    }
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    parsed = parse_claude_code(path)
    assert parsed.problems == []
    assert parsed.sessions[0].messages[0].content == "one\u2028two"


# -- OpenAI chat format and ChatGPT exports ---------------------------------------


def test_a_damaged_conversation_line_is_skipped(archive: Archive, tmp_path: Path) -> None:
    path = tmp_path / "chats.jsonl"
    _insert_lines(
        FIXTURES / "openai_chat.jsonl",
        path,
        {
            1: b'{"messages": [{"role": "user", "content": "cut',
            2: b'{"messages": [{"role": "robot", "content": "beep"}]}',
        },
    )
    report = import_openai(archive, path)
    assert (report.sessions_imported, report.messages_imported) == (2, 8)
    assert [(p.line, p.problem.split(" (")[0]) for p in report.problems] == [
        (2, "invalid JSON"),
        (
            4,
            "unknown role 'robot'; expected one of ['assistant', 'developer', 'function', "
            "'system', 'tool', 'user']",
        ),
    ]
    assert report.problems[1].where == "line 4, message 0"
    assert import_openai(archive, path).sessions_skipped == 2


def test_a_damaged_chatgpt_conversation_is_skipped(archive: Archive, tmp_path: Path) -> None:
    good = json.loads((FIXTURES / "chatgpt_conversations.json").read_text(encoding="utf-8"))[0]
    broken = json.loads(json.dumps(good))
    broken["conversation_id"] = "broken"
    broken["mapping"]["n4"]["parent"] = "gone"
    deep = json.loads(json.dumps(good))
    deep["conversation_id"] = "deep"
    deep["mapping"]["n1"]["message"]["metadata"] = json.loads("[" * 300 + "]" * 300)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([broken, good, deep]), encoding="utf-8")
    report = import_openai(archive, path)
    assert report.sessions_imported == 1
    assert [(p.where, p.problem.split(" (")[0]) for p in report.problems] == [
        ("item 0", "node 'gone' is referenced but missing"),
        ("item 2", "too deeply nested"),
    ]
    (session,) = archive.sessions()
    assert session.meta["conversation_id"] == good["conversation_id"]


def test_damage_in_a_file_of_messages_fails_the_file(archive: Archive, tmp_path: Path) -> None:
    # A file of messages is one conversation: skipping a line would change it silently.
    path = tmp_path / "messages.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n{"role": "assis\n', encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"messages\.jsonl: line 2 column \d+: invalid"):
        import_openai(archive, path)
    assert archive.sessions() == []


# -- deep nesting ------------------------------------------------------------------


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 5000])
def test_a_deep_json_document_is_refused_at_its_line(tmp_path: Path, depth: int) -> None:
    nested = "[" * depth + "]" * depth
    path = tmp_path / "deep.json"
    path.write_text('{\n  "messages": [\n    {"role": "user", "x": ' + nested + "}]}\n")
    with pytest.raises(ImportFormatError) as caught:
        parse_openai(path)
    assert str(caught.value).startswith(f"{path}: line 3 column ")
    assert "too deeply nested" in str(caught.value)


def test_a_deep_jsonl_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "sessions.jsonl"
    line = json.dumps({"messages": [{"role": "user", "content": "ok"}]})
    path.write_text(f'{line}\n{{"messages": {DEEP}}}\n{line}\n', encoding="utf-8")
    parsed = parse_openai(path)
    assert len(parsed.sessions) == 2
    (problem,) = parsed.problems
    assert problem.line == 2 and problem.problem.startswith("too deeply nested")


def test_a_deep_locomo_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(DEEP, encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"locomo\.json: line 1 column 201: too deeply"):
        parse_locomo(path)


def test_depth_is_measured_without_recursion() -> None:
    value: Any = []
    for _ in range(100_000):
        value = [value]
    assert too_deep(value)
    assert not too_deep({"a": [{"b": [1, 2, {"c": None}]}]})
    assert not too_deep("text")
