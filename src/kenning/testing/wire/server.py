"""The scripted HTTP server both wire formats share.

A ``ThreadingHTTPServer`` on 127.0.0.1 (port 0 by default: the OS picks a
free one) serves from a background thread. Each POST to the provider's route
is recorded (path, lower-cased headers, parsed JSON) and answered by the next
script item; subclasses render replies and errors in their wire format.

Invariants that keep tests fast and warning-free:
- every response closes its connection (``Connection: close``), so no
  handler thread idles on a keep-alive socket after a test;
- a ``Delay`` waits on the server's stop event, so closing the server ends
  every pending delay at once;
- a client that hung up (timeout, cancelled stream) is not an error; any
  other exception inside a handler is kept in ``errors`` and fails
  ``assert_complete()``.
"""

from __future__ import annotations

import json
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar

from kenning.models.errors import ModelError
from kenning.models.types import ModelResponse
from kenning.testing.models import Reply, as_response
from kenning.testing.wire.script import (
    BEHAVIOURS,
    AuthError,
    Behaviour,
    ContextOverflow,
    Delay,
    RateLimited,
    RawResponse,
    RawStream,
    ScriptItem,
    ServerError,
    Truncated,
)


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: Mapping[str, str]  # names lower-cased
    body: Any  # parsed JSON, or None when the body was not JSON
    raw: bytes = field(default=b"", repr=False)

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    @property
    def messages(self) -> list[Any]:
        return list(self.body.get("messages") or []) if isinstance(self.body, dict) else []


Error = tuple[int, dict[str, Any], dict[str, str]]  # status, JSON body, extra headers


class _Httpd(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], wire: WireServer) -> None:
        self.wire = wire
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, ConnectionError | TimeoutError):
            return  # the client hung up: expected after a client-side timeout
        self.wire.errors.append(traceback.format_exc())


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30  # a silent client never pins a handler thread for long
    server: _Httpd

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the recorded requests are the log

    def _read(self) -> RecordedRequest:
        self.close_connection = True
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        return RecordedRequest(self.command, self.path, headers, body, raw)

    def do_POST(self) -> None:
        self.server.wire.handle(self, self._read())

    def do_GET(self) -> None:
        self.server.wire.handle(self, self._read())


