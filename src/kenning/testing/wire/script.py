"""What a wire-format server does for each request it receives.

A script is a list of items, consumed one per request. An item is either a
reply in ``ScriptedModel``'s vocabulary (``str``, ``ChatMessage``,
``ModelResponse``, ``ToolCall`` or a list of them) — rendered in the server's
wire format, streamed when the request asks for it — or a behaviour below,
which the server renders in its provider's real error shape.

``load_script`` reads the same vocabulary from JSON, for servers started in
another process (``python -m kenning.testing.wire``)::

    ["plain text answer",
     {"text": "", "tool_calls": [{"name": "read_file", "arguments": {"path": "a"}}]},
     {"tool_calls": [{"name": "read_file", "arguments": "{\\"path\\": "}]},
     {"error": "rate_limit", "retry_after": 0.1},
     {"error": "server", "status": 529},
     {"error": "auth"}, {"error": "context_overflow", "style": "llamacpp"},
     {"delay": 5, "then": "late answer"},
     {"truncate": "some text that will be cut", "after_events": 2},
     {"status": 418, "body": {"error": {"message": "teapot"}}},
     {"status": 200, "body": "<html>login</html>", "content_type": "text/html"},
     {"stream": [{"choices": []}, "[DONE]"]},
     {"stream": [{"choices": []}], "cut": "data: {\"choi"}]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from kenning.models.types import ToolCall, Usage
from kenning.testing.models import Reply, reply, tool_call


@dataclass(frozen=True)
class RateLimited:
    """HTTP 429. ``retry_after`` becomes the Retry-After header (None: no header)."""

    retry_after: float | str | None = 0


@dataclass(frozen=True)
class ServerError:
    """HTTP 5xx (500 by default; 529 is Anthropic's "overloaded")."""

    status: int = 500


@dataclass(frozen=True)
class AuthError:
    """HTTP 401, as for a wrong API key."""


@dataclass(frozen=True)
class ContextOverflow:
    """HTTP 400 saying the prompt is too long, in a real server's words.

    ``style`` picks whose words on the OpenAI-format server: "openai"
    (default), "llamacpp", "vllm", "ollama" or "lmstudio".
    """

    style: str = ""


@dataclass(frozen=True)
class Delay:
    """Wait ``seconds`` (e.g. past the client's timeout), then answer with ``then``."""

    seconds: float
    then: Reply | Behaviour = ""


@dataclass(frozen=True)
class Truncated:
    """Start answering ``reply`` and drop the connection after ``after_events`` events."""

    reply: Reply
    after_events: int = 1


@dataclass(frozen=True)
class RawResponse:
    """Any status and body, verbatim (a mapping is sent as its JSON)."""

    status: int
    body: str | Mapping[str, Any] = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = "application/json"


@dataclass(frozen=True)
class RawStream:
    """A 200 event stream of exactly these events, whatever the request asked.

    Each event is a ``data:`` line: a mapping as its JSON, a string verbatim
    (``"[DONE]"``). With ``cut``, that text is written raw after the events
    (e.g. half an event) and the connection dropped without the stream's end.
    """

    events: tuple[str | Mapping[str, Any], ...] = ()
    cut: str | None = None


Behaviour: TypeAlias = (
    RateLimited
    | ServerError
    | AuthError
    | ContextOverflow
    | Delay
    | Truncated
    | RawResponse
    | RawStream
)
ScriptItem: TypeAlias = Reply | Behaviour
BEHAVIOURS = (
    RateLimited,
    ServerError,
    AuthError,
    ContextOverflow,
    Delay,
    Truncated,
    RawResponse,
    RawStream,
)


class ScriptError(ValueError):
    """A JSON script item that cannot be understood; the text says which and why."""


def _calls(raw: Any, where: str) -> list[ToolCall]:
    if not isinstance(raw, list):
        raise ScriptError(f"{where}: tool_calls must be a list")
    calls: list[ToolCall] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or "name" not in item:
            raise ScriptError(f"{where}: tool_calls[{i}] needs a name")
        args = item.get("arguments", {})
        kwargs: dict[str, Any] = {"call_id": item.get("id")}
        if isinstance(args, str):
            calls.append(tool_call(item["name"], raw=args, **kwargs))
        elif isinstance(args, dict):
            calls.append(tool_call(item["name"], **kwargs, **args))
        else:
            raise ScriptError(f"{where}: tool_calls[{i}].arguments must be an object or a string")
    return calls


def _error(data: Mapping[str, Any], where: str) -> Behaviour:
    kind = data["error"]
    if kind == "rate_limit":
        return RateLimited(data.get("retry_after", 0))
    if kind == "server":
        return ServerError(int(data.get("status", 500)))
    if kind == "auth":
        return AuthError()
    if kind == "context_overflow":
        return ContextOverflow(str(data.get("style", "")))
    raise ScriptError(
        f"{where}: unknown error {kind!r}; use rate_limit, server, auth or context_overflow"
    )


def load_item(data: Any, where: str = "item") -> ScriptItem:
    """One JSON script item as a reply or behaviour."""
    if isinstance(data, str):
        return data
    if not isinstance(data, dict):
        raise ScriptError(f"{where}: expected a string or an object, got {data!r}")
    if "error" in data:
        return _error(data, where)
    if "delay" in data:
        return Delay(float(data["delay"]), load_item(data.get("then", ""), f"{where}.then"))
    if "truncate" in data:
        inner = load_item(data["truncate"], f"{where}.truncate")
        if isinstance(inner, BEHAVIOURS):
            raise ScriptError(f"{where}: truncate needs a reply, not {inner!r}")
        return Truncated(inner, int(data.get("after_events", 1)))
    if "status" in data:
        content_type = str(data.get("content_type", "application/json"))
        return RawResponse(
            int(data["status"]), data.get("body", ""), data.get("headers", {}), content_type
        )
    if "stream" in data:
        events = data["stream"]
        if not isinstance(events, list) or not all(isinstance(e, str | dict) for e in events):
            raise ScriptError(f"{where}: stream must be a list of objects or strings")
        cut = data.get("cut")
        return RawStream(tuple(events), None if cut is None else str(cut))
    if "text" in data or "tool_calls" in data:
        usage = data.get("usage")
        return reply(
            str(data.get("text", "")),
            *_calls(data.get("tool_calls", []), where),
            usage=Usage(**usage) if isinstance(usage, dict) else None,
        )
    raise ScriptError(
        f"{where}: needs one of text, tool_calls, error, delay, truncate, status, stream"
    )


def load_script(data: Any) -> list[ScriptItem]:
    """A whole JSON script (a list of items)."""
    if not isinstance(data, list):
        raise ScriptError("a script is a JSON list of items")
    return [load_item(item, f"item {i}") for i, item in enumerate(data)]


__all__ = [
    "BEHAVIOURS",
    "AuthError",
    "Behaviour",
    "ContextOverflow",
    "Delay",
    "RateLimited",
    "RawResponse",
    "RawStream",
    "ScriptError",
    "ScriptItem",
    "ServerError",
    "Truncated",
    "load_item",
    "load_script",
]
