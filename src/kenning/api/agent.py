"""``kenning.Agent``: run Kenning's agent loop from Python.

::

    from kenning import Agent, Home
    with Home.open() as home:
        agent = Agent(model="openai:gpt-4.1-mini", home=home)
        result = agent.run("Which package manager does this project use?")
        print(result.output, result.session_id)

Each ``run`` / ``stream`` is one task in one archived session, built by the
composition root ``kenning run`` uses (``kenning.runtime.factory.open_session``):
the same tools, hot-memory snapshot, skills index, context engine and
background review, and the same budgets (``[agent] max_iterations``,
``turn_timeout_s``). Sessions are recorded with source "run". Pass
``session_id=`` to continue an archived session instead.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from kenning.agent.events import Event, TurnEnded
from kenning.api.home import Home
from kenning.api.results import RunResult
from kenning.models.types import Model

if TYPE_CHECKING:
    from kenning.agent.loop import AgentSession, Approver


class Agent:
    """An agent on one home with one model.

    ``model`` is a model string ("openai:gpt-4.1-mini", "anthropic:…",
    "ollama:qwen3" …), a ``Model`` object (``kenning.testing.ScriptedModel``
    in tests), or None for ``[model] default`` in config.toml; without one
    ``ModelNotConfigured`` says how to set it. ``home`` defaults to
    ``Home.open()``. ``approve`` is asked before a shell command that needs
    approval (an async ``str -> bool``); without it such commands are refused,
    as in ``kenning run``. ``cwd`` is where the tools work (default: the
    current directory).
    """

    def __init__(
        self,
        model: Model | str | None = None,
        *,
        home: Home | None = None,
        cwd: Path | str | None = None,
        approve: Approver | None = None,
        max_iterations: int | None = None,
    ) -> None:
        from kenning.models.registry import resolve_model

        self.home = home if home is not None else Home.open()
        runtime = self.home.runtime
        # Resolved now, with the rules `--model` follows, so a bad name fails here.
        self.model: Model = (
            model
            if model is not None and not isinstance(model, str)
            else resolve_model(model, runtime.config.model, config_path=runtime.layout.config_file)
        )
        self.cwd = Path(cwd).expanduser() if cwd is not None else None
        if self.cwd is not None and not self.cwd.is_dir():
            raise NotADirectoryError(
                f"cwd {self.cwd} is not a folder; give the existing folder the tools should "
                "work in (or leave cwd out for the current directory)"
            )
        self.approve = approve
        if max_iterations is not None and max_iterations < 1:
            raise ValueError(f"max_iterations must be at least 1, not {max_iterations}")
        self.max_iterations = max_iterations

    def run(self, task: str, *, session_id: str | None = None) -> RunResult:
        """Run ``task`` to its end from synchronous code and return how it ended.

        A turn that ends without an answer (budget, model error) is not an
        exception: ``result.ok`` is False and ``result.error`` says why. In
        async code use ``await agent.arun(...)`` or ``agent.stream(...)``.
        """
        import asyncio  # here, not at import: `import kenning` stays cheap

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.arun(task, session_id=session_id))
        raise RuntimeError(
            "Agent.run() blocks, so it cannot run inside an event loop; "
            "use `await agent.arun(...)` or `async for event in agent.stream(...)` there"
        )

    async def arun(self, task: str, *, session_id: str | None = None) -> RunResult:
        """``run`` for async code."""
        session = self._open(task, session_id)
        ended: TurnEnded | None = None
        async with aclosing(_turn(session, task)) as events:
            async for event in events:
                if isinstance(event, TurnEnded):
                    ended = event
        assert ended is not None  # a turn always ends with TurnEnded
        return RunResult(
            output=ended.answer,
            session_id=session.session_id,
            reason=ended.reason,
            iterations=ended.iterations,
            input_tokens=ended.usage.input_tokens,
            output_tokens=ended.usage.output_tokens,
            error=ended.error,
        )

    async def stream(
        self, task: str, *, session_id: str | None = None
    ) -> AsyncGenerator[Event, None]:
        """The turn's events as they happen, ending with ``TurnEnded``.

        Events are those of ``kenning run --json`` (``kenning.agent.events``):
        ``TurnStarted``, ``TextChunk``, ``ModelReplied``, ``ToolStarted``,
        ``ToolFinished``, ``Notice`` and last ``TurnEnded``. Stopping early
        (``break``) leaves the session saved and resumable; wrap the loop in
        ``contextlib.aclosing`` to have it closed at once rather than when
        the event loop collects the generator.
        """
        session = self._open(task, session_id)
        # aclosing: a consumer that stops early closes this generator, and so
        # the turn's at once, not when the event loop collects them
        async with aclosing(_turn(session, task)) as events:
            async for event in events:
                yield event

    def _open(self, task: str, session_id: str | None) -> AgentSession:
        from kenning.runtime.factory import open_session

        session = open_session(
            self.home.runtime,
            model=self.model,
            source="run",
            cwd=self.cwd,
            resume=session_id,
            approve=self.approve,
            task=task,
        )
        if self.max_iterations is not None:
            session.settings = replace(session.settings, max_iterations=self.max_iterations)
        return session

    def __repr__(self) -> str:
        return f"<kenning.Agent {self.model.name} on {self.home.root}>"


async def _turn(session: AgentSession, task: str) -> AsyncGenerator[Event, None]:
    """One turn, then the session is closed as ``kenning run`` closes it."""
    ended: TurnEnded | None = None
    try:
        async with aclosing(session.turn(task)) as events:
            async for event in events:
                if isinstance(event, TurnEnded):
                    ended = event
                yield event
    finally:
        await session.close(ended.reason if ended is not None else "interrupted")
