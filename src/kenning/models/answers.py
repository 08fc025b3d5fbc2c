"""Telling a person what a server sent when it is not what the API sends.

Once a server has answered (its status line and headers arrived), a failure
is no longer "could not connect": either the answer was cut before its end
(``truncated``: a body shorter than announced, JSON that stops mid-document,
an event stream without its end) or it is not the API's format at all
(``bad_response``: an HTML page from a proxy or a web UI, JSON of another
shape). Both messages quote what came — status, content type and about 200
characters with control characters removed, so a body cannot drive the
terminal — and say what to check.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from kenning.models.errors import ModelError

# How much of an unexpected answer a message quotes.
SHOWN = 200
# Control and bidi-override characters: a quoted body must not drive the
# terminal (escape sequences) or reflow the message (newlines).
_UNPRINTABLE = re.compile("[\\x00-\\x1f\\x7f-\\x9f\\u200b-\\u200f\\u2028-\\u202e\\u2066-\\u2069]+")

CUT_ADVICE = (
    "The server may have failed mid-answer, or a proxy or load balancer with a short "
    "timeout cut it. Try again; if it keeps happening, look at the server's log."
)


def shown(raw: bytes | str, limit: int = SHOWN, *, tail: bool = False) -> str:
    """Up to ``limit`` characters of what a server sent, safe to print on one line."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    text = " ".join(_UNPRINTABLE.sub(" ", text).split())
    if len(text) <= limit:
        return text
    return "…" + text[-limit:] if tail else text[:limit] + "…"


def base_url_advice(advice: str = "") -> str:
    """What to check when a server answers, but not like the API."""
    where = f" ({advice})" if advice else ""
    return f"Is base_url right{where}? Is a proxy, VPN or login page in the way?"


@dataclass
class Received:
    """What one answer has brought so far: enough to describe it, never all of it."""

    status: int = 0
    content_type: str = ""
    head: str = ""  # the first characters, up to KEEP
    tail: str = ""  # the last characters, up to KEEP
    size: int = 0  # bytes of a plain body, characters of an event stream
    events: int = 0  # server-sent events parsed
    expected: int | None = None  # Content-Length, when the server announced one
    unit: str = "characters"  # what ``size`` counts

    KEEP: ClassVar[int] = 2 * SHOWN

    @classmethod
    def of_body(
        cls, raw: bytes, *, status: int, content_type: str = "", expected: int | None = None
    ) -> Received:
        """A whole (or cut) plain body, sized in bytes."""
        received = cls(status, content_type, expected=expected, unit="bytes")
        # 4 bytes a character at most: enough bytes for KEEP characters.
        received.head = raw[: cls.KEEP * 4].decode("utf-8", "replace")[: cls.KEEP]
        received.tail = raw[-cls.KEEP * 4 :].decode("utf-8", "replace")[-cls.KEEP :]
        received.size = len(raw)
        return received

    def add(self, text: str) -> None:
        if len(self.head) < self.KEEP:
            self.head += text[: self.KEEP - len(self.head)]
        self.tail = (self.tail + text)[-self.KEEP :]
        self.size += len(text)

    @property
    def what(self) -> str:
        """``HTTP 200 (text/html)``: the status and what the body claims to be."""
        return f"HTTP {self.status} ({self.content_type or 'no content type'})"


def unexpected_answer(
    provider: str, url: str, received: Received, problem: str, *, advice: str = ""
) -> ModelError:
    """A 2xx answer that is not the API's format: say what came and what to check."""
    got = shown(received.head) or "(an empty body)"
    return ModelError(
        "bad_response",
        f"{provider}: {url} answered {received.what} but {problem}: {got!r}. "
        + base_url_advice(advice),
        status=received.status,
        provider=provider,
    )


def cut_short(provider: str, url: str, received: Received, problem: str) -> ModelError:
    """An answer that stopped before its end: how much came, and how it ended."""
    expected = received.expected
    of = f" of {expected:,}" if expected is not None and expected != received.size else ""
    last = shown(received.tail, tail=True) or "(nothing)"
    return ModelError(
        "truncated",
        f"{provider}: {url} answered {received.what} but {problem}, after "
        f"{received.size:,}{of} {received.unit}; it ended with: {last!r}. {CUT_ADVICE}",
        status=received.status,
        provider=provider,
    )


def decode_json(
    raw: bytes, received: Received, *, provider: str, url: str, advice: str = ""
) -> Any:
    """The JSON of a 2xx body; a cut document is ``truncated``, anything else ``bad_response``."""
    try:
        return json.loads(raw)
    except ValueError as exc:
        if _looks_cut(raw, exc):
            raise cut_short(provider, url, received, "the JSON stops mid-document") from exc
        raise unexpected_answer(
            provider, url, received, "not with the API's JSON", advice=advice
        ) from exc


def _looks_cut(raw: bytes, exc: ValueError) -> bool:
    """A JSON document that starts well and fails only where the text runs out."""
    if not isinstance(exc, json.JSONDecodeError) or raw.lstrip()[:1] not in (b"{", b"["):
        return False
    return exc.pos >= len(exc.doc.rstrip()) or exc.msg.startswith("Unterminated string")


def shape_error(provider: str, what: str, data: Any, exc: Exception, advice: str) -> ModelError:
    """JSON that parsed but is not the API's ``what`` (a chat.completion, a message)."""
    return ModelError(
        "bad_response",
        f"{provider}: the answer is JSON but not a {what} ({exc!r}): "
        f"{shown(json.dumps(data, default=str))!r}. {base_url_advice(advice)}",
        provider=provider,
    )
