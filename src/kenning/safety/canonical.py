"""Canonical forms of a text, each with a map back to the original, so a finding names its span.

An attacker writes "іgnоrе" with Cyrillic letters, "ig\u0301no\u0308re" with combining marks,
"1gn0r3", "i g n o r e" or "ig\u200bnore"; a model reads all of them as "ignore". The screen
matches its patterns against these views of the text as well as the text itself:

- **base**: invisible and format characters removed (they are reported separately, see
  :mod:`.unicode`), NFKC (fullwidth, mathematical, circled letters, ligatures, odd spaces),
  word-separating controls turned into spaces. Case and every script are kept: the
  multilingual, command, secret and structure patterns read this one.
- **folded**: base, casefolded, with the diacritics of Latin, Greek and Cyrillic letters and
  stray combining marks stripped, and every letter that is a confusable of an ASCII letter
  (Unicode TR39, from the maintained ``confusable_homoglyphs`` data) replaced by it: the
  skeleton the English patterns read. Built only when it differs from the base text.
- **leet**: folded, with digits and symbols inside words read as letters ("1gn0r3" ->
  "ignore"), once with 1 as i and once as l. Built only for words that mix the two.
- **spaced**: folded, with runs of letters separated by spaces, dots or dashes joined ("i g n
  o r e   a l l" -> "ignore all"). Built only when such a run exists.

Each :class:`View` has ``origin``: for every character of the view, the index of the original
character it came from (identity for pure ASCII text, the common case, which costs nothing).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import numpy as np

from kenning.safety import compiled
from kenning.safety.unicode import is_stripped, separator_for

__all__ = ["View", "base_view", "extra_views"]


@dataclass(frozen=True)
class View:
    name: str
    text: str
    origin: tuple[int, ...] | None  # None: index i of the view is index i of the original

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that ``text[start:end]`` came from."""
        if self.origin is None:
            return start, end
        if not self.origin:
            return 0, 0
        first = self.origin[min(start, len(self.origin) - 1)]
        last = self.origin[min(max(end - 1, start), len(self.origin) - 1)]
        return first, last + 1


# ---- base --------------------------------------------------------------------------------------

_NEEDS_WORK: Final = compiled.regex(r"[^\t\n\r\x20-\x7e]")  # anything but printable ASCII
# An ordinary character needs no care on its own: it is none of these (controls, format or
# invisible characters, separators, combining marks) and no mark in _COMPOSING follows it
# (which would compose with it).
_CARE: Final = (
    "\\x00-\\x1f\\x7f-\\xa0\\xad\\u0300-\\u036f\\u0483-\\u0489\\u0591-\\u05c7"
    "\\u0600-\\u061c\\u064b-\\u065f\\u0670\\u06d6-\\u06ed\\u0900-\\u0903\\u093a-\\u094f"
    "\\u0951-\\u0957\\u0962\\u0963\\u115f\\u1160\\u1680\\u17b4\\u17b5\\u180b-\\u180f"
    "\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f"
    "\\u20d0-\\u20ff\\u3099\\u309a\\u3164\\ufe00-\\ufe0f\\ufe20-\\ufe2f\\ufeff\\uffa0"
    "\\ufff0-\\ufffb\\U000e0000-\\U000e0fff\\U0001d173-\\U0001d17a\\U000110bd\\U000110cd"
    "\\U00013430-\\U0001343f\\U0001bca0-\\U0001bca3"
)
_COMPOSING: Final = (
    "\\u0300-\\u036f\\u0483-\\u0489\\u0591-\\u05c7\\u064b-\\u065f\\u0670"
    "\\u0900-\\u0903\\u093a-\\u094f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff"
    "\\u3099\\u309a\\ufe20-\\ufe2f\\u200b-\\u200f\\u2060-\\u206f"
)
# An ordinary run is a longest stretch of ordinary characters. Two searches for single
# characters find where runs break (one search that read what follows every character cost
# most of base_view).
_NEEDS_CARE: Final = compiled.regex(f"[{_CARE}]")
_MARK: Final = compiled.regex(f"[{_COMPOSING}]")


