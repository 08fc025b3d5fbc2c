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
from typing import Any

from kenning.agent.delegate import delegate_tool
from kenning.home import Home
from kenning.skills.agent_tools import skill_registry_tools
from kenning.tools.base import Tool, ToolContext, ToolResult
from kenning.tools.memory_tools import archive_tools, memory_tool
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
    for tool in skill_registry_tools(scratch):
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


def quiet_archive_tools(home: Home) -> list[Tool]:
    """The archive tools for automated sessions (review, cron): no recalls recorded."""
    return archive_tools(home, record_recalls=False)
