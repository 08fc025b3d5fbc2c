"""Compaction's cut: head, tail, the pinned ask — and never a call without its result."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.context.conftest import call, entries

from kenning.context.compact import plan, valid_cuts
from kenning.context.transcript import Entry
from kenning.models.types import ChatMessage


def size(entry: Entry) -> int:
    return len(entry.message.content) + 4


def pairs_intact(kept: list[Entry]) -> bool:
    """Every call in ``kept`` has its result in ``kept`` and vice versa."""
    calls = {c.id for e in kept for c in e.message.tool_calls}
    results = {e.message.tool_call_id for e in kept if e.message.role == "tool"}
    return calls == results


@st.composite
def conversations(draw: st.DrawFn) -> list[Entry]:
    """User asks, each answered after 0-3 rounds of 1-3 parallel tool calls."""
    messages: list[ChatMessage] = []
    n = 0
    for turn in range(draw(st.integers(1, 8))):
        messages.append(ChatMessage.user(f"ask {turn} " + "u" * draw(st.integers(0, 80))))
        for _ in range(draw(st.integers(0, 3))):
            batch = [call("t", f"c{n + k}") for k in range(draw(st.integers(1, 3)))]
            n += len(batch)
            messages.append(ChatMessage.assistant("", batch))
            for c in batch:
                messages.append(ChatMessage.tool(c.id, "t", "r" * draw(st.integers(1, 300))))
        if draw(st.booleans()) or turn == 0:
            messages.append(ChatMessage.assistant("answer " + "a" * draw(st.integers(0, 60))))
    return entries(messages)


@settings(max_examples=150, deadline=None)
@given(conversations(), st.integers(0, 2_000), st.integers(0, 10), st.integers(0, 600))
def test_no_cut_ever_separates_a_call_from_its_result(
    items: list[Entry], tail_budget: int, tail_min: int, head_budget: int
) -> None:
    p = plan(items, size, tail_budget=tail_budget, tail_min=tail_min, head_budget=head_budget)
    kept = [*p.head, *([p.pinned] if p.pinned else []), *p.tail]
    assert pairs_intact(kept)
    assert pairs_intact(p.middle)
    # nothing lost or duplicated, order kept
    assert sorted(e.seq for e in [*kept, *p.middle]) == [e.seq for e in items]
    assert [e.seq for e in kept] == sorted(e.seq for e in kept)


def test_valid_cuts_mark_exactly_the_positions_inside_a_call_and_its_results() -> None:
    c1, c2 = call("t", "a"), call("t", "b")
    items = entries(
        [
            ChatMessage.user("go"),
            ChatMessage.assistant("", [c1, c2]),
            ChatMessage.tool("a", "t", "1"),
            ChatMessage.tool("b", "t", "2"),
            ChatMessage.assistant("done"),
        ]
    )
    # before the results (2) and between them (3) would split the batch
    assert valid_cuts(items) == [True, True, False, False, True, True]


def test_every_cut_point_of_a_tool_heavy_turn_keeps_pairs() -> None:
    messages = [ChatMessage.user("first"), ChatMessage.assistant("hello")]
    messages.append(ChatMessage.user("the long task"))
    for i in range(10):
        batch = [call("t", f"x{i}a"), call("t", f"x{i}b")]
        messages.append(ChatMessage.assistant(f"step {i}", batch))
        messages += [ChatMessage.tool(c.id, "t", "r" * 50) for c in batch]
    items = entries(messages)
    for budget in range(0, 2_000, 7):
        p = plan(items, size, tail_budget=budget, tail_min=0, head_budget=10_000)
        assert pairs_intact([*p.head, *([p.pinned] if p.pinned else []), *p.tail])
        assert not p.tail or p.tail[0].message.role != "tool"


def test_head_is_the_first_exchange_tail_the_newest_and_the_latest_ask_is_pinned() -> None:
    messages = [ChatMessage.user("first ask"), ChatMessage.assistant("first answer")]
    for i in range(10):
        messages += [ChatMessage.user(f"ask {i}"), ChatMessage.assistant(f"answer {i}")]
    messages.append(ChatMessage.user("the latest ask"))
    for i in range(8):
        c = call("t", f"w{i}")
        messages += [ChatMessage.assistant("", [c]), ChatMessage.tool(c.id, "t", "r" * 100)]
    items = entries(messages)
    p = plan(items, size, tail_budget=300, tail_min=2, head_budget=1_000)
    assert [e.message.content for e in p.head] == ["first ask", "first answer"]
    assert p.pinned is not None and p.pinned.message.content == "the latest ask"
    assert p.tail[-1] is items[-1] and p.tail[0].message.role == "assistant"
    assert items[2] in p.middle and p.pinned not in p.middle


def test_a_head_too_big_for_its_budget_keeps_only_the_first_ask() -> None:
    c = call("t", "big")
    items = entries(
        [
            ChatMessage.user("first"),
            ChatMessage.assistant("", [c]),
            ChatMessage.tool("big", "t", "r" * 5_000),
            ChatMessage.assistant("done"),
            *[ChatMessage.user(f"q{i}") for i in range(6)],
        ]
    )
    p = plan(items, size, tail_budget=10, tail_min=1, head_budget=100)
    assert [e.message.content for e in p.head] == ["first"]
    assert pairs_intact(p.middle)


def test_the_minimum_tail_count_wins_over_the_budget() -> None:
    items = entries([ChatMessage.user("u" * 500) for _ in range(12)])
    p = plan(items, size, tail_budget=0, tail_min=5, head_budget=10_000)
    assert len(p.tail) == 5
