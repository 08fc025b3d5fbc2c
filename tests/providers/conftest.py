"""Providers for the tests: one that records every hook, one that blocks until released."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from kenning.agent.loop import AgentSession, AgentSettings
from kenning.config import Config, EmbeddingConfig, HistoryConfig, MemoryConfig
from kenning.home import Home
from kenning.models.types import ChatMessage, Model
from kenning.providers import MemoryProvider, MemoryWrite, ProviderManager
from kenning.runtime.factory import build_tools


class Recorder(MemoryProvider):
    """Recalls ``recall`` for every query and records each hook call in ``heard``."""

    name = "recorder"

    def __init__(self, recall: str | None = "The staging database is db-7.") -> None:
        self.recall = recall
        self.queries: list[str] = []
        self.heard: list[tuple[Any, ...]] = []

    def prefetch(self, query: str) -> str | None:
        self.queries.append(query)
        return self.recall

    def on_turn_start(self, turn: int, message: str) -> None:
        self.heard.append(("on_turn_start", turn, message))

    def sync_turn(self, user: str, assistant: str) -> None:
        self.heard.append(("sync_turn", user, assistant))

    def on_pre_compress(self, messages: Sequence[ChatMessage]) -> None:
        self.heard.append(("on_pre_compress", [m.content for m in messages]))

    def on_memory_write(self, write: MemoryWrite) -> None:
        self.heard.append(("on_memory_write", write))

    def on_delegation(self, task: str, result: str, *, child_session_id: str) -> None:
        self.heard.append(("on_delegation", task, result, child_session_id))

    def on_session_end(self, reason: str) -> None:
        self.heard.append(("on_session_end", reason))

    def close(self) -> None:
        self.heard.append(("close",))

    def hooks(self) -> list[str]:
        return [entry[0] for entry in self.heard]


class Gate(MemoryProvider):
    """Blocks in the hooks named in ``blocking`` until ``release`` is set (a hung provider)."""

    name = "gate"

    def __init__(self, *blocking: str) -> None:
        self.blocking = set(blocking)
        self.release = threading.Event()
        self.entered: dict[str, threading.Event] = {h: threading.Event() for h in blocking}
        self.ran: list[str] = []

    def _wait(self, hook: str) -> None:
        if hook in self.blocking:
            self.entered[hook].set()
            self.release.wait(60)
        self.ran.append(hook)

    def prefetch(self, query: str) -> str | None:
        self._wait("prefetch")
        return "late recall"

    def sync_turn(self, user: str, assistant: str) -> None:
        self._wait("sync_turn")

    def on_session_end(self, reason: str) -> None:
        self._wait("on_session_end")


@pytest.fixture
def member(tmp_path: Path) -> Home:
    """A home with keyword-only search (no model to load) and no providers configured."""
    return member_home(tmp_path / "member")


def member_home(root: Path, **memory: Any) -> Home:
    config = Config(
        memory=MemoryConfig(**memory),
        history=HistoryConfig(enabled=True),
        embedding=EmbeddingConfig(provider="none"),
    )
    return Home(root, config)


def start(
    home: Home, model: Model, cwd: Path, manager: ProviderManager | None, **settings: Any
) -> AgentSession:
    session = AgentSession.start(
        home,
        model,
        build_tools(home, plugins=False),
        cwd=cwd,
        settings=AgentSettings.from_home(home, stream=False, **settings),
        system_prompt="SYSTEM PROMPT",
    )
    session.memory_providers = manager
    return session


def run(session: AgentSession, text: str) -> list[Any]:
    async def collect() -> list[Any]:
        return [event async for event in session.turn(text)]

    return asyncio.run(collect())


def close(session: AgentSession) -> None:
    asyncio.run(session.close())


@pytest.fixture
def released() -> Iterator[list[Gate]]:
    """Gates registered here are opened at the end of the test, whatever happened."""
    gates: list[Gate] = []
    yield gates
    for gate in gates:
        gate.release.set()
