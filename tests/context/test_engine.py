"""The engine in the loop: budget notes, flush, compaction, guard, failure, overflow, resume."""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path
from typing import Any

from tests.context.conftest import CharCounter, FakeClock, config, engine, fill, run, start

from kenning.agent.events import ModelReplied, Notice, TextChunk, TurnEnded
from kenning.agent.loop import AgentSession, AgentSettings
from kenning.context.budget import NOTE_PREFIX
from kenning.context.engine import ContextEngine, compact_now
from kenning.context.report import CompactionReport
from kenning.context.transcript import COMPACTION_KEY, Transcript
from kenning.home import Home
from kenning.memory.store import Target
from kenning.models.errors import ModelError
from kenning.models.types import ChatMessage, ToolSpec, Usage
from kenning.runtime.factory import build_tools
from kenning.testing.models import FunctionModel, reply, tool_call
from kenning.testing.summariser import DeterministicSummariser
from kenning.tools.registry import ToolRegistry


def agent(summariser: DeterministicSummariser | None = None) -> Any:
    """The session's model: flush turns go to ``summariser``, asks get a short answer."""

    def answer(messages: list[ChatMessage], tools: list[ToolSpec], settings: Any) -> Any:
        if any(t.name == "journal_append" for t in tools):
            return summariser.flush(messages) if summariser else "NO_REPLY"
        return f"ok: {messages[-1].content[:24]}"

    return answer


def reports_of(ctx: ContextEngine) -> list[CompactionReport]:
    found: list[CompactionReport] = []
    ctx.on_compaction = lambda session, report: found.append(report)
    return found


def ask(i: int) -> str:
    return f"ask {i}: check build a1b2c3d4{i:04d} " + "." * 120


def stored_summaries(home: Home, session_id: str) -> list[Any]:
    return [m for m in home.archive.messages(session_id) if m.meta and COMPACTION_KEY in m.meta]


# -- budget -------------------------------------------------------------------------------


def test_budget_notes_at_70_85_90_live_in_the_view_only(home: Home, tmp_path: Path) -> None:
    ctx = engine(cfg=config(flush=False, compact_at=2.0, prune_at=2.0, placeholder_at=2.0))
    model = FunctionModel(agent(), context_window=10_000)
    session = start(home, model, tmp_path, ctx, tools=ToolRegistry())
    # "SYSTEM" costs 10; a message its length + 4: 7,000 tokens = 70 %
    session.transcript.append(ChatMessage.user("x" * 6_986))
    first = asyncio.run(ctx.prepare(session))
    assert NOTE_PREFIX in first[-1].content and "70%" in first[-1].content
    session.transcript.append(ChatMessage.assistant("y" * 6))
    session.transcript.append(ChatMessage.user("z" * 1_300))
    second = asyncio.run(ctx.prepare(session))
    assert NOTE_PREFIX in second[-1].content and "survive verbatim" in second[-1].content
    session.transcript.append(ChatMessage.assistant("y" * 6))
    session.transcript.append(ChatMessage.user("w" * 200))
    third = asyncio.run(ctx.prepare(session))
    assert "nearly full" in third[-1].content
    # each note stays on its message (a stable prefix), none is repeated
    assert third[1].content == first[1].content and third[3].content == second[3].content
    assert sum(m.content.count(NOTE_PREFIX) for m in third) == 3
    assert len({call[0].content for call in [first, second, third]}) == 1  # frozen prompt
    assert not any(NOTE_PREFIX in m.content for m in home.archive.messages(session.session_id))
    assert not any(NOTE_PREFIX in e.message.content for e in session.transcript.entries)


def test_usage_reported_by_the_provider_calibrates_the_estimate(home: Home, tmp_path: Path) -> None:
    ctx = engine(cfg=config(calibrate=True, flush=False, compact_at=2.0, prune_at=2.0))

    def doubled(messages: list[ChatMessage], tools: Any, settings: Any) -> Any:
        sent = sum(len(m.content) + 4 for m in messages)
        return reply("fine", usage=Usage(input_tokens=2 * sent, output_tokens=1))

    session = start(home, FunctionModel(doubled, context_window=100_000), tmp_path, ctx)
    run(session, "x" * 2_000)
    before = ctx.status(session).tokens
    run(session, "again")
    assert ctx.status(session).tokens > 1.4 * before


