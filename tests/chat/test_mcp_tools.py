"""MCP servers as tools: a real stdio server started by the SDK's client, its
tools namespaced, read-only ones parallel and unasked, the rest approval-gated;
`kenning mcp import claude-code` from Claude Code's real config shapes."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning.agent.loop import AgentSession
from kenning.cli import cli
from kenning.home import Home
from kenning.mcp.servers import McpServerSpec, configured_servers
from kenning.mcp.toolset import McpToolset
from kenning.runtime.factory import build_tools
from kenning.testing.models import ScriptedModel, tool_call
from kenning.tools.base import ApprovalRequest, ToolContext
from kenning.tools.permissions import Permissions

SERVER = Path(__file__).with_name("notes_mcp_server.py")


def notes_spec(log: Path) -> McpServerSpec:
    env = {"NOTES_LOG": str(log)}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return McpServerSpec(
        "notes",
        "stdio",
        command=sys.executable,
        args=(str(SERVER),),
        env=env,
        allowed_tools=("lookup", "add_note"),
    )


def test_an_mcp_servers_tools_are_called_through_the_agent(home: Home, tmp_path: Path) -> None:
    log = tmp_path / "calls.jsonl"
    asked: list[ApprovalRequest] = []

    async def approve(request: str) -> bool:
        assert isinstance(request, ApprovalRequest)
        asked.append(request)
        return True

    async def chat() -> list[str]:
        toolset = McpToolset([notes_spec(log)])
        await toolset.start()
        try:
            assert toolset.problems == []
            tools = build_tools(home)
            names = toolset.register(tools)
            assert names == ["mcp__notes__lookup", "mcp__notes__add_note"]
            lookup, add = tools.get("mcp__notes__lookup"), tools.get("mcp__notes__add_note")
            assert lookup is not None and add is not None
            assert lookup.read_only and not add.read_only
            # Read-only calls run side by side; the others one at a time.
            probe = ToolContext(home, cwd=tmp_path)
            assert not lookup.access_for({}, probe).conflicts(lookup.access_for({}, probe))
            assert add.access_for({}, probe).exclusive
            model = ScriptedModel(
                [
                    [
                        tool_call("mcp__notes__lookup", term="kenning"),
                        tool_call("mcp__notes__add_note", text="ship it"),
                    ],
                    "Found it and noted it.",
                ]
            )
            session = AgentSession.start(home, model, tools, cwd=tmp_path, approve=approve)
            session.extras["permissions"] = Permissions("ask")
            ended = await session.run("Look up kenning and note 'ship it'.")
            assert ended.ok
            results = [m.content for m in session.transcript.messages() if m.role == "tool"]
            await session.close("test")
            return results
        finally:
            await toolset.close()

    results = asyncio.run(chat())
    assert results == ["kenning: found in notes/2026.md", "noted: ship it"]
    # Only the tool that is not read-only asked, with its arguments shown.
    assert [(str(a), a.kind) for a in asked] == [("mcp__notes__add_note", "mcp")]
    assert '"text": "ship it"' in asked[0].detail
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert {c["tool"] for c in calls} == {"lookup", "add_note"}


def test_plan_mode_and_a_server_that_does_not_start(home: Home, tmp_path: Path) -> None:
    broken = McpServerSpec("broken", "stdio", command=str(tmp_path / "no-such-program"))

    async def run() -> tuple[list[str], list[str]]:
        toolset = McpToolset([notes_spec(tmp_path / "log"), broken])
        await toolset.start()
        try:
            tools = build_tools(home)
            toolset.register(tools)
            model = ScriptedModel(
                [
                    [
                        tool_call("mcp__notes__lookup", term="x"),
                        tool_call("mcp__notes__add_note", text="y"),
                    ],
                    "Done.",
                ]
            )
            session = AgentSession.start(home, model, tools, cwd=tmp_path)
            session.extras["permissions"] = Permissions("plan")
            await session.run("go")
            results = [m.content for m in session.transcript.messages() if m.role == "tool"]
            await session.close("test")
            return results, toolset.problems
        finally:
            await toolset.close()

    results, problems = asyncio.run(run())
    assert results[0] == "x: found in notes/2026.md"
    assert "plan mode" in results[1]
    assert len(problems) == 1 and "MCP server 'broken' did not start" in problems[0]


def test_import_claude_code_servers_keeps_secrets_out_of_config(
    _hermetic_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user, project = tmp_path / "user", tmp_path / "app"
    user.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(user))
    claude = {
        "mcpServers": {
            "github": {
                "type": "stdio",
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-github"],
                "env": {"GITHUB_TOKEN": "ghp_secret123"},
            },
            "kenning": {"command": "kenning", "args": ["mcp"]},
        },
        "projects": {str(project): {"mcpServers": {"db": {"command": "db-mcp", "args": []}}}},
    }
    (user / ".claude.json").write_text(json.dumps(claude))
    shared = {
        "mcpServers": {
            "docs": {
                "type": "http",
                "url": "https://docs.example.com/mcp",
                "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
            }
        }
    }
    (project / ".mcp.json").write_text(json.dumps(shared))
    _hermetic_home.mkdir(parents=True)
    config = _hermetic_home / "config.toml"
    config.write_text("[memory]\nuser_budget = 1500\n")
    result = CliRunner().invoke(cli, ["mcp", "import", "claude-code", "--project", str(project)])
    assert result.exit_code == 0, result.output
    assert "added github (stdio: npx -y @modelcontextprotocol/server-github)" in result.output
    assert "export GITHUB_TOKEN=" in result.output
    text = config.read_text()
    assert "ghp_secret123" not in text and text.startswith("[memory]\nuser_budget = 1500\n")
    specs, problems = configured_servers(config)
    assert problems == []
    by_name = {s.name: s for s in specs}
    assert sorted(by_name) == ["db", "docs", "github"]  # never kenning itself
    assert by_name["github"].env == {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}
    assert by_name["docs"].transport == "http"
    assert by_name["docs"].headers == {"Authorization": "Bearer ${DOCS_TOKEN}"}
    again = CliRunner().invoke(cli, ["mcp", "import", "claude-code", "--project", str(project)])
    assert "kept github: already in" in again.output
    # The rest of Kenning still reads this config.
    assert Home.open().config.memory.user_budget == 1500


def test_bad_server_entries_are_reported_by_name(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[mcp.servers.ok]\ncommand = "x"\n\n[mcp.servers.nourl]\ntransport = "http"\n\n'
        '[mcp.servers.typo]\ncommand = "x"\nargz = []\n'
    )
    specs, problems = configured_servers(config)
    assert [s.name for s in specs] == ["ok"]
    assert any("'nourl': an http server needs url" in p for p in problems)
    assert any("'typo': unknown key(s) argz" in p for p in problems)
