"""The skills layer wired into the agent runtime: registry tools and the prompt's index block.

:mod:`.tool` holds the model-facing tools as dict-in/dict-out callables; this
module adds what only the runtime knows, from the tool context of each call:

- the session (``ctx.session_id``): ``skill_view`` records reads under it and
  ``skill_manage``'s guards check them, so both must use one library — one
  :class:`SkillLibrary` per ``Home`` object, shared by every session of it;
- whether the writer is automated: turns whose ``ctx.purpose`` is "review"
  (the background review) or "cron" (scheduled jobs, nobody watching) are held
  to the guards and, in ``propose`` mode, only propose;
- whether writing is allowed at all: ``skill_manage`` is refused where memory
  writes are (``ctx.memory_writable`` False: subagents, the pre-compaction
  flush), while ``skill_view`` and ``skills_search`` keep working.

:func:`index_block` is the skills block of a new session's system prompt.
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any

from kenning.skills import tool as tool_mod
from kenning.skills.guards import Writer
from kenning.skills.index import build_index
from kenning.skills.library import SkillLibrary
from kenning.tools.base import Access, Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from kenning.home import Home

AUTOMATED_PURPOSES = frozenset({"review", "cron"})

_libraries: weakref.WeakKeyDictionary[Home, SkillLibrary] = weakref.WeakKeyDictionary()
_libraries_lock = threading.Lock()


def library_for(home: Home) -> SkillLibrary:
    """The one library of ``home`` in this process (its read log is shared by sessions)."""
    with _libraries_lock:
        library = _libraries.get(home)
        if library is None:
            library = _libraries[home] = SkillLibrary.for_home(home)
        return library


def index_block(home: Home, task: str | None = None) -> str:
    """The skills block for a new session's system prompt ("" when there are no skills)."""
    return build_index(library_for(home), task=task or "").text


def skill_registry_tools(
    home: Home, library: SkillLibrary | None = None, *, find: str = tool_mod.FIND_CALL
) -> list[Tool]:
    """``skill_view``, ``skills_search`` and ``skill_manage`` as registry tools.

    One set serves every session and thread: who calls, from which session,
    and the turn's failure count come from each call's context. ``library``
    replaces the home's shared one (the MCP server's read-only view); ``find``
    is the call hints name for finding a skill by words (over MCP, ``skill_list``).
    """
    library = library or library_for(home)
    skills_dir = str(library.dir)
    manage = tool_mod.SkillManageTool(library, "", find=find)

    def view(args: dict[str, Any], ctx: ToolContext) -> Any:
        return tool_mod.SkillViewTool(library, ctx.session_id or "", find=find)(args)

    def search(args: dict[str, Any], ctx: ToolContext) -> Any:
        return tool_mod.SkillsSearchTool(library, ctx.session_id or "")(args)

    def change(args: dict[str, Any], ctx: ToolContext) -> Any:
        if not ctx.memory_writable:
            return ToolResult.error(
                f"skills are read-only in this context ({ctx.purpose}); nothing was changed.",
                f"skill_view and {find.split('(')[0]} still work. Describe the improvement in your "
                "answer instead.",
                kind="skills_read_only",
            )
        automated = ctx.purpose in AUTOMATED_PURPOSES
        if ctx.origin:  # another host's model, e.g. over MCP
            reason = ctx.provenance("skill_manage")
        else:
            reason = "background review" if automated else "skill_manage tool"
        writer = Writer("agent", ctx.session_id, automated)
        return manage(args, writer=writer, reason=reason, failures=ctx.turn.failures)

    def reads(args: dict[str, Any], ctx: ToolContext) -> Access:
        return Access.of(reads=[skills_dir])

    def writes(args: dict[str, Any], ctx: ToolContext) -> Access:
        return Access.of(writes=[skills_dir])

    return [
        Tool.from_schema(
            "skill_view", tool_mod.VIEW_SCHEMA, view, read_only=True, toolset="skills", access=reads
        ),
        Tool.from_schema(
            "skills_search",
            tool_mod.SEARCH_SCHEMA,
            search,
            read_only=True,
            toolset="skills",
            access=reads,
        ),
        Tool.from_schema(
            "skill_manage",
            tool_mod.MANAGE_SCHEMA,
            change,
            read_only=False,
            toolset="skills",
            access=writes,
        ),
    ]
