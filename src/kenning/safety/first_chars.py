"""A cheap test before an alternation: the characters any of its alternatives can begin with.

``re`` tries an alternation's alternatives one by one at each position it reaches. It skips
an alternative at once only when the alternative begins with a case-sensitive literal or
class; under ``re.IGNORECASE`` (every multilingual rule) each one is entered and fails on its
first character, so ``\\b(?:new|changed|switched|...)`` costs some eighty steps at every word
start, and the rules scan whole lines with such alternations at each character.

:func:`guard` rewrites a parsed pattern (``re._parser``'s tree, before code generation in
:func:`.compiled.regex`) so that each alternation of at least :data:`MIN_ALTERNATIVES`
alternatives is preceded by a lookahead for the class of their possible first characters.
The lookahead holds wherever an alternative can match, so the pattern matches exactly the
same strings at the same positions with the same groups; it only fails sooner elsewhere.
The pattern's source, which :mod:`.starts` and :mod:`.prefilter` read, is unchanged.

An alternation is left alone where the first characters are not a small, known set: an
alternative that can match the empty string, begins with any character, a negated class, a
back-reference or a group that changes the flags, or whose class holds ``\\w``-like
categories (nearly every character: the test would cost and reject nothing). So is one
inside a lookbehind, and one at the very start of a pattern for which ``re`` builds its own
scan for a literal prefix or first characters (the lookahead would hide them from it).
"""

from __future__ import annotations

import importlib
from typing import Any, Final

MIN_ALTERNATIVES: Final = 4

try:
    _c: Any = importlib.import_module("re._constants")
    _p: Any = importlib.import_module("re._parser")
    _compiler: Any = importlib.import_module("re._compiler")
except ImportError:  # pragma: no cover - every CPython from 3.11 has them
    _c = _p = _compiler = None

# Categories narrow enough to be worth a test: digits and white space.
_NARROW: Final = frozenset() if _c is None else frozenset({_c.CATEGORY_DIGIT, _c.CATEGORY_SPACE})


def guard(parsed: Any) -> Any:
    """``parsed`` (a ``re._parser.SubPattern``) with a first-character lookahead before each
    alternation worth one; the tree is changed in place and returned."""
    if _c is None:  # pragma: no cover
        return parsed
    flags = parsed.state.flags
    try:  # does re scan for the pattern's first characters itself (an "info" prefix)?
        prefix = parsed.getwidth()[0] > 0 and (
            _compiler._get_literal_prefix(parsed, flags)[0]
            or _compiler._get_charset_prefix(parsed, flags)
        )
    except Exception:  # a private helper changed: keep the start as it is
        prefix = True
    _walk(parsed, leading=bool(prefix))
    return parsed


def _walk(seq: Any, *, leading: bool) -> None:
    """Guard the alternations in the sequence ``seq`` and everything below it. ``leading``: the
    sequence's first item begins the whole pattern (``re`` may build its prefix scan from it)."""
    data = seq.data
    i = 0
    while i < len(data):
        op, av = data[i]
        first = leading and i == 0
        if op is _c.BRANCH:
            for branch in av[1]:
                _walk(branch, leading=first)
            if not first and len(av[1]) >= MIN_ALTERNATIVES:
                chars = _union(av[1])
                if chars is not None:
                    test = _p.SubPattern(seq.state, [(_c.IN, chars)])
                    data.insert(i, (_c.ASSERT, (1, test)))
                    i += 1
        elif op is _c.SUBPATTERN or op is _c.ATOMIC_GROUP:
            _walk(av[-1] if op is _c.SUBPATTERN else av, leading=first)
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
            _walk(av[2], leading=first)
        elif op is _c.ASSERT or op is _c.ASSERT_NOT:
            if av[0] >= 0:  # a lookahead; a lookbehind is matched backwards, left alone
                _walk(av[1], leading=False)
        elif op is _c.GROUPREF_EXISTS:
            for part in av[1:]:
                if part is not None:
                    _walk(part, leading=False)
        i += 1


def _union(branches: list[Any]) -> list[tuple[Any, Any]] | None:
    """The class items any of ``branches`` can begin with, or None (see the module)."""
    items: list[tuple[Any, Any]] = []
    for branch in branches:
        found = _first(branch.data)
        if found is None or found[1]:  # unknown, or the alternative can match ""
            return None
        items.extend(found[0])
    if any(op is _c.CATEGORY and av not in _NARROW for op, av in items):
        return None
    return items


def _first(data: list[tuple[Any, Any]]) -> tuple[list[tuple[Any, Any]], bool] | None:
    """The class items a match of the sequence ``data`` can begin with, and whether it can be
    empty; None when that cannot be said (any character, a negated class ...)."""
    items: list[tuple[Any, Any]] = []
    for op, av in data:
        found = _first_of(op, av)
        if found is None:
            return None
        items.extend(found[0])
        if not found[1]:
            return items, False
    return items, True


def _first_of(op: Any, av: Any) -> tuple[list[tuple[Any, Any]], bool] | None:
    if op is _c.LITERAL:
        return [(_c.LITERAL, av)], False
    if op is _c.IN:
        if any(o is _c.NEGATE for o, _ in av):
            return None
        return list(av), False
    if op is _c.AT or op is _c.ASSERT or op is _c.ASSERT_NOT:
        return [], True  # zero width: what follows begins the match
    if op is _c.SUBPATTERN:
        _group, add_flags, del_flags, sub = av
        if add_flags or del_flags:  # the case rules change inside: not the class's
            return None
        return _first(sub.data)
    if op is _c.ATOMIC_GROUP:
        return _first(av.data)
    if op is _c.BRANCH:
        items: list[tuple[Any, Any]] = []
        empty = False
        for branch in av[1]:
            found = _first(branch.data)
            if found is None:
                return None
            items.extend(found[0])
            empty = empty or found[1]
        return items, empty
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        low, _high, sub = av
        found = _first(sub.data)
        if found is None:
            return None
        return found[0], found[1] or low == 0
    return None  # ANY, NOT_LITERAL, GROUPREF, GROUPREF_EXISTS, CATEGORY outside a class ...
