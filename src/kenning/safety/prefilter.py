"""Literal prefilters: what a regex's matches must contain, so a rule is only run on a text
that holds it.

Most of a scan's time went into regexes that find nothing: each rule's regex walked every view
of a 2 KB entry to learn that "curl" or "指令" is not in it. :func:`requirement` reads a
compiled regex's syntax tree and derives what every match contains: literal strings under
``All`` (a sequence: each piece) and ``AnyOf`` (an alternation: one alternative), e.g.
"(?:curl|wget)\\s+\\S+\\s*\\|\\s*(?:ba)?sh" needs ("curl" or "wget") and "|" and "sh". An
:class:`Index` over the requirements of a whole rule table finds the literals a text holds in
one pass (a trie regex for a short text, the text's n-grams for a longer one, see
:mod:`.grams`) and maps them to the rules they leave possible; :class:`Literals` answers for
one text. A rule whose requirement a text does not meet cannot match it and is not run, so the
findings are exactly those of running every regex (the tests compare the two on the whole
corpus). Where in the text a rule that runs can match is :mod:`.starts`' part.

Case: literals and text are compared folded (:func:`fold`), a lowercasing that maps every pair
of characters ``re.IGNORECASE`` treats as equal to one character (the extra pairs such as
"ſ"/"s" and "ı"/"i", "İ", final sigma), so a case-insensitive match is never missed; folding a
case-sensitive regex's literals loses nothing either. A regex whose tree cannot be read, or
that needs no literal, has no requirement and always runs.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from kenning.safety import compiled, grams

__all__ = [
    "All",
    "AnyOf",
    "Index",
    "Literals",
    "Need",
    "Requirement",
    "any_of",
    "fold",
    "holds",
    "requirement",
    "requirements",
]

MAX_EXACT: Final = 64  # strings a node may expand to before only its requirement is kept
MAX_ANY_OF: Final = 400  # alternatives of one requirement (each a substring test)
MAX_CLASS: Final = 16  # characters of a class read as alternatives ("[\\-_]" but not "[a-z]")


def _fold_tables() -> tuple[dict[int, str], dict[int, str]]:
    """What :func:`fold` translates before and after lowercasing (see the module docstring)."""
    try:  # the equivalences re.IGNORECASE adds to simple lowercasing ("ſ" ~ "s")
        extra: dict[int, tuple[int, ...]] = importlib.import_module("re._casefix")._EXTRA_CASES
    except (ImportError, AttributeError):
        extra = {}
    before = {0x0130: "i"}  # "İ".lower() is "i̇", two characters; re matches it as "i"
    groups = [{chr(k).lower(), *(chr(v).lower() for v in vs)} for k, vs in extra.items()]
    groups.append({"σ", "ς"})  # str.lower() writes a final sigma as "ς"
    merged: list[set[str]] = []
    for group in groups:  # the classes are small; merge any that share a member
        for other in [m for m in merged if m & group]:
            group |= other
            merged.remove(other)
        merged.append(group)
    after = {ord(c): min(g) for g in merged for c in g if len(c) == 1 and c != min(g)}
    return before, after


_BEFORE, _AFTER = _fold_tables()
# str.translate looks every character up in the table, a hundred times the cost of lower():
# the tables are applied only to texts that hold one of their characters (most hold none),
# and _AFTER's only to those characters, by the regex that finds them.
_BEFORE_CHARS: Final = compiled.regex("[" + "".join(map(chr, _BEFORE)) + "]")
# (sorted: the same source in every process, so its code is found in the cache, .compiled)
_AFTER_CHARS: Final = compiled.regex("[" + re.escape("".join(sorted(map(chr, _AFTER)))) + "]")


def fold(text: str) -> str:
    """``text`` lowercased so that characters ``re.IGNORECASE`` matches alike are equal."""
    if text.isascii():
        return text.lower()
    if _BEFORE_CHARS.search(text) is not None:
        text = text.translate(_BEFORE)
    lowered = text.lower()
    return _AFTER_CHARS.sub(_after, lowered)


def _after(found: re.Match[str]) -> str:
    return _AFTER[ord(found.group())]


# ---- deriving a requirement from a regex's syntax tree ----------------------------------------


@dataclass(frozen=True, slots=True)
class All:
    """Every part holds (a sequence: each of its pieces is in the match)."""

    parts: tuple[Need, ...]
    hint: frozenset[str]  # a string of this occurs whenever the parts hold: a quick "no"


@dataclass(frozen=True, slots=True)
class AnyOf:
    """Some part holds (an alternation: one alternative is the match)."""

    parts: tuple[Need, ...]
    hint: frozenset[str]


def _hint(need: Need) -> frozenset[str]:
    return need if isinstance(need, frozenset) else need.hint


# A set of strings holds when one of them occurs in the text; None holds always.
Need = frozenset[str] | All | AnyOf
Requirement = Need | None

_Info = tuple[frozenset[str] | None, Requirement]  # (every string the node can match, need)
_EMPTY: Final[frozenset[str]] = frozenset({""})
_OPAQUE: Final[_Info] = (None, None)


def _leaf(exact: frozenset[str] | None) -> Requirement:
    if exact is None or "" in exact or not exact or len(exact) > MAX_ANY_OF:
        return None
    return exact


def _order(need: Need) -> tuple[int, int]:
    """Sets first, the likely rarest (longest shortest string, then fewest) first: a
    conjunction stops at the first that fails."""
    if isinstance(need, frozenset):
        return 0, -min(map(len, need))
    return 1, 0


def _all(parts: Iterable[Requirement]) -> Requirement:
    kept: list[Need] = []
    for part in parts:
        if part is None:
            continue
        for inner in part.parts if isinstance(part, All) else (part,):
            if inner not in kept:
                kept.append(inner)
    if not kept:
        return None
    kept.sort(key=_order)
    return kept[0] if len(kept) == 1 else All(tuple(kept), _hint(kept[0]))


def _any(parts: Sequence[Requirement]) -> Requirement:
    if not parts or any(p is None for p in parts):
        return None
    needs = [p for p in parts if p is not None]
    if all(isinstance(n, frozenset) for n in needs):  # one set of all the alternatives' strings
        joined = frozenset().union(*(n for n in needs if isinstance(n, frozenset)))
        return joined if len(joined) <= MAX_ANY_OF else None
    return AnyOf(tuple(needs), frozenset().union(*map(_hint, needs)))


def _sequence(nodes: Iterable[tuple[Any, Any]], c: Any) -> _Info:
    parts: list[Requirement] = []
    run: frozenset[str] = _EMPTY  # the strings the current run of exact nodes can spell
    whole = True  # every node so far was exact: the sequence is exact too
    for node in nodes:
        exact, needed = _node(node, c)
        parts.append(needed)
        if exact is not None and len(run) * len(exact) <= MAX_EXACT:
            run = frozenset(a + b for a in run for b in exact)
            continue
        parts.append(_leaf(run))
        whole = False
        run = exact if exact is not None else _EMPTY
    parts.append(_leaf(run))
    return (run if whole else None), _all(parts)


def _node(node: tuple[Any, Any], c: Any) -> _Info:
    op, av = node
    if op is c.LITERAL:
        return frozenset({fold(chr(av))}), None
    if op is c.IN:
        chars: set[str] = set()
        for item_op, item_av in av:
            if item_op is c.LITERAL:
                chars.add(fold(chr(item_av)))
            elif item_op is c.RANGE and item_av[1] - item_av[0] < MAX_CLASS:
                chars.update(fold(chr(k)) for k in range(item_av[0], item_av[1] + 1))
            else:  # a category (\w, \s), a negation, a wide range
                return _OPAQUE
        return (frozenset(chars), None) if len(chars) <= MAX_CLASS else _OPAQUE
    if op is c.SUBPATTERN:
        return _sequence(av[3], c)
    if op is c.ATOMIC_GROUP:
        return _sequence(av, c)
    if op is c.BRANCH:
        infos = [_sequence(alt, c) for alt in av[1]]
        exacts = [e for e, _ in infos if e is not None]
        union_exact = frozenset().union(*exacts) if len(exacts) == len(infos) else None
        if union_exact is not None and len(union_exact) > MAX_EXACT:
            union_exact = None
        return union_exact, _any([_all((needed, _leaf(exact))) for exact, needed in infos])
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        low, high, body = av
        exact, needed = _sequence(body, c)
        if low == 0:
            return (exact | _EMPTY if exact is not None and high == 1 else None), None
        if exact is not None and low == high and len(exact) ** low <= MAX_EXACT:
            spelled = _EMPTY
            for _ in range(low):
                spelled = frozenset(a + b for a in spelled for b in exact)
            return spelled, None
        return None, _all((needed, _leaf(exact)))
    if op is c.ASSERT:  # zero width, but what it looks at is in the text all the same
        return _EMPTY, _sequence(av[1], c)[1]
    if op in (c.AT, c.ASSERT_NOT):  # zero width: adds nothing to what is matched
        return _EMPTY, None
    return _OPAQUE  # ANY, NOT_LITERAL, CATEGORY, group references


@functools.cache
def _compiled_requirement(source: str, flags: int) -> Requirement:
    try:
        parser = importlib.import_module("re._parser")
        constants = importlib.import_module("re._constants")
        tree = parser.parse(source, flags)
    except Exception:  # a Python whose regex internals differ: no prefilter, never a miss
        return None
    exact, needed = _sequence(list(tree), constants)
    return _all((needed, _leaf(exact)))


def requirement(regex: re.Pattern[str]) -> Requirement:
    """What every match of ``regex`` contains (see above); None when nothing is known."""
    return _compiled_requirement(regex.pattern, regex.flags)


def requirements(regexes: Sequence[re.Pattern[str]]) -> Requirement:
    """What regexes that must all match (a clause alternative) need together."""
    return _all(requirement(r) for r in regexes)


def any_of(needs: Sequence[Requirement]) -> Requirement:
    """What holds when one of ``needs`` does (one of a rule's alternatives matched)."""
    return _any(needs)


class Index:
    """Every literal the requirements of a table name, found in a text in one pass, and which
    rows of the table can match there.

    One regex, the literals as a trie (alternatives share their prefixes, a shorter literal is
    an optional end), is tried at every position of the folded text: it finds the longest
    literal starting there, and the literals that are prefixes of it start there too; or the
    text's n-grams say which literals it can hold (:mod:`.grams`). Either way the answer is
    which of the literals' numbers the text holds, and every requirement of the table is
    answered at once from it (:class:`_Program`)."""

    def __init__(self, rows: Sequence[Requirement], also: Iterable[Requirement] = ()) -> None:
        literals: set[str] = set()
        for need in [*rows, *also]:
            _collect(need, literals)
        self.hints = tuple(None if need is None else _hint(need) for need in rows)
        self.rows = tuple(rows)
        self._every = _trie_regex(literals)
        self._prefixes = {
            literal: frozenset(literal[:k] for k in range(1, len(literal) + 1)) & literals
            for literal in literals
        }
        order = sorted(literals)
        self._query = grams.Query(order)
        self._number = {literal: k for k, literal in enumerate(order)}
        self.program = _Program([*rows, *also], self._number)
        self.row_nodes = tuple(self.program.node(need) or 0 for need in rows)

    def present(self, folded: str) -> frozenset[str]:
        """The literals that occur in ``folded`` (a text passed through :func:`fold`)."""
        ascii_trie, other_trie = self._every
        longest: set[str] = set()
        if ascii_trie is not None:
            longest.update(m.group(1) for m in ascii_trie.finditer(folded))
        if other_trie is not None and not folded.isascii():
            longest.update(m.group(1) for m in other_trie.finditer(folded))
        return frozenset().union(*(self._prefixes[literal] for literal in longest))

    def numbers(self, literals: Iterable[str]) -> frozenset[int]:
        """The numbers of ``literals`` (each one of the index's)."""
        return frozenset(self._number[literal] for literal in literals)

    def possible_in(self, table: grams.Grams) -> Present:
        """Which literals the text of ``table`` can hold, by number: those it holds, and the
        few whose grams it holds apart (see :mod:`.grams`)."""
        return table.holds(self._query)

    def held(self, numbers: Iterable[int]) -> Present:
        """The literals of ``numbers``, as :meth:`possible_in` gives them."""
        held = np.zeros(len(self._number), dtype=np.bool_)
        held[np.fromiter(numbers, dtype=np.intp)] = True
        return held


Present = npt.NDArray[np.bool_]  # by literal number: the text holds the literal


class _Program:
    """Every requirement of a table, answered for a text in a few vector operations.

    A requirement read part by part costs a Python call per part; the table's hold ten
    thousand, and a 2 KB entry is read in several views. Here each distinct part is a node:
    a set of literals (it holds when the text holds one of them) or an ``All``/``AnyOf`` of
    nodes below it. The sets are answered at once (``logical_or.reduceat`` over their literals),
    then the nodes height by height, each height's ``All`` and ``AnyOf`` in one call. The
    hints are left out: a requirement that holds holds its hint, so they only ever cut the
    work short, never change an answer. Node 0 is None (always holds)."""

    def __init__(self, needs: Iterable[Requirement], number: dict[str, int]) -> None:
        self._number = number
        self._nodes: dict[Need, int] = {}  # by value: a part shared by rows is read once
        self._ids: dict[int, tuple[Requirement, int]] = {}  # by identity: a quick lookup
        self._height: list[int] = [0]
        self._leaves: list[tuple[int, list[int]]] = []  # node, its literals' numbers
        self._inner: list[tuple[int, bool, list[int]]] = []  # node, All?, the nodes below
        self._built = False
        for need in needs:
            self.node(need)
        lits = [sorted(found) for _, found in self._leaves]
        self._leaf_nodes = np.array([n for n, _ in self._leaves], dtype=np.intp)
        self._leaf_lits = np.array([k for found in lits for k in found], dtype=np.intp)
        self._leaf_offsets = _offsets(lits)
        # By height, then All before AnyOf: (nodes, the nodes below them, where each starts).
        levels: dict[tuple[int, bool], list[tuple[int, list[int]]]] = {}
        for node, every, below in self._inner:
            levels.setdefault((self._height[node], not every), []).append((node, below))
        self._levels = [
            (
                key[1],
                np.array([n for n, _ in group], dtype=np.intp),
                np.array([b for _, below in group for b in below], dtype=np.intp),
                _offsets([below for _, below in group]),
            )
            for key, group in sorted(levels.items())
        ]
        self.size = len(self._height)
        self._built = True

    def node(self, need: Requirement) -> int | None:
        """The node of ``need``, or None if it is not one of the program's (a requirement
        made after the index: see :meth:`holds`)."""
        if need is None:
            return 0
        kept = self._ids.get(id(need))
        if kept is not None and kept[0] is need:
            return kept[1]
        if self._built:  # no new nodes
            found = self._nodes.get(need)
            if found is not None:
                self._ids[id(need)] = (need, found)
            return found
        found = self._nodes.get(need)
        if found is None:
            if isinstance(need, frozenset):
                found = len(self._height)
                self._height.append(0)
                self._leaves.append((found, [self._number[lit] for lit in need]))
            else:  # the nodes below first: they are numbered before it
                below = [self.node(part) for part in need.parts]
                nodes = [b for b in below if b is not None]
                found = len(self._height)
                self._height.append(1 + max(self._height[b] for b in nodes))
                self._inner.append((found, isinstance(need, All), nodes))
            self._nodes[need] = found
        self._ids[id(need)] = (need, found)
        return found

    def run(self, present: Present) -> npt.NDArray[np.bool_]:
        """Whether each node holds in a text holding the literals ``present``."""
        holds = np.ones(self.size, dtype=np.bool_)
        if len(self._leaf_nodes):
            held = present[self._leaf_lits]
            holds[self._leaf_nodes] = np.logical_or.reduceat(held, self._leaf_offsets)
        for anyof, nodes, below, offsets in self._levels:
            reduce = np.logical_or if anyof else np.logical_and
            holds[nodes] = reduce.reduceat(holds[below], offsets)
        return holds


def _offsets(groups: Sequence[Sequence[int]]) -> npt.NDArray[np.intp]:
    """Where each group starts in their concatenation (for ``reduceat``; none is empty)."""
    sizes = np.array([len(g) for g in groups], dtype=np.intp)
    return np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp) if len(sizes) else sizes