# -- flush --------------------------------------------------------------------------------


def test_flush_is_silent_runs_once_a_cycle_and_can_only_write_the_journal(
    home: Home, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    offered: list[list[str]] = []

    def model_fn(messages: list[ChatMessage], tools: list[ToolSpec], settings: Any) -> Any:
        names = [t.name for t in tools]
        if "journal_append" in names:
            offered.append(names)
            if messages[-1].role == "tool":
                return "NO_REPLY"
            return [
                tool_call("write_file", path="leak.txt", content="x"),
                tool_call("memory", action="add", target="memory", content="Leaked fact."),
                tool_call("journal_append", text="- Rule: always use tabs\n- Id: a1b2c3d4e5f6"),
            ]
        return "fine"

    ctx = engine(cfg=config(flush_at=0.5, compact_at=2.0, prune_at=2.0, placeholder_at=2.0))
    model = FunctionModel(model_fn, context_window=100_000)
    session = start(home, model, work, ctx, tools=build_tools(home))
    fixed = ctx.status(session).tokens
    model._context_window = 2 * (fixed + 1_000)
    events = run(session, "x" * 1_200)
    assert offered == [["journal_append"], ["journal_append"]]
    assert not (work / "leak.txt").exists()
    assert (
        "Leaked" not in home.layout.memory_file.read_text()
        if home.layout.memory_file.exists()
        else True
    )
    journal = home.journal.read(date.today()) or ""
    assert "always use tabs" in journal and "a1b2c3d4e5f6" in journal
    flush_messages = [
        m for m in home.archive.messages(session.session_id) if m.meta and m.meta.get("flush")
    ]
    assert flush_messages and all(not m.active for m in flush_messages)
    refusals = [
        m.content for m in flush_messages if m.role == "tool" and m.tool_name != "journal_append"
    ]
    assert len(refusals) == 2 and all("memory flush" in r for r in refusals)
    assert [e.message.content for e in session.transcript.entries] == ["x" * 1_200, "fine"]
    shown = [e.text for e in events if isinstance(e, TextChunk | ModelReplied)]
    assert "NO_REPLY" not in " ".join(shown)
    assert any(isinstance(e, Notice) and "journal" in e.text for e in events)
    run(session, "y" * 200)  # still past flush_at: no second flush in this cycle
    assert len(offered) == 2


# -- compaction ---------------------------------------------------------------------------


def compacting_session(
    home: Home, tmp_path: Path, summariser: Any, *, window: int = 4_000, **cfg: Any
) -> tuple[AgentSession, ContextEngine, FunctionModel]:
    options = {"compact_at": 0.8, "flush_at": 0.75, "tail_share": 0.1, **cfg}
    ctx = engine(cfg=config(**options), summariser=summariser)
    flusher = summariser if isinstance(summariser, DeterministicSummariser) else None
    model = FunctionModel(agent(flusher), context_window=window)
    return start(home, model, tmp_path, ctx, tools=ToolRegistry()), ctx, model


def test_compaction_at_the_threshold_keeps_head_pinned_ask_and_tail(
    home: Home, tmp_path: Path
) -> None:
    summariser = DeterministicSummariser()
    session, ctx, model = compacting_session(home, tmp_path, summariser)
    reports = reports_of(ctx)
    notices: list[str] = []
    for i in range(30):
        notices += [e.text for e in run(session, ask(i)) if isinstance(e, Notice)]
        if reports:
            break
    report = reports[0]
    assert report.compacted and report.guard == "accepted" and report.reason == "threshold"
    assert report.tokens_after < report.tokens_before and report.flushed
    assert any("Context compacted" in n for n in notices)
    entries = session.transcript.entries
    assert [e.message.content for e in entries[:2]] == [ask(0), f"ok: {ask(0)[:24]}"]
    summary = entries[2].message.content
    assert summary.startswith("[CONTEXT SUMMARY — REFERENCE ONLY]")
    assert "latest user message wins" in summary and "session_search" in summary
    for i in range(1, 4):  # identifiers of compacted messages are carried verbatim
        assert f"a1b2c3d4{i:04d}" in summary
    stored = home.archive.messages(session.session_id)
    compacted = [m.seq for m in stored if m.compacted and not (m.meta or {}).get("flush")]
    assert len(compacted) == report.messages_compacted
    assert {e.seq for e in entries}.isdisjoint(compacted)
    # the next request sent exactly the compacted view
    assert [m.content for m in model.calls[-1].messages[1:]] == [
        e.message.content for e in entries[:-1]
    ]


def test_the_guard_catches_a_summary_that_dropped_an_identifier(home: Home, tmp_path: Path) -> None:
    summariser = DeterministicSummariser(drop_every=2)
    session, ctx, _ = compacting_session(home, tmp_path, summariser)
    reports = reports_of(ctx)
    for i in range(30):
        run(session, ask(i))
        if reports:
            break
    report = reports[0]
    assert report.guard == "retried" and report.caught
    assert report.summary_requests == len(summariser.calls) >= 2
    retry = summariser.calls[-1].messages[-1].content
    assert "<correction>" in retry and report.caught[0] in retry
    summary = session.transcript.entries[2].message.content
    assert all(item in summary for item in report.caught)


def test_a_summary_that_stays_incomplete_is_patched_with_the_missing_items(
    home: Home, tmp_path: Path
) -> None:
    draft = "## Goal\n- keep going\n## Exact identifiers\n- none"
    stubborn = FunctionModel(lambda m, t, s: draft)
    session, ctx, _ = compacting_session(home, tmp_path, stubborn)
    reports = reports_of(ctx)
    for i in range(30):
        run(session, ask(i))
        if reports:
            break
    assert reports[0].guard == "patched"
    summary = session.transcript.entries[2].message.content
    assert draft in summary and "## Carried verbatim" in summary
    assert "a1b2c3d40001" in summary


def test_empty_drafts_fall_back_to_a_deterministic_summary(home: Home, tmp_path: Path) -> None:
    silent = FunctionModel(lambda m, t, s: "")
    session, ctx, _ = compacting_session(home, tmp_path, silent)
    fill(session, [("hello", "hi"), ("From now on, never deploy on Fridays.", "Understood.")])
    reports = reports_of(ctx)
    for i in range(30):
        run(session, ask(i))
        if reports:
            break
    assert reports[0].guard == "fallback"
    summary = session.transcript.entries[2].message.content
    assert "never deploy on Fridays" in summary
    assert "a1b2c3d40001" in summary and "## Exact identifiers" in summary
    meta = stored_summaries(home, session.session_id)[0].meta[COMPACTION_KEY]
    assert meta["guard"] == "fallback" and "From now on, never deploy on Fridays." in meta["rules"]


def test_a_failed_summary_keeps_every_message_and_cools_down(home: Home, tmp_path: Path) -> None:
    broken = FunctionModel(lambda m, t, s: ModelError("server", "503 overloaded"))
    clock = FakeClock()
    ctx = engine(cfg=config(compact_at=0.5, flush=False), summariser=broken, clock=clock)
    session = start(
        home, FunctionModel(agent(), context_window=2_000), tmp_path, ctx, tools=ToolRegistry()
    )
    fill(session, [(f"question {i} " + "q" * 60, f"answer {i}") for i in range(20)])
    before = [e.message for e in session.transcript.entries]
    reports = reports_of(ctx)

    def attempt(after: float) -> int:
        clock.now += after
        view = asyncio.run(ctx.prepare(session))
        assert [m.content for m in view[1:]] == [m.content for m in before]  # nothing dropped
        return len(broken.calls)

    assert attempt(0) == 1
    assert reports[0].error and "503" in reports[0].error and reports[0].retry_in == 60
    assert attempt(59) == 1  # cooling down
    assert attempt(1) == 2 and reports[-1].retry_in == 300
    assert attempt(299) == 2
    assert attempt(1) == 3 and reports[-1].retry_in == 900
    assert attempt(900) == 4 and reports[-1].retry_in == 900
    assert all(m.active for m in home.archive.messages(session.session_id))
    assert [e.message for e in session.transcript.entries] == before
    assert session.transcript.system_prompt == "SYSTEM"
    notices = ctx.take_notices(session)
    assert notices and "nothing was dropped" in notices[0][0]
    # /compact by hand does not wait for the cooldown
    assert not asyncio.run(ctx.compact(session)).compacted and len(broken.calls) == 5


def test_a_compaction_that_cannot_get_under_the_threshold_does_not_thrash(
    home: Home, tmp_path: Path
) -> None:
    summariser = DeterministicSummariser()
    ctx = engine(cfg=config(compact_at=0.5, flush=False), summariser=summariser)
    reports = reports_of(ctx)
    model = FunctionModel(agent(), context_window=10_000)
    session = start(home, model, tmp_path, ctx, tools=ToolRegistry())
    fill(session, [(f"small ask {i}", f"small answer {i}") for i in range(40)])
    fill(session, [("b" * 1_600, "c" * 1_600), ("d" * 1_600, "ok")])  # the minimum tail
    asyncio.run(ctx.prepare(session))
    assert len(reports) == 1 and reports[0].compacted and ctx.status(session).share >= 0.5
    asyncio.run(ctx.prepare(session))
    fill(session, [("tiny", "ok")])
    asyncio.run(ctx.prepare(session))
    assert len(reports) == 1  # nothing new worth a summary: no request at all
    fill(session, [("e" * 600, "ok")])
    asyncio.run(ctx.prepare(session))
    assert len(reports) == 2


def test_overflow_from_the_provider_flushes_compacts_and_retries_once(
    home: Home, tmp_path: Path
) -> None:
    summariser = DeterministicSummariser()
    flushes: list[int] = []
    failed: list[bool] = []

    def model_fn(messages: list[ChatMessage], tools: list[ToolSpec], settings: Any) -> Any:
        if any(t.name == "journal_append" for t in tools):
            flushes.append(len(messages))
            return summariser.flush(messages)
        if messages[-1].content == "one more" and not failed:
            failed.append(True)
            return ModelError("context_overflow", "prompt is too long: 210000 tokens > 200000")
        return "recovered"

    ctx = engine(cfg=config(compact_at=2.0), summariser=summariser)  # only the overflow compacts
    model = FunctionModel(model_fn, context_window=100_000)
    session = start(home, model, tmp_path, ctx, tools=ToolRegistry())
    fill(session, [(ask(i), f"answer {i}") for i in range(12)])
    events = run(session, "one more")
    ended = events[-1]
    assert isinstance(ended, TurnEnded) and ended.ok and ended.answer == "recovered"
    assert flushes, "the overflow path runs the flush too"
    assert len(summariser.calls) == 1
    retried = model.calls[-1].messages
    assert any(m.content.startswith("[CONTEXT SUMMARY") for m in retried)
    assert retried[-1].content == "one more"
    assert any(isinstance(e, Notice) and "Context compacted" in e.text for e in events)


def test_overflow_with_nothing_to_compact_ends_the_turn_with_the_error(
    home: Home, tmp_path: Path
) -> None:
    model = FunctionModel(lambda m, t, s: ModelError("context_overflow", "too long"))
    ctx = engine(cfg=config(compact_at=2.0, flush=False), summariser=DeterministicSummariser())
    session = start(home, model, tmp_path, ctx, tools=ToolRegistry())
    ended = run(session, "hello")[-1]
    assert isinstance(ended, TurnEnded) and ended.reason == "error"


# -- the frozen prompt and resume ---------------------------------------------------------


def test_the_frozen_prompt_changes_only_at_a_compaction(home: Home, tmp_path: Path) -> None:
    summariser = DeterministicSummariser()
    ctx = ContextEngine(
        config(compact_at=0.8, flush=False, tail_share=0.1),
        counter=CharCounter(),
        summariser=summariser,
        max_output_tokens=0,
    )
    reports = reports_of(ctx)
    probe = AgentSession.start(home, summariser, ToolRegistry(), cwd=tmp_path)
    window = 2 * len(probe.transcript.system_prompt) + 3_000
    model = FunctionModel(agent(), context_window=window)
    session = AgentSession.start(
        home, model, ToolRegistry(), cwd=tmp_path, settings=AgentSettings(stream=False)
    )
    ctx.attach(session)
    original = session.transcript.system_prompt
    run(session, ask(0))
    home.memory.add(Target.USER, "Prefers tea to coffee.")
    for i in range(1, 40):
        run(session, ask(i))
        if reports:
            break
    assert reports and reports[0].compacted
    prompts = [call.messages[0].content for call in model.calls]
    changed = next(i for i, p in enumerate(prompts) if p != original)
    assert all(p == original for p in prompts[:changed])
    rebuilt = prompts[changed]
    assert "Prefers tea to coffee." in rebuilt and "Prefers tea" not in original
    home.memory.add(Target.USER, "Works in Lisbon.")
    run(session, "and now?")
    assert model.calls[-1].messages[0].content == rebuilt  # frozen again until the next one
    stored = home.archive.session(session.session_id)
    assert stored is not None and stored.meta["system_prompt"] == rebuilt
    assert stored.meta["compactions"] == 1


def test_resume_after_compactions_rebuilds_the_same_view(home: Home, tmp_path: Path) -> None:
    summariser = DeterministicSummariser()
    session, ctx, _ = compacting_session(
        home, tmp_path, summariser, warn_at=2.0, warn_high_at=2.0, warn_critical_at=2.0
    )
    reports = reports_of(ctx)
    for i in range(80):
        run(session, ask(i))
        if len(reports) >= 2:
            break
    run(session, "after the second compaction")
    assert len(reports) >= 2
    resumed = Transcript.resume(home.archive, session.session_id)
    assert resumed.view() == session.transcript.view()
    again = AgentSession.resume(home, summariser, ToolRegistry(), session.session_id, cwd=tmp_path)
    fresh = engine(cfg=ctx.config, summariser=summariser)
    fresh.attach(again)
    assert fresh.peek(again) == ctx.peek(session)
    assert fresh.status(again).compactions == len(reports)


def test_a_repeat_compaction_updates_the_previous_summary(home: Home, tmp_path: Path) -> None:
    summariser = DeterministicSummariser()
    session, ctx, _ = compacting_session(home, tmp_path, summariser)
    reports = reports_of(ctx)
    for i in range(80):
        run(session, ask(i))
        if len(reports) >= 2:
            break
    first, second = stored_summaries(home, session.session_id)[:2]
    request = summariser.calls[-1].messages[-1].content
    assert "<previous-summary>" in request
    assert "a1b2c3d40001" in request.split("</previous-summary>")[0]
    assert not first.active and second.active
    # an identifier last seen in cycle 1's messages is still carried by summary 2
    assert "a1b2c3d40001" in second.content
    assert "a1b2c3d40001" in second.meta[COMPACTION_KEY]["identifiers"]
    assert session.transcript.entries[2].seq == second.seq
    assert summariser.flushes == 2  # one flush per compaction cycle


def test_a_middle_too_big_for_one_request_is_summarised_in_chunks(
    home: Home, tmp_path: Path
) -> None:
    summariser = DeterministicSummariser()
    session, ctx, _ = compacting_session(home, tmp_path, summariser, window=100_000)
    ctx.config = config(summary_input_tokens=1_500, tail_share=0.01)
    fill(session, [(ask(i), f"answer {i}") for i in range(40)])
    report = asyncio.run(ctx.compact(session))
    assert report.compacted and report.summary_requests == len(summariser.calls) >= 3
    second = summariser.calls[1].messages[-1].content
    assert "<previous-summary>" in second and "a1b2c3d40001" in second  # the running summary
    summary = session.transcript.entries[2].message.content
    assert all(f"a1b2c3d4{i:04d}" in summary for i in range(1, 30))


def test_compact_now_runs_by_hand_between_turns(home: Home, tmp_path: Path) -> None:
    summariser = DeterministicSummariser()
    session, ctx, _ = compacting_session(home, tmp_path, summariser, window=100_000)
    fill(session, [(ask(i), f"answer {i}") for i in range(20)])
    report = asyncio.run(compact_now(session))
    assert report.compacted and report.reason == "manual" and report.flushed
    assert session.transcript.entries[2].message.content.startswith("[CONTEXT SUMMARY")
    # each /compact shrinks the tail further, down to the minimum count
    for _ in range(10):
        last = asyncio.run(compact_now(session))
        if not last.compacted:
            break
    assert not last.compacted and "Nothing compacted" in last.describe()
    assert len(session.transcript.entries) >= 2 + 1 + ctx.config.tail_min_messages