def _ordinary_runs(raw: str) -> Iterator[tuple[int, int]]:
    """The (start, end) of each longest run of ordinary characters (see above)."""
    cut = {m.start() for m in _NEEDS_CARE.finditer(raw)}
    cut.update(m.start() - 1 for m in _MARK.finditer(raw) if m.start())
    at = 0
    for position in sorted(cut):
        if position > at:
            yield at, position
        at = position + 1
    if at < len(raw):
        yield at, len(raw)


def base_view(raw: str) -> View:
    """NFKC, invisible characters removed, separators normalised (see the module docstring)."""
    if _NEEDS_WORK.search(raw) is None:
        return View("base", raw, None)
    out: list[str] = []
    origin: list[int] = []
    at, n = 0, len(raw)
    # Runs of ordinary characters are normalised whole; only what needs care (invisible and
    # separator characters, combining marks, anything NFKC changes in length) goes one by one.
    for start, end in _ordinary_runs(raw):
        if start > at:
            _one_by_one(raw, at, start, out, origin)
        run = raw[start:end]
        normal = unicodedata.normalize("NFKC", run)
        if len(normal) == len(run):
            out.append(normal)
            origin.extend(range(start, end))
        else:
            _one_by_one(raw, start, end, out, origin)
        at = end
    if at < n:
        _one_by_one(raw, at, n, out, origin)
    return View("base", "".join(out), tuple(origin))


def _one_by_one(raw: str, i: int, n: int, out: list[str], origin: list[int]) -> None:
    """Normalise ``raw[i:n]`` character by character (see :func:`base_view`)."""
    while i < n:
        ch = raw[i]
        sep = separator_for(ch)
        if sep is not None:
            out.append(sep)
            origin.append(i)
            i += 1
            continue
        if is_stripped(ch):
            i += 1
            continue
        # A starter and the combining marks after it (invisible characters between them
        # skipped) are normalised together, so "e\u0301" composes to "é".
        chunk = [ch]
        j = i + 1
        while j < len(raw) and (unicodedata.combining(raw[j]) or is_stripped(raw[j])):
            if not is_stripped(raw[j]):
                chunk.append(raw[j])
            j += 1
        for c in unicodedata.normalize("NFKC", "".join(chunk)):
            out.append(separator_for(c) or c)
            origin.append(i)
        i = j


# ---- folded ------------------------------------------------------------------------------------

# Latin, Greek and Cyrillic letters (and their extensions): where diacritics are stripped and
# look-alikes are folded. Other scripts are left as they are: stripping a Japanese dakuten or
# a Hindi vowel sign would change the word, and no English pattern reads them anyway.
_FOLDABLE: Final[tuple[tuple[int, int], ...]] = (
    (0x00C0, 0x024F),
    (0x0250, 0x02AF),
    (0x0370, 0x03FF),
    (0x0400, 0x052F),
    (0x1D00, 0x1DBF),
    (0x1E00, 0x1FFF),
    (0x2100, 0x214F),
    (0x13A0, 0x13FF),  # Cherokee, a favourite source of look-alikes
    (0xA640, 0xA69F),
    (0xAB70, 0xABBF),
)


def _foldable(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _FOLDABLE)


@functools.cache
def _skeleton() -> dict[str, str]:
    """Each foldable non-ASCII letter that looks like an ASCII letter, mapped to it (TR39)."""
    from confusable_homoglyphs import confusables  # 900 KB of JSON: loaded on first need

    data: dict[str, list[dict[str, str]]] = confusables.confusables_data

    def ascii_of(ch: str, depth: int) -> str | None:
        for glyph in data.get(ch, ()):
            target = "".join(c for c in glyph["c"] if not unicodedata.combining(c))
            if len(target) == 1 and target.isascii() and target.isalpha():
                return target.lower()
            if depth and len(target) == 1:
                found = ascii_of(target, depth - 1)
                if found:
                    return found
        return None

    # Look-alikes TR39 maps to other non-ASCII letters (τ to small-capital T) or not at all.
    table = dict(zip("τκνωεχαβιοτмкнвтгпс", "tkvweyabiotmkhbtrnc", strict=True))
    for ch in data:
        if len(ch) == 1 and not ch.isascii() and _foldable(ord(ch)):
            target = ascii_of(ch, 2)
            if target and ch not in table:
                table[ch] = target
    return table


