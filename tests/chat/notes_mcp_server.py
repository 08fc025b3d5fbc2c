"""A small stdio MCP server for the tests: a read-only lookup and a note writer.

Each call is appended to $NOTES_LOG (one JSON line), so tests see what the
server really received.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations

server = MCPServer("notes")


def _log(tool: str, **args: str) -> None:
    log = os.environ.get("NOTES_LOG")
    if log:
        with Path(log).open("a", encoding="utf-8") as out:
            out.write(json.dumps({"tool": tool, **args}) + "\n")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def lookup(term: str) -> str:
    """Look a term up in the notes."""
    _log("lookup", term=term)
    return f"{term}: found in notes/2026.md"


@server.tool()
def add_note(text: str) -> str:
    """Add a note."""
    _log("add_note", text=text)
    return f"noted: {text}"


@server.tool()
def secret_tool() -> str:
    """A tool the config does not allow."""
    return "should not be reachable"


if __name__ == "__main__":
    server.run("stdio")
