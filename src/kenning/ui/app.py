"""The ``kenning ui`` application: Starlette routes over one open home, behind ``Security``.

Every page module (``memory_pages``, ``history_pages``, ``session_pages``,
``skill_pages``, ``journal_pages``, ``dashboard``) gives its routes; this
module wires them, the templates, the static files and the checks. Pages
call Kenning's stores exactly as the CLI does, in a worker thread and one at
a time (``Ui.call``): the stores are synchronous (files, git, SQLite) and a
slow commit must not stall the event loop, and one user at one browser gains
nothing from two writes racing under the home's locks.

Each answer carries ``Server-Timing: app;dur=<ms>``, the time the server
spent on it: ``kenning bench ui`` reads it.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any, TypeVar

import anyio.to_thread
import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kenning.home import Home
from kenning.learning.dream import Dreamer
from kenning.ui.security import CSRF_FIELD, CSRF_HEADER, Guard, Security

T = TypeVar("T")

NAV = (
    ("/", "Dashboard"),
    ("/memory", "Hot memory"),
    ("/history", "History"),
    ("/sessions", "Sessions"),
    ("/search", "Search"),
    ("/skills", "Skills"),
    ("/journal", "Journal"),
    ("/dreams", "Dreaming"),
)


def stamp(value: float | None) -> str:
    """A stored UTC timestamp as local wall time, to the minute."""
    if value is None:
        return ""
    return datetime.fromtimestamp(value, UTC).astimezone().strftime("%Y-%m-%d %H:%M")


class Ui:
    """One running UI: the home, the guard, the templates and the one-at-a-time lock."""

    def __init__(
        self,
        home: Home,
        guard: Guard,
        *,
        profile: str | None = None,
        dreamer: Callable[[Home], Dreamer] = Dreamer,
    ) -> None:
        self.home = home
        self.guard = guard
        self.profile = profile
        self.lock = threading.Lock()
        # How the candidates page makes its Dreamer (tests hold its dry run with a hook).
        self.dreamer = dreamer
        # Work that runs beside the requests: begun when the server starts, ended with it.
        self.on_start: list[Callable[[], object]] = []
        self.on_close: list[Callable[[], object]] = []
        env = jinja2.Environment(
            loader=jinja2.PackageLoader("kenning.ui", "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
        )
        env.filters["stamp"] = stamp
        env.globals.update(nav=NAV, csrf_field=CSRF_FIELD, csrf_header=CSRF_HEADER)
        self.templates = Jinja2Templates(env=env)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker thread, alone."""
        return await anyio.to_thread.run_sync(partial(self._alone, fn, *args))

    def _alone(self, fn: Callable[..., T], *args: Any) -> T:
        with self.lock:
            return fn(*args)

    def page(
        self, request: Request, template: str, status_code: int = 200, /, **context: Any
    ) -> HTMLResponse:
        context.update(
            csrf=self.guard.csrf,
            read_only=self.guard.read_only,
            home_root=str(self.home.root),
            profile=self.profile or "default",
            path=request.url.path,
            # htmx asking for a piece of a page (not a boosted link): no frame around it
            partial=request.headers.get("hx-request") == "true"
            and request.headers.get("hx-boosted") != "true",
        )
        response: HTMLResponse = self.templates.TemplateResponse(
            request, template, context, status_code=status_code
        )
        return response

    def start(self) -> None:
        for begin in self.on_start:
            begin()

    def close(self) -> None:
        for end in self.on_close:
            end()


class ServerTiming:
    """Adds ``Server-Timing: app;dur=…`` (milliseconds) to every answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.monotonic()

        async def timed(message: Message) -> None:
            if message["type"] == "http.response.start":
                ms = (time.monotonic() - began) * 1000
                headers = list(message.get("headers", []))
                headers.append((b"server-timing", f"app;dur={ms:.2f}".encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, timed)


def build_app(ui: Ui) -> ASGIApp:
    """The whole application: routes, static files, error pages, then the checks around them."""
    from kenning.ui import (
        dashboard,
        history_pages,
        journal_pages,
        memory_pages,
        session_pages,
        skill_pages,
    )

    routes: list[BaseRoute] = []
    for module in (
        dashboard,
        memory_pages,
        history_pages,
        session_pages,
        skill_pages,
        journal_pages,
    ):
        routes += module.routes(ui)
    routes.append(Mount("/static", StaticFiles(packages=[("kenning.ui", "static")]), name="static"))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            return ui.page(request, "error.html", 404, title="Not found", message=exc.detail)
        return PlainTextResponse(str(exc.detail), status_code=exc.status_code)

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    return ServerTiming(Security(app, ui.guard))


def serve(ui: Ui, sock: socket.socket, *, ready: Callable[[str], None]) -> None:
    """Serve on ``sock`` (already bound to loopback) until interrupted."""
    import uvicorn

    config = uvicorn.Config(build_app(ui), log_level="warning", access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    ui.start()
    ready(ui.guard.url())
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        ui.close()
