"""Claude Code's own lines in a transcript are not the user speaking.

The fixture (tests/archive/fixtures/claude_code_harness) is a session as
Claude Code 1.0.80 writes it: the "Caveat" note, a slash-command echo and its
local output, a compact summary opening the continued session, an interruption
note, a tool_use/tool_result pair and a sidechain line (a sub-agent's prompt).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kenning.archive.importers import import_claude_code
from kenning.archive.store import Archive
from kenning.search.engine import SearchEngine

HARNESS = Path(__file__).parent / "fixtures" / "claude_code_harness"


@pytest.fixture
def archive(archive_on: Archive) -> Archive:
    return archive_on


def test_harness_lines_are_system_rows_and_the_user_speaks_only_twice(archive: Archive) -> None:
    report = import_claude_code(archive, HARNESS)
    session, agent = sorted(archive.sessions(), key=lambda s: s.parent_id is not None)
    assert agent.parent_id == session.id
    assert [m.content for m in archive.messages(agent.id)] == ["Search for other quokka callers."]
    assert session.title == "Please rename the quokka helper to make_label."
    messages = archive.messages(session.id)
    kinds = [(m.role, (m.meta or {}).get("harness")) for m in messages]
    assert kinds == [
        ("system", "caveat"),
        ("system", "command"),
        ("system", "command-output"),
        ("system", "compact-summary"),
        ("user", None),
        ("assistant", None),
        ("tool", None),
        ("system", "interruption"),
        ("user", None),
    ]
    call, result = messages[5], messages[6]
    assert call.content == "Renaming it now." and call.tool_calls is not None
    assert call.tool_calls[0]["function"]["name"] == "Edit"
    assert (result.tool_call_id, result.tool_name) == ("toolu_03Edit", "Edit")
    assert report.subagent_ids == [agent.id]
    assert all("other quokka callers" not in m.content for m in messages)


def test_harness_lines_are_not_found_by_search(archive: Archive) -> None:
    import_claude_code(archive, HARNESS)
    engine = SearchEngine(archive, None)
    for words in ("zebrafish labels", "Caveat local commands", "claude-opus model", "interrupted"):
        assert engine.search(words).hits == [], words
    (hit, *_) = engine.search("quokka helper").hits
    assert hit.kind == "message"


def test_a_session_is_found_by_its_host_session_id(archive: Archive) -> None:
    report = import_claude_code(archive, HARNESS)
    assert archive.sessions_by_host_id("7c9d1e22-4b8a-4c3f-9d10-2f6a8e4b1c33") == report.session_ids
    assert archive.sessions_by_host_id("7c9d1e22") == []


def _line(uuid: str, parent: str | None, kind: str, text: str, **extra: object) -> str:
    import json

    message = {"role": kind, "content": text}
    if kind == "assistant":
        message = {"id": f"msg_{uuid}", "role": kind, "content": [{"type": "text", "text": text}]}
    return json.dumps(
        {
            "type": kind,
            "sessionId": "s-main",
            "uuid": uuid,
            "parentUuid": parent,
            "timestamp": f"2025-08-02T10:00:{int(uuid[1:]):02d}Z",
            "message": message,
            **extra,
        }
    )


def test_each_sub_agent_is_a_child_session_of_its_own(archive: Archive, tmp_path: Path) -> None:
    # Two sub-agents interleaved in the main file (older Claude Code), linked by
    # parentUuid, and one in subagents/agent-*.jsonl named by agentId (newer).
    side = {"isSidechain": True}
    (tmp_path / "s-main.jsonl").write_text(
        "\n".join(
            [
                _line("u1", None, "user", "Audit the pantry module."),
                _line("u2", "u1", "user", "Find the expiry code.", **side),
                _line("u3", "u1", "user", "Find the label code.", **side),
                _line("u4", "u2", "assistant", "expiry.py line 12.", **side),
                _line("u5", "u3", "assistant", "labels.py line 3.", **side),
                _line("u6", "u1", "assistant", "Both found."),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    (tmp_path / "s-main").mkdir()
    (tmp_path / "s-main" / "subagents").mkdir()
    (tmp_path / "s-main" / "subagents" / "agent-a1.jsonl").write_text(
        _line("u7", None, "user", "Check the tests.", agentId="a1", **side)
        + "\n"
        + _line("u8", "u7", "assistant", "All pass.", agentId="a1", **side)
        + "\n",
        encoding="utf-8",
    )
    report = import_claude_code(archive, tmp_path)
    (main,) = report.session_ids
    assert [m.content for m in archive.messages(main)] == [
        "Audit the pantry module.",
        "Both found.",
    ]
    children = archive.children(main)
    assert sorted(report.subagent_ids) == sorted(c.id for c in children) and len(children) == 3
    talks = sorted([m.content for m in archive.messages(c.id)] for c in children)
    assert talks == [
        ["Check the tests.", "All pass."],
        ["Find the expiry code.", "expiry.py line 12."],
        ["Find the label code.", "labels.py line 3."],
    ]
    assert {c.meta.get("agent_id") for c in children} == {None, "a1"}
    # Found by search, in its own session.
    (hit, *_) = SearchEngine(archive, None).search("label code").hits
    assert hit.session_id in {c.id for c in children}
