"""ScriptedModel, FunctionModel and the reply helpers in kenning.testing."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kenning.models import (
    ChatMessage,
    Model,
    ModelError,
    ModelResponse,
    ModelSettings,
    ResponseDone,
    TextDelta,
    ToolArgumentsError,
    ToolCallDelta,
    ToolSpec,
    Usage,
)
from kenning.testing import FunctionModel, ScriptedModel, reply, tool_call

USER = [ChatMessage.system("sys"), ChatMessage.user("What is in a.txt?")]
TOOLS = [ToolSpec("read_file", "Read a file.")]


async def drain(model: Any, messages: list[ChatMessage] = USER) -> list[Any]:
    return [event async for event in model.stream(messages, tools=TOOLS)]


def test_tool_call_helper() -> None:
    call = tool_call("read_file", path="a.txt", limit=10)
    assert call.name == "read_file" and call.parsed() == {"path": "a.txt", "limit": 10}
    assert call.id.startswith("call_") and tool_call("x").id != call.id
    assert tool_call("x", call_id="fixed").id == "fixed"
    broken = tool_call("read_file", raw='{"path": ')
    assert broken.arguments == '{"path": '
    with pytest.raises(ToolArgumentsError):
        broken.parsed()


def test_reply_helper_infers_the_finish_reason() -> None:
    assert reply("done").finish_reason == "stop"
    calls = reply("", tool_call("a"), tool_call("b"))
    assert calls.finish_reason == "tool_calls" and len(calls.message.tool_calls) == 2
    assert reply("cut", finish_reason="length").finish_reason == "length"
    assert ScriptedModel.reply is reply


def test_scripted_model_plays_its_script_and_records_calls() -> None:
    read = tool_call("read_file", path="a.txt")
    model = ScriptedModel([read, "It says hi."])
    assert isinstance(model, Model)
    settings = ModelSettings(temperature=0.0)

    async def run() -> tuple[ModelResponse, ModelResponse]:
        first = await model.request(USER, tools=TOOLS, settings=settings)
        history = [*USER, first.message, ChatMessage.tool(read.id, "read_file", "hi")]
        second = await model.request(history, tools=TOOLS)
        return first, second

    first, second = asyncio.run(run())
    assert first.message.tool_calls == (read,) and first.finish_reason == "tool_calls"
    assert second.message.content == "It says hi." and second.finish_reason == "stop"
    assert len(model.calls) == 2
    assert model.calls[0].messages == tuple(USER) and model.calls[0].settings == settings
    assert model.calls[0].tool_names == ["read_file"]
    assert model.calls[1].last.role == "tool" and model.calls[1].last.content == "hi"
    model.assert_complete()


def test_every_reply_form() -> None:
    response = ModelResponse(ChatMessage.assistant("exact"), Usage(5, 6), "stop", "m")
    parallel = [tool_call("a"), tool_call("b")]
    model = ScriptedModel(
        ["text", ChatMessage.assistant("msg"), response, parallel, ModelError("auth", "bad key")]
    )

    async def run() -> list[Any]:
        out: list[Any] = []
        for _ in range(4):
            out.append(await model.request(USER))
        with pytest.raises(ModelError, match="bad key"):
            await model.request(USER)
        return out

    text, msg, exact, batch = asyncio.run(run())
    assert text.message.content == "text" and msg.message.content == "msg"
    assert exact == response  # a full ModelResponse passes through untouched
    assert batch.message.tool_calls == tuple(parallel)


def test_exception_classes_are_raised_too() -> None:
    model = ScriptedModel([TimeoutError])
    with pytest.raises(TimeoutError):
        asyncio.run(model.request(USER))


def test_usage_is_estimated_when_not_given() -> None:
    response = asyncio.run(ScriptedModel(["a reply of some length"]).request(USER))
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    assert response.model == "scripted:test"


def test_running_out_is_a_clear_assertion() -> None:
    model = ScriptedModel(["only one"])
    asyncio.run(model.request(USER))
    with pytest.raises(AssertionError, match=r"no scripted reply left for call #2.*a\.txt"):
        asyncio.run(model.request(USER))


def test_assert_complete_fails_with_leftovers() -> None:
    model = ScriptedModel(["used", "left over"])
    asyncio.run(model.request(USER))
    with pytest.raises(AssertionError, match="1 scripted reply was never requested"):
        model.assert_complete()
    model.add("more")
    assert model.remaining == 2


def test_scripted_stream_looks_like_an_adapter() -> None:
    call = tool_call("read_file", path="some/long/path/to/a/file.txt")
    model = ScriptedModel([reply("Let me look at that.", call)])
    events = asyncio.run(drain(model))
    text = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(text) > 1 and "".join(text) == "Let me look at that."
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert deltas[0].id == call.id and deltas[0].name == "read_file"
    assert len(deltas) > 2 and "".join(d.arguments for d in deltas) == call.arguments
    assert isinstance(events[-1], ResponseDone)
    assert events[-1].response.message.tool_calls == (call,)
    assert len(model.calls) == 1


def test_function_model_sync_and_async() -> None:
    def echo(messages: list[ChatMessage], tools: list[ToolSpec], settings: Any) -> str:
        messages.clear()  # cannot hurt the caller: it gets a copy
        return f"{len(tools)} tools"

    async def shout(messages: list[ChatMessage], tools: list[ToolSpec], settings: Any) -> Any:
        await asyncio.sleep(0)
        return reply(messages[-1].content.upper())

    conversation = list(USER)
    first = asyncio.run(FunctionModel(echo).request(conversation, tools=TOOLS))
    assert first.message.content == "1 tools" and conversation == USER
    model = FunctionModel(shout, name="fn:shout", context_window=1000)
    second = asyncio.run(model.request(USER))
    assert second.message.content == "WHAT IS IN A.TXT?"
    assert model.name == "fn:shout" and model.context_window == 1000 and len(model.calls) == 1
    events = asyncio.run(drain(model))
    assert events[-1].response.message.content == "WHAT IS IN A.TXT?"


def test_function_model_decides_by_conversation() -> None:
    def agent(messages: list[ChatMessage], tools: list[ToolSpec], settings: Any) -> Any:
        if messages[-1].role == "tool":
            return f"The file says {messages[-1].content!r}."
        return tool_call("read_file", call_id="c1", path="a.txt")

    model = FunctionModel(agent)
    first = asyncio.run(model.request(USER))
    history = [*USER, first.message, ChatMessage.tool("c1", "read_file", "hi")]
    assert asyncio.run(model.request(history)).message.content == "The file says 'hi'."


def test_bad_replies_are_type_errors() -> None:
    with pytest.raises(TypeError, match="assistant"):
        asyncio.run(ScriptedModel([ChatMessage.user("wrong role")]).request(USER))
    with pytest.raises(TypeError, match="cannot use"):
        asyncio.run(ScriptedModel([42]).request(USER))  # type: ignore[list-item]
