"""Where the matches of a regex can begin, read from its syntax tree, so it is tried only there.

``regex.finditer(text)`` tries the regex at every position: for the screen's big
case-insensitive alternations, a few hundred microseconds on a 2 KB entry each, nearly all of
it where no match can begin. :func:`starts` reads a compiled regex's syntax tree and says
where one can:

- ``strings``: a match begins with one of these (folded, see :func:`.prefilter.fold`, cut to
  :data:`.grams.WIDTH` characters): "\\b(?:ignore|disregard)\\s+" begins with "ign" or "dis";
- ``lines``: or where a line begins ("^", the regexes are MULTILINE), on a line that holds
  what follows: "^(?=[^\\n]*?\\bcurl)" needs "cur" on the line, with no line break between;
- ``after``: or right after one of these characters (a lookbehind of a class that opens the
  regex, as a clause does: "(?:^|(?<=[.;\n]))" begins at a line start or after ".", ";"
  or a line break);
- ``line_bound``: no match crosses a line break, nor looks across one, so each line can be
  searched on its own (``within_line``: the lines that can hold a match).

:func:`matches` yields exactly what ``regex.finditer(text)`` would, trying the regex only at
those positions (``regex.match(text, p)`` reads the text before ``p`` as a search does, for
lookbehinds, ``^`` and ``\\b``) or on those lines. A position is left out only when the text
cannot hold what every match there begins with, so nothing is missed; the tests compare the
two over the whole corpus.
"""

from __future__ import annotations

import bisect
import functools
import importlib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from kenning.safety import compiled, grams
from kenning.safety.prefilter import fold

__all__ = ["LineAll", "LineAny", "Starts", "candidates", "matches", "starts"]

MAX_STRINGS: Final = 256  # strings a part may begin with before it counts as unknown
MAX_CLASS: Final = 16  # characters of a class read as alternatives ("[ \\t]" but not "[a-z]")
# With more candidates than this, the regex is searched from the first one instead: a call
# per position would cost more than the search.
MAX_CANDIDATES: Final = 160
_W: Final = grams.WIDTH

# A string a match begins with: (a word boundary before it, its characters, one after it).
# "\\bnc\\b" begins with (True, "nc", True): "nc" not inside a word, as in "once".
_Str = tuple[bool, str, bool]
_Strings = frozenset[_Str]
_EMPTY: Final[_Strings] = frozenset({(False, "", False)})  # nothing matched (yet)
_BOUNDARY: Final[_Strings] = frozenset({(True, "", True)})  # "\\b": nothing, between words
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


_Need = _Strings | tuple[str, tuple[Any, ...]] | None  # strings, or ("all"|"any", parts)
# Strings (one empty: can match nothing), lines, and the characters a match can begin after.
_Begin = tuple[_Strings, tuple[_Need, ...], frozenset[str]]
_Node = tuple[Any, Any]


def _empty(strings: _Strings) -> bool:
    """True if one of ``strings`` has no characters: the part can match nothing."""
    return any(not body for _, body, _ in strings)


def _concat(a: _Str, b: _Str) -> _Str:
    """``a`` followed by ``b``, cut to the width (a boundary is kept while it is at an end)."""
    lead, body, tail = a
    if len(body) >= _W:
        return a
    joined = body + b[1]
    lead = lead if body else lead or b[0]
    if len(joined) > _W:
        return lead, joined[:_W], False
    return lead, joined, b[2] if b[1] else tail or b[2]


def _join(left: _Strings, right: _Strings) -> _Strings | None:
    joined = frozenset(_concat(a, b) for a in left for b in right)
    return joined if len(joined) <= MAX_STRINGS else None


def _then(prefix: _Strings, begin: _Begin) -> _Begin | None:
    """``prefix`` (strings matched exactly so far) followed by what begins with ``begin``."""
    strings, lines, after = begin
    joined = _join(prefix, strings)
    if joined is None:
        return None
    if lines or after:  # a line start (or a lookbehind) after matched text: those matches
        joined |= frozenset(a for a in prefix if a[1])  # begin with the text
    if not _empty(prefix):
        return joined, (), frozenset()
    return joined, lines, after