class WireServer:
    """Base of ``OpenAIServer`` and ``AnthropicServer``; use as a context manager."""

    route: ClassVar[str] = "/"
    provider: ClassVar[str] = ""
    default_info: ClassVar[Mapping[str, Any]] = {}

    def __init__(
        self,
        script: Iterable[ScriptItem] = (),
        *,
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        chunk_delay_s: float = 0.0,
        info: Mapping[str, Any] | None = None,
    ) -> None:
        # Paths a client reads to learn about the server (a model list, a
        # model's window): answered with this JSON whatever the method, never
        # consuming the script, and kept in ``probes`` rather than ``requests``.
        self.info: dict[str, Any] = {**self.default_info, **(info or {})}
        self.probes: list[RecordedRequest] = []
        self.api_key = api_key  # when set, requests without it get the provider's 401
        self.chunk_delay_s = chunk_delay_s  # pause between streamed events, for humans
        self.requests: list[RecordedRequest] = []
        self.errors: list[str] = []
        # Called (from a handler thread) with each request as it arrives.
        self.on_request: Callable[[RecordedRequest], None] | None = None
        self._script: list[ScriptItem] = list(script)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._address = (host, port)
        self._httpd: _Httpd | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------

    def start(self) -> WireServer:
        if self._httpd is None:
            self._httpd = _Httpd(self._address, self)
            # Keep the real port: base_url stays valid after close (and for a restart).
            self._address = (self._address[0], int(self._httpd.server_address[1]))
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.02},
                name=f"{type(self).__name__}:{self.port}",
                daemon=True,
            )
            self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()  # joins handler threads
            self._httpd = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def port(self) -> int:
        """The listening port (0 until started with port 0)."""
        return self._address[1]

    @property
    def origin(self) -> str:
        return f"http://{self._address[0]}:{self.port}"

    @property
    def base_url(self) -> str:
        """What to give the adapter (or ``[model] base_url``) as its base URL."""
        return self.origin

    # --- script ------------------------------------------------------------

    def add(self, *items: ScriptItem) -> None:
        with self._lock:
            self._script.extend(items)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def assert_complete(self) -> None:
        """Fail if script items were never requested or a handler crashed."""
        if self.errors:
            raise AssertionError(
                f"{type(self).__name__} handler errors:\n" + "\n".join(self.errors)
            )
        if self.remaining:
            raise AssertionError(
                f"{type(self).__name__}: {self.remaining} script item(s) never requested "
                f"(after {len(self.requests)} requests)"
            )

    # --- provider hooks (subclasses) ---------------------------------------

    def check(self, request: RecordedRequest) -> Error | None:
        """An error response when the request itself is unacceptable (auth, headers)."""
        return None

    def error(self, behaviour: Behaviour) -> Error:
        raise NotImplementedError

    def route_not_found(self, request: RecordedRequest) -> Error:
        raise NotImplementedError

    def exhausted(self, request: RecordedRequest) -> Error:
        raise NotImplementedError

    def render(self, response: ModelResponse, request: RecordedRequest) -> dict[str, Any]:
        raise NotImplementedError

    def render_stream(self, response: ModelResponse, request: RecordedRequest) -> list[bytes]:
        raise NotImplementedError

    # --- serving -----------------------------------------------------------

    def handle(self, handler: BaseHTTPRequestHandler, request: RecordedRequest) -> None:
        path = request.path.split("?")[0]
        if path in self.info:
            with self._lock:
                self.probes.append(request)
            self._send_json(handler, 200, self.info[path], {})
            return
        with self._lock:
            self.requests.append(request)
        if self.on_request is not None:
            self.on_request(request)
        if request.method != "POST" or request.path.split("?")[0] != self.route:
            self._send_json(handler, *self.route_not_found(request))
            return
        refused = self.check(request)
        if refused is not None:
            self._send_json(handler, *refused)
            return
        with self._lock:
            item = self._script.pop(0) if self._script else None
        if item is None:
            self._send_json(handler, *self.exhausted(request))
            return
        self._perform(handler, request, item)

    def _perform(
        self, handler: BaseHTTPRequestHandler, request: RecordedRequest, item: ScriptItem
    ) -> None:
        if isinstance(item, Delay):
            if self._stop.wait(item.seconds):
                return  # the server is closing; the client has long given up
            self._perform(handler, request, item.then)
        elif isinstance(item, RawResponse):
            body = item.body if isinstance(item.body, str) else json.dumps(item.body)
            data = body.encode("utf-8")
            self._send(handler, item.status, data, dict(item.headers), item.content_type)
        elif isinstance(item, RawStream):
            frames = [sse(event) for event in item.events]
            if item.cut is not None:
                frames.append(item.cut.encode("utf-8"))
            self._send_stream(handler, frames, finish=item.cut is None)
        elif isinstance(item, Truncated):
            self._truncated(handler, request, item)
        elif isinstance(item, BEHAVIOURS):
            self._send_json(handler, *self.error(item))
        elif isinstance(item, BaseException) or (
            isinstance(item, type) and issubclass(item, BaseException)
        ):
            self._perform(handler, request, _behaviour_for(item))
        else:
            response = self._response(item, request)
            if request.stream:
                self._send_stream(handler, self.render_stream(response, request))
            else:
                self._send_json(handler, 200, self.render(response, request), {})

    def _response(self, item: Reply, request: RecordedRequest) -> ModelResponse:
        model = str(request.body.get("model", "")) if isinstance(request.body, dict) else ""
        response = as_response(item, model=model)
        if response.usage.input_tokens == 0:  # no messages to count: estimate from the body
            usage = replace(response.usage, input_tokens=max(1, len(request.raw) // 4))
            response = replace(response, usage=usage)
        return response

    def _truncated(
        self, handler: BaseHTTPRequestHandler, request: RecordedRequest, item: Truncated
    ) -> None:
        response = self._response(item.reply, request)
        if request.stream:
            frames = self.render_stream(response, request)[: item.after_events]
            self._send_stream(handler, frames, finish=False)
            return
        body = json.dumps(self.render(response, request)).encode("utf-8")
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body) + 64))  # promise more than we send
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(body[: len(body) // 2])

    def _send_json(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        body: Mapping[str, Any],
        headers: Mapping[str, str],
    ) -> None:
        self._send(handler, status, json.dumps(body).encode("utf-8"), headers)

    @staticmethod
    def _send(
        handler: BaseHTTPRequestHandler,
        status: int,
        data: bytes,
        headers: Mapping[str, str],
        content_type: str = "application/json",
    ) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(data)))
        handler.send_header("Connection", "close")
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def _send_stream(
        self, handler: BaseHTTPRequestHandler, frames: list[bytes], *, finish: bool = True
    ) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream; charset=utf-8")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.send_header("Connection", "close")
        handler.end_headers()
        for frame in frames:
            handler.wfile.write(f"{len(frame):X}\r\n".encode() + frame + b"\r\n")
            handler.wfile.flush()
            if self.chunk_delay_s and self._stop.wait(self.chunk_delay_s):
                return
        if finish:  # without the last chunk the client sees a cut connection
            handler.wfile.write(b"0\r\n\r\n")
            handler.wfile.flush()


def _behaviour_for(exc: BaseException | type[BaseException]) -> Behaviour:
    """A ``ModelError`` in a script becomes the HTTP failure that would cause it."""
    if isinstance(exc, ModelError):
        if exc.kind == "rate_limit":
            return RateLimited(exc.retry_after if exc.retry_after is not None else 0)
        if exc.kind == "auth":
            return AuthError()
        if exc.kind == "context_overflow":
            return ContextOverflow()
        if exc.kind == "server":
            return ServerError(exc.status or 500)
        if exc.status:
            return RawResponse(exc.status, {"error": {"message": str(exc)}})
    return ServerError(500)


def sse(data: Mapping[str, Any] | str, event: str | None = None) -> bytes:
    """One server-sent event frame."""
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()
