"""Where the matches of a regex can begin, read from its syntax tree, so it is tried only there.

``regex.finditer(text)`` tries the regex at every position: for the screen's big
case-insensitive alternations, a few hundred microseconds on a 2 KB entry each, nearly all of
it where no match can begin. :func:`starts` reads a compiled regex's syntax tree and says
where one can (the tree is read by :mod:`.regex_tree`):

- ``strings``: a match begins with one of these (folded, see :func:`.prefilter.fold`, cut to
  :data:`.grams.WIDTH` characters): "\\b(?:ignore|disregard)\\s+" begins with "ign" or "dis";
- ``lines``: or where a line begins ("^", the regexes are MULTILINE), on a line that holds
  what follows: "^(?=[^\\n]*?\\bcurl)" needs "cur" on the line, with no line break between;
- ``after``: or right after one of these characters (a lookbehind of a class that opens the
  regex, as a clause does: "(?:^|(?<=[.;\n]))" begins at a line start or after ".", ";"
  or a line break);
- ``gap``: of those positions, only the ones from which what follows the regex's opening
  repeat can begin before the repeat meets a character it cannot consume: a clause's
  "[^.;\\n]*?\\bsave\\b" is tried at the clause starts with a "sav" before the next ".", ";"
  or line break, not at every clause start of the line;
- ``line_bound``: no match crosses a line break, nor looks across one, so each line can be
  searched on its own (``within_line``: the lines that can hold a match). A regex whose
  matches may go on past their line is searched on those lines by ``ahead``, the regex behind
  a lazy run of the line: one call says where the first match from a position of the line
  begins.

:func:`matches` yields exactly what ``regex.finditer(text, pos)`` would, trying the regex only
at those positions (``regex.match(text, p)`` reads the text before ``p`` as a search does, for
lookbehinds, ``^`` and ``\\b``) or on those lines. A position is left out only when the text
cannot hold what every match there begins with, so nothing is missed; the tests compare the
two over the whole corpus, and the first match from a position with ``regex.search``.
"""

from __future__ import annotations

import bisect
import functools
import importlib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from kenning.safety import compiled, grams
from kenning.safety.regex_tree import Need, Reader, Strings, empty

__all__ = ["LineAll", "LineAny", "Starts", "candidates", "matches", "starts"]

# With more candidates than this, the regex is searched from the first one instead: a call
# per position would cost more than the search.
MAX_CANDIDATES: Final = 160

_ASCII_WORD: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


@dataclass(frozen=True, slots=True)
class LineAll:
    """Every part holds on the line."""

    parts: tuple[LineNeed, ...]


@dataclass(frozen=True, slots=True)
class LineAny:
    """Some part holds on the line."""

    parts: tuple[LineNeed, ...]


LineNeed = grams.Query | LineAll | LineAny


@dataclass(frozen=True, slots=True)
class Starts:
    """Where the matches of one regex can begin (see the module docstring)."""

    strings: grams.Query | None  # with ``lines``: the only places; None and no lines: unknown
    lines: tuple[LineNeed | None, ...]  # line starts, on lines holding the need (None: any)
    line_bound: bool
    within_line: LineNeed | None  # what a line holding a match holds
    # The regex begins with a literal or a small set of characters that ``re`` itself skips
    # to (a case-sensitive "指令|指示"): its own search is faster than finding candidates.
    searched: bool = False
    after: grams.Query | None = None  # with ``strings`` or ``lines``: after these characters
    # The regex opens with zero-width nodes and a repeat of one character at a time that
    # cannot consume any of ``gap[0]``, then a part that begins with a string of ``gap[1]``:
    # a match at ``p`` has that part start between ``p`` and the first of the characters from
    # ``p`` on (a clause's "(?:^|(?<=[.;\n]))[^.;\n]*?\b(?:save|store)\b").
    gap: tuple[str, grams.Query] | None = None
    # With ``within_line`` but not ``line_bound``: the regex behind a lazy run of a line,
    # "[^\n]*?(?=(?:regex))", whose match ends where the first match from a position on its
    # line begins (see :func:`_on_lines`).
    ahead: re.Pattern[str] | None = None

    @property
    def positions(self) -> bool:
        """True if :func:`candidates` can list the positions."""
        return self.strings is not None or bool(self.lines) or self.after is not None


def _query(strings: Strings) -> grams.Query:
    """The strings for :class:`.grams.Grams`: a boundary counts next to a word character."""
    ordered = sorted(strings, key=lambda s: (s[1], s[0], s[2]))
    bounds = [
        (lead and body[0] in _ASCII_WORD, tail and body[-1] in _ASCII_WORD)
        for lead, body, tail in ordered
    ]
    return grams.Query([body for _, body, _ in ordered], bounds)