_Tries = tuple[re.Pattern[str] | None, re.Pattern[str] | None]


def _trie_regex(literals: Iterable[str]) -> _Tries:
    """Two trie regexes: the literals that start with an ASCII character, tried only at ASCII
    positions, and the others, tried only at the others (each position then meets only the
    first characters it can start with: half the cost of one trie on mixed text)."""
    tries: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
    for literal in literals:
        node = tries[0 if literal[0].isascii() else 1]
        for ch in literal:
            node = node.setdefault(ch, {})
        node[""] = {}
    guards = ("[\\x00-\\x7f]", "[^\\x00-\\x7f]")
    ascii_trie, other_trie = (
        compiled.regex(f"(?={guard})(?=({_trie_source(trie)}))", re.DOTALL) if trie else None
        for trie, guard in zip(tries, guards, strict=True)
    )
    return ascii_trie, other_trie


def _collect(need: Requirement, into: set[str]) -> None:
    if need is None:
        return
    if isinstance(need, frozenset):
        into.update(need)
        return
    for part in need.parts:
        _collect(part, into)


def _trie_source(node: dict[str, Any]) -> str:
    branches = [re.escape(ch) + _trie_source(node[ch]) for ch in sorted(node) if ch]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
    return f"(?:{body})?" if "" in node else body  # greedy: the longer literal first


