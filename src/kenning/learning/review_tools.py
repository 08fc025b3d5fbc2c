"""The tools a background review may use, enforced where calls are dispatched.

A review gets ``memory``, ``skill_view``, ``skill_manage``, ``session_search``,
``memory_search`` and the read-only file tools (``read_file``, ``list_files``,
``search_files``) — nothing else. The registry holds every built-in tool (so a
refused call says "not available in this context", not "no such tool") and is
a ``restricted`` view, which refuses any other name at dispatch even if the
model learned it elsewhere (Hermes blocked its read tools and its reviews
then failed ~142 times in #41465; ours can read).

- ``memory`` and the skill tools work on the staging copy (:mod:`.staging`),
  with every check of the real ones: the skill tools see the review's turns as
  automated (``ctx.purpose == "review"``), so they may change only
  agent-created skills, only after reading them, and in ``propose`` mode only
  propose. ``skill_manage`` refuses ``delete``: a review improves skills, it
  does not retire them (that is the curator's job, with its own rules).
- The archive searches use their own connection and do **not** record
  recalls: the recall log feeds dreaming, which must learn only from
  interactive sessions, never from the agent looking at itself.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from kenning.agent.delegate import delegate_tool
from kenning.archive import memory_search, session_search
from kenning.archive.store import Archive
from kenning.embed import CachedEmbedder
from kenning.home import Home
from kenning.search.engine import SearchEngine
from kenning.skills.agent_tools import skill_tools
from kenning.tools.base import Access, Tool, ToolContext, ToolResult
from kenning.tools.memory_tools import memory_tool
from kenning.tools.registry import ToolRegistry, default_registry

REVIEW_TOOLS = (
    "memory",
    "skill_view",
    "skill_manage",
    "session_search",
    "memory_search",
    "read_file",
    "list_files",
    "search_files",
)
LABEL = "background review: memory, skills and read-only tools only"


def review_registry(live: Home, scratch: Home) -> ToolRegistry:
    """Every built-in tool, memory and skills bound to ``scratch``, restricted to REVIEW_TOOLS."""
    registry = default_registry(live)
    registry.register(memory_tool(scratch), replace=True)
    for tool in skill_tools(scratch):
        if tool.name == "skill_manage":
            tool = _without_delete(tool)
        registry.register(tool, replace=True)
    for tool in quiet_archive_tools(live):
        registry.register(tool, replace=True)
    registry.register(delegate_tool())
    return registry.restricted(REVIEW_TOOLS, label=LABEL)


def _without_delete(tool: Tool) -> Tool:
    inner = tool.handler

    async def handler(args: dict[str, Any], ctx: ToolContext) -> Any:
        if args.get("action") == "delete":
            return ToolResult.error(
                "a review does not delete skills; nothing was changed.",
                "if a skill is obsolete, say so in your answer; otherwise patch it.",
                kind="not_allowed",
            )
        return await inner(args, ctx)

    return dataclasses.replace(tool, handler=handler)


class _QuietArchive:
    """A private archive connection and a search engine that records no recalls."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self.lock = threading.Lock()
        self._archive: Archive | None = None
        self._engine: SearchEngine | None = None

    @property
    def archive(self) -> Archive:
        if self._archive is None:
            self._archive = Archive(self.home.layout.state_db)
        return self._archive

    def engine(self) -> SearchEngine:
        if self._engine is None:
            shared = self.home.embedder
            inner = shared.inner if isinstance(shared, CachedEmbedder) else shared
            archive = self.archive
            embedder = None if inner is None else CachedEmbedder(inner, lambda: archive.conn)
            self._engine = SearchEngine(
                archive,
                embedder,
                self.home.config.search,
                layout=self.home.layout,
                record_recalls=False,
            )
        return self._engine

    def close(self) -> None:
        with self.lock:
            if self._archive is not None:
                self._archive.close()
            self._archive = None
            self._engine = None


def quiet_archive_tools(home: Home) -> list[Tool]:
    """``session_search`` and ``memory_search`` for automated sessions (review, cron)."""
    handle = _QuietArchive(home)
    state_db = home.layout.state_db.resolve()
    memory_dirs = [home.layout.memories_dir.resolve(), home.layout.journal_dir.resolve()]

    def sessions(args: dict[str, Any], ctx: ToolContext) -> Any:
        with handle.lock:
            tool = session_search.SessionSearch(
                handle.archive, handle.engine, current_session_id=ctx.session_id
            )
            return tool(args)

    def memory(args: dict[str, Any], ctx: ToolContext) -> Any:
        with handle.lock:
            return memory_search.MemorySearch(handle.engine)(args)

    return [
        Tool.from_schema(
            "session_search",
            session_search.SCHEMA,
            sessions,
            read_only=True,
            toolset="archive",
            access=lambda args, ctx: Access.of(writes=[state_db]),
            close=handle.close,
        ),
        Tool.from_schema(
            "memory_search",
            memory_search.SCHEMA,
            memory,
            read_only=True,
            toolset="archive",
            access=lambda args, ctx: Access.of(reads=memory_dirs, writes=[state_db]),
        ),
    ]
