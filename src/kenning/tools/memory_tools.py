"""The memory and archive tools, as registry tools: ``memory``, ``session_search``,
``memory_search``, ``memory_get``.

The tools themselves live with their layers (``memory/tool.py``,
``memory/memory_search.py``, ``memory/memory_get.py``,
``archive/session_search.py``) as dict-in/dict-out callables with a
``SCHEMA``; this module adds what the runtime knows and they do not: the
current session (left out of ``session_search``, named in memory commit
messages), whether memory may be written in this context, and what each call
touches.

- ``memory`` is refused for writes when ``ctx.memory_writable`` is False
  (subagents, flush turns); ``show`` still works. Each write that changed a
  file is told to the session's memory provider (``on_memory_write``).
- The archive tools use their own SQLite connection, used by one call at a
  time (a lock), so they never share a connection — or a transaction — with
  the agent loop writing messages, or with each other from parallel batches.
  They declare a write on ``state.db`` (searches record recalls and sync the
  chunk index), so within a batch they run one after another.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kenning.archive import session_search
from kenning.archive.store import Archive
from kenning.embed import CachedEmbedder
from kenning.memory import memory_get, memory_search
from kenning.memory import tool as memory_tool_mod
from kenning.memory.store import Operation, Target, WriteResult
from kenning.providers.base import MemoryWrite
from kenning.search.chunks import memory_files
from kenning.search.engine import SearchEngine
from kenning.tools.base import Access, Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from kenning.home import Home
    from kenning.providers.base import MemoryProviders


def memory_tool(home: Home) -> Tool:
    """``memory``: one object for every caller; each call's state is in its context."""
    inner = memory_tool_mod.MemoryTool(home.memory)
    memories = home.layout.memories_dir.resolve()

    def call(args: dict[str, Any], ctx: ToolContext) -> Any:
        if memory_tool_mod.writes(args) and not ctx.memory_writable:
            return ToolResult.error(
                f"memory is read-only in this context ({ctx.purpose}); nothing was saved.",
                "you can still read it with action='show'. Put anything worth remembering in "
                "your answer instead.",
                kind="memory_read_only",
            )
        # The reason lands in the git commit of the write: provenance back to the session.
        return inner(
            args,
            reason=ctx.provenance("memory tool"),
            failures=ctx.turn.failures,
            on_write=_mirror(ctx),
        )

    def access(args: dict[str, Any], ctx: ToolContext) -> Access:
        if memory_tool_mod.writes(args):
            return Access.of(writes=[memories])
        return Access.of(reads=[memories])

    return Tool.from_schema(
        "memory",
        memory_tool_mod.SCHEMA,
        call,
        read_only=False,
        toolset="memory",
        access=access,
    )


def _mirror(ctx: ToolContext) -> memory_tool_mod.WriteObserver | None:
    """Tells the session's memory provider of each applied write (``on_memory_write``)."""
    providers: MemoryProviders | None = ctx.extras.get("memory_providers")
    if providers is None:
        return None

    def tell(target: Target, operations: Sequence[Operation], result: WriteResult) -> None:
        for op in operations:
            providers.memory_written(
                MemoryWrite(
                    op.action,
                    target.value,
                    content=op.content or "",
                    old_text=op.old_text or "",
                    session_id=ctx.session_id or "",
                )
            )

    return tell


