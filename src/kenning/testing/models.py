"""Model test doubles: ``ScriptedModel``, ``FunctionModel`` and reply helpers.

Both satisfy the ``Model`` protocol, record every call (messages, tools,
settings) and stream like a real adapter: text in word-sized ``TextDelta``
chunks, each tool call as a ``ToolCallDelta`` with its id and name followed by
argument fragments, and always a final ``ResponseDone``.

The reply vocabulary is shared with the wire-format servers in
``kenning.testing.wire``: a ``str`` (final text), a ``ChatMessage``, a
``ModelResponse``, a ``ToolCall`` or a list of them (one parallel batch), or
an exception (instance or class) to raise.

Usage is estimated (by :func:`kenning.tokens.estimate_tokens`, the context
engine's counter) when a reply does not carry its own, so usage accounting
can be tested without real numbers.
"""

from __future__ import annotations

import inspect
import itertools
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from kenning.models.types import (
    ChatMessage,
    FinishReason,
    ModelResponse,
    ModelSettings,
    ResponseDone,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolSpec,
    Usage,
)
from kenning.tokens import estimate_tokens

Reply: TypeAlias = (
    str
    | ChatMessage
    | ModelResponse
    | ToolCall
    | Sequence[ToolCall]
    | BaseException
    | type[BaseException]
)

_ids = itertools.count(1)


def tool_call(
    name: str, /, *, call_id: str | None = None, raw: str | None = None, **arguments: Any
) -> ToolCall:
    """A tool call as a model would make it: ``tool_call("read_file", path="x")``.

    ``raw`` sends argument text verbatim (e.g. malformed JSON) instead of the
    keyword arguments. Ids default to ``call_1``, ``call_2`` … in creation order.
    """
    text = raw if raw is not None else json.dumps(arguments)
    return ToolCall(id=call_id or f"call_{next(_ids)}", name=name, arguments=text)


def reply(
    text: str = "",
    *calls: ToolCall,
    usage: Usage | None = None,
    finish_reason: FinishReason | None = None,
    model: str = "",
) -> ModelResponse:
    """An assistant response with optional tool calls (finish reason inferred)."""
    return ModelResponse(
        message=ChatMessage.assistant(text, calls),
        usage=usage or Usage(),
        finish_reason=finish_reason or ("tool_calls" if calls else "stop"),
        model=model,
    )


def _message_tokens(messages: Sequence[ChatMessage]) -> int:
    return sum(
        estimate_tokens(m.content) + sum(estimate_tokens(c.arguments) for c in m.tool_calls)
        for m in messages
    )


def as_response(
    item: Reply, *, model: str = "", messages: Sequence[ChatMessage] = ()
) -> ModelResponse:
    """Normalise a scripted reply; raises it if it is an exception."""
    if isinstance(item, BaseException):
        raise item
    if isinstance(item, type) and issubclass(item, BaseException):
        raise item()
    if isinstance(item, ModelResponse):
        response = item
    elif isinstance(item, str):
        response = reply(item)
    elif isinstance(item, ChatMessage):
        if item.role != "assistant":
            raise TypeError(f"a scripted reply must be an assistant message, got {item.role!r}")
        response = reply(item.content, *item.tool_calls)
    elif isinstance(item, ToolCall):
        response = reply("", item)
    elif isinstance(item, Sequence) and all(isinstance(c, ToolCall) for c in item):
        response = reply("", *item)
    else:
        raise TypeError(f"cannot use {item!r} as a model reply")
    if not response.model or response.usage == Usage():
        out = response.message
        estimated = Usage(
            input_tokens=_message_tokens(messages),
            output_tokens=_message_tokens([out]) or 1,
        )
        response = ModelResponse(
            message=out,
            usage=response.usage if response.usage != Usage() else estimated,
            finish_reason=response.finish_reason,
            model=response.model or model,
        )
    return response


_WORDS = re.compile(r"\s*\S+|\s+")


def text_chunks(text: str) -> list[str]:
    """Word-sized pieces whose concatenation is ``text``."""
    return _WORDS.findall(text)


