"""`kenning mcp config <host>`: the printed launch line starts the same home, via a real client."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner, Result
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from kenning.cli import cli
from kenning.home import Home
from kenning.mcp.client import payload
from kenning.memory.store import Target

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## Use Kenning's memory from Claude Code / Cursor"


def run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_json_config_launches_this_home_through_the_sdk_client(home_dir: Path) -> None:
    printed = run("--set", "embedding.provider=none", "mcp", "config", "json")
    entry = json.loads(printed.stdout)["mcpServers"]["kenning"]
    assert entry["type"] == "stdio" and Path(entry["command"]).is_absolute()
    assert entry["args"][-1] == "mcp" and "embedding.provider=none" in entry["args"]
    assert entry["env"] == {"KENNING_HOME": str(home_dir)}
    assert "mcpServers" in printed.stderr or printed.stderr  # where to put it, on stderr

    # The SDK client passes only a minimal environment: the printed env must carry the home.
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=entry["env"])

    async def main() -> None:
        async with Client(params) as client:  # the SDK's default negotiation
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "memory" in names and "skill_manage" in names
            added = await client.call_tool(
                "memory", {"action": "add", "target": "user", "content": "User works in Lisbon"}
            )
            assert payload(added)["done"]

    anyio.run(main)
    assert Home.open(home_dir).memory.read(Target.USER).entries == ("User works in Lisbon",)


def test_each_host_gets_its_own_shape_carrying_profile_and_read_only(home_dir: Path) -> None:
    claude = shlex.split(
        run("--profile", "work", "mcp", "config", "claude-code", "--read-only").stdout
    )
    assert claude[:6] == ["claude", "mcp", "add", "kenning", "--scope", "user"]
    assert claude[6:8] == ["--env", f"KENNING_HOME={home_dir}"]
    launch = claude[claude.index("--") + 1 :]
    assert Path(launch[0]).is_absolute()
    assert launch[1:] == ["--profile", "work", "mcp", "--read-only"]

    cursor = json.loads(run("mcp", "config", "cursor").stdout)["mcpServers"]["kenning"]
    assert "type" not in cursor and cursor["args"] == ["mcp"]

    codex = tomllib.loads(run("mcp", "--read-only", "config", "codex").stdout)
    server = codex["mcp_servers"]["kenning"]
    assert server["args"] == ["mcp", "--read-only"]
    assert server["env"] == {"KENNING_HOME": str(home_dir)}


def test_settings_from_the_environment_travel_with_the_config(
    home_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KENNING_EMBEDDING__PROVIDER", "none")
    entry = json.loads(run("mcp", "config", "json").stdout)["mcpServers"]["kenning"]
    assert entry["env"] == {"KENNING_EMBEDDING__PROVIDER": "none", "KENNING_HOME": str(home_dir)}


def test_the_docs_show_commands_that_exist() -> None:
    readme = README.read_text(encoding="utf-8")
    assert SECTION in readme
    text = readme.split(SECTION, 1)[1].split("\n## ", 1)[0]
    shown = re.findall(r"^\$ (kenning .+)$", text, flags=re.MULTILINE)
    assert any("mcp config claude-code" in line for line in shown)
    for line in shown:
        args = shlex.split(line)[1:]
        if "config" in args:
            run(*args)  # prints a config: safe to run for real
        else:
            run(*args, "--help")