class _ArchiveHandle:
    """A private connection and search engine for the archive tools, one call at a time.

    A caller that owns an archive and engine already (the MCP server, with its
    read-only views) passes them; the handle then neither opens nor closes one.
    """

    def __init__(
        self,
        home: Home,
        *,
        record_recalls: bool = True,
        archive: Callable[[], Archive] | None = None,
        engine: Callable[[], SearchEngine] | None = None,
    ) -> None:
        self.home = home
        self.record_recalls = record_recalls
        self.lock = threading.Lock()
        self._given_archive = archive
        self._given_engine = engine
        self._archive: Archive | None = None
        self._engine: SearchEngine | None = None

    @property
    def archive(self) -> Archive:
        if self._given_archive is not None:
            return self._given_archive()
        if self._archive is None:
            self._archive = Archive(self.home.layout.state_db, storage=self.home.open_storage())
        return self._archive

    def engine(self) -> SearchEngine:
        if self._given_engine is not None:
            return self._given_engine()
        if self._engine is None:
            shared = self.home.embedder
            # The model is shared (loaded once); its cache reads go through our storage.
            inner = shared.inner if isinstance(shared, CachedEmbedder) else shared
            archive = self.archive
            cache = archive.storage.embedding_cache
            embedder = None if inner is None else CachedEmbedder(inner, cache)
            self._engine = SearchEngine(
                archive,
                embedder,
                self.home.config.search,
                layout=self.home.layout,
                record_recalls=self.record_recalls,
            )
        return self._engine

    def close(self) -> None:
        with self.lock:
            if self._archive is not None:
                self._archive.close()
            self._archive = None
            self._engine = None

    def locked(
        self, fn: Callable[[dict[str, Any], ToolContext], Any]
    ) -> Callable[[dict[str, Any], ToolContext], Any]:
        def run(args: dict[str, Any], ctx: ToolContext) -> Any:
            with self.lock:
                return fn(args, ctx)

        return run


def archive_tools(
    home: Home,
    *,
    record_recalls: bool = True,
    archive: Callable[[], Archive] | None = None,
    engine: Callable[[], SearchEngine] | None = None,
) -> list[Tool]:
    """``session_search``, ``memory_search`` and ``memory_get`` over one private connection.

    ``record_recalls=False`` is for automated sessions (review, cron): their
    searches stay out of the recall log that dreaming learns from. ``archive``
    and ``engine`` supply the caller's own instead of a private connection.
    """
    handle = _ArchiveHandle(home, record_recalls=record_recalls, archive=archive, engine=engine)
    state_db = home.layout.state_db.resolve()
    memory_dirs = [home.layout.memories_dir.resolve(), home.layout.journal_dir.resolve()]

    def search_sessions(args: dict[str, Any], ctx: ToolContext) -> Any:
        tool = session_search.SessionSearch(
            handle.archive, handle.engine, current_session_id=ctx.session_id
        )
        return tool(args)

    def search_memory(args: dict[str, Any], ctx: ToolContext) -> Any:
        return memory_search.MemorySearch(handle.engine)(args)

    def get_memory(args: dict[str, Any], ctx: ToolContext) -> Any:
        return memory_reader(home)(args)

    def get_access(args: dict[str, Any], ctx: ToolContext) -> Access:
        try:
            return Access.of(reads=[memory_reader(home).resolve(str(args.get("path", "")))])
        except memory_get.MemoryGetError:
            return Access.NONE

    tools = [
        Tool.from_schema(
            "session_search",
            session_search.SCHEMA,
            handle.locked(search_sessions),
            read_only=True,
            toolset="archive",
            access=lambda args, ctx: Access.of(writes=[state_db]),
            close=handle.close,
        ),
        Tool.from_schema(
            "memory_search",
            memory_search.SCHEMA,
            handle.locked(search_memory),
            read_only=True,
            toolset="archive",
            access=lambda args, ctx: Access.of(reads=memory_dirs, writes=[state_db]),
        ),
        Tool.from_schema(
            "memory_get",
            memory_get.SCHEMA,
            get_memory,
            read_only=True,
            toolset="archive",
            access=get_access,
        ),
    ]
    return tools


def memory_reader(home: Home) -> memory_get.MemoryGet:
    """What memory_get may read (``resolve`` refuses the rest). Built per call: the
    configured extra paths may gain files at any time."""
    extra: list[Path] = [
        path for path, _ in memory_files(home.layout, home.config.search.extra_paths).values()
    ]
    return memory_get.MemoryGet(home.layout, extra_paths=extra)
