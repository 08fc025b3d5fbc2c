"""Sessions: the archive's list (by source and date), one session, and search.

The list and the transcripts come from ``Archive``; search is the very call
``kenning search`` makes (``SearchEngine.search`` with the same scopes and
filters), so the page ranks as the command does and is recorded as a recall
like it. A hit's score breakdown is asked for on demand: the same search
again through ``SearchEngine.explain``, unrecorded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from markupsafe import Markup, escape
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from kenning.archive.store import SOURCES, Message, Session
from kenning.context.transcript import COMPACTION_KEY
from kenning.home import Home
from kenning.storage.query import SCOPES, Kind, SearchFilters, SearchResult
from kenning.storage.text import query_terms
from kenning.ui.app import Ui

PAGE = 50
SCAN_BATCH = 500
SCAN_MAX = 20_000  # sessions looked at for one filtered page, newest first
SHOWN_MESSAGES = 2_000
SEARCH_LIMIT = 20


@dataclass(frozen=True)
class Filters:
    source: str = ""
    since: date | None = None
    until: date | None = None
    offset: int = 0

    @classmethod
    def of(cls, request: Request) -> Filters:
        query = request.query_params
        source = query.get("source", "")
        try:
            offset = max(0, int(query.get("offset", "0")))
        except ValueError:
            offset = 0
        return cls(
            source if source in SOURCES else "",
            _day(query.get("since")),
            _day(query.get("until")),
            offset,
        )


def _day(text: str | None) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def _bound(day: date) -> float:
    return datetime.combine(day, time.min).astimezone().timestamp()


def listing(home: Home, filters: Filters) -> tuple[list[Session], bool]:
    """One page of sessions newest first, and whether there are more.

    The archive lists by source; the date range is applied here while paging
    through it, newest first, so it stops at the first session before ``since``.
    """
    if not home.has_archive:
        return [], False
    sources = [filters.source] if filters.source else None
    lo = _bound(filters.since) if filters.since else None
    hi = _bound(filters.until + timedelta(days=1)) if filters.until else None
    wanted = filters.offset + PAGE + 1
    found: list[Session] = []
    scanned = 0
    while len(found) < wanted and scanned < SCAN_MAX:
        batch = home.archive.sessions(limit=SCAN_BATCH, sources=sources, offset=scanned)
        scanned += len(batch)
        for session in batch:
            if hi is not None and session.started_at >= hi:
                continue
            if lo is not None and session.started_at < lo:
                return found[filters.offset : filters.offset + PAGE], False
            found.append(session)
        if len(batch) < SCAN_BATCH:
            break
    return found[filters.offset : filters.offset + PAGE], len(found) > filters.offset + PAGE


@dataclass(frozen=True)
class Shown:
    """One message as the session page shows it."""

    message: Message
    calls: list[tuple[str, str]]  # (tool name, arguments as JSON), folded
    compaction: dict[str, object] | None  # a summary's record of what it replaced


@dataclass(frozen=True)
class Transcript:
    session: Session
    messages: list[Shown]
    parent: Session | None
    children: list[Session]  # its subagent and review sessions


def transcript(home: Home, session_id: str) -> Transcript:
    archive = home.archive
    session = archive.session(session_id) if home.has_archive else None
    if session is None:
        raise HTTPException(404, f"no session {session_id!r} in the archive")
    shown = []
    for message in archive.messages(session_id, limit=SHOWN_MESSAGES):
        calls = []
        for call in message.tool_calls or []:
            function = call.get("function", call)
            name = str(function.get("name", "?"))
            arguments = function.get("arguments", function.get("input", ""))
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False, indent=2)
            calls.append((name, arguments))
        record = (message.meta or {}).get(COMPACTION_KEY)
        shown.append(Shown(message, calls, record if isinstance(record, dict) else None))
    parent = archive.session(session.parent_id) if session.parent_id else None
    return Transcript(session, shown, parent, archive.children(session_id))


def highlight(text: str, terms: list[str]) -> Markup:
    """``text`` escaped, with every occurrence of the query's terms marked."""
    if not terms:
        return Markup(escape(text))
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.I)
    out, last = [], 0
    for match in pattern.finditer(text):
        out += [escape(text[last : match.start()]), Markup("<mark>"), escape(match.group(0))]
        out.append(Markup("</mark>"))
        last = match.end()
    out.append(escape(text[last:]))
    return Markup("").join(out)


@dataclass(frozen=True)
class Query:
    text: str
    kind: str
    source: str

    @classmethod
    def of(cls, request: Request) -> Query:
        params = request.query_params
        kind = params.get("kind", "all")
        source = params.get("source", "")
        return cls(
            params.get("q", "").strip(),
            kind if kind in SCOPES else "all",
            source if source in SOURCES else "",
        )

    @property
    def filters(self) -> SearchFilters:
        return SearchFilters(sources=(self.source,) if self.source else ())


def search(home: Home, query: Query) -> SearchResult:
    """Exactly ``kenning search``'s call."""
    return home.search.search(
        query.text, kinds=SCOPES[query.kind], limit=SEARCH_LIMIT, filters=query.filters
    )


def explain(home: Home, query: Query, kind: Kind, item: int) -> dict[str, float] | None:
    return home.search.explain(
        query.text,
        kind,
        item,
        kinds=SCOPES[query.kind],
        limit=SEARCH_LIMIT,
        filters=query.filters,
    )


def routes(ui: Ui) -> list[BaseRoute]:
    async def sessions(request: Request) -> Response:
        filters = Filters.of(request)
        found, more = await ui.call(listing, ui.home, filters)
        return ui.page(
            request,
            "sessions.html",
            title="Sessions",
            sessions=found,
            more=more,
            filters=filters,
            sources=SOURCES,
            next_offset=filters.offset + PAGE,
        )

    async def session(request: Request) -> Response:
        found = await ui.call(transcript, ui.home, request.path_params["sid"])
        return ui.page(
            request,
            "session.html",
            title=found.session.title or found.session.id,
            session=found.session,
            messages=found.messages,
            parent=found.parent,
            children=found.children,
            limit=SHOWN_MESSAGES,
        )

    async def search_page(request: Request) -> Response:
        query = Query.of(request)
        result = await ui.call(search, ui.home, query) if query.text else None
        terms = query_terms(query.text)
        return ui.page(
            request,
            "search.html",
            title="Search",
            query=query,
            result=result,
            mark=lambda text: highlight(text or "", terms),
            scopes=list(SCOPES),
            sources=SOURCES,
        )

    async def explain_part(request: Request) -> Response:
        query = Query.of(request)
        kind = request.query_params.get("hit_kind", "message")
        try:
            item = int(request.query_params.get("id", ""))
        except ValueError as exc:
            raise HTTPException(400, "id must be a message or chunk id (a number)") from exc
        if kind not in ("message", "chunk") or not query.text:
            raise HTTPException(400, "explain needs q, hit_kind (message or chunk) and id")
        parts = await ui.call(explain, ui.home, query, kind, item)
        return ui.page(request, "explain.html", title="Why this rank", parts=parts)

    return [
        Route("/sessions", sessions, methods=["GET"]),
        Route("/sessions/{sid:str}", session, methods=["GET"]),
        Route("/search", search_page, methods=["GET"]),
        Route("/search/explain", explain_part, methods=["GET"]),
    ]
