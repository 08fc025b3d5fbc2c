"""The agent loop: model request → tool calls → results → … → a final answer.

One ``AgentSession`` is one archived session. A turn goes through named
steps: prepare (repair an interrupted turn, persist the user message, turn
hooks) → request (streamed) → tools (batched by the registry: read-only and
non-overlapping calls in parallel, results in the model's order) → persist →
repeat, until the model answers without tool calls, the iteration budget or
the time budget runs out, or the user interrupts.

Invariants:
- every message is in the archive before the loop acts on it (``Transcript``);
- an interrupt (task cancellation, Ctrl-C) keeps the partial answer and
  answers dangling tool calls, then propagates — the session stays resumable;
- model errors never escape as tracebacks: each ends the turn with a
  ``TurnEnded`` whose ``error`` says what happened and what to do;
- the system prompt is the one frozen when the session started, rebuilt
  only by a compaction (the context engine), which reloads hot memory and
  the skills index;
- an external memory provider (``memory_providers``, set by the factory) is
  asked once per turn, time-boxed; its fenced block rides on this turn's
  user message in each request of the turn and is never stored or put in
  the system prompt, so the prompt prefix stays cacheable.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kenning.agent.events import (
    EndReason,
    Event,
    ModelReplied,
    Notice,
    TextChunk,
    ToolFinished,
    ToolStarted,
    TurnEnded,
    TurnStarted,
)
from kenning.agent.hooks import Hooks
from kenning.archive.store import Source
from kenning.context.transcript import Transcript
from kenning.home import Home
from kenning.models.errors import ModelError
from kenning.models.types import (
    ChatMessage,
    Model,
    ModelResponse,
    ModelSettings,
    ResponseDone,
    TextDelta,
    Usage,
)
from kenning.prompt.system import SkillsBlock, build_system_prompt
from kenning.tools.base import ToolContext
from kenning.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from kenning.context.engine import ContextEngine
    from kenning.providers.base import MemoryProviders

Approver = Callable[[str], Awaitable[bool]]
# Asked when the model reports a context overflow; True = the context was
# reduced and the request may be tried again (the context engine's job).
OverflowHandler = Callable[["AgentSession"], Awaitable[bool]]


@dataclass(frozen=True)
class AgentSettings:
    """How a session runs; a value, so a subagent is a ``replace()`` away."""

    source: Source = "cli"
    max_iterations: int = 90
    turn_timeout_s: float = 0.0  # 0 = no time budget
    stream: bool = True
    memory_writable: bool = True
    toolsets: tuple[str, ...] | None = None  # None = every registered toolset
    model_settings: ModelSettings = field(default_factory=ModelSettings)

    @classmethod
    def from_home(cls, home: Home, **changes: Any) -> AgentSettings:
        agent = home.config.agent
        base = cls(
            max_iterations=agent.max_iterations,
            turn_timeout_s=agent.turn_timeout_s,
            model_settings=ModelSettings(max_output_tokens=home.config.model.max_output_tokens),
        )
        return replace(base, **changes)


class AgentSession:
    def __init__(
        self,
        home: Home,
        model: Model,
        tools: ToolRegistry,
        transcript: Transcript,
        *,
        settings: AgentSettings,
        cwd: Path,
        approve: Approver | None = None,
        hooks: Hooks | None = None,
        depth: int = 0,
    ) -> None:
        self.home = home
        self.model = model
        self.tools = tools
        self.transcript = transcript
        self.settings = settings
        self.cwd = cwd
        self.approve = approve
        self.hooks = hooks or Hooks()
        self.depth = depth
        self.on_overflow: OverflowHandler | None = None
        # Prepares each request's messages (prune, flush, compact); None = send
        # the transcript as it is. ``ContextEngine.attach`` sets it.
        self.context_engine: ContextEngine | None = None
        # The external memory provider, time-boxed (kenning.providers); None = built-in only.
        self.memory_providers: MemoryProviders | None = None
        # Tokens the last request occupied (prompt + answer), from the API's
        # usage: what the context engine and the status line look at.
        self.context_tokens = 0
        self.usage = Usage()
        self.extras: dict[str, Any] = {}
        self.owns_tools = depth == 0

    # -- opening -------------------------------------------------------------

    @classmethod
    def start(
        cls,
        home: Home,
        model: Model,
        tools: ToolRegistry,
        *,
        cwd: Path,
        settings: AgentSettings | None = None,
        parent_id: str | None = None,
        task: str | None = None,
        skills_block: SkillsBlock | None = None,
        system_prompt: str | None = None,
        approve: Approver | None = None,
        hooks: Hooks | None = None,
        depth: int = 0,
    ) -> AgentSession:
        """A new archived session with its system prompt frozen now."""
        chosen = settings or AgentSettings.from_home(home)
        prompt = system_prompt
        if prompt is None:
            prompt = build_system_prompt(home, cwd=cwd, task=task, skills_block=skills_block).text
        transcript = Transcript.start(
            home.archive,
            source=chosen.source,
            system_prompt=prompt,
            model=model.name,
            workspace=str(cwd),
            parent_id=parent_id,
        )
        return cls(
            home,
            model,
            tools,
            transcript,
            settings=chosen,
            cwd=cwd,
            approve=approve,
            hooks=hooks,
            depth=depth,
        )

    @classmethod
    def resume(
        cls,
        home: Home,
        model: Model,
        tools: ToolRegistry,
        session_id: str,
        *,
        cwd: Path,
        settings: AgentSettings | None = None,
        approve: Approver | None = None,
        hooks: Hooks | None = None,
    ) -> AgentSession:
        """Continue an archived session with its frozen prompt and active messages."""
        transcript = Transcript.resume(home.archive, session_id)
        session = cls(
            home,
            model,
            tools,
            transcript,
            settings=settings or AgentSettings.from_home(home),
            cwd=cwd,
            approve=approve,
            hooks=hooks,
        )
        transcript.repair()
        return session

    @property
    def session_id(self) -> str:
        return self.transcript.session_id

    def use_context(self, engine: ContextEngine) -> None:
        """Send what ``engine.prepare`` returns and recover from overflows through it."""
        self.context_engine = engine
        self.on_overflow = engine.handle_overflow

    def context(self) -> ToolContext:
        """A fresh tool context for one turn (the spill budget is per turn)."""
        ctx = ToolContext(
            home=self.home,
            session_id=self.session_id,
            cwd=self.cwd,
            approve=self.approve,
            memory_writable=self.settings.memory_writable,
            purpose=self.settings.source,
            extras={"agent": self, "memory_providers": self.memory_providers, **self.extras},
        )
        self.tools.begin_turn(ctx)
        return ctx

    # -- running -------------------------------------------------------------

    async def run(self, text: str) -> TurnEnded:
        """Run one turn to its end and return how it ended."""
        ended: TurnEnded | None = None
        async for event in self.turn(text):
            if isinstance(event, TurnEnded):
                ended = event
        assert ended is not None  # turn() always finishes with TurnEnded
        return ended

    async def turn(self, text: str) -> AsyncGenerator[Event, None]:
        """One user turn, as a stream of events ending with ``TurnEnded``."""
        self.transcript.repair()
        if not self.transcript.entries:  # the first words name the session in listings
            self.home.archive.set_title(self.session_id, " ".join(text.split())[:80])
        self.transcript.append(ChatMessage.user(text))
        yield TurnStarted(self.session_id, text)
        for failure in await self.hooks.emit("turn_start", self, text):
            yield Notice(failure, "warning")
        state = _TurnState(ctx=self.context())
        timeout = self.settings.turn_timeout_s or None
        try:
            async with asyncio.timeout(timeout):
                async for event in self._recall(state, text):
                    yield event
                async for event in self._steps(state):
                    yield event
        except TimeoutError:
            self._save_partial(state)
            state.ended = self._end(
                state,
                "timeout",
                error=f"The turn stopped after its time budget of {timeout:g} s "
                "(agent.turn_timeout_s). Everything so far is saved; ask to continue.",
            )
        except (asyncio.CancelledError, KeyboardInterrupt):
            self._save_partial(state)
            self.transcript.repair()
            await self.hooks.emit("turn_end", self, self._end(state, "interrupted"))
            raise
        if state.ended is None:  # pragma: no cover - _steps always ends the turn
            state.ended = self._end(state, "error", error="the turn ended without an answer")
        if self.memory_providers is not None and state.ended.reason == "final":
            self.memory_providers.turn_synced(text, state.ended.answer)
        for failure in await self.hooks.emit("turn_end", self, state.ended):
            yield Notice(failure, "warning")
        yield state.ended

    async def _recall(self, state: _TurnState, text: str) -> AsyncIterator[Event]:
        """Ask the memory provider about ``text`` (within its deadline) for this turn's block."""
        providers = self.memory_providers
        if providers is None:
            return
        for note in providers.take_notices():  # background hooks that failed since last turn
            yield Notice(note, "warning")
        providers.turn_started(self.transcript.user_turns(), text)
        recalled = await providers.recall(text)
        if recalled.notice:
            yield Notice(recalled.notice, "warning")
        state.recalled = recalled.block

    async def _steps(self, state: _TurnState) -> AsyncIterator[Event]:
        specs = self.tools.specs(self.settings.toolsets)
        while state.iterations < self.settings.max_iterations:
            state.iterations += 1
            response: ModelResponse | None = None
            try:
                async for event in self._request(specs, state):
                    if isinstance(event, ResponseDone):
                        response = event.response
                    else:
                        yield event
            except ModelError as exc:
                if exc.kind == "context_overflow" and await self._handle_overflow():
                    state.iterations -= 1
                    yield Notice("the context was reduced; retrying the request")
                    continue
                self._save_partial(state)
                state.ended = self._end(state, "error", error=_describe_error(exc))
                return
            assert response is not None
            state.partial = ""
            message = response.message
            self.transcript.append(message, usage=response.usage)
            state.usage = state.usage + response.usage
            self.usage = self.usage + response.usage
            if response.usage.input_tokens or response.usage.output_tokens:
                self.context_tokens = response.usage.input_tokens + response.usage.output_tokens
            yield ModelReplied(
                message.content, message.tool_calls, response.usage, state.iterations
            )
            if not message.tool_calls:
                state.answer = message.content
                state.ended = self._end(state, "final")
                return
            async for tool_event in self._run_tools(message, state):
                yield tool_event
        state.ended = self._end(
            state,
            "max_iterations",
            error=f"Stopped after {state.iterations} model requests (agent.max_iterations). "
            "The work so far is saved; say 'continue' to go on or raise the limit.",
        )

    async def _request(
        self, specs: Sequence[Any], state: _TurnState
    ) -> AsyncIterator[TextChunk | ResponseDone | Notice]:
        if self.context_engine is not None:
            messages = await self.context_engine.prepare(self)
            for text, level in self.context_engine.take_notices(self):
                yield Notice(text, level)
        else:
            messages = self.transcript.view()
        if state.recalled:
            messages = _with_recall(messages, state.recalled)
        settings = self.settings.model_settings
        if not self.settings.stream:
            yield ResponseDone(await self.model.request(messages, tools=specs, settings=settings))
            return
        async for event in self.model.stream(messages, tools=specs, settings=settings):
            if isinstance(event, TextDelta):
                state.partial += event.text
                yield TextChunk(event.text)
            elif isinstance(event, ResponseDone):
                yield event

    async def _run_tools(self, message: ChatMessage, state: _TurnState) -> AsyncIterator[Event]:
        calls = list(message.tool_calls)
        for call in calls:
            yield ToolStarted(call)
            await self.hooks.emit("tool_start", self, call)
        assert state.ctx is not None
        outcomes = await self._dispatch_registry().execute_batch(calls, state.ctx)
        for outcome in outcomes:
            meta: dict[str, Any] = {}
            if not outcome.result.ok:
                meta["error"] = True
            if outcome.spill_path is not None:
                meta["spill_path"] = str(outcome.spill_path)
            self.transcript.append(outcome.message, meta=meta)
            await self.hooks.emit("tool_end", self, outcome)
            yield ToolFinished(
                outcome.call, outcome.result.ok, outcome.message.content, outcome.seconds
            )

    def _dispatch_registry(self) -> ToolRegistry:
        """The tools the model may call: a toolset choice also refuses hidden tools."""
        if self.settings.toolsets is None:
            return self.tools
        return self.tools.restricted(self.tools.names(self.settings.toolsets))

    async def _handle_overflow(self) -> bool:
        return self.on_overflow is not None and await self.on_overflow(self)

    def _save_partial(self, state: _TurnState) -> None:
        """Keep streamed text the user already saw, marked as cut short."""
        if state.partial.strip():
            self.transcript.append(ChatMessage.assistant(state.partial), meta={"interrupted": True})
            state.partial = ""

    def _end(self, state: _TurnState, reason: EndReason, *, error: str | None = None) -> TurnEnded:
        return TurnEnded(reason, state.answer, state.iterations, state.usage, error)

    async def close(self, reason: str = "user_exit") -> None:
        """Mark the session ended (it stays resumable) and run session-end hooks."""
        self.home.archive.end_session(self.session_id, reason)
        await self.hooks.emit("session_end", self, reason)
        if self.memory_providers is not None:
            await self.memory_providers.end_session(reason)
        if self.owns_tools:  # a subagent borrows its parent's tools
            self.tools.close()


