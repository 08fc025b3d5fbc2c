"""Model errors, classified so the loop knows what to do with each.

- ``rate_limit``, ``server``, ``timeout``, ``connection``: transient — retried
  with bounded backoff (``retry_after`` honoured when the server sends one).
  ``connection`` means the server could not be reached at all.
- ``unreachable``: nothing listens at a loopback address (connection
  refused on this machine): a server that is not running does not start
  in the seconds retries wait, so the message says at once how to start it.
- ``truncated``: the server answered but the answer was cut before its end
  (a body shorter than announced, an event stream without its end): also
  transient, as a dropped connection usually is.
- ``empty_response``: a well-formed answer with no text and no tool calls;
  retried once (``RetryPolicy.max_empty_retries``), since a second empty
  answer to the same request is the model's, not a hiccup.
- ``bad_response``: the server answered 2xx with something that is not the
  API's format (an HTML page, JSON of another shape); retrying the same URL
  gets the same page, so the turn ends with what was received.
- ``auth``, ``bad_request``, ``not_found``: the turn ends with the message.
- ``context_overflow``: the prompt is too long — the context engine compacts
  and tries again; never retried as-is.
"""

from __future__ import annotations

from typing import Literal

ErrorKind = Literal[
    "rate_limit",
    "server",
    "timeout",
    "connection",
    "unreachable",
    "auth",
    "bad_request",
    "not_found",
    "context_overflow",
    "truncated",
    "bad_response",
    "empty_response",
]

TRANSIENT: frozenset[str] = frozenset(
    {"rate_limit", "server", "timeout", "connection", "truncated", "empty_response"}
)


class ModelError(Exception):
    """A model request failed; ``kind`` says how, ``str()`` says what to do."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        provider: str = "",
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.status = status
        self.retry_after = retry_after
        self.provider = provider

    @property
    def transient(self) -> bool:
        return self.kind in TRANSIENT


class ModelNotConfigured(Exception):
    """No model is configured; the message says exactly how to configure one."""
