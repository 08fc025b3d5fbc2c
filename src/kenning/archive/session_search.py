"""``session_search``: the model's window into past sessions.

Four ways in, chosen by which arguments are given:
- ``query`` — matching sessions, best first, each with its best messages and
  one message of context either side. Continuations of one conversation
  (a parent chain) count as one result. Only the *current* session is left
  out — not its whole lineage, which hid matches in long-lived sessions for
  Hermes users (#90939).
- ``session_id`` + ``message_id`` — the messages around that message.
- ``session_id`` alone — the session's beginning and end.
- nothing — the most recent sessions.

Long messages are cut to a preview that says exactly how to read the rest,
so a result never floods the context window. Secrets pasted in old sessions are
shown as ``[REDACTED secret]`` (:func:`kenning.safety.threats.redact`): the
archive keeps the verbatim text, the model's context does not get it back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kenning.archive.store import Archive, Message, Session
from kenning.safety.threats import redact
from kenning.search.engine import SearchEngine
from kenning.storage.query import SearchFilters

PREVIEW_CHARS = 600
MAX_SESSIONS = 8
AROUND = 4  # messages either side of a chosen message
BOOKEND = 4  # messages shown from each end of a session
PAGE_CHARS = 20_000  # one page of a single message's full text

SCHEMA: dict[str, Any] = {
    "name": "session_search",
    "description": (
        "Search or browse past sessions (every conversation is archived, including tool results "
        "and parts already compacted out of your context). Use it when the user refers to "
        "earlier work ('like we did last week', 'that error from before'), or you need an "
        "exact detail — an id, a path, a command, a decision — that is not in your memory. "
        "With query: matching sessions, each with its best messages in context. With "
        "session_id and message_id: the messages around that one. With session_id alone: how "
        "that session began and ended. With nothing: the most recent sessions. Queries can be "
        "plain questions or keywords, in any language."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for."},
            "session_id": {"type": "string", "description": "A session id from a result."},
            "message_id": {"type": "integer", "description": "A message id from a result."},
            "offset": {
                "type": "integer",
                "description": (
                    "With session_id and message_id: read that one message's full text from "
                    "this character offset (0 = the start), a page at a time."
                ),
            },
            "limit": {"type": "integer", "description": "How many sessions (default 5, max 8)."},
            "source": {
                "type": "string",
                "description": "Only sessions of this source: cli, run, mcp, cron, import, …",
            },
            "since": {"type": "string", "description": "Only messages on or after YYYY-MM-DD."},
            "until": {"type": "string", "description": "Only messages before YYYY-MM-DD."},
        },
        "required": [],
    },
}


@dataclass
class SessionSearch:
    archive: Archive
    engine: Callable[[], SearchEngine]  # built lazily: most calls browse, not search
    current_session_id: str | None = None

    def __call__(self, args: dict[str, Any]) -> dict[str, Any]:
        try:
            limit = min(max(int(args.get("limit") or 5), 1), MAX_SESSIONS)
            query = str(args.get("query") or "").strip()
            session_id = args.get("session_id")
            message_id = args.get("message_id")
            if query:
                return self._search(query, limit, self._filters(args))
            if session_id and message_id is not None and args.get("offset") is not None:
                return self._page(str(session_id), int(message_id), int(args["offset"]))
            if session_id and message_id is not None:
                return self._around(str(session_id), int(message_id))
            if session_id:
                return self._bookends(str(session_id))
            return self._recent(limit)
        except (TypeError, ValueError) as exc:
            return {
                "success": False,
                "message": f"Bad arguments: {exc}.",
                "next_step": "Pass query (text), or session_id, or session_id with message_id.",
            }

    # -- the four modes ------------------------------------------------------

    def _search(self, query: str, limit: int, filters: SearchFilters) -> dict[str, Any]:
        result = self.engine().search(query, kinds=("message",), limit=60, filters=filters)
        by_id = {hit.id: hit for hit in result.hits}
        # A stale statement stays findable, but says what replaced it and when.
        newer = {
            hit.id: {
                "message_id": later.id,
                "session_id": later.session_id,
                "time": _when(later.created_at),
            }
            for hit in result.hits
            if hit.superseded_by is not None and (later := by_id.get(hit.superseded_by))
        }
        groups: dict[str, list[Any]] = {}
        for hit in result.hits:
            assert hit.session_id is not None
            groups.setdefault(self._chain_root(hit.session_id), []).append(hit)
        sessions = []
        for root, hits in list(groups.items())[:limit]:
            best = hits[:3]
            session = self.archive.session(best[0].session_id or root)
            shown: dict[int, Message] = {}
            for hit in best:
                assert hit.session_id is not None and hit.seq is not None
                for message in self.archive.messages(
                    hit.session_id, start_seq=max(1, hit.seq - 1), limit=3
                ):
                    assert message.id is not None
                    shown[message.id] = message
            matched = {hit.id for hit in best}
            sessions.append(
                {
                    **_session_summary(session),
                    "score": round(best[0].score, 3),
                    "messages": [
                        _message_view(m, matched=m.id in matched)
                        | ({"superseded_by": newer[m.id]} if m.id in newer else {})
                        for m in sorted(shown.values(), key=lambda m: (m.session_id, m.seq))
                    ],
                }
            )
        response: dict[str, Any] = {
            "success": True,
            "query": query,
            "mode": result.mode,
            "sessions": sessions,
        }
        if result.notes:
            response["notes"] = result.notes
        if result.time is not None:  # "now", "in 2023", "before the move": why this order
            response["time"] = result.time
        if newer:
            response["superseded"] = (
                "Messages marked superseded_by were restated differently later; the later "
                "message is the current one unless the user asks about the past."
            )
        if not sessions:
            response["message"] = "Nothing in past sessions matches."
            response["next_step"] = "Try other words (names, file paths, error text) or browse."
        else:
            response["next_step"] = (
                "For more context call session_search with session_id and message_id."
            )
        return response

    def _around(self, session_id: str, message_id: int) -> dict[str, Any]:
        session = self.archive.session(session_id)
        target = self.archive.message(message_id)
        if session is None or target is None or target.session_id != session_id:
            return _missing(session_id, message_id)
        assert target.seq is not None
        messages = self.archive.messages(
            session_id, start_seq=max(1, target.seq - AROUND), limit=2 * AROUND + 1
        )
        return {
            "success": True,
            "session": _session_summary(session),
            "messages": [_message_view(m, matched=m.id == message_id, full=True) for m in messages],
        }

    def _page(self, session_id: str, message_id: int, offset: int) -> dict[str, Any]:
        """One message's full text, PAGE_CHARS at a time (pruned tool results come back whole)."""
        target = self.archive.message(message_id)
        if target is None or target.session_id != session_id:
            return _missing(session_id, message_id)
        text = target.content
        start = min(max(offset, 0), len(text))
        end = min(start + PAGE_CHARS, len(text))
        page: dict[str, Any] = {
            "success": True,
            "message": _message_view(target, full=True) | {"content": redact(text[start:end])},
            "chars": f"{start:,}-{end:,} of {len(text):,}",
        }
        page["message"].pop("truncated", None)
        if end < len(text):
            page["next_step"] = (
                f"More follows: call session_search with session_id={session_id!r}, "
                f"message_id={message_id}, offset={end}."
            )
        else:
            page["next_step"] = "That is the end of the message."
        return page

    def _bookends(self, session_id: str) -> dict[str, Any]:
        session = self.archive.session(session_id)
        if session is None:
            return _missing(session_id, None)
        head = self.archive.messages(session_id, limit=BOOKEND)
        count = session.message_count
        tail_start = max(BOOKEND + 1, count - BOOKEND + 1)
        tail = self.archive.messages(session_id, start_seq=tail_start) if count > BOOKEND else []
        view: dict[str, Any] = {
            "success": True,
            "session": _session_summary(session),
            "beginning": [_message_view(m) for m in head],
        }
        if tail:
            view["end"] = [_message_view(m) for m in tail]
            view["omitted_messages"] = max(0, tail_start - BOOKEND - 1)
        return view

    def _recent(self, limit: int) -> dict[str, Any]:
        found = [
            s for s in self.archive.sessions(limit=limit + 1) if s.id != self.current_session_id
        ][:limit]
        return {
            "success": True,
            "sessions": [_session_summary(s) for s in found],
            "next_step": "Open one with session_id, or search with query.",
        }

    # -- helpers ------------------------------------------------------------

    def _filters(self, args: dict[str, Any]) -> SearchFilters:
        source = args.get("source")
        return SearchFilters(
            sources=(str(source),) if source else (),
            since=_day(args.get("since")),
            until=_day(args.get("until")),
            # The current session's live messages are already in the context;
            # what compaction took out of it must stay findable.
            exclude_live_of=self.current_session_id,
        )

    def _chain_root(self, session_id: str) -> str:
        return self.archive.root_session(session_id)


