"""Archiving what MCP clients change: one ``mcp`` session per client and day.

Only calls that write (``ToolDef.writes``: a memory add, a journal note, a
skill change) are recorded. A connection that only reads — searches, views,
lists, which hosts make far more often than writes — records no session at
all: measured, such connections were 21 of a user's last 30 sessions, each
a transcript of searches that said nothing new.

The writes of one client (its MCP ``clientInfo`` name) on one local day go
to one archive session of source ``mcp``, whichever server process or HTTP
connection they came through: a host starts a stdio server per conversation
window, and a session per window would scatter one day's work. The session
is found by its key ``mcp:{client}:{day}`` (the unique ``import_key``), looked
up and created in one transaction, so two servers of one client never make
two. Sessions a server wrote to are ended (their end time moved on) when it
stops.

Every recorded call is stored as an assistant message carrying the call
(name and JSON arguments, indexed for search like any tool call) *before* it
runs, and its result as a tool message after, as the agent loop does: a
server killed mid-call leaves the call on record.

Recording never fails a tool call: if the archive refuses (disk full, a
wedged lock), the call still runs and the problem is logged once on stderr.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kenning import clock
from kenning.archive.store import Archive, ArchiveError, Message

log = logging.getLogger(__name__)

# A tool result larger than this is stored cut, with a note; the agent loop
# spills such results to a file, which has no meaning for an MCP client.
MAX_STORED_CHARS = 100_000


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
        """The archive session of ``peer``'s client today, found or started; None when
        not recorded. Called for writes only."""
        if self.archive is None:
            return None
        day = clock.today().isoformat()
        key = f"mcp:{peer.client or '-'}:{day}"
        existing = self._sessions.get(key)
        if existing is not None:
            return existing
        meta: dict[str, Any] = {"transport": self.transport, "day": day}
        if peer.client:
            meta["client"] = {"name": peer.client, "version": peer.version}
        try:
            with self.archive.storage.transaction():  # the write lock, before the lookup
                sid = self.archive.session_by_import_key(key)
                if sid is None:
                    sid = self.archive.start_session(
                        "mcp",
                        title=f"MCP · {peer.label()} · {day}",
                        workspace=self.workspace,
                        import_key=key,
                        meta=meta,
                    )
        except (ArchiveError, OSError) as exc:
            self._warn(exc)
            return None
        self._sessions[key] = sid
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
    ) -> None:
        """Store ``result`` whole (cut past ``MAX_STORED_CHARS``)."""
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