@functools.cache
def _line_need(need: Need) -> LineNeed | None:
    if need is None:
        return None
    if isinstance(need, frozenset):
        return _query(need)
    kind, parts = need
    if kind == "any":  # one query for all the strings of its parts: one lookup, same lines
        parts = _any_parts(parts)
        if None in parts:
            return None
        strings = [p for p in parts if isinstance(p, frozenset)]
        if len(strings) > 1:
            parts = (frozenset().union(*strings), *(p for p in parts if p not in strings))
    made = tuple(p for p in map(_line_need, parts) if p is not None)
    if not made or (kind == "any" and len(made) < len(parts)):
        return None
    if len(made) == 1:
        return made[0]
    return LineAll(made) if kind == "all" else LineAny(made)


def _any_parts(parts: tuple[Need, ...]) -> tuple[Need, ...]:
    """The parts of an "any" need, those of an "any" among them taken in."""
    found: list[Need] = []
    for part in parts:
        if isinstance(part, tuple) and part[0] == "any":
            found.extend(_any_parts(part[1]))
        else:
            found.append(part)
    return tuple(dict.fromkeys(found))


@functools.cache
def _starts(source: str, flags: int) -> Starts:
    try:
        parser = importlib.import_module("re._parser")
        constants = importlib.import_module("re._constants")
        compiler = importlib.import_module("re._compiler")
        tree = parser.parse(source, flags)
        flags = tree.state.flags
        searched = bool(
            compiler._get_literal_prefix(tree, flags)[0]
            or compiler._get_charset_prefix(tree, flags)
        )
    except Exception:  # a Python whose regex internals differ: run the regex everywhere
        return Starts(None, (), False, None)
    if searched:
        return Starts(None, (), False, None, searched=True)
    reader = Reader(constants)
    seq = list(tree)
    begin = reader.start(seq, flags)
    strings: grams.Query | None = None
    lines: tuple[LineNeed | None, ...] = ()
    after: grams.Query | None = None
    if begin is not None and not empty(begin[0]):
        strings = _query(begin[0])
        lines = tuple(_line_need(need) for need in begin[1])
        after = grams.Query(sorted(begin[2])) if begin[2] else None
    within = _line_need(reader.within_line(seq, flags))
    found = reader.gap(seq, flags)
    gap = None if found is None else ("".join(sorted(found[0])), _query(found[1]))
    bound = reader.line_bound(seq, flags)
    ahead = None if bound or within is None else _ahead(source, flags)
    return Starts(strings, lines, bound, within, after=after, gap=gap, ahead=ahead)


def _ahead(source: str, flags: int) -> re.Pattern[str] | None:
    """``source`` behind a lazy run of a line, or None if it cannot be wrapped (a global flag
    in it must open the pattern)."""
    end = "\n)" if flags & re.VERBOSE else ")"  # the line break ends a trailing comment
    try:
        return compiled.regex(f"[^\\n]*?(?=(?:{source}{end})", flags)
    except re.error:
        return None


def starts(regex: re.Pattern[str]) -> Starts:
    """Where the matches of ``regex`` can begin (see the module docstring)."""
    return _starts(regex.pattern, regex.flags)


# ---- trying a regex only where it can match -------------------------------------------------


def _lines(need: LineNeed, index: grams.Grams) -> frozenset[int]:
    """The lines (numbered from 0) that can hold ``need`` (kept with the index: the rows of a
    table share their parts, and a rule's search is taken up again after a mention)."""
    known = index.memo.get(id(need))
    if known is not None and known[0] is need:
        lines: frozenset[int] = known[1]
        return lines
    if isinstance(need, grams.Query):
        lines = frozenset(grams.line_of(index.newlines, index.starts(need)).tolist())
    else:
        found = [_lines(part, index) for part in need.parts]
        every = isinstance(need, LineAll)
        lines = frozenset.intersection(*found) if every else frozenset.union(*found)
    index.memo[id(need)] = (need, lines)
    return lines


def candidates(where: Starts, index: grams.Grams) -> list[int]:
    """The positions, ascending, at which a match can begin (``where.positions`` is True);
    kept with the index, for a search taken up again after a skipped match."""
    known = index.memo.get(id(where))
    if known is not None and known[0] is where:
        kept: list[int] = known[1]
        return kept
    found = _candidates(where, index)
    index.memo[id(where)] = (where, found)
    return found