def holds(needed: Requirement, present: frozenset[str]) -> bool:
    """False only if a text holding just the literals ``present`` cannot hold what ``needed``
    says every match holds."""
    if needed is None:
        return True
    if isinstance(needed, frozenset):
        return not present.isdisjoint(needed)
    if present.isdisjoint(needed.hint):
        return False
    if isinstance(needed, All):
        return all(holds(part, present) for part in needed.parts)
    return any(holds(part, present) for part in needed.parts)


class Literals:
    """What one text holds of an :class:`Index`'s literals, and so which rows can match it.

    How the text is read depends on what it saves: ``scan="every"`` (a short text) finds every
    literal in one pass through the index's trie, exactly; ``"grams"`` (a longer one, where
    that pass costs more than it saves) reads the text's n-grams once (:mod:`.grams`) and takes
    every literal whose grams are all there (the literals it holds and, rarely, one it does
    not: a rule then runs and finds nothing); ``"none"`` (a text few rows read) looks up each
    literal (``in`` on the folded text) only when asked, and remembers the answer."""

    __slots__ = ("_folded", "_grams", "_held", "_index", "_seen", "_text", "_truth")

    def __init__(self, text: str, index: Index, *, scan: str) -> None:
        self._index = index
        self._text = text
        self._folded = fold(text)
        self._grams: grams.Grams | None = None
        self._held: Present | None = None  # the literals found, if all were sought
        self._truth: npt.NDArray[np.bool_] | None = None
        self._seen: dict[str, bool] = {}
        if scan == "every":
            self._held = index.held(index.numbers(index.present(self._folded)))
        elif scan == "grams":
            self._held = index.possible_in(self.grams)

    @property
    def truth(self) -> npt.NDArray[np.bool_]:
        """Whether each node of the index's program holds (``scan`` was not "none")."""
        if self._truth is None:
            if self._held is None:
                raise ValueError("a text read with scan='none' has no nodes read: call holds()")
            self._truth = self._index.program.run(self._held)
        return self._truth

    @property
    def grams(self) -> grams.Grams:
        """The text's n-gram table (:mod:`.grams`), made on first use."""
        if self._grams is None:
            self._grams = grams.Grams(self._folded, self._text)
        return self._grams

    def possible(self, row: int) -> bool:
        """False if the index's row ``row`` cannot match the text."""
        if self._held is not None:
            return bool(self.truth[self._index.row_nodes[row]])
        hint = self._index.hints[row]
        return hint is None or self._any(hint)

    def holds(self, needed: Requirement) -> bool:
        """False only if the text cannot hold what ``needed`` says every match holds."""
        if self._held is not None:
            node = self._index.program.node(needed)
            if node is not None:
                return bool(self.truth[node])
        # Read on the text itself: a text read with scan="none", or a requirement the index
        # was not made with.
        if needed is None:
            return True
        if isinstance(needed, frozenset):
            return self._any(needed)
        if not self._any(needed.hint):
            return False
        if isinstance(needed, All):
            return all(self.holds(part) for part in needed.parts)
        return any(self.holds(part) for part in needed.parts)

    def _any(self, strings: frozenset[str]) -> bool:
        seen, folded = self._seen, self._folded
        for literal in strings:
            found = seen.get(literal)
            if found is None:
                found = seen[literal] = literal in folded
            if found:
                return True
        return False