def _query(strings: _Strings) -> grams.Query:
    """The strings for :class:`.grams.Grams`: a boundary counts next to a word character."""
    ordered = sorted(strings, key=lambda s: (s[1], s[0], s[2]))
    bounds = [
        (lead and body[0] in _ASCII_WORD, tail and body[-1] in _ASCII_WORD)
        for lead, body, tail in ordered
    ]
    return grams.Query([body for _, body, _ in ordered], bounds)


def _union(parts: Sequence[_Begin | None]) -> _Begin | None:
    if any(p is None for p in parts):
        return None
    strings = frozenset().union(*(p[0] for p in parts if p is not None))
    lines = tuple(dict.fromkeys(need for p in parts if p is not None for need in p[1]))
    after = frozenset().union(*(p[2] for p in parts if p is not None))
    return (strings, lines, after) if len(strings) <= MAX_STRINGS else None


class _Reader:
    """The analyses of one parsed regex (``c`` is ``re._constants``)."""

    def __init__(self, c: Any) -> None:
        self.c = c
        self.zero_width = (c.AT, c.ASSERT, c.ASSERT_NOT)
        self.repeats = (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT)
        self.line_starts = (c.AT_BEGINNING, c.AT_BEGINNING_STRING)

    def _class(self, items: Sequence[_Node], flags: int) -> _Strings | None:
        c = self.c
        chars: set[str] = set()
        for op, av in items:
            if op is c.LITERAL:
                chars.add(fold(chr(av)))
            elif op is c.RANGE and av[1] - av[0] < MAX_CLASS:
                chars.update(fold(chr(k)) for k in range(av[0], av[1] + 1))
            elif op is c.CATEGORY and av is c.CATEGORY_DIGIT and flags & re.ASCII:
                chars.update("0123456789")
            elif op is c.CATEGORY and av is c.CATEGORY_SPACE and flags & re.ASCII:
                chars.update(" \t\n\r\f\v")  # "install\s" begins "ins", "i\s" "i "
            else:  # a negation, a category (\w, \s), a wide range
                return None
        if len(chars) > MAX_CLASS:
            return None
        return frozenset((False, char, False) for char in chars)

    def exact(self, node: _Node, flags: int, lines: bool = True) -> _Strings | None:
        """The strings ``node`` can match, cut to the width; with ``lines``, a node with a
        line start in it is left to :meth:`start`, which knows what one means."""
        c = self.c
        op, av = node
        if op is c.LITERAL:
            return frozenset({(False, fold(chr(av)), False)})
        if op is c.IN:
            return self._class(av, flags)
        if op is c.AT and av in self.line_starts:
            return None if lines else _EMPTY
        if op is c.AT and av is c.AT_BOUNDARY:
            return _BOUNDARY
        if op in self.zero_width:
            return _EMPTY
        if op is c.SUBPATTERN:
            return self.exact_all(av[3], (flags | av[1]) & ~av[2], lines)
        if op is c.ATOMIC_GROUP:
            return self.exact_all(av, flags, lines)
        if op is c.BRANCH:
            found: set[_Str] = set()
            for alternative in av[1]:
                strings = self.exact_all(alternative, flags, lines)
                if strings is None:
                    return None
                found |= strings
            return frozenset(found) if len(found) <= MAX_STRINGS else None
        if op in self.repeats:
            low, high, body = av
            each = self.exact_all(body, flags, lines)
            if each is None:
                return None
            out: set[_Str] = set(_EMPTY) if low == 0 else set()
            run: _Strings = _EMPTY
            for k in range(1, high + 1):
                before = run
                joined = _join(before, each)
                if joined is None:
                    return None
                run = joined
                if k >= low or run == before:
                    out |= run
                if run == before:  # cut to the width: more repeats add nothing new
                    break
            return frozenset(out)
        return None  # any character, a category, a negated literal, a group reference

    def exact_all(self, seq: Sequence[_Node], flags: int, lines: bool = True) -> _Strings | None:
        strings: _Strings | None = _EMPTY
        for node in seq:
            each = self.exact(node, flags, lines)
            if each is None or strings is None:
                return None
            strings = _join(strings, each)
        return strings

    def start(self, seq: Sequence[_Node], flags: int, lines: bool = True) -> _Begin | None:
        """What every match of ``seq`` begins with; None: unknown. Without ``lines``, a line
        start is read as any other zero-width node (and no line starts are returned)."""
        c = self.c
        prefix: _Strings = _EMPTY  # the strings matched exactly so far
        known: _Begin = (prefix, (), frozenset())
        for i, node in enumerate(seq):
            op, av = node
            rest = list(seq[i + 1 :])
            if lines and op is c.AT and av in self.line_starts:
                return _then(prefix, (frozenset(), (self.within_line(rest, flags),), frozenset()))
            after = self._behind(node, flags) if lines else None
            if after is not None:  # at ``p`` only if text[p - 1] is one of the characters
                return _then(prefix, (frozenset(), (), after))
            each = self.exact(node, flags, lines)
            if each is not None:
                joined = _join(prefix, each)
                if joined is None:
                    break
                prefix = joined
                known = (prefix, (), frozenset())
                if all(len(body) >= _W for _, body, _ in prefix):
                    return known
                continue
            # A group or an alternation: what follows it is read with each of its branches.
            begin: _Begin | None
            if op is c.SUBPATTERN and not (av[1] or av[2]):
                begin = self.start([*av[3], *rest], flags, lines)
            elif op is c.BRANCH:
                begin = _union([self.start([*alt, *rest], flags, lines) for alt in av[1]])
            elif op in (*self.repeats, c.SUBPATTERN):
                # What a repeat (or a group with flags of its own) begins with, never what
                # follows it; what follows begins the match when it can match nothing.
                low, body, inner_flags = (
                    (av[0], av[2], flags)
                    if op in self.repeats
                    else (1, av[3], (flags | av[1]) & ~av[2])
                )
                begin = self.start(body, inner_flags, lines)
                if begin is not None and (low == 0 or _empty(begin[0])):
                    some = frozenset(s for s in begin[0] if s[1])
                    begin = _union([(some, *begin[1:]), self.start(rest, flags, lines)])
            else:
                begin = None
            if begin is None:
                break
            return _then(prefix, begin)
        else:
            return known
        return None if _empty(prefix) else (prefix, (), frozenset())

    def _behind(self, node: _Node, flags: int) -> frozenset[str] | None:
        """The characters ``node``, a lookbehind of one character of a small class (or one
        character), needs right before it: (folded) what :func:`candidates` finds; else None."""
        c = self.c
        op, av = node
        if op is not c.ASSERT or av[0] != -1 or len(av[1]) != 1:
            return None
        inner = self.exact(av[1][0], flags, lines=False)
        if inner is None or any(len(body) != 1 for _, body, _ in inner):
            return None
        return frozenset(body for _, body, _ in inner)

    def newline_free(self, node: _Node, flags: int) -> bool:
        """True if ``node`` consumes no line break (zero-width nodes consume nothing)."""
        c = self.c
        op, av = node
        if op in self.zero_width:
            return True
        if op is c.LITERAL:
            return bool(av != 10)
        if op is c.NOT_LITERAL:
            return bool(av == 10)
        if op is c.ANY:
            return not flags & re.DOTALL
        if op is c.IN:
            return self._class_newline_free(av)
        if op is c.SUBPATTERN:
            return self.all_newline_free(av[3], (flags | av[1]) & ~av[2])
        if op is c.ATOMIC_GROUP:
            return self.all_newline_free(av, flags)
        if op is c.BRANCH:
            return all(self.all_newline_free(alt, flags) for alt in av[1])
        if op in self.repeats:
            return self.all_newline_free(av[2], flags)
        return False

    def all_newline_free(self, seq: Sequence[_Node], flags: int) -> bool:
        return all(self.newline_free(node, flags) for node in seq)

    def _class_newline_free(self, items: Sequence[_Node]) -> bool:
        c = self.c
        if items and items[0][0] is c.NEGATE:  # free if the class excludes the line break
            return any(
                (op is c.LITERAL and av == 10)
                or (op is c.RANGE and av[0] <= 10 <= av[1])
                or (op is c.CATEGORY and av is c.CATEGORY_SPACE)
                for op, av in items[1:]
            )
        free = (c.CATEGORY_DIGIT, c.CATEGORY_WORD, c.CATEGORY_NOT_SPACE)
        return all(
            (op is c.LITERAL and av != 10)
            or (op is c.RANGE and not av[0] <= 10 <= av[1])
            or (op is c.CATEGORY and av in free)
            for op, av in items
        )

    def line_bound(self, seq: Sequence[_Node], flags: int) -> bool:
        """True if no match of ``seq`` consumes or looks at a line break, and its assertions
        read the end of a line as they read the end of the text ("$" with MULTILINE)."""
        c = self.c
        for op, av in seq:
            if op is c.AT:
                if av in (c.AT_END, c.AT_END_STRING) and not (
                    av is c.AT_END and flags & re.MULTILINE
                ):
                    return False
            elif op in (c.ASSERT, c.ASSERT_NOT):
                # A lookbehind reads the text before the start of a search as well; a
                # lookahead must not look past the line.
                if av[0] == 1 and not self.line_bound(av[1], flags):
                    return False
            elif op is c.SUBPATTERN:
                if not self.line_bound(av[3], (flags | av[1]) & ~av[2]):
                    return False
            elif op is c.ATOMIC_GROUP:
                if not self.line_bound(av, flags):
                    return False
            elif op is c.BRANCH:
                if not all(self.line_bound(alt, flags) for alt in av[1]):
                    return False
            elif op in self.repeats:
                if not self.line_bound(av[2], flags):
                    return False
            elif not self.newline_free((op, av), flags):
                return False
        return True

    def within_line(self, seq: Sequence[_Node], flags: int) -> _Need:
        """What the line holds from where a match of ``seq`` begins to its end."""
        c = self.c
        needs: list[_Need] = []
        for i, (op, av) in enumerate(seq):
            if op is c.ASSERT and av[0] == 1:  # a lookahead reads from here too
                needs.append(self.within_line(av[1], flags))
                continue
            if op in self.zero_width:
                continue
            free = self.newline_free((op, av), flags)
            alone = self.start([(op, av)], flags, lines=False)
            if free and alone is not None and _empty(alone[0]):
                continue  # "[ \t]*": what follows must be on the line, and is more telling
            begin = self.start(seq[i:], flags, lines=False)
            if begin is not None and not _empty(begin[0]):
                needs.append(begin[0])
                break
            joined = self._within_joined((op, av), seq[i + 1 :], flags)
            if joined is not None:  # each branch read on with what follows it
                needs.append(joined)
                break
            needs.append(self._within_node((op, av), flags))
            if not free:
                break
            # A stretch of the line: what follows it is still on the line.
        kept = tuple(n for n in needs if n is not None)
        if not kept:
            return None
        return kept[0] if len(kept) == 1 else ("all", kept)

    def gap(self, seq: Sequence[_Node], flags: int) -> tuple[frozenset[str], _Strings] | None:
        """For ``seq`` made of zero-width nodes, a repeat of one character at a time and a part
        whose start strings are known: the characters the repeat cannot consume (some of
        them: fewer only keeps more candidates), and those strings; else None."""
        i = 0
        while i < len(seq) and self._zero_width(seq[i]):
            i += 1
        if i == len(seq) or seq[i][0] not in self.repeats:
            return None
        stops = self._stops(seq[i][1][2], flags)
        if not stops:
            return None
        begin = self.start(list(seq[i + 1 :]), flags, lines=False)
        if begin is None or _empty(begin[0]):
            return None
        return stops, begin[0]

    def _zero_width(self, node: _Node) -> bool:
        """True if ``node`` consumes nothing ("^", a lookaround, "(?:^|(?<=[.;]))")."""
        c = self.c
        op, av = node
        if op in self.zero_width:
            return True
        if op is c.BRANCH:
            return all(all(map(self._zero_width, alt)) for alt in av[1])
        if op is c.SUBPATTERN:
            return all(map(self._zero_width, av[3]))
        return False

    def _stops(self, seq: Sequence[_Node], flags: int) -> frozenset[str] | None:
        """Characters without case that one match of ``seq``, which consumes exactly one
        character, never consumes; None if it may consume more or fewer, or none is known."""
        found = self._consumes(seq, flags)
        if found is None or found[0]:  # only some characters: the others are not listed
            return None
        return _caseless(found[1])

    def _consumes(self, seq: Sequence[_Node], flags: int) -> tuple[bool, frozenset[str]] | None:
        """What one character ``seq`` consumes is: (True, chars) one of ``chars`` (or one of
        their case variants), or (False, chars) not one of ``chars`` (and maybe more
        excluded); None if ``seq`` does not consume exactly one character."""
        c = self.c
        consuming = [node for node in seq if not self._zero_width(node)]
        if len(consuming) != 1:  # a lookaround beside it only narrows what it consumes
            return None
        op, av = consuming[0]
        if op is c.SUBPATTERN:
            return self._consumes(av[3], (flags | av[1]) & ~av[2])
        if op is c.BRANCH:
            parts = [self._consumes(alt, flags) for alt in av[1]]
            if any(p is None for p in parts):
                return None
            only = frozenset().union(*(p[1] for p in parts if p is not None and p[0]))
            excluded = [p[1] for p in parts if p is not None and not p[0]]
            if not excluded:
                return True, only
            return False, frozenset.intersection(*excluded) - only
        if op is c.LITERAL:
            return True, frozenset({chr(av)})
        if op is c.NOT_LITERAL:
            return False, frozenset({chr(av)})
        if op is c.ANY:
            return False, frozenset() if flags & re.DOTALL else frozenset("\n")
        if op is not c.IN:
            return None
        negated = bool(av) and av[0][0] is c.NEGATE
        items = av[1:] if negated else av
        chars = self._class_chars(items)
        if negated:  # its literals and small ranges are excluded (its categories too)
            return False, chars
        if all(op is c.LITERAL or (op is c.RANGE and av[1] - av[0] < 64) for op, av in items):
            return True, chars  # only those (and their case variants)
        return False, frozenset()  # a category or a range: maybe any character

    def _class_chars(self, items: Sequence[_Node]) -> frozenset[str]:
        """The characters of a class's literals and small ranges."""
        c = self.c
        chars: set[str] = set()
        for op, av in items:
            if op is c.LITERAL:
                chars.add(chr(av))
            elif op is c.RANGE and av[1] - av[0] < 64:
                chars.update(chr(k) for k in range(av[0], av[1] + 1))
        return frozenset(chars)

    def _within_joined(self, node: _Node, rest: Sequence[_Node], flags: int) -> _Need:
        """What the line holds from where a match of an alternation (or a group without flags
        of its own) followed by ``rest`` begins: each branch with what follows it, as
        :meth:`start` reads them. "(?:IBAN|UPI)[^\\n]*?(?:new|changed)": a branch that says
        nothing of itself still holds what follows it on the line."""
        c = self.c
        op, av = node
        if op is c.BRANCH:
            branches = av[1]
        elif op is c.SUBPATTERN and not (av[1] or av[2]):
            branches = [av[3]]
        else:
            return None
        parts = [self.within_line([*alt, *rest], flags) for alt in branches]
        if None in parts:
            return None
        unique = tuple(dict.fromkeys(parts))
        return unique[0] if len(unique) == 1 else ("any", unique)

    def _within_node(self, node: _Node, flags: int) -> _Need:
        """What the line holds from where a match of a group or a repeat begins."""
        c = self.c
        op, av = node
        if op is c.SUBPATTERN:
            return self.within_line(av[3], (flags | av[1]) & ~av[2])
        if op is c.ATOMIC_GROUP:
            return self.within_line(av, flags)
        if op is c.BRANCH:
            parts = [self.within_line(alt, flags) for alt in av[1]]
            return None if None in parts else ("any", tuple(parts))
        if op in self.repeats and av[0] >= 1:
            return self.within_line(av[2], flags)
        return None


def _caseless(chars: Iterable[str]) -> frozenset[str]:
    """The characters of ``chars`` that no case-insensitive match reads as another one."""
    return frozenset(ch for ch in chars if ch == ch.lower() == ch.upper() == fold(ch))


@functools.cache
def _line_need(need: _Need) -> LineNeed | None:
    if need is None:
        return None
    if isinstance(need, frozenset):
        return _query(need)
    kind, parts = need
    made = tuple(p for p in map(_line_need, parts) if p is not None)
    if not made or (kind == "any" and len(made) < len(parts)):
        return None
    if len(made) == 1:
        return made[0]
    return LineAll(made) if kind == "all" else LineAny(made)


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
    reader = _Reader(constants)
    seq = list(tree)
    begin = reader.start(seq, flags)
    strings: grams.Query | None = None
    lines: tuple[LineNeed | None, ...] = ()
    after: grams.Query | None = None
    if begin is not None and not _empty(begin[0]):
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