def _candidates(where: Starts, index: grams.Grams) -> list[int]:
    found = index.starts(where.strings) if where.strings is not None else []
    if where.after is not None:  # right after a character of the lookbehind's class
        last = index.length
        behind = [p + 1 for p in index.starts(where.after) if p < last]
        found = sorted({*found, *behind}) if found else behind
    if not where.lines:
        return _gapped(where, index, found)
    if None in where.lines:
        lines: Iterable[int] = range(len(index.newlines) + 1)
    else:
        lines = set().union(*(_lines(need, index) for need in where.lines if need is not None))
    ends = index.newlines.tolist()
    at = [0 if line == 0 else ends[line - 1] + 1 for line in lines]
    return _gapped(where, index, sorted({*found, *at}) if found else sorted(at))


def _gapped(where: Starts, index: grams.Grams, at: list[int]) -> list[int]:
    """The positions of ``at`` from which the part after the regex's opening repeat can
    begin before the repeat meets a character it cannot consume (``where.gap``)."""
    if where.gap is None or not at:
        return at
    stops, rest = where.gap
    begins = np.asarray(index.starts(rest), dtype=np.intp)
    if not len(begins):
        return []
    start = np.asarray(at, dtype=np.intp)
    ends = index.exact(stops)  # the first stop from each position, or the end of the text
    stop = np.append(ends, index.length)[np.searchsorted(ends, start)]
    first = begins[np.minimum(np.searchsorted(begins, start), len(begins) - 1)]
    kept: list[int] = start[(first >= start) & (first <= stop)].tolist()
    return kept


def matches(
    regex: re.Pattern[str],
    text: str,
    where: Starts,
    index: grams.Grams | None,
    pos: int = 0,
) -> Iterator[re.Match[str]]:
    """What ``regex.finditer(text, pos)`` yields, in order, trying ``regex`` only where
    ``where`` says a match can begin in the text ``index`` was made of (everywhere when it is
    None). Its first is ``regex.search(text, pos)``."""
    if index is None:
        yield from regex.finditer(text, pos)
        return
    if where.positions:
        at = candidates(where, index)
        if pos:
            at = at[bisect.bisect_left(at, pos) :]
        if len(at) <= MAX_CANDIDATES:
            yield from _at(regex, text, at)
            return
        if where.within_line is None or not (where.line_bound or where.ahead is not None):
            yield from regex.finditer(text, at[0])  # no match begins before the first
            return
    if where.within_line is None:
        yield from regex.finditer(text, pos)
        return
    lines = sorted(_lines(where.within_line, index))
    if pos:  # the lines that end before it hold nothing from it on
        lines = lines[bisect.bisect_left(lines, int(grams.line_of(index.newlines, [pos])[0])) :]
    if not where.line_bound and where.ahead is not None:
        yield from _on_lines(regex, where.ahead, text, lines, index, pos)
        return
    if not where.line_bound:
        if lines:  # no match begins on an earlier line: finditer from here finds the same
            first = 0 if lines[0] == 0 else int(index.newlines[lines[0] - 1]) + 1
            yield from regex.finditer(text, max(first, pos))
        return
    ends = index.newlines.tolist()
    for line in lines:
        start = 0 if line == 0 else ends[line - 1] + 1
        end = ends[line] if line < len(ends) else len(text)
        yield from regex.finditer(text, max(start, pos), end)


def _on_lines(
    regex: re.Pattern[str],
    ahead: re.Pattern[str],
    text: str,
    lines: Sequence[int],
    index: grams.Grams,
    pos: int,
) -> Iterator[re.Match[str]]:
    """What ``regex.finditer(text, pos)`` yields when every match begins on one of ``lines``: each
    line is read by ``ahead`` (:attr:`Starts.ahead`), which finds in one call where the first
    match from a position on the line begins (a match may go on past the line)."""
    ends = index.newlines.tolist()
    done = pos  # where the last match ended: finditer looks on from there
    for line in lines:
        at = max(done, 0 if line == 0 else ends[line - 1] + 1)
        last = ends[line] if line < len(ends) else len(text)  # the line's own "\n" included
        while at <= last:
            lead = ahead.match(text, at)
            if lead is None:
                break
            found = regex.match(text, lead.end())
            if found is None or found.end() == found.start():
                # (None cannot be: the same regex matched there.) An empty match: finditer's
                # own rules from here.
                yield from regex.finditer(text, lead.end())
                return
            yield found
            done = at = found.end()


def _at(regex: re.Pattern[str], text: str, at: Sequence[int]) -> Iterator[re.Match[str]]:
    end = 0
    for position in at:
        if position < end:
            continue  # inside the last match: finditer does not look there either
        found = regex.match(text, position)
        if found is None:
            continue
        if found.end() == found.start():  # an empty match: finditer's own rules from here
            rest = regex.finditer(text, position)
            next(rest)
            yield found
            yield from rest
            return
        yield found
        end = found.end()
