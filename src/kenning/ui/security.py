"""Who may use ``kenning ui``: this machine, with this run's secret, from its own pages.

A page on any other site the user visits can make the browser send requests
to ``http://127.0.0.1:<port>``; memory is too personal to show it that, let
alone let it write. So, in this order, for every request:

1. ``Host`` and ``Origin`` are checked exactly as ``kenning mcp``'s HTTP
   transport checks them (``kenning.mcp.server.loopback_security`` and the
   SDK's middleware): a DNS-rebinding page has a foreign ``Host``, a
   cross-site request a foreign ``Origin`` (403).
2. The per-run secret: the URL the command opens carries it once
   (``?token=…``); the answer moves it into an HttpOnly, SameSite=Strict
   cookie and redirects to the same page without it, so it leaves no trace
   in the address bar. Without a valid token or cookie: 403. Cookies are not
   kept apart by port, so the cookie's name carries the port.
3. Writes (POST) also need the CSRF token the pages embed (a form field, or
   the header htmx sends); ``--read-only`` refuses every write.

Secrets are compared in constant time.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlencode

from mcp.server.transport_security import TransportSecurityMiddleware
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from kenning.mcp.server import loopback_security

TOKEN_PARAM = "token"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-kenning-csrf"
READ_METHODS = ("GET", "HEAD")

NO_TOKEN = (
    "403 Forbidden: this page needs the secret link of this `kenning ui` run. "
    "Open the URL the command printed (it ends in ?token=…), or start `kenning ui` again."
)
BAD_CSRF = (
    "403 Forbidden: this change did not come from a page of this `kenning ui` run "
    "(its CSRF token is missing or wrong). Reload the page and try again."
)
READ_ONLY = (
    "403 Forbidden: this `kenning ui` was started with --read-only, so it changes nothing. "
    "Restart it without --read-only to make changes."
)


@dataclass(frozen=True)
class Guard:
    """This run's secrets and the address it serves on."""

    host: str
    port: int
    read_only: bool = False
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)

    @property
    def cookie(self) -> str:
        return f"kenning_ui_{self.port}"

    def url(self, path: str = "/") -> str:
        """The link that opens the UI: the only place the token is handed out."""
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}{path}?{urlencode({TOKEN_PARAM: self.token})}"

    def token_ok(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value.encode(), self.token.encode())

    def csrf_ok(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value.encode(), self.csrf.encode())


class Security:
    """ASGI middleware: the checks above, before any page sees the request."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard
        self.transport = TransportSecurityMiddleware(loopback_security(guard.host, guard.port))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        refused = await self.transport.validate_request(request, is_post=False)
        if refused is None:
            refused = self._check(request)
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _check(self, request: Request) -> Response | None:
        guard = self.guard
        given = request.query_params.get(TOKEN_PARAM)
        if given is not None and request.method in READ_METHODS:
            if not guard.token_ok(given):
                return PlainTextResponse(NO_TOKEN, status_code=403)
            rest = [(k, v) for k, v in request.query_params.multi_items() if k != TOKEN_PARAM]
            target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
            moved = RedirectResponse(target, status_code=303)
            moved.set_cookie(guard.cookie, guard.token, httponly=True, samesite="strict")
            return moved
        if not guard.token_ok(request.cookies.get(guard.cookie)):
            return PlainTextResponse(NO_TOKEN, status_code=403)
        if request.method in READ_METHODS:
            return None
        if request.method != "POST":
            return PlainTextResponse("405: the UI only reads (GET) and writes (POST)", 405)
        if guard.read_only:
            return PlainTextResponse(READ_ONLY, status_code=403)
        return None


async def checked_form(request: Request, guard: Guard) -> FormData:
    """The posted form of a write, once its CSRF token (field or htmx header) matches."""
    form = await request.form()
    sent = form.get(CSRF_FIELD)
    value = sent if isinstance(sent, str) else request.headers.get(CSRF_HEADER)
    if not guard.csrf_ok(value):
        raise HTTPException(403, BAD_CSRF)
    return form


def field_of(form: Mapping[str, object], name: str, default: str = "") -> str:
    """A text field of a form (a file upload or a missing field reads as ``default``)."""
    value = form.get(name)
    return value if isinstance(value, str) else default
