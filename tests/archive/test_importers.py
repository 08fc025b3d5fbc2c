"""Importers: each format parses to the right messages, imports once, and fails loudly."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kenning.archive.importers import (
    ImportFormatError,
    import_claude_code,
    import_locomo,
    import_openai,
    normalise_evidence,
    parse_claude_code,
    parse_openai,
    read_locomo,
    read_source,
)
from kenning.archive.importers.locomo import parse_locomo_date
from kenning.archive.store import Archive, Message

FIXTURES = Path(__file__).parent / "fixtures"
LOCOMO = FIXTURES / "locomo_small.json"
# CI clones the repository with the shared data folder beside it.
REPO = Path(__file__).resolve().parents[2]
REAL_LOCOMO = REPO / ".." / "shared" / "data" / "locomo" / "locomo10.json"


@pytest.fixture
def archive(archive_on: Archive) -> Archive:
    """An empty archive, on each storage backend in turn."""
    return archive_on


def _count(archive: Archive, table: str) -> int:
    return int(archive.storage.connection().execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# -- LoCoMo -------------------------------------------------------------------


def test_read_locomo_gives_sessions_turns_and_normalised_questions() -> None:
    convs = read_locomo(LOCOMO)
    assert [c.sample_id for c in convs] == ["conv-x1", "conv-x2"]
    first = convs[0]
    assert (first.speaker_a, first.speaker_b) == ("Ada", "Brian")
    # session_3_date_time has no session_3: only the sessions that exist count.
    assert [s.index for s in first.sessions] == [1, 2]
    index, started, turns = first.sessions[0]
    assert index == 1 and started == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert [t.dia_id for t in turns] == ["D1:1", "D1:2", "D1:3"]
    assert turns[2].blip_caption == "a photo of a small brown dog on grass"
    assert turns[2].content.endswith("park. [image: a photo of a small brown dog on grass]")
    questions = first.qa
    assert [q.evidence for q in questions] == [("D1:3",), ("D2:2", "D1:1"), (), ("D1:3",)]
    assert questions[1].answer == "2023" and questions[1].category == 2
    assert questions[2].answer is None and questions[2].adversarial_answer == "Siamese"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("D8:6; D9:17", ("D8:6", "D9:17")),
        ("D30:05", ("D30:5",)),
        ("D:11:26", ("D11:26",)),
        ("D9:1 D4:4 D4:6", ("D9:1", "D4:4", "D4:6")),
        ("D", ()),
        (["D1:2", "D1:02", "D3:4"], ("D1:2", "D3:4")),
    ],
)
def test_evidence_ids_are_normalised(raw: str | list[str], expected: tuple[str, ...]) -> None:
    assert normalise_evidence(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("12:30 am on 1 July, 2023", datetime(2023, 7, 1, 0, 30, tzinfo=UTC)),
        ("12:15 pm on 3 January, 2024", datetime(2024, 1, 3, 12, 15, tzinfo=UTC)),
        ("9:05 AM on 12 Sept, 2023", datetime(2023, 9, 12, 9, 5, tzinfo=UTC)),
    ],
)
def test_locomo_dates_parse_as_utc(raw: str, expected: datetime) -> None:
    assert parse_locomo_date(raw) == expected


@pytest.mark.parametrize("raw", ["yesterday", "13:00 pm on 8 May, 2023", "1:56 pm on 8 Mai, 2023"])
def test_bad_locomo_dates_are_refused(raw: str) -> None:
    with pytest.raises(ValueError, match="unrecognised date"):
        parse_locomo_date(raw)


def test_import_locomo_stores_one_session_per_conversation_session(archive: Archive) -> None:
    report = import_locomo(archive, LOCOMO)
    assert (report.sessions_imported, report.sessions_skipped) == (3, 0)
    assert report.messages_imported == 7
    sessions = {s.title: s for s in archive.sessions(limit=10)}
    assert set(sessions) == {"conv-x1 session 1", "conv-x1 session 2", "conv-x2 session 1"}
    s1 = sessions["conv-x1 session 1"]
    assert s1.source == "import" and s1.message_count == 3
    assert s1.meta == {"format": "locomo", "sample_id": "conv-x1", "session": 1}
    assert s1.started_at == datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp()
    messages = archive.messages(s1.id)
    assert [(m.role, m.speaker) for m in messages] == [
        ("user", "Ada"),
        ("assistant", "Brian"),
        ("user", "Ada"),
    ]
    assert [m.created_at for m in messages] == [s1.started_at + i for i in (1, 2, 3)]
    assert messages[2].meta == {"dia_id": "D1:3", "sample_id": "conv-x1"}
    assert "[image: a photo of a small brown dog on grass]" in messages[2].content
    # speaker_b opens conv-x2, so its first message is the assistant's.
    assert archive.messages(sessions["conv-x2 session 1"].id)[0].role == "assistant"


def test_reimporting_locomo_adds_nothing_even_from_another_path(
    archive: Archive, tmp_path: Path
) -> None:
    import_locomo(archive, LOCOMO)
    moved = shutil.copy(LOCOMO, tmp_path / "renamed.json")
    again = import_locomo(archive, moved)
    assert (again.sessions_imported, again.sessions_skipped, again.messages_imported) == (0, 3, 0)
    assert _count(archive, "sessions") == 3 and _count(archive, "messages") == 7
    # An edited session is new content: only it is imported again.
    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    data[1]["conversation"]["session_1"][0]["text"] = "Happy new year, Chen!!"
    edited = import_locomo(archive, _write(tmp_path / "edited.json", data))
    assert (edited.sessions_imported, edited.sessions_skipped) == (1, 2)


def test_import_locomo_can_pick_conversations(archive: Archive) -> None:
    report = import_locomo(archive, LOCOMO, sample_ids=["conv-x2"])
    assert report.sessions_imported == 1
    with pytest.raises(ImportFormatError, match="no conversation conv-zz"):
        import_locomo(archive, LOCOMO, sample_ids=["conv-zz"])


@pytest.mark.parametrize(
    ("breakage", "where"),
    [
        (lambda d: d[1]["conversation"]["session_1"][1].pop("text"), "conversation 1 (conv-x2), "),
        (
            lambda d: d[0]["conversation"].update(session_2_date_time="soon"),
            "conversation 0 (conv-x1), session_2_date_time: unrecognised date",
        ),
        (lambda d: d[0].pop("sample_id"), "conversation 0: 'sample_id'"),
        (lambda d: d[0]["qa"][1].update(category="2"), "qa 1: 'category'"),
    ],
)
def test_malformed_locomo_names_the_place_and_imports_nothing(
    archive: Archive, tmp_path: Path, breakage: Any, where: str
) -> None:
    data = json.loads(LOCOMO.read_text(encoding="utf-8"))
    breakage(data)
    broken = _write(tmp_path / "broken.json", data)
    with pytest.raises(ImportFormatError) as caught:
        import_locomo(archive, broken)
    assert str(broken) in str(caught.value) and where in str(caught.value)
    assert _count(archive, "sessions") == 0


def test_invalid_json_reports_line_and_column(archive: Archive, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('[\n  {"sample_id": "x",\n   "conversation": }\n]', encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"broken\.json: line 3 column 20: invalid JSON"):
        import_locomo(archive, broken)


def test_a_failing_session_leaves_no_trace(
    archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_append = Archive.append

    def flaky(self: Archive, session_id: str, message: Message) -> Message:
        if "learned to sit" in message.content:
            raise RuntimeError("disk full")
        return real_append(self, session_id, message)

    monkeypatch.setattr(Archive, "append", flaky)
    with pytest.raises(RuntimeError, match="disk full"):
        import_locomo(archive, LOCOMO)
    # The session before the failure stays; the failing one has no row and no messages.
    assert [s.title for s in archive.sessions()] == ["conv-x1 session 1"]
    monkeypatch.setattr(Archive, "append", real_append)
    retry = import_locomo(archive, LOCOMO)
    assert (retry.sessions_imported, retry.sessions_skipped) == (2, 1)
    assert _count(archive, "messages") == 7


@pytest.mark.skipif(
    not REAL_LOCOMO.exists(), reason=f"LoCoMo data not found at {REAL_LOCOMO.resolve()}"
)
def test_real_locomo_file_imports_completely_once(archive: Archive) -> None:
    convs = read_locomo(REAL_LOCOMO)
    assert len(convs) == 10
    assert sum(len(c.sessions) for c in convs) == 272
    assert sum(len(s.turns) for c in convs for s in c.sessions) == 5882
    assert sum(len(c.qa) for c in convs) == 1986
    evidence = {e for c in convs for q in c.qa for e in q.evidence}
    dia_ids = {t.dia_id for c in convs for s in c.sessions for t in s.turns}
    assert evidence and all(e.startswith("D") and ":" in e for e in evidence)
    assert len(evidence - dia_ids) < 10  # a handful of gold ids point at missing turns
    report = import_locomo(archive, REAL_LOCOMO)
    assert (report.sessions_imported, report.messages_imported) == (272, 5882)
    again = import_locomo(archive, REAL_LOCOMO)
    assert (again.sessions_imported, again.sessions_skipped, again.messages_imported) == (0, 272, 0)
    assert _count(archive, "messages") == 5882


# -- OpenAI chat format and ChatGPT export --------------------------------------


def test_openai_jsonl_sessions_keep_tools_parts_and_roles(archive: Archive) -> None:
    report = import_openai(archive, FIXTURES / "openai_chat.jsonl")
    assert (report.sessions_imported, report.messages_imported) == (2, 8)
    by_title = {s.title: s for s in archive.sessions() if s.parent_id is None}
    weather = by_title["What's the weather in Oslo? [image]"]
    assert weather.meta["id"] == "ft-001" and weather.meta["undated"] is True
    system, user, call, result, answer = archive.messages(weather.id)
    assert system.role == "system" and user.content == "What's the weather in Oslo?\n[image]"
    assert call.tool_calls == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
        }
    ]
    assert (result.role, result.tool_call_id, result.tool_name) == ("tool", "call_1", "get_weather")
    assert answer.meta == {"weight": 1}
    developer, named, _ = archive.messages(by_title["2+2?"].id)
    assert developer.role == "system" and developer.meta == {"role": "developer"}
    assert named.speaker == "ada"
    assert import_openai(archive, FIXTURES / "openai_chat.jsonl").sessions_skipped == 2


MESSAGES = [
    {"role": "user", "content": "hello"},
    {"role": "assistant", "function_call": {"name": "lookup", "arguments": "{}"}},
    {"role": "function", "name": "lookup", "content": "found"},
]


@pytest.mark.parametrize(
    ("name", "body", "sessions"),
    [
        ("one.json", json.dumps({"messages": MESSAGES}), 1),
        ("list.json", json.dumps([{"messages": MESSAGES}, {"messages": MESSAGES[:1]}]), 2),
        ("messages.json", json.dumps(MESSAGES), 1),
        ("messages.jsonl", "\n".join(json.dumps(m) for m in MESSAGES), 1),
        ("sessions.txt", "\n".join(json.dumps({"messages": [m]}) for m in MESSAGES), 3),
        ("empty-list.json", "[]", 0),
    ],
)
def test_openai_accepts_each_documented_shape(
    archive: Archive, tmp_path: Path, name: str, body: str, sessions: int
) -> None:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    assert import_openai(archive, path).sessions_imported == sessions
    if name == "one.json":
        _, call, reply = archive.messages(archive.sessions()[0].id)
        assert call.tool_calls == [
            {"type": "function", "function": {"name": "lookup", "arguments": "{}"}}
        ]
        assert (reply.role, reply.tool_name, reply.meta) == ("tool", "lookup", {"role": "function"})


def test_identical_sessions_in_one_file_are_both_kept_once(
    archive: Archive, tmp_path: Path
) -> None:
    line = json.dumps({"messages": MESSAGES[:1]})
    path = tmp_path / "twice.jsonl"
    path.write_text(f"{line}\n{line}\n", encoding="utf-8")
    assert import_openai(archive, path).sessions_imported == 2
    assert import_openai(archive, path).sessions_imported == 0


@pytest.mark.parametrize(
    ("name", "body", "where"),
    [
        ("bad.jsonl", '{"messages": []}\n{"messages": [}\n', r"bad\.jsonl: line 2 column 15"),
        (
            "mixed.jsonl",
            '{"messages": []}\n{"role": "user", "content": "hi"}\n',
            r"line 2: a message in a file of session objects",
        ),
        (
            "role.jsonl",
            '{"messages": [{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]}',
            r"line 1, message 1: unknown role 'robot'",
        ),
        ("parts.json", '[{"role": "user", "content": [42]}]', r"item 0, content part 0"),
        ("other.json", '{"hello": "world"}', r"top level: expected"),
        ("empty.json", "  \n", r"empty\.json: the file is empty"),
    ],
)
def test_malformed_openai_names_the_place_and_imports_nothing(
    archive: Archive, tmp_path: Path, name: str, body: str, where: str
) -> None:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ImportFormatError, match=where):
        import_openai(archive, path)
    assert _count(archive, "sessions") == 0


def test_chatgpt_export_follows_the_branch_the_user_saw(archive: Archive) -> None:
    parsed = parse_openai(FIXTURES / "chatgpt_conversations.json")
    assert dict(parsed.skipped) == {"chatgpt thoughts": 1, "chatgpt hidden message": 1}
    (session,) = parsed.sessions
    assert session.title == "Sourdough starter help" and session.started_at == 1700000000.0
    assert session.model == "gpt-4o"
    assert [(m.role, m.content) for m in session.messages] == [
        ("user", "[image]\nMy starter smells like nail polish. Is it dead?"),
        ("assistant", "Not dead, just hungry: feed it twice a day."),
        ("user", "How much flour per feeding?"),
        ("assistant", ""),
        ("tool", "50.0"),
    ]
    # The code interpreter's turn is a call to the python tool, not assistant speech.
    (call,) = session.messages[3].tool_calls or []
    assert call["function"] == {"name": "python", "arguments": '{"code": "50 * 1.0"}'}
    assert session.messages[4].tool_call_id == call["id"] == "n6"
    assert session.messages[3].meta == {
        "id": "n6",
        "content_type": "code",
        "recipient": "python",
        "model": "gpt-4o",
    }
    assert session.messages[4].tool_name == "python"
    report = import_openai(archive, FIXTURES / "chatgpt_conversations.json")
    stored = archive.session(report.session_ids[0])
    assert stored is not None and stored.meta["variant"] == "chatgpt"


def test_chatgpt_memory_turns_are_tool_calls_and_chatgpt_is_a_format_name(
    tmp_path: Path,
) -> None:
    data = json.loads((FIXTURES / "chatgpt_conversations.json").read_text(encoding="utf-8"))
    mapping = data[0]["mapping"]
    mapping["n7"]["children"] = ["n8"]
    for node, author, recipient, text, parent in (
        ("n8", {"role": "assistant"}, "bio", "Keeps a rye sourdough starter.", "n7"),
        ("n9", {"role": "tool", "name": "bio"}, "all", "Model set context updated.", "n8"),
    ):
        message = {"id": node, "author": author, "recipient": recipient, "create_time": 1.7e9}
        message["content"] = {"content_type": "text", "parts": [text]}
        mapping[node] = {"id": node, "message": message, "parent": parent, "children": []}
    mapping["n8"]["children"] = ["n9"]
    data[0]["current_node"] = "n9"
    path = _write(tmp_path / "conversations.json", data)
    (session,) = read_source("chatgpt", path).sessions
    remember, answer = session.messages[-2:]
    assert (remember.role, remember.content) == ("assistant", "")
    assert remember.tool_calls is not None and remember.tool_calls[0]["function"] == {
        "name": "bio",
        "arguments": '{"input": "Keeps a rye sourdough starter."}',
    }
    assert (answer.role, answer.tool_name, answer.tool_call_id) == ("tool", "bio", "n8")


def test_chatgpt_without_current_node_takes_the_newest_branch(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "chatgpt_conversations.json").read_text(encoding="utf-8"))
    del data[0]["current_node"]
    data[0]["mapping"]["n4"]["children"] = ["n5b", "n5a"]
    (session,) = parse_openai(_write(tmp_path / "conversations.json", data)).sessions
    assert session.messages[-1].content == "How much flour? (first draft, edited away)"


def test_chatgpt_missing_parent_is_an_error(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "chatgpt_conversations.json").read_text(encoding="utf-8"))
    data[0]["mapping"]["n4"]["parent"] = "gone"
    with pytest.raises(ImportFormatError, match="item 0: node 'gone' is referenced but missing"):
        parse_openai(_write(tmp_path / "conversations.json", data))


# -- Claude Code ------------------------------------------------------------------

CLAUDE = FIXTURES / "claude_code"
FIX_SESSION = "3b6f0a52-7c1e-4d7a-9e55-0c2d8b1f4a10"


def test_claude_code_folder_becomes_one_session_per_session_id(archive: Archive) -> None:
    report = import_claude_code(archive, CLAUDE)
    assert (report.sessions_imported, report.messages_imported) == (2, 12)
    assert report.skipped_events == {
        "file-history-snapshot event": 1,
        "progress event": 1,
        "duplicate event": 1,
        "thinking block": 1,
    }
    by_title = {s.title: s for s in archive.sessions() if s.parent_id is None}
    fix = by_title["Fix failing pantry expiry test"]  # from the summary line
    assert fix.workspace == "/home/ada/src/pantry" and fix.model == "claude-sonnet-4-20250514"
    assert fix.meta["session_id"] == FIX_SESSION and fix.meta["git_branch"] == "main"
    assert (fix.input_tokens, fix.output_tokens) == (10204 + 10506, 95 + 40)
    messages = archive.messages(fix.id)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "system", "assistant"]
    # The reply's text and tool call came on separate lines: merged, thinking dropped.
    reply = messages[1]
    assert reply.content == "Let me run the test first."
    assert reply.tool_calls is not None and reply.tool_calls[0]["id"] == "toolu_01Run"
    assert json.loads(reply.tool_calls[0]["function"]["arguments"])["command"].startswith("pytest")
    assert (reply.input_tokens, reply.output_tokens) == (10204, 95)
    result = messages[2]
    assert (result.tool_call_id, result.tool_name) == ("toolu_01Run", "Bash")
    assert result.meta is not None and result.meta["is_error"] is True
    assert messages[0].created_at == datetime(2025, 7, 14, 9, 30, tzinfo=UTC).timestamp()
    assert all("date.today()" not in m.content for m in messages)  # the sidechain's text
    # ... which is the sub-agent's own session, linked to this one.
    (agent,) = archive.children(fix.id)
    assert report.subagent_ids == [agent.id]
    assert agent.title == "Find where expiry dates are computed."
    assert agent.meta["sidechain"] is True and agent.meta["parent_session_id"] == FIX_SESSION
    assert "session_id" not in agent.meta  # --host-id finds the main session only
    asked, answer = archive.messages(agent.id)
    assert (asked.role, answer.role) == ("user", "assistant")
    assert answer.content == "pantry/expiry.py line 12 uses date.today()."


def test_claude_code_titles_and_flags_without_a_summary(archive: Archive) -> None:
    import_claude_code(archive, CLAUDE / "5d2e9c41-1a7b-4f0e-8b3d-6e4f2a9c7b21.jsonl")
    # The file also carries one line copied from the earlier session (resumed
    # history): alone, it is imported as that session's own, separate record.
    session, copied = archive.sessions()
    assert copied.meta["session_id"] == FIX_SESSION and copied.message_count == 1
    assert session.title == "Make the label printer match this mock-up. [image]"
    assert session.model == "claude-opus-4-20250514"
    clear, prompt, call, result, _ = archive.messages(session.id)
    assert clear.meta is not None and clear.meta["is_meta"] is True
    assert (clear.role, clear.meta["harness"]) == ("system", "command")  # not the user
    assert prompt.content == "Make the label printer match this mock-up.\n[image]"
    assert call.content == "" and call.tool_calls is not None
    assert result.content.endswith("return label.upper()") and result.tool_name == "Read"


def test_claude_code_reimport_adds_nothing(archive: Archive) -> None:
    import_claude_code(archive, CLAUDE)
    again = import_claude_code(archive, CLAUDE)
    assert (again.sessions_imported, again.sessions_skipped) == (0, 2)
    assert (again.subagent_sessions, again.messages_imported) == (0, 0)
    assert _count(archive, "messages") == 12


def test_claude_code_malformed_line_is_skipped_and_named(archive: Archive, tmp_path: Path) -> None:
    folder = tmp_path / "project"
    shutil.copytree(CLAUDE, folder)
    bad = folder / "zz-broken.jsonl"
    bad.write_text(
        '{"type": "user", "sessionId": "s1", "message": {"role": "user", "content": "hi"}}\n'
        '{"type": "assistant", "sessionId": "s1"}\n',
        encoding="utf-8",
    )
    report = import_claude_code(archive, folder)
    assert (report.sessions_imported, report.messages_imported) == (3, 13)
    (problem,) = report.problems
    assert str(problem) == f"{bad}:2: an assistant event without a 'message' object"
    bad.write_text('{"type": "user", "sessionId": "s1", "message": {"role": "us', encoding="utf-8")
    with pytest.raises(ImportFormatError, match=r"zz-broken\.jsonl: line 1 column \d+"):
        import_claude_code(archive, bad)  # alone, nothing in it can be read


def test_claude_code_empty_folder_and_unknown_events(tmp_path: Path) -> None:
    with pytest.raises(ImportFormatError, match=r"no \.jsonl transcripts"):
        parse_claude_code(tmp_path)
    only_noise = tmp_path / "noise.jsonl"
    only_noise.write_text('{"type": "queue-operation"}\n{"type": "summary"}\n', encoding="utf-8")
    parsed = parse_claude_code(only_noise)
    assert parsed.sessions == [] and parsed.skipped["queue-operation event"] == 1
