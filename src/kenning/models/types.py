"""The values every model adapter, tool and the loop agree on.

Messages are pure values (``to_dict``/``from_dict``); ids belong to the
archive. The shape is provider-neutral: adapters translate to and from the
OpenAI and Anthropic wire formats, and nothing outside ``kenning.models``
knows either format.

Tool-call arguments are kept as the raw JSON text the model produced, so a
malformed call can be returned to the model verbatim as an error it can fix;
``ToolCall.parsed()`` is the one place that decodes them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant", "tool"]


class ToolArgumentsError(ValueError):
    """The model's tool-call arguments are not a JSON object; the text says why."""


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text, exactly as the model sent it

    def parsed(self) -> dict[str, Any]:
        """The arguments as a dict, or ``ToolArgumentsError`` explaining what is wrong."""
        text = self.arguments.strip() or "{}"
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ToolArgumentsError(
                f"arguments for {self.name} are not valid JSON ({exc.msg} at character "
                f"{exc.pos}); send one JSON object matching the tool's schema"
            ) from exc
        if not isinstance(value, dict):
            raise ToolArgumentsError(
                f"arguments for {self.name} must be a JSON object, got {type(value).__name__}"
            )
        return value

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCall:
        return cls(id=str(data["id"]), name=str(data["name"]), arguments=str(data["arguments"]))


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )


@dataclass(frozen=True)
class ChatMessage:
    """One message of a conversation as sent to or received from a model.

    ``tool_call_id`` and ``name`` are set on ``tool`` messages (the result of
    one call); ``tool_calls`` on ``assistant`` messages that request tools.
    """

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            data["name"] = self.name
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChatMessage:
        return cls(
            role=data["role"],
            content=data.get("content") or "",
            tool_calls=tuple(ToolCall.from_dict(c) for c in data.get("tool_calls") or ()),
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
        )

    @classmethod
    def system(cls, text: str) -> ChatMessage:
        return cls("system", text)

    @classmethod
    def user(cls, text: str) -> ChatMessage:
        return cls("user", text)

    @classmethod
    def assistant(cls, text: str = "", tool_calls: Sequence[ToolCall] = ()) -> ChatMessage:
        return cls("assistant", text, tool_calls=tuple(tool_calls))

    @classmethod
    def tool(cls, call_id: str, name: str, text: str) -> ChatMessage:
        return cls("tool", text, tool_call_id=call_id, name=name)


@dataclass(frozen=True)
class ToolSpec:
    """What a model is told about one tool: name, description, JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object"})


@dataclass(frozen=True)
class ModelSettings:
    max_output_tokens: int | None = None
    temperature: float | None = None
    timeout_s: float | None = None
    # Parallel tool calls are on unless a caller (a flush turn) wants one at a time.
    parallel_tool_calls: bool = True
    # An answer with neither text nor tool calls is a failed call
    # (ModelError "empty_response"), except for a caller whose work is its
    # tool calls (the pre-compaction flush, the background review): there
    # silence after the work, or instead of it, just means "nothing more".
    allow_empty: bool = False


FinishReason = Literal["stop", "tool_calls", "length", "content_filter", "other"]


@dataclass(frozen=True)
class ModelResponse:
    message: ChatMessage  # role "assistant"
    usage: Usage = field(default_factory=Usage)
    finish_reason: FinishReason = "stop"
    model: str = ""


# Streaming: text as it arrives, tool-call fragments as they arrive, then the
# complete response. Consumers that only want the result read the last event.


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallDelta:
    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass(frozen=True)
class ResponseDone:
    response: ModelResponse


StreamEvent = TextDelta | ToolCallDelta | ResponseDone


@runtime_checkable
class Model(Protocol):
    """One small async interface; the core never imports a provider SDK."""

    @property
    def name(self) -> str:
        """``provider:model`` as the user wrote it, for status lines and the archive."""
        ...

    @property
    def context_window(self) -> int:
        """Tokens the model can see (prompt + answer)."""
        ...

    async def request(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        settings: ModelSettings | None = None,
    ) -> ModelResponse: ...

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        settings: ModelSettings | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """Events as they arrive; the last one is always ``ResponseDone``."""
        ...
