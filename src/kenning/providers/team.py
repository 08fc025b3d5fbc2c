"""Team memory: another Kenning home, served with ``kenning mcp --http``, as a memory provider.

A team (or a second machine) runs ``kenning mcp --http --read-only`` on a home
that holds what everyone should know; each member's config names it::

    [memory]
    provider = "team"

    [memory.provider_options]
    url = "http://127.0.0.1:8765/mcp"

Before each turn the provider calls that server's ``memory_search`` (and,
with ``sessions = true``, ``session_search``) with the user's message, over
one MCP session held open for the whole session, and returns the passages
it found; the manager fences them into the turn's user message.

Read-only by default: the team home learns nothing from a member. With
``mirror_writes = true`` every hot-memory write of the member's agent is
repeated on the team home through its ``memory`` tool (the server must not
be ``--read-only`` then; a refusal comes back as a notice). ``sync_turn`` and
``on_pre_compress`` do nothing: a member's conversations stay their own.

Options (``[memory.provider_options]``):

=================== ======= ==============================================
``url``             —       the server's MCP endpoint (required)
``limit``           5       passages per search (1-20)
``sessions``        false   also search the team's past conversations
``mirror_writes``   false   repeat hot-memory writes on the team home
``connect_timeout_s`` 10    how long connecting and each request may take
=================== ======= ==============================================
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from kenning.providers.base import MemoryProvider, MemoryWrite, ProviderError, ProviderSetup
from kenning.version import __version__

log = logging.getLogger(__name__)

QUERY_CHARS = 500  # a long message is searched by its start
PASSAGE_CHARS = 600
_OPTIONS = ("url", "limit", "sessions", "mirror_writes", "connect_timeout_s")


def _options(raw: Mapping[str, Any]) -> tuple[str, int, bool, bool, float]:
    unknown = sorted(set(raw) - set(_OPTIONS))
    if unknown:
        raise ProviderError(
            f"[memory.provider_options] {', '.join(unknown)}: not an option of the team "
            f"provider; it takes {', '.join(_OPTIONS)}."
        )
    url = raw.get("url")
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise ProviderError(
            f"the team provider needs [memory.provider_options] url = the address of a "
            f'`kenning mcp --http` server, e.g. "http://127.0.0.1:8765/mcp" (got {url!r}).'
        )

    def number(key: str, default: float, low: float, high: float) -> float:
        value = raw.get(key, default)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not low <= value <= high
        ):
            raise ProviderError(
                f"[memory.provider_options] {key} = {value!r}: use a number from {low:g} "
                f"to {high:g} (default {default:g})."
            )
        return float(value)

    def flag(key: str) -> bool:
        value = raw.get(key, False)
        if not isinstance(value, bool):
            raise ProviderError(f"[memory.provider_options] {key} = {value!r}: use true or false.")
        return value

    limit = int(number("limit", 5, 1, 20))
    timeout = number("connect_timeout_s", 10.0, 0.1, 600.0)
    return str(url), limit, flag("sessions"), flag("mirror_writes"), timeout


class _Link:
    """One MCP client session to the server, owned by a task of its own.

    The SDK's transport is a stack of anyio task groups that must be left in
    the task that entered them, while calls arrive in many tasks; so one
    holder task enters and leaves it, and calls borrow the session. A call
    that fails on the wire drops the link; the next one reconnects.
    """

    def __init__(self, url: str, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self._ready: asyncio.Future[Any] | None = None
        self._stop: asyncio.Event | None = None
        self._holder: asyncio.Task[None] | None = None

    async def session(self) -> Any:
        if self._holder is None or self._holder.done():
            loop = asyncio.get_running_loop()
            self._ready = loop.create_future()
            self._ready.add_done_callback(_retrieved)
            self._stop = asyncio.Event()
            self._holder = loop.create_task(self._hold(self._ready, self._stop))
        assert self._ready is not None
        return await asyncio.wait_for(asyncio.shield(self._ready), self.timeout)

    async def _hold(self, ready: asyncio.Future[Any], stop: asyncio.Event) -> None:
        from mcp.client.session import ClientSession
        from mcp.client.streamable_http import streamable_http_client
        from mcp_types import Implementation

        client = Implementation(name="kenning-team-memory", version=__version__)
        try:
            async with (
                streamable_http_client(self.url) as (read, write),
                ClientSession(
                    read, write, read_timeout_seconds=self.timeout, client_info=client
                ) as session,
            ):
                await session.initialize()
                ready.set_result(session)
                await stop.wait()
        except Exception as exc:
            if not ready.done():
                ready.set_exception(self._unreachable(exc))
            else:
                log.debug("team memory: the link to %s ended", self.url, exc_info=True)

    def _unreachable(self, exc: Exception) -> ProviderError:
        """What went wrong, said plainly: the transport wraps it in exception groups."""
        while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            inner = exc.exceptions[0]
            if not isinstance(inner, Exception):
                break
            exc = inner
        error = ProviderError(
            f"cannot reach the team server at {self.url} ({type(exc).__name__}: {exc}); "
            "is `kenning mcp --http` running there?"
        )
        error.__cause__ = exc
        return error

    def drop(self) -> None:
        if self._stop is not None:
            self._stop.set()
        self._holder = None

    async def close(self) -> None:
        holder = self._holder
        self.drop()
        if holder is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(holder, self.timeout)


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # marks it seen: a caller that timed out never looks


class TeamMemory(MemoryProvider):
    """Recalls passages from a team's Kenning home over MCP (see the module docstring)."""

    name = "team memory"

    def __init__(self, setup: ProviderSetup) -> None:
        self.url, self.limit, self.sessions, self.mirror, timeout = _options(setup.options)
        self._link = _Link(self.url, timeout)

    async def _call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        session = await self._link.session()
        try:
            result = await session.call_tool(tool, arguments)
        except Exception:
            self._link.drop()  # a dead connection should not be reused
            raise
        data = getattr(result, "structured_content", None)
        if not isinstance(data, dict):
            raise ProviderError(f"{self.url} answered {tool} without a result object")
        if getattr(result, "is_error", False) or data.get("success") is False:
            why = data.get("message") or data.get("error") or "refused"
            raise ProviderError(f"{self.url} refused {tool}: {why}")
        return data

    async def prefetch(self, query: str) -> str | None:
        asked = " ".join(query.split())[:QUERY_CHARS]
        if not asked:
            return None
        lines: list[str] = []
        found = await self._call("memory_search", {"query": asked, "limit": self.limit})
        for passage in found.get("passages") or []:
            text = " ".join(str(passage.get("text", "")).split())[:PASSAGE_CHARS]
            if text:
                lines.append(f"- {passage.get('path', '?')}:{passage.get('lines', '?')}: {text}")
        if self.sessions:
            talks = await self._call("session_search", {"query": asked, "limit": self.limit})
            lines.extend(_session_lines(talks))
        if not lines:
            return None
        return f"From the team's Kenning home at {self.url}:\n" + "\n".join(lines)

    async def on_memory_write(self, write: MemoryWrite) -> None:
        if not self.mirror:
            return
        args: dict[str, Any] = {"action": write.action, "target": write.target}
        if write.content:
            args["content"] = write.content
        if write.old_text:
            args["old_text"] = write.old_text
        await self._call("memory", args)

    async def close(self) -> None:
        await self._link.close()


def _session_lines(found: Mapping[str, Any]) -> list[str]:
    """One line per past conversation: its title and the message that matched."""
    lines = []
    for session in found.get("sessions") or []:
        title = str(session.get("title") or session.get("session_id") or "a session")
        messages = [m for m in session.get("messages") or [] if isinstance(m, dict)]
        matched = [m for m in messages if m.get("match")] or messages
        for message in matched[:1]:
            text = " ".join(str(message.get("content") or "").split())[:PASSAGE_CHARS]
            if text:
                lines.append(f"- conversation {title!r} ({message.get('role', '?')}): {text}")
    return lines
