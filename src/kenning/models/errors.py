"""Model errors, classified so the loop knows what to do with each.

- ``rate_limit``, ``server``, ``timeout``, ``connection``: transient — retried
  with bounded backoff (``retry_after`` honoured when the server sends one).
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
    "auth",
    "bad_request",
    "not_found",
    "context_overflow",
]

TRANSIENT: frozenset[str] = frozenset({"rate_limit", "server", "timeout", "connection"})


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
