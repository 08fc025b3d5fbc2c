"""Encoded payloads: base64, base32, hex, ``\\x``, ``\\u`` and octal escapes, percent-encoding,
HTML entities, rot13, text written backwards and commands assembled from pieces, decoded so the
screen can read what they say.

"echo Y3VybCAuLi4gfCBzaA== | base64 -d | sh" and "note (base64): SWdub3JlIHlvdXIg..." hide their
words from every pattern. :func:`blobs` finds the encoded runs of a text and yields the text
each decodes to, with the span of the run; :mod:`.screen` screens that text like any other (so
a payload encoded twice is decoded twice), up to a bounded depth and size. Decoded bytes that
are not mostly printable text (hashes, digests, image data) are dropped: they say nothing.

Assembled commands are read as they would run (:func:`assembled`): ``'cu' + 'rl'``,
``['h','t','t','p'].join('')``, ``''.join(map(chr, [104, 116]))``, ``String.fromCharCode(...)``,
``strings.Join([]string{...}, "/")``, ``cu${IFS}rl``, ``c''url`` and shell variables put
together (``c=cu; d=rl; $c$d``) become the text they make, screened like a decoding.
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

from kenning.safety import compiled

MAX_BLOBS: Final = 16  # per text: a cost bound
MAX_DECODED_CHARS: Final = 16_384  # per text, all blobs together
MIN_DECODED_CHARS: Final = 8

_BASE64: Final = compiled.regex(
    r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])"
)
_HEX: Final = compiled.regex(r"(?<![0-9A-Za-z])(?:[0-9a-fA-F]{2}){8,}(?![0-9A-Za-z])")
_XESC: Final = compiled.regex(r"(?:\\x[0-9a-fA-F]{2}){4,}")
_UESC: Final = compiled.regex(r"(?:\\u[0-9a-fA-F]{4}){4,}")
_PERCENT: Final = compiled.regex(r"\S*(?:%[0-9A-Fa-f]{2}){3,}\S*")
_ENTITIES: Final = compiled.regex(r"(?:&#(?:x[0-9a-fA-F]{1,6}|[0-9]{1,7});){4,}")
_OCTESC: Final = compiled.regex(r"(?:\\[0-3][0-7]{2}){4,}")
_ROT13_HINT: Final = compiled.regex(r"\brot-?13\b", re.IGNORECASE)
# Base32: upper case and the digits 2-7 only (so neither words nor hex), padded to 8.
_BASE32: Final = compiled.regex(r"(?<![A-Za-z0-9=])[A-Z2-7]{24,}={0,6}(?![A-Za-z0-9=])")
# Text written backwards: the commonest English words read right to left. A line counts as
# reversed when more of them appear reversed than forwards (never in ordinary prose).
_REVERSED_WORDS: Final = frozenset(
    "eht ot dna uoy ruoy fo ni si taht rof lla yreve daer dnes elif erongi snoitcurtsni".split()
)
# What only reversed text holds, in any language: a URL's scheme ("//:sptth") or a home folder's
# dotfile ("swa./~", "~/.aws" backwards), a command piped backwards ("hs | ... lruc").
_REVERSED_MARK: Final = compiled.regex(
    r"//:s?ptth\b|[\w-]\./~(?![\w/])|\b(?:hs|hsab)\s*\|[^\n]{1,300}?\b(?:lruc|tegw)\b"
)
# A quoted string turned around by rev before it runs: echo '...' | rev | sh.
_REV_PIPE: Final = compiled.regex(r"""(['"])([^'"\n]{8,400})\1\s*\|\s*rev\b""")
_WORD: Final = compiled.regex(r"[a-z]+")
# One of them as a whole word of _WORD's: what counting them among _WORD's words counts.
_REVERSED_WORD: Final = compiled.regex(
    # longest first; ties in a fixed order, so the source (the key of its cached code,
    # :mod:`.compiled`) is the same in every process
    "(?<![a-z])(?:" + "|".join(sorted(_REVERSED_WORDS, key=lambda w: (-len(w), w))) + ")(?![a-z])"
)
_NON_SPACE: Final = compiled.regex(r"\S+")  # what _PERCENT's \S reads, so its runs are the same
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
    """The lines of ``text`` that read backwards (English words, a URL, a path), each turned
    around, or None."""
    # Words never span lines: under three reversed words in all, no line can have three; then
    # only a reversed mark (a scheme, a dotfile, a backwards pipe) or ``| rev`` can turn a line.
    if (
        len(_REVERSED_WORD.findall(text.lower())) < 3
        and _REVERSED_MARK.search(text) is None
        and "rev" not in text
    ):
        return None
    out = []
    for line in text.splitlines():
        words = _WORD.findall(line.lower())
        backwards = sum(w in _REVERSED_WORDS for w in words)
        forwards = sum(w[::-1] in _REVERSED_WORDS for w in words)
        if (backwards >= 3 and backwards > forwards) or _REVERSED_MARK.search(line):
            out.append(line[::-1])
    for m in _REV_PIPE.finditer(text):
        out.append(m.group(2)[::-1])
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
    for m in _OCTESC.finditer(text):
        raw = bytes(int(o, 8) for o in re.findall(r"\\([0-3][0-7]{2})", m.group()))
        candidates.append((m.start(), m.end(), "escapes", _printable(raw)))
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
    joined = assembled(text)
    if joined is not None:
        candidates.append((0, len(text), "pieces", joined))
    for start, end, encoding, decoded in sorted(candidates, key=lambda c: c[0]):
        blob = emit(start, end, encoding, decoded)
        if blob is not None:
            yield blob


# ---- commands assembled from pieces ------------------------------------------------------------

_QUOTED: Final = r"""(?:'[^'\n]{0,80}'|"[^"\n]{0,80}")"""
# 'cu' + 'rl', "ht" + 'tp': two literals glued by + (JavaScript, Python, PowerShell, Java).
_GLUED: Final = compiled.regex(r"""(['"])[ \t]*\+[ \t]*(['"])""")
# A list of literals joined: ['h','t','t','p'].join(''), ''.join(['h', 't']), ('a','b') -join '',
# strings.Join([]string{"https:", "", "host"}, "/").
_LIST: Final = rf"""((?:{_QUOTED}[ \t]*,[ \t]*){{1,60}}{_QUOTED})"""
_JOINS: Final = (
    compiled.regex(rf"""\[[ \t]*{_LIST}[ \t]*\][ \t]*\.join\([ \t]*(?P<sep>{_QUOTED})?[ \t]*\)"""),
    compiled.regex(
        rf"""(?P<sep>{_QUOTED})[ \t]*\.join\([ \t]*[\[(][ \t]*{_LIST}[ \t]*[\])][ \t]*\)"""
    ),
    compiled.regex(rf"""\([ \t]*{_LIST}[ \t]*\)[ \t]*-join[ \t]*(?P<sep>{_QUOTED})"""),
    compiled.regex(
        rf"""strings\.Join\([ \t]*\[\]string\{{[ \t]*{_LIST}[ \t]*\}}[ \t]*,[ \t]*"""
        rf"""(?P<sep>{_QUOTED})[ \t]*\)"""
    ),
)
# Character codes: map(chr, [104, 116, ...]), String.fromCharCode(104, 116, ...), bytes([...]).
_CODE: Final = r"(?:[3-9]\d|1[01]\d|12[0-6])"  # a printable ASCII character's code
_CODES: Final = compiled.regex(rf"(?<![\d.])({_CODE}(?:[ \t]*,[ \t]*{_CODE}){{5,}})(?![\d.])")
_CODES_CALL: Final = compiled.regex(
    r"""(?:''|"")[ \t]*\.join\([ \t]*map\([ \t]*chr[ \t]*,[ \t]*[\[(]([\d, \t]+)[\])][ \t]*\)
        [ \t]*\)
      | String\.fromCharCode\(([\d, \t]+)\)
      | \bbytes\([ \t]*\[([\d, \t]+)\][ \t]*\)(?:\.decode\(\))?""",
    re.VERBOSE,
)
_ONE_CODE: Final = compiled.regex(r"""(?:\bchr\(|\[char\][ \t]*\(?)[ \t]*(\d{2,3})[ \t]*\)?""")
# Octal and hex escapes among plain characters, in a word or a quoted string: printf '\143\165rl
# -s ...', $'\x63url'. (A run standing alone is an ordinary blob, with its minimum length.)
_INLINE_ESCAPES: Final = compiled.regex(r"(?:\\[0-3][0-7]{2}|\\x[0-9a-fA-F]{2}){2,}")
_BESIDE: Final = frozenset("'\"-_") | frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)
# Shell: $IFS for a space, empty quotes or $@ inside a word, variables put together.
_IFS: Final = compiled.regex(r"\$\{IFS[^}]{0,8}\}|\$IFS\b")
_EMPTY_IN_WORD: Final = compiled.regex(r"""(?<=[A-Za-z])(?:''|""|\$@|\$\*)(?=[A-Za-z])""")
_ASSIGN: Final = compiled.regex(
    r"""(?:^|(?<=[;&|\s(]))([A-Za-z_]\w{0,30})=
        ('[^'\n]{0,200}'|"[^"\n]{0,200}"|[^\s;|&'"`]{1,200})""",
    re.M | re.VERBOSE,
)
_VAR_USE: Final = compiled.regex(r"\$\{(\w{1,31})(?::-([^}]{0,40}))?\}|\$(\w{1,31})")
# A command whose name is a variable, or two variables glued: what needs expanding.
_BUILT_COMMAND: Final = compiled.regex(
    r"(?:^|[;&|(`]|\$\()[ \t]*\$\{?\w+\}?(?=[\s$|;]|$)|\$\{?\w+\}?\$\{?\w+", re.M
)


