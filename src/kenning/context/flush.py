"""Flush: one silent turn, shortly before compaction, that saves what must survive.

The model sees the current context plus a request to append decisions, user
rules, exact identifiers and open work to today's journal, or to answer
``NO_REPLY``. Journals of today and yesterday are loaded into the system
prompt that compaction rebuilds, so what the flush writes is back in context
right after the summary replaces the messages.

Invariants:
- only ``journal_append`` can run in the flush: the tools offered are just
  that one, and the registry it dispatches through refuses every other name
  (a model that learned other tool names elsewhere still cannot use them);
- the turn is silent: its messages never enter the live context and are not
  shown to the user; they are archived already flagged compacted, so the
  journal entry can be traced to the turn that wrote it;
- it runs at most once per compaction cycle (the engine keeps the count) and
  on every path to compaction: the threshold, ``/compact`` and a provider's
  context-overflow error (where OpenClaw's recovery path skipped it, #114081);
- a flush that fails never blocks the compaction behind it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from kenning.archive.store import Message
from kenning.context.session import ContextSession
from kenning.context.transcript import to_archive
from kenning.journal import JournalError
from kenning.models.types import ChatMessage, Model, ModelSettings, Usage
from kenning.prompt import template
from kenning.tools.base import Access, Tool, ToolContext, ToolResult
from kenning.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from kenning.home import Home

FLUSH_TOOL = "journal_append"
NO_REPLY = "NO_REPLY"
MAX_REQUESTS = 3  # write, perhaps fix a refused entry, then NO_REPLY
FLUSH_OUTPUT_TOKENS = 2_000
PURPOSE = "memory flush"

SCHEMA: dict[str, Any] = {
    "name": FLUSH_TOOL,
    "description": (
        "Append one entry to today's journal (memory/YYYY-MM-DD.md), which is loaded back into "
        "context after compaction and stays searchable. Write what must survive: decisions, "
        "user rules in their words, exact identifiers, open work. Concise bullet points."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "The entry, as Markdown bullet points."},
        },
        "required": ["text"],
    },
}


def journal_tool(home: Home) -> Tool:
    """``journal_append``: the one tool that may write during the flush."""

    def append(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            done = home.journal.append(
                str(args.get("text", "")),
                source="flush",
                reason=f"pre-compaction flush, session {ctx.session_id}",
            )
        except JournalError as exc:
            return ToolResult.error(str(exc), "shorten or rephrase the entry and call it again.")
        return ToolResult(
            f"Saved to {done.path.name} ({done.heading.removeprefix('## ')}). Done: it will be "
            f"in context after the compaction. Answer {NO_REPLY} unless something else must be "
            "saved."
        )

    journal_dir = home.layout.journal_dir.resolve()
    return Tool.from_schema(
        FLUSH_TOOL,
        SCHEMA,
        append,
        read_only=False,
        toolset="journal",
        access=lambda args, ctx: Access.of(writes=[journal_dir]),
    )


def flush_registry(tools: ToolRegistry, home: Home) -> ToolRegistry:
    """The session's tools plus ``journal_append``, restricted to ``journal_append``."""
    everything = ToolRegistry(spill_policy=tools.spill_policy, max_parallel=1)
    for name in tools.names():
        tool = tools.get(name)
        if tool is not None and name != FLUSH_TOOL:
            everything.register(tool)
    everything.register(journal_tool(home))
    return everything.restricted([FLUSH_TOOL], label=f"{PURPOSE}: only {FLUSH_TOOL} may run")


def instruction(share: float) -> str:
    text = template("context_flush.md")
    return text.replace("{percent}", f"{share:.0%}").strip()


@dataclass
class FlushResult:
    ran: bool = False
    saved: list[str] = field(default_factory=list)  # journal confirmations
    answer: str = ""
    requests: int = 0
    seconds: float = 0.0  # inside the model
    usage: Usage = field(default_factory=Usage)
    error: str | None = None

    @property
    def wrote(self) -> bool:
        return bool(self.saved)


async def run_flush(
    session: ContextSession,
    view: Sequence[ChatMessage],
    *,
    share: float,
    model: Model | None = None,
) -> FlushResult:
    """The silent turn on ``view`` (system prompt first); archives its messages hidden."""
    result = FlushResult(ran=True)
    chosen = model or session.model
    registry = flush_registry(session.tools, session.home)
    specs = registry.specs()
    ctx = ToolContext(
        home=session.home,
        cwd=session.cwd,
        session_id=session.session_id,
        memory_writable=False,
        purpose=PURPOSE,
    )
    base = session.settings.model_settings
    settings = replace(
        base,
        max_output_tokens=min(base.max_output_tokens or FLUSH_OUTPUT_TOKENS, FLUSH_OUTPUT_TOKENS),
        parallel_tool_calls=False,
        allow_empty=True,  # the work is the journal calls; a silent close is fine
    )
    turn: list[tuple[ChatMessage, Usage | None]] = [(ChatMessage.user(instruction(share)), None)]
    messages = [*view, turn[0][0]]
    try:
        for _ in range(MAX_REQUESTS):
            response = await _timed(chosen, messages, specs, settings, result)
            turn.append((response.message, response.usage))
            messages.append(response.message)
            if not response.message.tool_calls:
                result.answer = response.message.content.strip()
                break
            outcomes = await registry.execute_batch(list(response.message.tool_calls), ctx)
            for outcome in outcomes:
                turn.append((outcome.message, None))
                messages.append(outcome.message)
                if outcome.call.name == FLUSH_TOOL and outcome.result.ok:
                    result.saved.append(outcome.result.text)
    except Exception as exc:  # a failed flush never blocks the compaction behind it
        result.error = f"{type(exc).__name__}: {exc}"
    _archive(session, turn, result)
    return result


async def _timed(
    model: Model,
    messages: list[ChatMessage],
    specs: Sequence[Any],
    settings: ModelSettings,
    result: FlushResult,
) -> Any:
    started = time.perf_counter()
    result.requests += 1
    try:
        response = await model.request(messages, tools=specs, settings=settings)
    finally:
        result.seconds += time.perf_counter() - started
    result.usage = result.usage + response.usage
    return response


def _archive(
    session: ContextSession, turn: list[tuple[ChatMessage, Usage | None]], result: FlushResult
) -> None:
    """Keep the flush's messages in the archive, hidden from the context."""
    if len(turn) < 2:
        return
    meta = {"flush": True}
    stored: list[Message] = [
        replace(to_archive(message, usage=usage, meta=meta), speaker="kenning" if i == 0 else None)
        for i, (message, usage) in enumerate(turn)
    ]
    archive = session.transcript.archive
    archive.append_inactive(session.session_id, stored)
    if result.usage.input_tokens or result.usage.output_tokens:
        archive.add_usage(session.session_id, result.usage.input_tokens, result.usage.output_tokens)
