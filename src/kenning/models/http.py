"""HTTP plumbing shared by the model adapters: sending, SSE, error classification.

Every failure an adapter can meet leaves this module as a ``ModelError`` whose
``kind`` tells the loop what to do and whose text tells a person what to fix:

- the HTTP status decides first (429 rate limit, 5xx/529 server, 401/403 auth,
  404 not found, 413 too large, other 4xx bad request);
- a 400 whose body reads like a context overflow (OpenAI, Anthropic, vLLM,
  llama.cpp, Ollama, LM Studio, OpenRouter, Groq, Gemini, xAI wording) becomes
  ``context_overflow`` so the context engine can compact and try again;
- failing to connect maps to ``timeout`` or ``connection`` — or, refused
  on loopback, to ``unreachable`` with the command that starts the server
  (:mod:`kenning.models.local`); once the server
  has answered, a body or event stream cut before its end is ``truncated``
  and a 2xx answer that is not the API's format (an HTML page, other JSON)
  is ``bad_response``. Both messages quote what was received (content type
  and the first ~200 characters, control characters removed) and say what
  to check, so a wrong base URL or a proxy in the way is not mistaken for a
  server that is down.

``retry-after`` (seconds, HTTP date, or OpenAI's ``retry-after-ms``) is parsed
(:func:`kenning.retry.parse_retry_after`) into ``ModelError.retry_after``; the
retry policy decides whether to honour it. Nothing here retries or sleeps.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from kenning.models.answers import Received, cut_short, decode_json, unexpected_answer
from kenning.models.errors import ErrorKind, ModelError
from kenning.models.local import is_loopback, start_hint
from kenning.retry import parse_retry_after, transient_status

# Wording real servers use when the prompt does not fit. Collected from each
# provider's actual error bodies; matched case-insensitively on 400/413 bodies
# and on errors that arrive inside a stream.
_OVERFLOW = re.compile(
    "|".join(
        (
            r"context_length_exceeded",  # OpenAI error code, also DeepSeek / Groq
            r"maximum context length",  # OpenAI, vLLM, DeepSeek, OpenRouter
            r"exceeds the context window",  # OpenAI (newer wording)
            r"prompt is too long",  # Anthropic: "prompt is too long: N tokens > M maximum"
            r"exceed_context_size_error",  # llama.cpp server error type (also via Ollama)
            r"exceeds the available context size",  # llama.cpp server / Ollama >= 0.12
            r"context size has been exceeded",  # llama.cpp (older), LM Studio MLX
            r"input exceeds (the )?(maximum )?context length",  # Ollama runner
            r"input length exceeds the context length",  # Ollama
            r"when context the overflows",  # LM Studio: "Trying to keep the first N tokens ..."
            r"greater than the context length",  # LM Studio
            r"reduce the length of the messages",  # Groq and older OpenAI wording
            r"input token count.*exceeds the maximum",  # Gemini OpenAI-compatible endpoint
            r"maximum prompt length is \d+",  # xAI
            r"context[_ ]window[_ ]exceeded",
            r"request_too_large",  # Anthropic 413 type
        )
    ),
    re.IGNORECASE,
)

# Statuses whose meaning wins over any wording in the body.
_NOT_OVERFLOW = frozenset({401, 402, 403, 404, 408, 429})


def is_context_overflow(text: str) -> bool:
    """True when an error text says the prompt does not fit the model's window."""
    return bool(_OVERFLOW.search(text))


@dataclass(frozen=True)
class ErrorDetail:
    """What a provider's error body says, whatever its shape."""

    message: str
    type: str = ""
    code: str = ""