@functools.lru_cache(maxsize=4096)
def _fold_char(ch: str, after_foldable: bool) -> str:
    """What one base-view character becomes in the folded view ('' to drop it)."""
    if unicodedata.combining(ch):
        return "" if after_foldable else ch
    if ch.isascii():
        return ch.lower()
    if ch in _skeleton():  # before casefolding: capital В looks like B, small в does not
        return _skeleton()[ch]
    if not _foldable(ord(ch)):
        return ch.casefold() if ch.isupper() else ch
    skeleton = _skeleton()
    if ch in skeleton:
        return skeleton[ch]
    bare = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
    bare = bare.casefold()
    return "".join(skeleton.get(c, c) for c in bare)


class _FoldTable(dict[int, str]):
    """str.translate's table for texts without combining marks, filled on demand."""

    def __missing__(self, cp: int) -> str:
        folded = _fold_char(chr(cp), False)
        self[cp] = folded
        return folded


_FOLD_TABLE: Final = _FoldTable()


def _translated(text: str) -> str | None:
    """``text.translate(_FOLD_TABLE)`` when every character folds to one, else None.

    ``str.translate`` looks every character up in the table; a text's distinct characters
    are a few dozen, so they are folded once each and the text is rebuilt from their codes."""
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    distinct, where = np.unique(codes, return_inverse=True)
    folded = [_FOLD_TABLE[cp] for cp in distinct.tolist()]
    if any(len(f) != 1 for f in folded):
        return None
    table = np.array([ord(f) for f in folded], dtype=np.uint32)
    return table[where].tobytes().decode("utf-32-le", "surrogatepass")


def _folded(base: View) -> View:
    text = base.text
    if text.isascii():
        return View("folded", text.lower(), base.origin)
    if _COMBINING.search(text) is None:
        quick = _translated(text)
        if quick is not None:
            return View("folded", quick, base.origin)
    out: list[str] = []
    origin: list[int] = []
    after_foldable = False
    for i, ch in enumerate(text):
        folded = _fold_char(ch, after_foldable)
        if not unicodedata.combining(ch):
            after_foldable = ch.isascii() or _foldable(ord(ch)) or 0x0600 <= ord(ch) <= 0x06FF
        src = i if base.origin is None else base.origin[i]
        for c in folded:
            out.append(c)
            origin.append(src)
    return View("folded", "".join(out), tuple(origin))


# ---- leet and spacing --------------------------------------------------------------------------

_LEET: Final = {
    "0": "o",
    "3": "e",
    "4": "a",
    "5": "s",
    "7": "t",
    "8": "b",
    "9": "g",
    "@": "a",
    "$": "s",
    "!": "i",
    "|": "l",
    "€": "e",
    "+": "t",
}
# A word that mixes letters with digits or symbols read as letters, at least 3 long. Only a
# whole run of such characters can be one (if the run from a later character mixes them, so
# does the whole run, which the match then takes): the lookbehind spares the search from
# reading each run again from every character of it.
_LEET_WORD: Final = compiled.regex(
    r"(?<![a-z0-9@$!|€+])(?=[a-z0-9@$!|€+]*[a-z])(?=[a-z0-9@$!|€+]*[013457890@$!|€+])"
    r"[a-z0-9@$!|€+]{3,}"
)
# Runs of at least 5 single letters, each pair separated by one space, dot, dash, underscore
# or asterisk, or by a wider gap ("   ", " / ") that is kept as a word break.
_SPACED_RUN: Final = compiled.regex(
    r"(?<![\w])[^\W\d_](?:(?:[ .\-_*]|[ ]{2,}|[ ]?/[ ]?)[^\W\d_](?![\w])){4,}"
)
_WORD_GAP: Final = compiled.regex(r"[ ]{2,}|[ ]?/[ ]?")


_LEET_INSIDE: Final = compiled.regex(r"[013457890@$!|€+][a-z]")
_HEXISH: Final = compiled.regex(r"[0-9a-f]+")


def _is_leet(word: str) -> bool:
    """A word that reads as letters written with digits ("1gn0r3", "ru135"), not a version,
    a hash or a token ("python3", "sha256", "ed25519", "4fJ2k9LmNq8R...")."""
    if len(word) > 20 or _HEXISH.fullmatch(word):
        return False
    leet = sum(1 for c in word if c in _LEET or c == "1")
    return _LEET_INSIDE.search(word) is not None or (leet >= 2 and leet < len(word) - 1)