def _unescaped(m: re.Match[str]) -> str:
    text = m.string
    before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
    if before not in _BESIDE and after not in _BESIDE:
        return m.group()
    codes = [
        int(e[2:], 16) if e[1] == "x" else int(e[1:], 8)
        for e in re.findall(r"\\x..|\\...", m.group())
    ]
    if not all(32 <= c < 127 for c in codes):
        return m.group()
    return "".join(map(chr, codes))


def _literal(quoted: str) -> str:
    return quoted[1:-1]


def _joined_list(m: re.Match[str]) -> str:
    parts = re.findall(_QUOTED, m.group(1) if m.re is not _JOINS[1] else m.group(2))
    sep = m.group("sep")
    return "'" + (_literal(sep) if sep else "").join(_literal(p) for p in parts) + "'"


def _codes_text(codes: str) -> str | None:
    values = [int(v) for v in re.findall(r"\d+", codes)]
    if len(values) < 6 or not all(32 <= v < 127 for v in values):
        return None
    return "".join(map(chr, values))


def _code_call(m: re.Match[str]) -> str:
    text = _codes_text(next(g for g in m.groups() if g is not None))
    return m.group() if text is None else "'" + text + "'"


def _shell_expanded(text: str) -> str:
    """``text`` with $IFS read as a space (or nothing inside a word) and the variables it
    assigns put in where a command is built from them."""

    def ifs(m: re.Match[str]) -> str:
        before = text[m.start() - 1 : m.start()]
        after = text[m.end() : m.end() + 1]
        inside = before.isalnum() and (after.isalnum() or after in ":/.")
        return "" if inside else " "

    text = _IFS.sub(ifs, text)
    text = _EMPTY_IN_WORD.sub("", text)
    if not _BUILT_COMMAND.search(text):
        return text
    values: dict[str, str] = {}
    for m in _ASSIGN.finditer(text):
        value = m.group(2)
        values[m.group(1)] = value[1:-1] if value[:1] in "'\"" else value

    def var(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(3)
        if name in values:
            return values[name]
        return m.group(2) if m.group(2) is not None else m.group()

    return _VAR_USE.sub(var, text)


def assembled(text: str) -> str | None:
    """``text`` with the commands it assembles from pieces put together, or None when it
    assembles none (see the module docstring)."""
    out = _shell_expanded(text) if ("$" in text or "''" in text or '""' in text) else text
    if "\\" in out:
        out = _INLINE_ESCAPES.sub(_unescaped, out)
    out = _CODES_CALL.sub(_code_call, out)
    out = _ONE_CODE.sub(
        lambda m: "'" + chr(int(m.group(1))) + "'" if 32 <= int(m.group(1)) < 127 else m.group(),
        out,
    )
    for join in _JOINS:
        out = join.sub(_joined_list, out)
    for _ in range(3):  # 'a' + 'b' + 'c': each pass glues what the last one left
        glued = _GLUED.sub("", out)
        if glued == out:
            break
        out = glued
    out = _CODES.sub(lambda m: _codes_text(m.group(1)) or m.group(), out)
    return out if out != text else None