def _day(raw: Any) -> float | None:
    if not raw:
        return None
    return datetime.fromisoformat(str(raw)).replace(tzinfo=UTC).timestamp()


def _when(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M")


def _session_summary(session: Session | None) -> dict[str, Any]:
    if session is None:
        return {}
    summary: dict[str, Any] = {
        "session_id": session.id,
        "started": _when(session.started_at),
        "source": session.source,
        "messages": session.message_count,
    }
    if session.title:
        summary["title"] = session.title
    if session.workspace:
        summary["workspace"] = session.workspace
    return summary


def _message_view(message: Message, *, matched: bool = False, full: bool = False) -> dict[str, Any]:
    content = message.content
    view: dict[str, Any] = {
        "message_id": message.id,
        "seq": message.seq,
        "role": message.role,
        "time": _when(message.created_at),
    }
    if message.speaker:
        view["speaker"] = message.speaker
    if message.tool_name:
        view["tool"] = message.tool_name
    if message.tool_calls:
        view["tool_calls"] = [_call_name(call) for call in message.tool_calls]
    if matched:
        view["match"] = True
    if message.compacted:
        view["compacted"] = True
    limit = PREVIEW_CHARS * 8 if full else PREVIEW_CHARS
    if len(content) > limit:
        view["content"] = redact(content[:limit])
        view["truncated"] = (
            f"{len(content) - limit:,} more chars; call session_search with "
            f"session_id={message.session_id!r}, message_id={message.id} for a longer view"
            if not full
            else f"{len(content) - limit:,} more chars not shown"
        )
    else:
        view["content"] = redact(content)
    return view


def _call_name(call: dict[str, Any]) -> str:
    function = call.get("function")
    if isinstance(function, dict):
        return str(function.get("name", "?"))
    return str(call.get("name", "?"))


def _missing(session_id: str, message_id: int | None) -> dict[str, Any]:
    what = f"message {message_id} in session {session_id!r}" if message_id else session_id
    return {
        "success": False,
        "message": f"No {what} in the archive.",
        "next_step": "Call session_search with no arguments to list recent sessions.",
    }
