"""Answers that are not answers, over real sockets, for both wire formats and both modes.

A server that cannot be reached is ``connection``; one that answered is judged
by what it sent: an empty answer is ``empty_response`` (retried once), a cut
body or stream is ``truncated`` (retried), and a 2xx page that is not the
API's format is ``bad_response`` (not retried). Each message quotes what came.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from kenning.models import (
    ChatMessage,
    ModelError,
    ModelResponse,
    ModelSettings,
    OpenAIChatModel,
    ResponseDone,
    TextDelta,
)
from kenning.testing import reply, tool_call
from kenning.testing.wire import OpenAIServer, RawResponse, RawStream, Truncated, load_script

MESSAGES = [ChatMessage.user("Say hello.")]
MODES = ["request", "stream"]

LOGIN_PAGE = (
    "<!DOCTYPE html>\n<html><head>\x1b[31m<title>Sign in · Corporate Proxy</title></head>\n"
    "<body>" + "Please sign in to continue. " * 20 + "</body></html>"
)


async def ask(model: Any, mode: str, **kw: Any) -> ModelResponse:
    """The final response, by ``request`` or by reading the stream to its end."""
    if mode == "request":
        response: ModelResponse = await model.request(MESSAGES, **kw)
        return response
    events = [event async for event in model.stream(MESSAGES, **kw)]
    assert isinstance(events[-1], ResponseDone)
    return events[-1].response


def _fails(model: Any, mode: str) -> ModelError:
    with pytest.raises(ModelError) as caught:
        asyncio.run(ask(model, mode))
    return caught.value


def _empty_stream(wire: Any) -> RawStream:
    """What a server sends when it has nothing to say, in each format."""
    if wire.name == "openai":
        return RawStream(({"choices": []}, "[DONE]"))
    message = {"type": "message", "role": "assistant", "content": [], "usage": {}}
    return RawStream(
        (
            {"type": "message_start", "message": message},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
            {"type": "message_stop"},
        )
    )


# -- empty answers --------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_an_empty_answer_is_an_error_retried_once(
    wire: Any, mode: str, policy: Any, sleeps: Any
) -> None:
    with wire.server(["", "", "never asked"]) as server:
        error = _fails(wire.model(server, retry=policy(max_retries=4)), mode)
        assert len(server.requests) == 2  # one retry, not four
    assert error.kind == "empty_response"
    assert "the model returned an empty response" in str(error)
    assert "gave up after 2 attempts" in str(error)
    assert len(sleeps.waits) == 1


def test_an_empty_choices_stream_is_an_empty_response(wire: Any, policy: Any) -> None:
    with wire.server([_empty_stream(wire), _empty_stream(wire)]) as server:
        model = wire.model(server, retry=policy())
        error = _fails(model, "stream")
        server.assert_complete()
    assert error.kind == "empty_response" and "no text and no tool calls" in str(error)


def test_one_empty_answer_then_a_real_one_succeeds(
    wire: Any, collect: Callable[..., Any], policy: Any
) -> None:
    with wire.server([_empty_stream(wire), "Here it is."]) as server:
        events, error = asyncio.run(collect(wire.model(server, retry=policy()).stream(MESSAGES)))
    assert error is None
    assert isinstance(events[-1], ResponseDone)
    assert events[-1].response.message.content == "Here it is."


def test_no_choices_at_all_is_an_empty_response(policy: Any) -> None:
    body = {"id": "x", "object": "chat.completion", "choices": [], "usage": {}}
    with OpenAIServer([RawResponse(200, body)] * 2) as server:
        model = OpenAIChatModel("m", base_url=server.base_url, retry=policy())
        assert _fails(model, "request").kind == "empty_response"


@pytest.mark.parametrize("mode", MODES)
def test_an_empty_answer_at_the_output_limit_says_to_raise_it(
    wire: Any, mode: str, policy: Any
) -> None:
    with wire.server([reply("", finish_reason="length")] * 2) as server:
        error = _fails(wire.model(server, retry=policy()), mode)
    assert error.kind == "empty_response" and "model.max_output_tokens" in str(error)


def test_a_tool_call_without_text_is_an_answer(wire: Any) -> None:
    call = tool_call("read_file", call_id="c1", path="a")
    with wire.server([reply("", call)]) as server:
        response = asyncio.run(ask(wire.model(server), "stream"))
    assert response.message.tool_calls == (call,)


@pytest.mark.parametrize("mode", MODES)
def test_a_caller_may_accept_silence(wire: Any, mode: str) -> None:
    # The flush and the review: their work is their tool calls.
    quiet = ModelSettings(allow_empty=True)
    with wire.server([""]) as server:
        response = asyncio.run(ask(wire.model(server), mode, settings=quiet))
        server.assert_complete()
    assert response.message.content == "" and not response.message.tool_calls


# -- a server that answers, but not like the API ------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_an_html_page_is_a_bad_response_with_what_came(
    wire: Any, mode: str, policy: Any, sleeps: Any
) -> None:
    page = RawResponse(200, LOGIN_PAGE, content_type="text/html; charset=utf-8")
    with wire.server([page, "never asked"]) as server:
        error = _fails(wire.model(server, retry=policy()), mode)
        assert len(server.requests) == 1 and sleeps.waits == []
    text = str(error)
    assert error.kind == "bad_response" and not error.transient
    assert "HTTP 200 (text/html; charset=utf-8)" in text
    assert "<title>Sign in · Corporate Proxy</title>" in text
    assert "cannot reach" not in text and "is the server running" not in text
    assert "Is base_url right" in text and "proxy" in text
    if wire.name == "openai":
        assert "/v1" in text
    # sanitised and short: no terminal escapes or line breaks, about 200 characters quoted
    assert "\x1b" not in text and "\n" not in text
    quoted = text.split(": '", 1)[1].split("'.", 1)[0]
    assert 150 < len(quoted) <= 201 and quoted.endswith("…")


@pytest.mark.parametrize("mode", MODES)
def test_json_of_another_shape_is_a_bad_response(wire: Any, mode: str, policy: Any) -> None:
    other = RawResponse(200, {"status": "ok", "version": "2.1"})
    with wire.server([other]) as server:
        error = _fails(wire.model(server, retry=policy()), mode)
    assert error.kind == "bad_response" and '"version": "2.1"' in str(error)


def test_truncated_json_is_truncated_and_retried(wire: Any, policy: Any, sleeps: Any) -> None:
    cut = RawResponse(200, '{"id": "msg_1", "choices": [{"index": 0, "message": {"content": "Hel')
    with wire.server([cut, cut]) as server:
        error = _fails(wire.model(server, retry=policy(max_retries=1)), "request")
        server.assert_complete()
    assert error.kind == "truncated" and len(sleeps.waits) == 1
    text = str(error)
    assert "HTTP 200 (application/json)" in text and "stops mid-document" in text
    assert '"content": "Hel' in text and "cannot reach" not in text


def test_a_body_shorter_than_announced_is_truncated(wire: Any, policy: Any) -> None:
    with wire.server([Truncated("cut short"), Truncated("cut again")]) as server:
        error = _fails(wire.model(server, retry=policy(max_retries=1)), "request")
    assert error.kind == "truncated"
    assert "cut short, after" in str(error) and " of " in str(error)


def _cut_mid_event(wire: Any) -> RawStream:
    if wire.name == "openai":
        first = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
        return RawStream((first,), cut='data: {"choices": [{"index": 0, "delta": {"cont')
    start = {"type": "message_start", "message": {"model": "m", "content": [], "usage": {}}}
    return RawStream((start,), cut='data: {"type": "content_block_delta", "ind')


def test_a_stream_cut_mid_event_is_truncated_with_its_end(
    wire: Any, collect: Callable[..., Any], policy: Any
) -> None:
    with wire.server([_cut_mid_event(wire)] * 2) as server:
        model = wire.model(server, retry=policy(max_retries=1))
        events, error = asyncio.run(collect(model.stream(MESSAGES)))
        server.assert_complete()  # nothing had reached the caller: retried
    assert not [e for e in events if isinstance(e, TextDelta)]
    assert error is not None and error.kind == "truncated"
    text = str(error)
    assert "text/event-stream" in text and "event stream was cut short" in text
    assert text.count("'") >= 2 and ('delta": {"cont' in text or '"ind' in text)
    assert "cannot reach" not in text


def test_a_stream_that_closes_without_its_end_is_truncated(
    wire: Any, collect: Callable[..., Any], policy: Any
) -> None:
    if wire.name == "openai":
        partial = RawStream(({"choices": [{"index": 0, "delta": {"content": "Hel"}}]},))
        end = "[DONE]"
    else:
        start = {"type": "message_start", "message": {"model": "m", "usage": {}}}
        partial = RawStream((start,))
        end = "message_stop"
    with wire.server([partial]) as server:
        _, error = asyncio.run(
            collect(wire.model(server, retry=policy(max_retries=0)).stream(MESSAGES))
        )
    assert error is not None and error.kind == "truncated" and end in str(error)


def test_a_json_answer_to_a_stream_request_is_a_bad_response(wire: Any, policy: Any) -> None:
    # A server that ignores "stream": true and answers with one JSON document.
    with wire.server([RawResponse(200, {"id": "x", "choices": []})]) as server:
        error = _fails(wire.model(server, retry=policy()), "stream")
    assert error.kind == "bad_response" and "not with a server-sent event stream" in str(error)


def test_scripts_can_describe_raw_pages_and_streams() -> None:
    page, empty, cut = load_script(
        [
            {"status": 200, "body": "<html></html>", "content_type": "text/html"},
            {"stream": [{"choices": []}, "[DONE]"]},
            {"stream": [], "cut": "data: {"},
        ]
    )
    assert page == RawResponse(200, "<html></html>", content_type="text/html")
    assert empty == RawStream(({"choices": []}, "[DONE]"))
    assert cut == RawStream((), cut="data: {")


def test_messages_never_carry_more_than_a_line(wire: Any, policy: Any) -> None:
    body = "\n".join(["<html>", "\x1b]0;pwned\x07", "\u202eevil", "</html>"])
    with wire.server([RawResponse(200, body, content_type="text/html")]) as server:
        error = _fails(wire.model(server, retry=policy()), "request")
    text = str(error)
    assert not any(c in text for c in ("\x1b", "\x07", "\u202e", "\n"))
    assert "pwned" in text  # shown, but inert
