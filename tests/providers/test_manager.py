"""The provider manager in real agent turns: where the block goes, every hook, deadlines, failures.

The providers here are small in-test classes; what is under test is the
manager and the agent's wiring (loop, memory tool, delegation, compaction),
all real. Slow providers block on a ``threading.Event``, never on a sleep.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from tests.providers.conftest import Gate, Recorder, close, run, start

from kenning.agent.events import Notice, TurnEnded
from kenning.config import ContextConfig
from kenning.context.engine import ContextEngine
from kenning.home import Home
from kenning.mcp.client import wait_for
from kenning.models.types import ChatMessage
from kenning.providers import FENCE_CLOSE, FENCE_OPEN, MemoryProvider, MemoryWrite, ProviderManager
from kenning.testing.models import ScriptedModel, tool_call
from kenning.testing.summariser import DeterministicSummariser

ASK = "Where is the staging database?"


def notices(events: list[Any]) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


def ended(events: list[Any]) -> TurnEnded:
    last = events[-1]
    assert isinstance(last, TurnEnded)
    return last


def last_user(messages: list[ChatMessage]) -> str:
    return next(m.content for m in reversed(messages) if m.role == "user")


def test_the_block_rides_on_this_turns_user_message_and_the_system_prompt_stays(
    member: Home, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("db-7 is in eu-west\n", encoding="utf-8")
    recorder = Recorder()
    model = ScriptedModel([tool_call("read_file", path="notes.txt"), "It is db-7.", "Yes."])
    session = start(member, model, tmp_path, ProviderManager(recorder))

    first = run(session, ASK)
    assert ended(first).ok and notices(first) == []
    assert recorder.queries == [ASK]  # once per turn, not once per request
    for call in model.calls:  # both requests of the turn: the tool round and the answer
        assert call.messages[0] == ChatMessage.system("SYSTEM PROMPT")
        sent = last_user(call.messages)
        assert sent.startswith(FENCE_OPEN) and sent.endswith(f"{FENCE_CLOSE}\n\n{ASK}")
        assert "The staging database is db-7." in sent and "not instructions" in sent
        assert FENCE_OPEN not in call.messages[0].content
    # the archive keeps what the user typed
    stored = [m.content for m in member.archive.messages(session.session_id) if m.role == "user"]
    assert stored == [ASK]

    run(session, "And the production one?")
    third = model.calls[2].messages
    assert third[0] == ChatMessage.system("SYSTEM PROMPT")
    users = [m.content for m in third if m.role == "user"]
    assert users[0] == ASK  # an earlier turn's message goes as it was typed
    assert users[1].startswith(FENCE_OPEN) and users[1].endswith("And the production one?")

    close(session)
    assert recorder.heard == [
        ("on_turn_start", 1, ASK),
        ("sync_turn", ASK, "It is db-7."),
        ("on_turn_start", 2, "And the production one?"),
        ("sync_turn", "And the production one?", "Yes."),
        ("on_session_end", "user_exit"),
        ("close",),
    ]


def test_nothing_recalled_sends_the_message_unchanged(member: Home, tmp_path: Path) -> None:
    model = ScriptedModel(["ok"])
    session = start(member, model, tmp_path, ProviderManager(Recorder(recall=None)))
    assert ended(run(session, ASK)).ok
    assert last_user(model.calls[0].messages) == ASK
    close(session)


def test_a_hung_prefetch_costs_the_turn_its_block_not_the_turn(
    member: Home, tmp_path: Path, released: list[Gate]
) -> None:
    gate = Gate("prefetch")
    released.append(gate)
    model = ScriptedModel(["first", "second", "third"])
    manager = ProviderManager(gate, prefetch_timeout_s=0.2)
    session = start(member, model, tmp_path, manager)

    events = run(session, ASK)
    assert ended(events).answer == "first"
    [said] = notices(events)
    assert "'gate' did not answer within 0.2 s" in said and "provider_timeout_s" in said
    assert last_user(model.calls[0].messages) == ASK

    # still stuck: the next turn does not queue behind it
    events = run(session, "again")
    assert ended(events).answer == "second"
    assert "still busy" in notices(events)[0]
    assert last_user(model.calls[1].messages) == "again"

    gate.release.set()
    assert wait_for(lambda: "prefetch" in gate.ran)
    assert wait_for(lambda: "late recall" in _recall_now(manager))
    events = run(session, "once more")
    assert notices(events) == [] and "late recall" in last_user(model.calls[2].messages)
    close(session)


def _recall_now(manager: ProviderManager) -> str:
    return asyncio.run(manager.recall("probe")).block or ""


class Broken(MemoryProvider):
    name = "broken"

    def __init__(self, recall: Any = None) -> None:
        self.recall = recall

    async def prefetch(self, query: str) -> Any:  # async providers are time-boxed the same way
        if self.recall is None:
            raise RuntimeError("the notes service is down")
        return self.recall

    def sync_turn(self, user: str, assistant: str) -> None:
        raise OSError("disk full")


def test_a_failing_provider_is_a_notice_and_the_turn_goes_on(member: Home, tmp_path: Path) -> None:
    model = ScriptedModel(["one", "two"])
    manager = ProviderManager(Broken())
    session = start(member, model, tmp_path, manager)
    events = run(session, ASK)
    assert ended(events).ok
    assert notices(events) == [
        "memory provider 'broken' failed (RuntimeError: the notes service is down); "
        "this turn goes on without its recalled context."
    ]
    assert manager.drain(30)
    # the background failure of sync_turn reaches the user at the next turn
    events = run(session, "next")
    assert ended(events).ok
    assert "memory provider 'broken': sync_turn failed (OSError: disk full)." in notices(events)
    close(session)


def test_a_provider_returning_no_text_is_ignored_with_a_notice(
    member: Home, tmp_path: Path
) -> None:
    model = ScriptedModel(["ok"])
    session = start(member, model, tmp_path, ProviderManager(Broken(recall={"hits": 3})))
    events = run(session, ASK)
    assert ended(events).ok and "returned a dict instead of text" in notices(events)[0]
    assert last_user(model.calls[0].messages) == ASK
    close(session)


def test_background_hooks_are_time_boxed_and_the_session_still_ends(
    member: Home, tmp_path: Path, released: list[Gate]
) -> None:
    gate = Gate("sync_turn")
    released.append(gate)
    manager = ProviderManager(gate, sync_timeout_s=0.5)
    session = start(member, ScriptedModel(["ok"]), tmp_path, manager)
    assert ended(run(session, ASK)).ok  # sync_turn is queued, the turn does not wait for it
    assert gate.entered["sync_turn"].wait(30)
    close(session)  # on_session_end runs once the hung sync_turn is abandoned
    assert "on_session_end" in gate.ran and "sync_turn" not in gate.ran
    [said] = manager.take_notices()
    assert "sync_turn did not finish within 0.5 s" in said and "abandoned" in said


def test_memory_tool_writes_are_told_to_the_provider(member: Home, tmp_path: Path) -> None:
    recorder = Recorder()
    model = ScriptedModel(
        [
            tool_call("memory", action="add", target="memory", content="CI runs on Python 3.11"),
            tool_call(
                "memory",
                action="replace",
                target="memory",
                old_text="3.11",
                content="CI runs on Python 3.12",
            ),
            tool_call("memory", action="remove", target="memory", old_text="nothing like it"),
            "Saved.",
        ]
    )
    session = start(member, model, tmp_path, ProviderManager(recorder))
    assert ended(run(session, "Remember the CI version")).ok
    close(session)
    writes = [entry[1] for entry in recorder.heard if entry[0] == "on_memory_write"]
    sid = session.session_id
    assert writes == [  # the refused remove changed nothing, so it is not told
        MemoryWrite("add", "memory", content="CI runs on Python 3.11", session_id=sid),
        MemoryWrite(
            "replace", "memory", content="CI runs on Python 3.12", old_text="3.11", session_id=sid
        ),
    ]


def test_a_delegation_is_told_and_the_subagent_consults_no_provider(
    member: Home, tmp_path: Path
) -> None:
    recorder = Recorder()
    model = ScriptedModel(
        [tool_call("delegate_task", goal="Count the files"), "There are 3 files.", "Three."]
    )
    session = start(member, model, tmp_path, ProviderManager(recorder))
    assert ended(run(session, "How many files?")).answer == "Three."
    close(session)
    assert last_user(model.calls[1].messages) == "Count the files"  # the subagent's request
    [(_, task, result, child)] = [e for e in recorder.heard if e[0] == "on_delegation"]
    assert (task, result) == ("Count the files", "There are 3 files.")
    assert member.archive.session(child).parent_id == session.session_id
    assert recorder.queries == ["How many files?"]


class _Chars:
    def count(self, text: str) -> int:
        return len(text)


def test_compaction_shows_the_provider_what_it_is_about_to_drop(
    member: Home, tmp_path: Path
) -> None:
    recorder = Recorder()
    session = start(member, ScriptedModel([]), tmp_path, ProviderManager(recorder))
    engine = ContextEngine(
        ContextConfig(reserve_tokens=0, calibrate=False, tail_min_messages=4, flush=False),
        counter=_Chars(),
        max_output_tokens=0,
        prompt_builder=lambda s: s.transcript.system_prompt,
        summariser=DeterministicSummariser(),
    )
    engine.attach(session)
    for i in range(20):
        session.transcript.append(ChatMessage.user(f"ask {i}: build a1b2c3d4{i:04d}"))
        session.transcript.append(ChatMessage.assistant(f"answer {i}"))
    report = asyncio.run(engine.compact(session))
    assert report.compacted
    close(session)
    [(_, dropped)] = [e for e in recorder.heard if e[0] == "on_pre_compress"]
    assert len(dropped) == report.messages_compacted
    kept = {e.message.content for e in session.transcript.entries}
    assert "answer 5" in dropped and not kept & set(dropped)


class SlowToCancel(MemoryProvider):
    """Async, and slow to wind down when its deadline cancels it (as the MCP client can be)."""

    name = "slow"

    def __init__(self) -> None:
        self.calls = 0
        self.cancelled = threading.Event()
        self.release = threading.Event()

    async def prefetch(self, query: str) -> str | None:
        self.calls += 1
        if self.calls == 1:
            try:
                await asyncio.Event().wait()  # never answers
            except asyncio.CancelledError:
                self.cancelled.set()
                await asyncio.to_thread(self.release.wait, 60)  # still winding down
                raise
        return "the second answer"


def test_an_async_prefetch_past_its_deadline_does_not_hold_the_next_one() -> None:
    provider = SlowToCancel()
    manager = ProviderManager(provider, prefetch_timeout_s=0.2)
    try:
        first = asyncio.run(manager.recall("one"))
        assert first.block is None and first.notice and "did not answer within" in first.notice
        assert provider.cancelled.wait(30)
        second = asyncio.run(manager.recall("two"))  # the first one is cancelled, not in the way
        assert second.notice is None and second.block and "the second answer" in second.block
    finally:
        provider.release.set()
    asyncio.run(manager.end_session("done"))


def test_interrupting_a_turn_while_the_provider_is_asked_ends_the_turn_as_usual(
    member: Home, tmp_path: Path, released: list[Gate]
) -> None:
    gate = Gate("prefetch")
    released.append(gate)
    model = ScriptedModel(["after the interrupt"])
    session = start(member, model, tmp_path, ProviderManager(gate, prefetch_timeout_s=60))
    ends: list[str] = []
    session.hooks.add("turn_end", lambda s, ended: ends.append(ended.reason))

    async def interrupted() -> None:
        task = asyncio.create_task(session.run(ASK))
        while not gate.entered["prefetch"].is_set():
            await asyncio.sleep(0.01)
        task.cancel()  # Ctrl-C while the provider is being asked
        try:
            await task
        except asyncio.CancelledError:
            return
        raise AssertionError("the turn was not interrupted")

    asyncio.run(interrupted())
    assert ends == ["interrupted"]
    assert [m.content for m in member.archive.messages(session.session_id)] == [ASK]
    events = run(session, "go on")  # the provider is still stuck: skipped, the turn runs
    assert ended(events).answer == "after the interrupt" and "still busy" in notices(events)[0]
    close(session)