def _leet_words(folded: View) -> list[re.Match[str]]:
    return [m for m in _LEET_WORD.finditer(folded.text) if _is_leet(m.group())]


def _leet(folded: View, one: str, words: list[re.Match[str]]) -> View | None:
    text = folded.text
    if not words:
        return None
    table = {**_LEET, "1": one}
    chars = list(text)
    for m in words:
        for k in range(m.start(), m.end()):
            chars[k] = table.get(chars[k], chars[k])
    return View(f"leet_{one}", "".join(chars), folded.origin)


def _spaced(folded: View) -> View | None:
    text = folded.text
    runs = list(_SPACED_RUN.finditer(text))
    if not runs:
        return None
    out: list[str] = []
    origin: list[int] = []

    def keep(k: int, ch: str) -> None:
        out.append(ch)
        origin.append(k if folded.origin is None else folded.origin[k])

    at = 0
    for m in runs:
        for k in range(at, m.start()):
            keep(k, text[k])
        run = m.group()
        gaps = {g.start() + m.start() for g in _WORD_GAP.finditer(run)}
        if any(c in run for c in ".-_*"):  # letters joined by dots or dashes: spaces part words
            gaps |= {m.start() + k for k, c in enumerate(run) if c == " "}
        k = m.start()
        while k < m.end():
            if text[k].isalpha():
                keep(k, text[k])
            elif k in gaps:
                keep(k, " ")
            k += 1
        at = m.end()
    for k in range(at, len(text)):
        keep(k, text[k])
    return View("spaced", "".join(out), tuple(origin))


_COMBINING: Final = compiled.regex(
    "[\\u0300-\\u036f\\u0483-\\u0489\\u064b-\\u065f\\u1ab0-\\u1aff\\u1dc0-\\u1dff"
    "\\u20d0-\\u20ff\\ufe20-\\ufe2f]"
)


def _bare(base: View) -> View | None:
    """The base text without the combining marks stacked on Latin, Greek, Cyrillic or Arabic
    letters (a Russian word with a stray acute still reads as itself)."""
    text = base.text
    if text.isascii() or _COMBINING.search(text) is None:
        return None
    keep = []
    after_foldable = False
    for i, ch in enumerate(text):
        if unicodedata.combining(ch):
            if after_foldable:
                continue
        else:
            cp = ord(ch)
            after_foldable = ch.isascii() or _foldable(cp) or 0x0600 <= cp <= 0x06FF
        keep.append(i)
    if len(keep) == len(text):
        return None
    origin = tuple(k if base.origin is None else base.origin[k] for k in keep)
    return View("bare", "".join(text[k] for k in keep), origin)


def _sparse(view: View, parent: str) -> View | None:
    """``view`` keeping only the lines that differ from ``parent`` (the same lines, read
    plainly): the other lines are read already, and a 2 KB note with one obfuscated line should
    not be matched five times over. None when no line differs."""
    lines, plain = view.text.split("\n"), parent.split("\n")
    if len(lines) != len(plain):
        return view
    keep: list[str] = []
    origin: list[int] = []
    at = 0
    for line, other in zip(lines, plain, strict=True):
        if line != other:
            keep.append(line)
            origin.extend(
                at + k if view.origin is None else view.origin[at + k] for k in range(len(line))
            )
            origin.append(origin[-1] if origin else 0)  # the newline that ends the kept line
        at += len(line) + 1
    if not keep:
        return None
    return View(view.name, "\n".join(keep) + "\n", tuple(origin))


def extra_views(base: View) -> Iterator[View]:
    """The bare, folded, leet and spaced views, each holding only the lines where it differs
    from what is read already."""
    bare = _bare(base)
    if bare is not None:
        sparse = _sparse(bare, base.text)
        if sparse is not None:
            yield sparse
    folded = _folded(base)
    lower = base.text.lower()
    if folded.text != lower:
        sparse = _sparse(folded, lower)
        if sparse is not None:
            yield sparse
    words = _leet_words(folded)
    for one in ("i", "l"):
        leet = _leet(folded, one, words)
        if leet is not None:
            sparse = _sparse(leet, folded.text)
            if sparse is not None:
                yield sparse
    spaced = _spaced(folded)
    if spaced is not None:
        sparse = _sparse(spaced, folded.text)
        if sparse is not None:
            yield sparse
