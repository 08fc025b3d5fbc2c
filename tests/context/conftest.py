"""Helpers for the context engine's tests: a counter you can do arithmetic with, sessions."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from kenning.agent.loop import AgentSession, AgentSettings
from kenning.config import ContextConfig
from kenning.context.engine import ContextEngine
from kenning.context.transcript import Entry
from kenning.home import Home
from kenning.models.types import ChatMessage, Model, ToolCall
from kenning.tools.base import Tool
from kenning.tools.registry import ToolRegistry


class CharCounter:
    """One token per character: thresholds become plain character counts."""

    def count(self, text: str) -> int:
        return len(text)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def config(**changes: Any) -> ContextConfig:
    """Defaults for tests: no reserve, no calibration, a small tail."""
    base = ContextConfig(reserve_tokens=0, calibrate=False, tail_min_messages=4)
    return replace(base, **changes)


def engine(**options: Any) -> ContextEngine:
    cfg = options.pop("cfg", None) or config()
    options.setdefault("counter", CharCounter())
    options.setdefault("max_output_tokens", 0)  # no reserve: usable = window
    options.setdefault("prompt_builder", lambda s: s.transcript.system_prompt)
    return ContextEngine(cfg, **options)


def lookup_tool() -> Tool:
    def lookup(topic: str) -> str:
        """Look a topic up in the team's notes."""
        return f"notes on {topic}: " + "x" * 500

    return Tool.from_function(lookup, read_only=True)


def start(
    home: Home,
    model: Model,
    cwd: Path,
    ctx: ContextEngine | None = None,
    *,
    tools: ToolRegistry | None = None,
    prompt: str = "SYSTEM",
) -> AgentSession:
    session = AgentSession.start(
        home,
        model,
        tools if tools is not None else ToolRegistry([lookup_tool()]),
        cwd=cwd,
        settings=AgentSettings(stream=False),
        system_prompt=prompt,
    )
    if ctx is not None:
        ctx.attach(session)
    return session


def run(session: AgentSession, text: str) -> list[Any]:
    async def collect() -> list[Any]:
        return [event async for event in session.turn(text)]

    return asyncio.run(collect())


def fill(session: AgentSession, turns: Sequence[tuple[str, str]]) -> None:
    """Append finished exchanges straight to the transcript (no model, no engine)."""
    for ask, answer in turns:
        session.transcript.append(ChatMessage.user(ask))
        session.transcript.append(ChatMessage.assistant(answer))


def entries(messages: Sequence[ChatMessage]) -> list[Entry]:
    return [Entry(i + 1, m) for i, m in enumerate(messages)]


def call(name: str, call_id: str, **args: Any) -> ToolCall:
    return ToolCall(call_id, name, json.dumps(args))


def no_tools(messages: list[ChatMessage], tools: Any, settings: Any) -> str:
    return "ok"


Responder = Callable[[list[ChatMessage], Any, Any], Any]
