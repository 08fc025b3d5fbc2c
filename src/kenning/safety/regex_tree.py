"""Reading a regex's syntax tree for :mod:`.starts`: the strings its matches begin with, what
the line a match begins on holds, and the characters an opening repeat cannot consume.

A string a match begins with is (a word boundary before it, its characters cut to
:data:`.grams.WIDTH`, one after it); every analysis errs only towards saying less (a string
left out, a character not known to stop a repeat), never more, so what :mod:`.starts` derives
from it keeps every position where a match can begin.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Final

from kenning.safety import grams
from kenning.safety.prefilter import fold

__all__ = ["MAX_STRINGS", "Need", "Reader", "Strings", "empty"]

MAX_STRINGS: Final = 256  # strings a part may begin with before it counts as unknown
MAX_CLASS: Final = 16  # characters of a class read as alternatives ("[ \\t]" but not "[a-z]")
_W: Final = grams.WIDTH

# A string a match begins with: (a word boundary before it, its characters, one after it).
# "\\bnc\\b" begins with (True, "nc", True): "nc" not inside a word, as in "once".
_Str = tuple[bool, str, bool]
Strings = frozenset[_Str]
_EMPTY: Final[Strings] = frozenset({(False, "", False)})  # nothing matched (yet)
_BOUNDARY: Final[Strings] = frozenset({(True, "", True)})  # "\\b": nothing, between words

Need = Strings | tuple[str, tuple[Any, ...]] | None  # strings, or ("all"|"any", parts)
# Strings (one empty: can match nothing), lines, and the characters a match can begin after.
_Begin = tuple[Strings, tuple[Need, ...], frozenset[str]]
_Node = tuple[Any, Any]


def empty(strings: Strings) -> bool:
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


def _join(left: Strings, right: Strings) -> Strings | None:
    joined = frozenset(_concat(a, b) for a in left for b in right)
    return joined if len(joined) <= MAX_STRINGS else None


def _then(prefix: Strings, begin: _Begin) -> _Begin | None:
    """``prefix`` (strings matched exactly so far) followed by what begins with ``begin``."""
    strings, lines, after = begin
    joined = _join(prefix, strings)
    if joined is None:
        return None
    if lines or after:  # a line start (or a lookbehind) after matched text: those matches
        joined |= frozenset(a for a in prefix if a[1])  # begin with the text
    if not empty(prefix):
        return joined, (), frozenset()
    return joined, lines, after


def _union(parts: Sequence[_Begin | None]) -> _Begin | None:
    if any(p is None for p in parts):
        return None
    strings = frozenset().union(*(p[0] for p in parts if p is not None))
    lines = tuple(dict.fromkeys(need for p in parts if p is not None for need in p[1]))
    after = frozenset().union(*(p[2] for p in parts if p is not None))
    return (strings, lines, after) if len(strings) <= MAX_STRINGS else None


class Reader:
    """The analyses of one parsed regex (``c`` is ``re._constants``)."""

    def __init__(self, c: Any) -> None:
        self.c = c
        self.zero_width = (c.AT, c.ASSERT, c.ASSERT_NOT)
        self.repeats = (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT)
        self.line_starts = (c.AT_BEGINNING, c.AT_BEGINNING_STRING)

    def _class(self, items: Sequence[_Node], flags: int) -> Strings | None:
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

    def exact(self, node: _Node, flags: int, lines: bool = True) -> Strings | None:
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
            run: Strings = _EMPTY
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

    def exact_all(self, seq: Sequence[_Node], flags: int, lines: bool = True) -> Strings | None:
        strings: Strings | None = _EMPTY
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
        prefix: Strings = _EMPTY  # the strings matched exactly so far
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
                if begin is not None and (low == 0 or empty(begin[0])):
                    some = frozenset(s for s in begin[0] if s[1])
                    begin = _union([(some, *begin[1:]), self.start(rest, flags, lines)])
            else:
                begin = None
            if begin is None:
                break
            return _then(prefix, begin)
        else:
            return known
        return None if empty(prefix) else (prefix, (), frozenset())

    def _behind(self, node: _Node, flags: int) -> frozenset[str] | None:
        """The characters ``node``, a lookbehind of one character of a small class (or one
        character), needs right before it: (folded) what :func:`.starts.candidates` finds;
        else None."""
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

    def within_line(self, seq: Sequence[_Node], flags: int) -> Need:
        """What the line holds from where a match of ``seq`` begins to its end."""
        c = self.c
        needs: list[Need] = []
        for i, (op, av) in enumerate(seq):
            if op is c.ASSERT and av[0] == 1:  # a lookahead reads from here too
                needs.append(self.within_line(av[1], flags))
                continue
            if op in self.zero_width:
                continue
            free = self.newline_free((op, av), flags)
            alone = self.start([(op, av)], flags, lines=False)
            if free and alone is not None and empty(alone[0]):
                continue  # "[ \t]*": what follows must be on the line, and is more telling
            begin = self.start(seq[i:], flags, lines=False)
            if begin is not None and not empty(begin[0]):
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

    def gap(self, seq: Sequence[_Node], flags: int) -> tuple[frozenset[str], Strings] | None:
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
        if begin is None or empty(begin[0]):
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

    def _within_joined(self, node: _Node, rest: Sequence[_Node], flags: int) -> Need:
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

    def _within_node(self, node: _Node, flags: int) -> Need:
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