def error_detail(body: str | bytes) -> ErrorDetail:
    """Pull message/type/code out of the error shapes providers use.

    OpenAI and most compatibles: ``{"error": {"message", "type", "code"}}``;
    Anthropic: ``{"type": "error", "error": {"type", "message"}}``; Ollama:
    ``{"error": "text"}`` (sometimes a JSON document inside the string).
    Anything else is returned as (trimmed) raw text.
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        data: Any = json.loads(text)
    except ValueError:
        return ErrorDetail(message=_trim(text.strip()) or "(empty body)")
    return _detail_from(data, text)


def _detail_from(data: Any, raw: str) -> ErrorDetail:
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, str):
            inner = err.strip()
            if inner.startswith("{"):  # Ollama wraps llama.cpp's JSON error as a string
                try:
                    return _detail_from(json.loads(inner), inner)
                except ValueError:
                    pass
            return ErrorDetail(message=_trim(inner))
        if isinstance(err, dict):
            message = err.get("message") or data.get("message") or ""
            code = err.get("code")
            return ErrorDetail(
                message=_trim(str(message)) if message else _trim(raw),
                type=str(err.get("type") or ""),
                code="" if code is None else str(code),
            )
    return ErrorDetail(message=_trim(raw))


def _trim(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def classify_status(
    status: int,
    body: str | bytes,
    headers: Mapping[str, str] | None = None,
    *,
    provider: str,
    key_env: str | None = None,
    model: str = "",
    url: str = "",
) -> ModelError:
    """Turn a non-2xx response into a ``ModelError`` with a message a person can act on."""
    detail = error_detail(body)
    retry_after = parse_retry_after(headers or {})
    said = detail.message
    everything = f"{detail.message} {detail.type} {detail.code}"
    kind: ErrorKind
    if status == 429:
        if detail.code == "insufficient_quota":
            # OpenAI answers 429 for an empty account; waiting will not refill it.
            kind, hint = "auth", "the account is out of credit; check billing"
        else:
            kind, hint = "rate_limit", "rate limited"
    elif status == 413 or (status not in _NOT_OVERFLOW and is_context_overflow(everything)):
        # Checked before 5xx: some local servers answer an overflow with a 500,
        # and retrying the same prompt cannot help.
        kind, hint = "context_overflow", "the prompt does not fit the model's context window"
    elif transient_status(status):  # 429 was handled above
        kind = "timeout" if status == 408 else "server"
        hint = "the server had a problem"
    elif status in (401, 403, 402):
        kind = "auth"
        where = f"check {key_env}" if key_env else "check the API key"
        hint = f"authentication failed; {where}" if status != 402 else "payment required"
    elif status == 404:
        kind = "not_found"
        where = f" at {url}" if url else ""
        hint = f"not found{where}: check the model name {model!r} and the base URL"
        if "pull" in said:  # Ollama: 'model "x" not found, try pulling it first'
            hint = f"the model {model!r} is not installed; run `ollama pull {model}`"
    else:
        kind, hint = "bad_request", "the request was rejected"
    return ModelError(
        kind,
        f"{provider}: {hint} (HTTP {status}): {said}",
        status=status,
        retry_after=retry_after if kind == "rate_limit" or kind == "server" else None,
        provider=provider,
    )


def classify_stream_error(detail: ErrorDetail, *, provider: str) -> ModelError:
    """An error that arrived inside an otherwise successful (200) stream."""
    status = {
        "rate_limit_error": 429,
        "overloaded_error": 529,
        "api_error": 500,
        "server_error": 500,
        "authentication_error": 401,
        "permission_error": 403,
        "not_found_error": 404,
        "request_too_large": 413,
        "invalid_request_error": 400,
    }.get(detail.type)
    if status is None and detail.code.isdigit():  # OpenRouter puts the status in ``code``
        status = int(detail.code)
    body = json.dumps(
        {"error": {"message": detail.message, "type": detail.type, "code": detail.code}}
    )
    if status is None:
        status = 400 if is_context_overflow(detail.message) else 500
    return classify_status(status, body, provider=provider)


def classify_transport(
    exc: httpx.HTTPError, *, provider: str, url: str, model: str = ""
) -> ModelError:
    """Timeouts and broken connections: transient, with the URL for the person.

    A refused connection on this machine is not: nothing listens there, and
    waiting will not start the server.
    """
    if isinstance(exc, httpx.TimeoutException):
        what = type(exc).__name__
        return ModelError(
            "timeout", f"{provider}: {url} did not answer in time ({what})", provider=provider
        )
    if isinstance(exc, httpx.UnsupportedProtocol):
        return ModelError(
            "bad_request",
            f"{provider}: {url} is not an http(s) URL; check the base URL",
            provider=provider,
        )
    reason = str(exc) or type(exc).__name__
    if isinstance(exc, httpx.RemoteProtocolError):
        # Connected, but what came back was no HTTP answer (or none at all).
        return ModelError(
            "connection",
            f"{provider}: {url} accepted the connection but sent no HTTP answer ({reason}); "
            "is this the API's port, and does it speak http rather than https?",
            provider=provider,
        )
    if isinstance(exc, httpx.ConnectError) and is_loopback(url):
        return ModelError(
            "unreachable",
            f"{provider}: nothing is listening at {url} ({reason}); "
            + start_hint(provider, url, model),
            provider=provider,
        )
    return ModelError(
        "connection",
        f"{provider}: cannot reach {url} ({reason}); is the server running?",
        provider=provider,
    )


@dataclass(frozen=True)
class SSEEvent:
    event: str  # "" when the server sent no ``event:`` line (OpenAI style)
    data: str
    # False for a last event the stream ended in the middle of (no blank line after it).
    complete: bool = field(default=True, compare=False)


_EOL = re.compile(r"\r\n|\r|\n")


async def _lines(response: httpx.Response, received: Received | None) -> AsyncIterator[str]:
    """The body's lines (CRLF, LF or CR), the last one even without its line break.

    Read as text rather than with ``aiter_lines`` so that ``received`` sees
    every character, including half a line a dropped connection left behind.
    """
    buffer = ""
    async for text in response.aiter_text():
        if received is not None:
            received.add(text)
        buffer += text
        held = buffer.endswith("\r")  # maybe the first half of a CRLF
        *lines, buffer = _EOL.split(buffer[:-1] if held else buffer)
        for line in lines:
            yield line
        if held:
            buffer += "\r"
    if buffer:
        yield buffer.removesuffix("\r")


async def iter_sse(
    response: httpx.Response, received: Received | None = None
) -> AsyncIterator[SSEEvent]:
    """Server-sent events from a streaming response, per the WHATWG rules we need.

    Comment lines (``: keep-alive``, OpenRouter's processing notes) are skipped;
    multi-line ``data:`` fields are joined with newlines. ``received`` (when
    given) keeps the start and end of the text and counts the events.
    """
    event = ""
    data: list[str] = []
    async for line in _lines(response, received):
        if not line:
            if data:
                if received is not None:
                    received.events += 1
                yield SSEEvent(event, "\n".join(data))
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        field_name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field_name == "event":
            event = value
        elif field_name == "data":
            data.append(value)
    if data:  # a stream that ends without the final blank line
        if received is not None:
            received.events += 1
        yield SSEEvent(event, "\n".join(data), complete=False)


def timeout_for(seconds: float) -> httpx.Timeout:
    """``seconds`` bounds each wait (connect, each read); a stream may run longer."""
    return httpx.Timeout(seconds, connect=min(seconds, 30.0))


@dataclass(frozen=True)
class Endpoint:
    """One HTTP endpoint a model adapter posts to, with its error context.

    Without an injected ``client`` each call opens and closes its own
    ``httpx.AsyncClient``: an adapter then works from any event loop (the CLI
    may run one per turn) and never leaks a socket. A long-lived caller can
    pass a client to pool connections; it then owns that client's lifetime.
    ``url_advice`` is the adapter's word on its base URL, added to every
    "this is not the API's answer" message.

    Failing to connect (or to get response headers) is a transport error;
    everything after the headers arrived is judged as an answer.
    """

    url: str
    headers: Mapping[str, str]
    provider: str
    model: str = ""
    key_env: str | None = None
    client: httpx.AsyncClient | None = None
    url_advice: str = ""

    def _failure(self, status: int, body: bytes, headers: Mapping[str, str]) -> ModelError:
        return classify_status(
            status,
            body,
            headers,
            provider=self.provider,
            key_env=self.key_env,
            model=self.model,
            url=self.url,
        )

    def _transport(self, exc: httpx.HTTPError) -> ModelError:
        return classify_transport(exc, provider=self.provider, url=self.url, model=self.model)

    def unexpected(self, received: Received, problem: str) -> ModelError:
        return unexpected_answer(self.provider, self.url, received, problem, advice=self.url_advice)

    def cut_short(self, received: Received, problem: str) -> ModelError:
        return cut_short(self.provider, self.url, received, problem)

    def event_json(self, sse: SSEEvent, received: Received) -> dict[str, Any]:
        """One event's data as a JSON object, or the error saying what came instead."""
        try:
            value = json.loads(sse.data)
        except ValueError as exc:
            if not sse.complete:
                raise self.cut_short(received, "the event stream stops mid-event") from exc
            shown_event = Received(received.status, received.content_type)
            shown_event.add(sse.data)
            raise self.unexpected(shown_event, "an event is not JSON") from exc
        if not isinstance(value, dict):
            shown_event = Received(received.status, received.content_type)
            shown_event.add(sse.data)
            raise self.unexpected(shown_event, "an event is not a JSON object")
        return value

    async def _send(self, client: httpx.AsyncClient, request: httpx.Request) -> httpx.Response:
        try:
            return await client.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise self._transport(exc) from exc

    async def _body(self, response: httpx.Response) -> bytes:
        """The whole body; a connection dropped after the headers is a cut answer."""
        pieces: list[bytes] = []
        try:
            async for piece in response.aiter_bytes():
                pieces.append(piece)
        except httpx.TimeoutException as exc:
            raise self._transport(exc) from exc
        except httpx.HTTPError as exc:
            raw = b"".join(pieces)
            if response.status_code >= 300:  # the status says enough
                raise self._failure(response.status_code, raw, response.headers) from exc
            raise self.cut_short(_body_received(raw, response), "the body was cut short") from exc
        return b"".join(pieces)

    async def post_json(self, payload: Mapping[str, Any], *, timeout_s: float) -> Any:
        """POST ``payload`` and return the decoded JSON answer, or raise ``ModelError``."""
        if self.client is not None:
            return await self._post(self.client, payload, timeout_s)
        async with httpx.AsyncClient(follow_redirects=True) as client:
            return await self._post(client, payload, timeout_s)

    async def _post(
        self, client: httpx.AsyncClient, payload: Mapping[str, Any], timeout_s: float
    ) -> Any:
        request = client.build_request(
            "POST",
            self.url,
            json=payload,
            headers=dict(self.headers),
            timeout=timeout_for(timeout_s),
        )
        response = await self._send(client, request)
        try:
            raw = await self._body(response)
        finally:
            await response.aclose()
        if response.status_code >= 300:
            raise self._failure(response.status_code, raw, response.headers)
        return decode_json(
            raw,
            _body_received(raw, response),
            provider=self.provider,
            url=self.url,
            advice=self.url_advice,
        )

    async def post_sse(
        self, payload: Mapping[str, Any], *, timeout_s: float, received: Received | None = None
    ) -> AsyncIterator[SSEEvent]:
        """POST ``payload`` and yield the server-sent events of the answer.

        ``received`` (the caller's, when it wants to describe a stream that
        ended too soon) is filled in as the answer arrives.
        """
        received = received if received is not None else Received()
        if self.client is not None:
            async for event in self._sse(self.client, payload, timeout_s, received):
                yield event
        else:
            async with httpx.AsyncClient(follow_redirects=True) as client:
                async for event in self._sse(client, payload, timeout_s, received):
                    yield event

    async def _sse(
        self,
        client: httpx.AsyncClient,
        payload: Mapping[str, Any],
        timeout_s: float,
        received: Received,
    ) -> AsyncIterator[SSEEvent]:
        headers = {**self.headers, "Accept": "text/event-stream"}
        request = client.build_request(
            "POST", self.url, json=payload, headers=headers, timeout=timeout_for(timeout_s)
        )
        response = await self._send(client, request)
        try:
            _started(received, response)
            if response.status_code >= 300:
                body = await self._body(response)
                raise self._failure(response.status_code, body, response.headers)
            try:
                async for event in iter_sse(response, received):
                    yield event
            except httpx.TimeoutException as exc:
                raise self._transport(exc) from exc
            except httpx.HTTPError as exc:
                raise self.cut_short(received, "the event stream was cut short") from exc
            if received.events == 0:
                if "event-stream" in received.content_type and not received.head.strip():
                    raise self.cut_short(received, "the event stream ended before its first event")
                raise self.unexpected(received, "not with a server-sent event stream")
        finally:
            await response.aclose()


def _expected(response: httpx.Response) -> int | None:
    length = response.headers.get("content-length", "")
    return int(length) if length.isdigit() else None


def _started(received: Received, response: httpx.Response) -> None:
    received.status = response.status_code
    received.content_type = response.headers.get("content-type", "")
    received.expected = _expected(response)


def _body_received(raw: bytes, response: httpx.Response) -> Received:
    return Received.of_body(
        raw,
        status=response.status_code,
        content_type=response.headers.get("content-type", ""),
        expected=_expected(response),
    )
