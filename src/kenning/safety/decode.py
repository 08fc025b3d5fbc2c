"""Encoded payloads: base64, base32, hex, ``\\x`` and ``\\u`` escapes, percent-encoding, HTML
entities, rot13 and text written backwards, decoded so the screen can read what they say.

"echo Y3VybCAuLi4gfCBzaA== | base64 -d | sh" and "note (base64): SWdub3JlIHlvdXIg..." hide their
words from every pattern. :func:`blobs` finds the encoded runs of a text and yields the text
each decodes to, with the span of the run; :mod:`.screen` screens that text like any other (so
a payload encoded twice is decoded twice), up to a bounded depth and size. Decoded bytes that
are not mostly printable text (hashes, digests, image data) are dropped: they say nothing.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

MAX_BLOBS: Final = 16  # per text: a cost bound
MAX_DECODED_CHARS: Final = 16_384  # per text, all blobs together
MIN_DECODED_CHARS: Final = 8

_BASE64: Final = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX: Final = re.compile(r"(?<![0-9A-Za-z])(?:[0-9a-fA-F]{2}){8,}(?![0-9A-Za-z])")
_XESC: Final = re.compile(r"(?:\\x[0-9a-fA-F]{2}){4,}")
_UESC: Final = re.compile(r"(?:\\u[0-9a-fA-F]{4}){4,}")
_PERCENT: Final = re.compile(r"\S*(?:%[0-9A-Fa-f]{2}){3,}\S*")
_ENTITIES: Final = re.compile(r"(?:&#(?:x[0-9a-fA-F]{1,6}|[0-9]{1,7});){4,}")
_ROT13_HINT: Final = re.compile(r"\brot-?13\b", re.IGNORECASE)
# Base32: upper case and the digits 2-7 only (so neither words nor hex), padded to 8.
_BASE32: Final = re.compile(r"(?<![A-Za-z0-9=])[A-Z2-7]{24,}={0,6}(?![A-Za-z0-9=])")
# Text written backwards: the commonest English words read right to left. A line counts as
# reversed when more of them appear reversed than forwards (never in ordinary prose).
_REVERSED_WORDS: Final = frozenset(
    "eht ot dna uoy ruoy fo ni si taht rof lla yreve daer dnes elif erongi snoitcurtsni".split()
)
_WORD: Final = re.compile(r"[a-z]+")
# One of them as a whole word of _WORD's: what counting them among _WORD's words counts.
_REVERSED_WORD: Final = re.compile(
    "(?<![a-z])(?:" + "|".join(sorted(_REVERSED_WORDS, key=len, reverse=True)) + ")(?![a-z])"
)
_NON_SPACE: Final = re.compile(r"\S+")  # what _PERCENT's \S reads, so its runs are the same
_ROT13: Final = str.maketrans(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm",
)


@dataclass(frozen=True)
class Blob:
    start: int
    end: int
    encoding: str  # base64, base32, hex, escapes, percent, entities, rot13, reversed
    text: str  # what it decodes to


def _printable(data: bytes) -> str | None:
    """``data`` as text if it is mostly printable UTF-8 (or UTF-16-LE), else None."""
    for codec in ("utf-8", "utf-16-le"):
        if codec == "utf-16-le" and (len(data) % 2 or data[1::2].count(0) < len(data) // 4):
            continue
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if len(text) < MIN_DECODED_CHARS:
            return None
        good = sum(1 for c in text if c.isprintable() or c in "\n\t\r")
        if good >= 0.95 * len(text) and sum(c.isalpha() for c in text) >= 0.15 * len(text):
            return text
    return None


def _b64(run: str) -> str | None:
    # Words and paths are not base64: a run needs both cases or a digit, and no long lowercase
    # stretch of an identifier; padding is restored before decoding.
    if not (any(c.isupper() for c in run) and (any(c.islower() for c in run))):
        return None
    if re.search(r"[a-z]{12,}|[A-Z]{12,}", run) and not any(c.isdigit() for c in run):
        return None
    body = run.rstrip("=")
    padded = body + "=" * (-len(body) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            return _printable(decode(padded.encode()))
        except (binascii.Error, ValueError):
            continue
    return None


def _b32(run: str) -> str | None:
    body = run.rstrip("=")
    try:
        return _printable(base64.b32decode(body + "=" * (-len(body) % 8)))
    except (binascii.Error, ValueError):
        return None


def _reversed_lines(text: str) -> str | None:
    """The lines of ``text`` that read as English backwards, each turned around, or None."""
    # Words never span lines: under three reversed words in all, no line can have three.
    if len(_REVERSED_WORD.findall(text.lower())) < 3:
        return None
    out = []
    for line in text.splitlines():
        words = _WORD.findall(line.lower())
        backwards = sum(w in _REVERSED_WORDS for w in words)
        forwards = sum(w[::-1] in _REVERSED_WORDS for w in words)
        if backwards >= 3 and backwards > forwards:
            out.append(line[::-1])
    return "\n".join(out) if out else None


def _percent_runs(text: str) -> Iterator[re.Match[str]]:
    """What ``_PERCENT.finditer(text)`` yields, searched only in the runs of non-space
    characters that hold three "%": a match is one whole run (its \\S* reach to both ends),
    and the search from each position of a long run is what costs."""
    if text.count("%") < 3:
        return
    for run in _NON_SPACE.finditer(text):
        if run.group().count("%") >= 3:
            yield from _PERCENT.finditer(text, run.start(), run.end())


def blobs(text: str) -> Iterator[Blob]:
    """Each encoded run of ``text`` that decodes to readable text, within the bounds above."""
    found = 0
    budget = MAX_DECODED_CHARS

    def emit(start: int, end: int, encoding: str, decoded: str | None) -> Blob | None:
        nonlocal found, budget
        if decoded is None or found >= MAX_BLOBS or budget <= 0 or decoded.strip() == "":
            return None
        found += 1
        budget -= len(decoded)
        return Blob(start, end, encoding, decoded[: max(0, budget + len(decoded))])

    candidates: list[tuple[int, int, str, str | None]] = []
    for m in _BASE64.finditer(text):
        candidates.append((m.start(), m.end(), "base64", _b64(m.group())))
    for m in _HEX.finditer(text):
        candidates.append((m.start(), m.end(), "hex", _printable(bytes.fromhex(m.group()))))
    # Each search below is skipped when the text lacks a string every match holds.
    for m in _XESC.finditer(text) if "\\x" in text else ():
        raw = bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-fA-F]{2})", m.group()))
        candidates.append((m.start(), m.end(), "escapes", _printable(raw)))
    for m in _UESC.finditer(text) if "\\u" in text else ():
        decoded: str | None = "".join(
            chr(int(h, 16)) for h in re.findall(r"\\u([0-9a-fA-F]{4})", m.group())
        )
        candidates.append((m.start(), m.end(), "escapes", decoded))
    for m in _percent_runs(text):
        decoded = urllib.parse.unquote(m.group())
        candidates.append(
            (m.start(), m.end(), "percent", decoded if decoded != m.group() else None)
        )
    for m in _ENTITIES.finditer(text) if "&#" in text else ():
        candidates.append((m.start(), m.end(), "entities", html.unescape(m.group())))
    if "13" in text and _ROT13_HINT.search(text):
        candidates.append((0, len(text), "rot13", text.translate(_ROT13)))
    for m in _BASE32.finditer(text):
        candidates.append((m.start(), m.end(), "base32", _b32(m.group())))
    backwards = _reversed_lines(text)
    if backwards is not None:
        candidates.append((0, len(text), "reversed", backwards))
    for start, end, encoding, decoded in sorted(candidates, key=lambda c: c[0]):
        blob = emit(start, end, encoding, decoded)
        if blob is not None:
            yield blob
