"""What arrives on the wire, made parseable before the SDK parses it.

The SDK parses each message with pydantic's strict JSON parser, which rejects
a lone surrogate escape (``"\\ud800"``, valid JSON syntax, sent by a host
that cut an emoji in half) as invalid JSON. Over stdio the SDK then drops
the line without a word, so the host waits for an answer until its own
timeout; over HTTP it answers 400 "Parse error". Both transports here pass
each message through :func:`kenning.wellformed.repair_json` first: lone
surrogates become U+FFFD, the message parses, the call is answered.

- :func:`protocol_stdin` reads stdin for ``stdio_server``. Given a stream,
  the SDK no longer moves the protocol off fd 0, so this does it: fd 0 reads
  ``/dev/null`` while serving, and a child process (git, a hook) can never
  swallow protocol bytes.
- :class:`WellFormedBodies` is the same repair as ASGI middleware for
  streamable HTTP's POST bodies.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
from collections.abc import Iterator
from typing import BinaryIO

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kenning.wellformed import repair_json

log = logging.getLogger(__name__)

# Bodies above this pass through unrepaired: the SDK refuses them anyway (413 at 4 MiB).
MAX_REPAIRED_BODY = 4 * 1024 * 1024
# Where a repaired tools/call names the arguments that were repaired, so the result can say so.
REPAIRED_META = "kenning/repaired-arguments"


def _report(places: list[str]) -> None:
    log.warning(
        "a request carried invalid Unicode (lone surrogates) at %s; replaced with U+FFFD",
        ", ".join(places[:5]) + (" …" if len(places) > 5 else ""),
    )


def repaired(line: str) -> str:
    """One message, repaired; a repaired tool call says where, in its ``_meta``, for the service."""
    text, places = repair_json(line)
    if not places:
        return line
    _report(places)
    prefix = "params.arguments."
    arguments = [place[len(prefix) :] for place in places if place.startswith(prefix)]
    message = json.loads(text)
    params = message.get("params") if isinstance(message, dict) else None
    if not arguments or not isinstance(params, dict):
        return text
    meta = params.setdefault("_meta", {})
    if isinstance(meta, dict):
        meta[REPAIRED_META] = arguments
    return (
        json.dumps(message, ensure_ascii=False, separators=(",", ":")) + text[len(text.rstrip()) :]
    )


class _RepairedLines(anyio.AsyncFile[str]):
    """Protocol lines (bad UTF-8 bytes replaced, as in the SDK), surrogate escapes repaired."""

    def __init__(self, buffer: BinaryIO) -> None:
        super().__init__(io.TextIOWrapper(buffer, encoding="utf-8", errors="replace"))

    async def readline(self) -> str:
        return repaired(await super().readline())


@contextlib.contextmanager
def protocol_stdin() -> Iterator[anyio.AsyncFile[str]]:
    """The protocol's input for ``stdio_server(stdin=...)``; fd 0 reads /dev/null meanwhile."""
    try:
        wire = os.dup(0)
    except OSError:  # no fd 0 at all: nothing to read
        yield _RepairedLines(sys.stdin.buffer if sys.stdin else io.BytesIO())
        return
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    # Never closed: a worker thread may still be blocked reading it when serving
    # ends, and a closed descriptor could be reused under that read.
    buffer = os.fdopen(wire, "rb", closefd=False)
    try:
        yield _RepairedLines(buffer)
    finally:
        os.dup2(wire, 0)


class WellFormedBodies:
    """ASGI middleware: a JSON POST body with lone surrogate escapes is repaired, then passed on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        pending: list[Message] = []
        body = bytearray()
        complete = False
        while not complete and len(body) <= MAX_REPAIRED_BODY:
            message = await receive()
            pending.append(message)
            if message["type"] != "http.request":
                break
            body.extend(message.get("body", b""))
            complete = not message.get("more_body", False)
        if complete:
            fixed = self._repair(bytes(body))
            if fixed is not None:
                pending = [{"type": "http.request", "body": fixed, "more_body": False}]
                headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
                scope = {**scope, "headers": [*headers, (b"content-length", b"%d" % len(fixed))]}

        async def replay() -> Message:
            return pending.pop(0) if pending else await receive()

        await self.app(scope, replay, send)

    @staticmethod
    def _repair(body: bytes) -> bytes | None:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return None  # not ours to fix: the SDK answers it as a parse error
        fixed = repaired(text)
        return None if fixed is text else fixed.encode("utf-8")
