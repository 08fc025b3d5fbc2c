"""Archiving what MCP clients do: one ``mcp`` session per client connection.

Each client gets one archive session of source ``mcp``. Over stdio the
connection is the server process (a host starts one per conversation window
or workspace), so the run is the session. Over HTTP, several clients can be
connected at once, so each MCP session id (``Mcp-Session-Id``, assigned at
the handshake) gets its own archive session and two hosts' calls never
interleave in one transcript; requests without one (the stateless 2026
protocol) share the run's session. A session is started at its first tool
call, not at the handshake, because hosts connect and list tools far more
often than they use them: no empty sessions. All are ended when the server
stops.

Every tool call is stored as an assistant message carrying the call (name and
JSON arguments, indexed for search like any tool call) *before* it runs, and
its result as a tool message after, as the agent loop does: a server killed
mid-call leaves the call on record. A successful read is stored as one line
naming what it found (paths and line ranges, session and message ids, skill
names), not the text it returned: that text is already in the archive or the
memory files, and stored again it would come back as duplicate hits in later
searches; worse, each search first embeds the messages recorded since the
last one, and embedding a full search result took ~1.5 s per search with the
local model on a 2-core machine. Resource and prompt reads are not stored at
all, for the same reason.

Recording never fails a tool call: if the archive refuses (disk full, a
wedged lock), the call still runs and the problem is logged once on stderr.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kenning.archive.store import Archive, ArchiveError, Message

log = logging.getLogger(__name__)

# A tool result larger than this is stored cut, with a note; the agent loop
# spills such results to a file, which has no meaning for an MCP client.
MAX_STORED_CHARS = 100_000


# What a read returned, in the order results list it, and how to name one item.
_LISTS = ("passages", "sessions", "messages", "beginning", "end", "skills", "entries")
_SCALARS = ("target", "path", "lines", "name", "file", "mode")


def found(result: Mapping[str, Any]) -> str:
    """One line naming what a successful read returned — paths, ids, names — never its text."""
    parts = [f"{key} {result[key]}" for key in _SCALARS if isinstance(result.get(key), str)]
    session = result.get("session")
    if isinstance(session, Mapping) and session.get("session_id"):
        parts.append(f"session {session['session_id']}")
    for key in _LISTS:
        items = result.get(key)
        if not isinstance(items, list):
            continue
        refs = [ref for item in items if (ref := _ref(item))]
        parts.append(f"{len(items)} {key}" + (f": {', '.join(refs)}" if refs else ""))
    return "; ".join(parts) or "done"


def _ref(item: Any) -> str | None:
    if not isinstance(item, Mapping):
        return None
    if item.get("path"):
        return f"{item['path']}:{item.get('lines', '')}".rstrip(":")
    for key in ("session_id", "name"):
        if item.get(key):
            return str(item[key])
    if item.get("message_id") is not None:
        return f"#{item['message_id']}"
    return None


@dataclass(frozen=True)
class Peer:
    """Who is calling: the connection key ("" = the run) and the client's name and version."""

    key: str = ""
    client: str | None = None
    version: str | None = None

    def label(self) -> str:
        return self.client or "an MCP client"


class Recorder:
    def __init__(
        self, archive: Archive | None, *, transport: str, workspace: str | None = None
    ) -> None:
        """``archive`` None records nothing (read-only mode)."""
        self.archive = archive
        self.transport = transport
        self.workspace = workspace
        self._sessions: dict[str, str] = {}
        self._warned = False

    def session_for(self, peer: Peer) -> str | None:
        """``peer``'s archive session, started on first use; None when not recorded."""
        if self.archive is None:
            return None
        existing = self._sessions.get(peer.key)
        if existing is not None:
            return existing
        meta: dict[str, Any] = {"transport": self.transport}
        if peer.client:
            meta["client"] = {"name": peer.client, "version": peer.version}
        if peer.key:
            meta["mcp_session_id"] = peer.key
        try:
            sid = self.archive.start_session(
                "mcp",
                title=f"MCP · {peer.label()}",
                workspace=self.workspace,
                meta=meta,
            )
        except (ArchiveError, OSError) as exc:
            self._warn(exc)
            return None
        self._sessions[peer.key] = sid
        return sid

    def call(self, session_id: str | None, peer: Peer, call_id: str, name: str, args: Any) -> None:
        call = {"id": call_id, "name": name, "arguments": json.dumps(args, ensure_ascii=False)}
        self._append(session_id, Message("assistant", "", speaker=peer.client, tool_calls=[call]))

    def result(
        self,
        session_id: str | None,
        call_id: str,
        name: str,
        result: Mapping[str, Any],
        *,
        read: bool,
    ) -> None:
        """Store ``result``; for a successful ``read``, only the line saying what it found."""
        if read and result.get("success") is not False:
            text = found(result)
        else:
            text = json.dumps(result, ensure_ascii=False, default=str)
        if len(text) > MAX_STORED_CHARS:
            cut = len(text) - MAX_STORED_CHARS
            text = f"{text[:MAX_STORED_CHARS]}\n[… {cut:,} more chars not stored]"
        self._append(session_id, Message("tool", text, tool_name=name, tool_call_id=call_id))

    def close(self, reason: str = "client disconnected") -> None:
        """End every session this server started (idempotent)."""
        if self.archive is None:
            return
        for sid in self._sessions.values():
            try:
                self.archive.end_session(sid, reason)
            except (ArchiveError, OSError) as exc:
                self._warn(exc)
        self._sessions.clear()

    def _append(self, session_id: str | None, message: Message) -> None:
        if self.archive is None or session_id is None:
            return
        try:
            self.archive.append(session_id, message)
        except (ArchiveError, OSError) as exc:
            self._warn(exc)

    def _warn(self, exc: BaseException) -> None:
        if not self._warned:
            self._warned = True
            log.warning("MCP calls are not being archived: %s", exc)
