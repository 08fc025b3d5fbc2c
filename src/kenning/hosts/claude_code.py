"""Claude Code: where it reads each piece, and how its transcripts become messages.

============  ===============================  ====================================
piece         ``--scope user``                 ``--scope project`` (folder P)
============  ===============================  ====================================
MCP server    ``~/.claude.json`` mcpServers    ``P/.mcp.json`` mcpServers
hooks         ``~/.claude/settings.json``      ``P/.claude/settings.local.json``
skills        ``~/.claude/skills/<name>/``     ``P/.claude/skills/<name>/``
memory        ``~/.claude/CLAUDE.md``          ``P/CLAUDE.md``
============  ===============================  ====================================

(Claude Code's documentation: user-scope MCP servers live in ``~/.claude.json``,
project ones in ``.mcp.json``; hooks in the settings files.) Project hooks go
to ``settings.local.json`` (personal, not committed): the command names this
machine's Python. The hooks are ``Stop`` (a turn ended), ``PreCompact``
(before the context is compacted) and ``SessionEnd``; their input carries
``session_id``, ``transcript_path``, ``cwd`` and ``hook_event_name``. The
transcript is JSON Lines, read as ``kenning sessions import claude-code``
reads it (``archive.importers.claude_code``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kenning.archive.importers.claude_code import messages_since, sidechains_since
from kenning.archive.store import Message
from kenning.home import Home
from kenning.hosts import install as generic
from kenning.hosts.install import HostSpec, InstallReport, Places, Scope

HOST = "claude-code"
SPEC = HostSpec(HOST, "Claude Code", ("Stop", "PreCompact", "SessionEnd"), hook_timeout=10)
REVIEW_EVENTS = ("Stop", "SessionEnd")  # the end of a turn, the end of the session


def places(scope: Scope, *, user_home: Path, project: Path | None) -> Places:
    if scope == "user":
        claude = user_home / ".claude"
        return Places(
            scope,
            None,
            user_home / ".claude.json",
            claude / "settings.json",
            claude / "skills",
            claude / "CLAUDE.md",
        )
    assert project is not None
    return Places(
        scope,
        project,
        project / ".mcp.json",
        project / ".claude" / "settings.local.json",
        project / ".claude" / "skills",
        project / "CLAUDE.md",
    )


def parse_lines(
    events: list[Any], carry: dict[str, Any], session_id: str
) -> tuple[list[Message], dict[str, Any], str | None]:
    """New transcript lines of ``session_id`` as messages (see ``messages_since``)."""
    mine = [e for e in events if isinstance(e, dict) and e.get("sessionId") == session_id]
    return messages_since(mine, carry)


def parse_sidechains(
    events: list[Any], chains: dict[str, str], session_id: str
) -> tuple[dict[str, tuple[list[Message], str | None]], dict[str, str]]:
    """New sub-agent lines of ``session_id``, by child session (see ``sidechains_since``)."""
    mine = [e for e in events if isinstance(e, dict) and e.get("sessionId") == session_id]
    return sidechains_since(mine, chains)


# -- the generic operations, for this host ---------------------------------------


def install(home: Home, where: Places, **options: Any) -> InstallReport:
    return generic.install(SPEC, home, where, **options)


def uninstall(home: Home, where: Places) -> list[str]:
    return generic.uninstall(SPEC, home, where)


def status(home: Home, where: Places) -> list[str]:
    return generic.status(SPEC, home, where)


def hook_command(home: Home, *, review: bool, assignments: list[str]) -> str:
    return generic.hook_command(SPEC, home, review=review, assignments=assignments)
