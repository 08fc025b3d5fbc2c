"""Turns whose work is their tool calls may close in silence; a user's turn may not.

The pre-compaction flush and the background review ask the model to act
through tools (journal_append, memory); a model that then ends with an empty
answer has done its job. They say so (``ModelSettings.allow_empty``), so the
empty-answer check that fails a user's turn does not fail theirs. Over a real
socket, against the local OpenAI-format server.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from kenning import clock
from kenning.agent.loop import AgentSession
from kenning.config import Config, EmbeddingConfig, ReviewConfig
from kenning.context.flush import run_flush
from kenning.home import Home
from kenning.learning import install_review
from kenning.models import ChatMessage, OpenAIChatModel
from kenning.models.retry import RetryPolicy
from kenning.runtime.factory import build_tools
from kenning.testing.models import ScriptedModel, tool_call
from kenning.testing.wire import OpenAIServer

CORRECTION = "User's projects install dependencies with pnpm, never npm."


def _home(root: Path) -> Home:
    review = ReviewConfig(memory_every_user_turns=2, skills_every_iterations=0)
    return Home(root, Config(embedding=EmbeddingConfig(provider="none"), review=review))


def _wire_model(server: OpenAIServer) -> OpenAIChatModel:
    return OpenAIChatModel("m", base_url=server.base_url, retry=RetryPolicy(max_retries=0))


def test_a_flush_that_ends_in_silence_keeps_what_it_wrote(tmp_path: Path) -> None:
    home = _home(tmp_path / "home")
    save = tool_call("journal_append", text="- Decided: staging uses Postgres 16")
    with OpenAIServer([save, ""]) as server:
        session = AgentSession.start(home, ScriptedModel(), build_tools(home), cwd=tmp_path)
        view = [ChatMessage.system("sys"), ChatMessage.user("We use Postgres 16 on staging.")]
        result = asyncio.run(run_flush(session, view, share=0.8, model=_wire_model(server)))
        server.assert_complete()
    assert result.error is None and result.wrote and result.answer == ""
    assert "Postgres 16" in home.journal.path_for(clock.today()).read_text()


def test_a_review_that_ends_in_silence_is_saved(tmp_path: Path) -> None:
    home = _home(tmp_path / "home")
    user_model = ScriptedModel(["Run `npm install`.", "Understood: pnpm from now on."])
    remember = tool_call("memory", action="add", target="user", content=CORRECTION)
    with OpenAIServer([remember, ""]) as server:

        async def conversation() -> str:
            session = AgentSession.start(home, user_model, build_tools(home), cwd=tmp_path)
            runner = install_review(session, model=_wire_model(server))
            await session.run("How do I install the dependencies?")
            await session.run("No — we always use pnpm, never npm.")
            await runner.wait()
            await session.close()
            return session.session_id

        sid = asyncio.run(conversation())
        server.assert_complete()
    (review,) = [s for s in home.archive.sessions(limit=20) if s.source == "review"]
    assert review.parent_id == sid and review.end_reason == "review saved"
    assert CORRECTION in home.layout.user_file.read_text()
