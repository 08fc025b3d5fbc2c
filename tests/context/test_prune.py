"""Prune: old tool results shrink in the view, at 30 % and 50 %, never in the archive."""

from __future__ import annotations

from pathlib import Path

from tests.context.conftest import call, config, engine, entries, fill, run, start

from kenning.context.prune import PLACEHOLDER_MIN_CHARS, protected_span, prune, stage_for
from kenning.home import Home
from kenning.models.types import ChatMessage
from kenning.testing.models import FunctionModel, tool_call


def where(entry: object) -> str:
    return "session_search(...)"


def conversation(result_chars: int = 6_000, rounds: int = 6) -> list[ChatMessage]:
    messages = [ChatMessage.user("first ask")]
    for i in range(rounds):
        c = call("read_file", f"c{i}", path=f"src/mod_{i}.py")
        messages.append(ChatMessage.assistant("", [c]))
        messages.append(ChatMessage.tool(c.id, "read_file", f"{i}" + "y" * result_chars))
    messages.append(ChatMessage.assistant("done"))
    return messages


def test_stages_start_at_their_thresholds() -> None:
    cfg = config()
    assert stage_for(0.29, cfg) == "none"
    assert stage_for(0.30, cfg) == "trim"
    assert stage_for(0.49, cfg) == "trim"
    assert stage_for(0.50, cfg) == "placeholder"


def test_below_thirty_percent_nothing_changes() -> None:
    items = entries(conversation())
    result = prune(items, 0.29, config(), where)
    assert result.messages == [e.message for e in items] and result.stage == "none"


def test_from_thirty_percent_old_long_results_become_head_and_tail() -> None:
    items = entries(conversation())
    result = prune(items, 0.30, config(), where)
    cut = [m for m in result.messages if m.role == "tool" and "characters cut here" in m.content]
    # 6 results; the last 3 assistant turns (2 calls + the answer) are protected
    assert len(cut) == 4 and result.trimmed == 4
    first = cut[0]
    assert first.content.startswith("0yyy") and first.content.endswith("yyy")
    assert len(first.content) < 3_000 and "session_search" in first.content
    assert result.messages[-2].content == items[-2].message.content  # protected, whole


def test_short_results_are_not_trimmed() -> None:
    items = entries(conversation(result_chars=3_000))
    assert prune(items, 0.4, config(), where).trimmed == 0


def test_from_fifty_percent_old_results_become_a_line_naming_tool_target_and_source() -> None:
    items = entries(conversation(result_chars=1_000))
    result = prune(items, 0.50, config(), where)
    lines = [m.content for m in result.messages if m.role == "tool" and m.content.startswith("[")]
    assert len(lines) == 4 and result.replaced == 4
    assert lines[0] == (
        '[Result pruned to save context: read_file(path="src/mod_0.py") returned '
        "1,001 characters (ok). Full result: session_search(...)]"
    )
    # pairing is unchanged: every result keeps its call id
    ids = [m.tool_call_id for m in result.messages if m.role == "tool"]
    assert ids == [f"c{i}" for i in range(6)]


def test_everything_before_the_first_user_message_and_the_last_three_turns_are_protected() -> None:
    c = call("shell", "boot", command="uname -a")
    early = [ChatMessage.assistant("", [c]), ChatMessage.tool("boot", "shell", "z" * 9_000)]
    items = entries([*early, *conversation()])
    start, end = protected_span(items, 3)
    assert start == 2 and items[end].message.role == "assistant"
    result = prune(items, 0.9, config(), where)
    assert result.messages[1].content == "z" * 9_000
    assert sum(1 for m in result.messages[end:] if m.role == "tool" and m.content[0] == "[") == 0


def test_tiny_results_stay_as_they_are() -> None:
    c = call("memory", "m1", action="add")
    messages = [
        ChatMessage.user("go"),
        ChatMessage.assistant("", [c]),
        ChatMessage.tool("m1", "memory", "Saved."),
        *conversation()[1:],
    ]
    result = prune(entries(messages), 0.9, config(), where)
    assert result.messages[2].content == "Saved."
    assert len("Saved.") < PLACEHOLDER_MIN_CHARS


def test_pruning_changes_the_view_sent_and_never_the_archive(home: Home, tmp_path: Path) -> None:
    def reply(messages: list[ChatMessage], tools: object, settings: object) -> object:
        if messages[-1].role == "user":
            return tool_call("lookup", topic=messages[-1].content)
        return "noted"

    ctx = engine(cfg=config(flush=False, compact_at=2.0, prune_min_chars=100))
    model = FunctionModel(reply, context_window=4_000)
    session = start(home, model, tmp_path, ctx)
    for i in range(6):
        run(session, f"topic {i}")
    sent = model.calls[-1].messages
    placeholders = [m for m in sent if m.role == "tool" and m.content.startswith("[Result pruned")]
    assert placeholders, "the view past 50 % carries placeholders"
    assert "lookup(topic=" in placeholders[0].content
    stored = [m for m in home.archive.messages(session.session_id) if m.role == "tool"]
    assert all(m.content.startswith("notes on topic") for m in stored)
    assert all(
        e.message.content.startswith("notes on")
        for e in session.transcript.entries
        if e.message.role == "tool"
    )
    # the placeholder names the archived message that holds the full text
    first = stored[0]
    assert f"message_id={first.id}" in placeholders[0].content


def test_a_spilled_result_points_at_its_spill_file(home: Home, tmp_path: Path) -> None:
    ctx = engine(cfg=config(flush=False, compact_at=2.0))
    session = start(home, FunctionModel(lambda m, t, s: "ok", context_window=1_000), tmp_path, ctx)
    fill(session, [("hello", "hi")])
    c = call("dump_log", "d1")
    session.transcript.append(ChatMessage.assistant("", [c]))
    session.transcript.append(
        ChatMessage.tool("d1", "dump_log", "preview " * 60), meta={"spill_path": "/tmp/spill/x.txt"}
    )
    fill(session, [("more", "sure"), ("again", "yes"), ("last", "ok")])
    view = ctx.peek(session)
    pruned = next(m for m in view if m.role == "tool")
    assert 'read_file(path="/tmp/spill/x.txt")' in pruned.content