def argument_chunks(arguments: str, pieces: int = 3) -> list[str]:
    """``arguments`` split into up to ``pieces`` non-empty fragments, as APIs stream them."""
    if not arguments:
        return []
    size = max(1, -(-len(arguments) // pieces))
    return [arguments[i : i + size] for i in range(0, len(arguments), size)]


def stream_events(response: ModelResponse) -> list[StreamEvent]:
    """The events a streaming adapter would emit for ``response``."""
    events: list[StreamEvent] = [TextDelta(t) for t in text_chunks(response.message.content)]
    for index, call in enumerate(response.message.tool_calls):
        events.append(ToolCallDelta(index=index, id=call.id, name=call.name))
        events.extend(
            ToolCallDelta(index=index, arguments=a) for a in argument_chunks(call.arguments)
        )
    events.append(ResponseDone(response))
    return events


@dataclass(frozen=True)
class ModelCall:
    """One request a test double received."""

    messages: tuple[ChatMessage, ...]
    tools: tuple[ToolSpec, ...]
    settings: ModelSettings | None

    @property
    def last(self) -> ChatMessage:
        """The newest message: usually the user's turn or the latest tool result."""
        return self.messages[-1]

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]


class _Recording:
    def __init__(self, name: str, context_window: int) -> None:
        self._name = name
        self._context_window = context_window
        self.calls: list[ModelCall] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def context_window(self) -> int:
        return self._context_window

    def _record(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolSpec],
        settings: ModelSettings | None,
    ) -> ModelCall:
        call = ModelCall(tuple(messages), tuple(tools), settings)
        self.calls.append(call)
        return call

    async def _respond(self, call: ModelCall) -> ModelResponse:
        raise NotImplementedError

    async def request(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        settings: ModelSettings | None = None,
    ) -> ModelResponse:
        return await self._respond(self._record(messages, tools, settings))

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        tools: Sequence[ToolSpec] = (),
        settings: ModelSettings | None = None,
    ) -> AsyncIterator[StreamEvent]:
        response = await self._respond(self._record(messages, tools, settings))
        for event in stream_events(response):
            yield event


class ScriptedModel(_Recording):
    """Answers each request with the next scripted reply.

    >>> model = ScriptedModel([tool_call("read_file", path="a.txt"), "It says hi."])

    Running out of replies is an ``AssertionError`` naming the call;
    ``assert_complete()`` fails if replies are left over.
    """

    reply = staticmethod(reply)
    tool_call = staticmethod(tool_call)

    def __init__(
        self,
        script: Iterable[Reply] = (),
        *,
        name: str = "scripted:test",
        context_window: int = 128_000,
    ) -> None:
        super().__init__(name, context_window)
        self._script: list[Reply] = list(script)

    def add(self, *replies: Reply) -> None:
        """Queue more replies (e.g. between turns of a test)."""
        self._script.extend(replies)

    @property
    def remaining(self) -> int:
        return len(self._script)

    def assert_complete(self) -> None:
        if self._script:
            raise AssertionError(
                f"{self.name}: {len(self._script)} scripted repl"
                f"{'y was' if len(self._script) == 1 else 'ies were'} never requested "
                f"(after {len(self.calls)} calls); next: {self._script[0]!r}"
            )

    async def _respond(self, call: ModelCall) -> ModelResponse:
        if not self._script:
            raise AssertionError(
                f"{self.name}: no scripted reply left for call #{len(self.calls)}; "
                f"its last message was {call.last.role}: {call.last.content[:200]!r}"
            )
        return as_response(self._script.pop(0), model=self.name, messages=call.messages)


ReplyFunction = Callable[
    [list[ChatMessage], list[ToolSpec], ModelSettings | None], Reply | Awaitable[Reply]
]


class FunctionModel(_Recording):
    """Asks ``fn(messages, tools, settings)`` for each reply (sync or async).

    The function returns anything in the reply vocabulary; it sees copies, so
    it cannot alter the caller's conversation.
    """

    def __init__(
        self, fn: ReplyFunction, *, name: str = "function:test", context_window: int = 128_000
    ) -> None:
        super().__init__(name, context_window)
        self.fn = fn

    async def _respond(self, call: ModelCall) -> ModelResponse:
        result = self.fn(list(call.messages), list(call.tools), call.settings)
        if inspect.isawaitable(result):
            result = await result
        return as_response(result, model=self.name, messages=call.messages)