@dataclass
class _TurnState:
    ctx: ToolContext | None = None
    iterations: int = 0
    partial: str = ""  # streamed text of the response in flight
    answer: str = ""
    usage: Usage = field(default_factory=Usage)
    ended: TurnEnded | None = None
    recalled: str | None = None  # the memory provider's fenced block for this turn


def _with_recall(messages: list[ChatMessage], block: str) -> list[ChatMessage]:
    """``messages`` with ``block`` before this turn's user message, the last user one.

    Only the request gets it: the transcript keeps what the user typed, and
    the system prompt (the cached prefix) is left alone.
    """
    for i in range(len(messages) - 1, 0, -1):
        if messages[i].role == "user":
            found = messages[i]
            return [
                *messages[:i],
                replace(found, content=f"{block}\n\n{found.content}"),
                *messages[i + 1 :],
            ]
    return messages


def _describe_error(exc: ModelError) -> str:
    hints = {
        "auth": "Check the API key (see `kenning chat --help` for the variables).",
        "context_overflow": "The conversation no longer fits the model's context window; "
        "start a new session (/new) — this one stays searchable.",
        "rate_limit": "The provider kept rate-limiting after retries; wait and try again.",
        "server": "The provider kept failing after retries; try again later.",
        "timeout": "The model did not answer in time (model.timeout_s); try again.",
        "connection": "Could not reach the model's server; is it running and is the URL right?",
        # unreachable, truncated and bad_response: the message already says what
        # came and what to check.
        "empty_response": "Try again, or use another model (--model).",
        "not_found": "The model or endpoint was not found; check the model name and base URL.",
        "bad_request": "The provider rejected the request.",
    }
    return f"{exc} — {hints.get(exc.kind, '')}".rstrip(" —")
