"""The skills tools as the agent runtime registers them: session, automation and read-only
contexts come from the tool context of each call."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.skills.conftest import last_message, skill_md, subjects

from kenning.home import Home
from kenning.skills.agent_tools import index_block, library_for, skill_registry_tools
from kenning.tools.base import Tool, ToolContext


def _call(tool: Tool, args: dict[str, Any], ctx: ToolContext) -> Any:
    return asyncio.run(tool.handler(args, ctx))


def _tools(home: Home) -> dict[str, Tool]:
    return {tool.name: tool for tool in skill_registry_tools(home)}


def test_the_three_tools_share_one_library_per_home(home: Home) -> None:
    tools = _tools(home)
    assert set(tools) == {"skill_view", "skills_search", "skill_manage"}
    assert tools["skill_view"].read_only and not tools["skill_manage"].read_only
    assert library_for(home) is library_for(home)


def test_a_session_creates_and_views_through_the_context(home: Home) -> None:
    tools = _tools(home)
    ctx = ToolContext(home=home, session_id="s-42", purpose="cli")
    created = _call(tools["skill_manage"], {"action": "create", "name": "x",
                                            "content": skill_md("x")}, ctx)  # fmt: skip
    assert created["success"], created
    assert library_for(home).info("x").record.created_by == "agent"
    assert subjects(home)[0].startswith("skills: create 'x'")
    assert "By: agent (session s-42)" in last_message(home)
    viewed = _call(tools["skill_view"], {"name": "x"}, ctx)
    assert viewed["content"].startswith("---\nname: x")
    found = _call(tools["skills_search"], {"query": "recurring thing"}, ctx)
    assert [r["name"] for r in found["results"]] == ["x"]
    assert "- x: Does one recurring thing well." in index_block(home, "anything")


def test_a_review_turn_is_guarded_and_a_subagent_cannot_write(home: Home) -> None:
    tools = _tools(home)
    live = ToolContext(home=home, session_id="live", purpose="cli")
    _call(tools["skill_manage"], {"action": "create", "name": "x", "content": skill_md("x")}, live)
    review = ToolContext(home=home, session_id="rev", purpose="review")
    patch = {"action": "patch", "name": "x", "old_string": "first", "new_string": "1st"}
    assert _call(tools["skill_manage"], patch, review)["error"] == "not_read"
    _call(tools["skill_view"], {"name": "x"}, review)
    assert _call(tools["skill_manage"], patch, review)["success"]
    sub = ToolContext(home=home, session_id="child", purpose="subagent", memory_writable=False)
    refused = _call(tools["skill_manage"], patch, sub)
    assert not refused.ok and "read-only in this context" in refused.text
