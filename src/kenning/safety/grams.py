"""The short n-grams of a text in a hash table: which literals it can hold, and where strings
can start, in a few vector operations instead of a search per string.

The screen asks two questions of every view of a text, many times: does it hold this literal
(:mod:`.prefilter`: is the rule worth running?) and where can a match of this regex start
(:mod:`.starts`: run it only there). A ``str.find`` per literal costs a pass over the text
each, thousands of passes for a 2 KB entry. :class:`Grams` reads the text once: the code
points of its folded form (:func:`.prefilter.fold`), the 1-, 2- and 3-grams at every position,
each hashed to a slot of a small table. A literal can occur only if the slot of every one of
its 3-grams is set (of itself, if shorter); a string can start at ``p`` only if the 3-gram at
``p`` hashes to the slot of its first three characters.

Hash collisions only ever add: a literal reported that is not in the text, a position that
is no start; never the other way. What runs on the answer (a regex, on the whole text or at
the positions) therefore finds exactly what it would have found without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

__all__ = ["WIDTH", "Grams", "Query"]

WIDTH: Final = 3  # the longest gram: 3 code points of 21 bits fit one 64-bit key exactly
BITS: Final = 16  # table slots: a 2 KB text sets about 3 % of them
_SHIFT: Final = np.uint64(64 - BITS)
_MUL: Final = 0x9E3779B97F4A7C15  # Fibonacci hashing: the top bits of key * this
_SALT: Final = (0, 0, 0x5BD1E995, 0x27D4EB2F)  # by gram length, so "ab" and "abc" differ
_MASK64: Final = (1 << 64) - 1

Positions = npt.NDArray[np.intp]
_ASCII_WORD: Final = np.array(
    [chr(k).isascii() and (chr(k).isalnum() or chr(k) == "_") for k in range(128)], dtype=np.bool_
)


def _key(gram: str) -> int:
    key = 0
    for ch in gram:
        key = (key << 21) | ord(ch)
    return key


def slot(gram: str) -> int:
    """The table slot of a gram of 1 to :data:`WIDTH` characters."""
    hashed = ((_key(gram) + _SALT[len(gram)]) * _MUL) & _MASK64
    return hashed >> (64 - BITS)


class Query:
    """Strings, prepared once: for each, the slots of the grams it is made of.

    ``bounds``, for :meth:`Grams.starts`: per string, whether the character before it and the
    one after it must not be ASCII word characters (a ``\\b`` next to a word character)."""

    __slots__ = ("_ends", "_first", "_offsets", "_sizes", "_slots", "strings")

    def __init__(
        self, strings: Iterable[str], bounds: Iterable[tuple[bool, bool]] | None = None
    ) -> None:
        self.strings: tuple[str, ...] = tuple(strings)
        if any(not s for s in self.strings):
            raise ValueError("a query string must not be empty")
        edges = list(bounds) if bounds is not None else [(False, False)] * len(self.strings)
        slots: list[int] = []
        offsets: list[int] = []
        for s in self.strings:
            offsets.append(len(slots))
            if len(s) <= WIDTH:
                slots.append(slot(s))
            else:
                slots.extend(slot(s[k : k + WIDTH]) for k in range(len(s) - WIDTH + 1))
        self._slots = np.array(slots, dtype=np.intp)
        self._offsets = np.array(offsets, dtype=np.intp)
        self._ends = np.append(self._offsets[1:], len(slots)).astype(np.intp)
        self._sizes = self._ends - self._offsets
        # What a start position is looked up by: the first gram, by its length and bounds (a
        # bound after counts only for a string no longer than a gram: after the gram).
        first: dict[tuple[int, bool, bool], set[int]] = {}
        for s, (before, after) in zip(self.strings, edges, strict=True):
            head = s[:WIDTH]
            key = (len(head), before, after and len(s) <= WIDTH)
            first.setdefault(key, set()).add(slot(head))
        self._first = {key: np.array(sorted(v), dtype=np.intp) for key, v in first.items()}


class Grams:
    """The hashed grams of one folded text (see the module docstring)."""

    __slots__ = (
        "_bounded",
        "_exact",
        "_found",
        "_mark",
        "_slots",
        "_table",
        "_text",
        "length",
        "memo",
        "newlines",
    )

    def __init__(self, folded: str, text: str) -> None:
        """``folded`` is :func:`.prefilter.fold` of ``text``, as long (its grams are read),
        ``text`` what the regexes read (word boundaries are read in it)."""
        codes = _codes(folded).astype(np.uint64)
        self._text = text
        self.length = len(codes)
        self._slots: list[npt.NDArray[np.intp]] = []
        key = np.zeros(0, dtype=np.uint64)
        for n in range(1, WIDTH + 1):
            if len(codes) < n:
                break
            tail = codes[n - 1 :]
            key = tail if n == 1 else (key[:-1] << np.uint64(21)) | tail
            hashed = (key + np.uint64(_SALT[n])) * np.uint64(_MUL)
            self._slots.append((hashed >> _SHIFT).astype(np.intp))
        self._table = np.zeros(1 << BITS, dtype=np.bool_)
        for slots in self._slots:
            self._table[slots] = True
        self._mark: npt.NDArray[np.bool_] | None = None  # scratch for :meth:`starts`
        # By gram length and bounds: the gram slots, those of positions a bound rules out
        # replaced by a slot no query has (the last one of the scratch table).
        self._bounded: dict[tuple[int, bool, bool], npt.NDArray[np.intp]] = {}
        self._found: dict[int, tuple[Query, list[int]]] = {}  # what :meth:`starts` answered
        self._exact: dict[str, Positions] = {}  # what :meth:`exact` answered
        # What callers derive from the table, by the id of what they asked (and it, so a
        # reused id is not mistaken for it): :mod:`.starts` keeps the lines of a need here.
        self.memo: dict[int, tuple[object, Any]] = {}
        self.newlines: Positions = np.flatnonzero(codes == 10)  # where each "\n" is

    def holds(self, query: Query) -> npt.NDArray[np.bool_]:
        """For each string of ``query``, False if the text cannot hold it."""
        if not query.strings:
            return np.zeros(0, dtype=np.bool_)
        # Each string's slots set, counted from one running sum (reduceat cost twice as much).
        running = np.zeros(len(query._slots) + 1, dtype=np.intp)
        np.cumsum(self._table[query._slots], out=running[1:])
        held: npt.NDArray[np.bool_] = (running[query._ends] - running[query._offsets]) == (
            query._sizes
        )
        return held

    def starts(self, query: Query) -> list[int]:
        """The positions, ascending, where a string of ``query`` can start (a superset)."""
        known = self._found.get(id(query))
        if known is not None and known[0] is query:
            return known[1]
        if self._mark is None:
            self._mark = np.zeros((1 << BITS) + 1, dtype=np.bool_)
        mark = self._mark
        found: list[int] = []
        for key, slots in query._first.items():
            if key[0] > len(self._slots):
                continue
            mark[slots] = True
            found.extend(mark[self._slots_for(key)].nonzero()[0].tolist())
            mark[slots] = False
        if len(query._first) > 1:
            found = sorted(set(found))
        self._found[id(query)] = (query, found)
        return found

    def exact(self, chars: str) -> Positions:
        """The positions, ascending, of the characters of ``chars`` in the text (exactly:
        read in the text itself, not its grams)."""
        found = self._exact.get(chars)
        if found is None:
            codes = _codes(self._text)
            found = np.flatnonzero(np.isin(codes, _codes(chars)))
            self._exact[chars] = found
        return found

    def _slots_for(self, key: tuple[int, bool, bool]) -> npt.NDArray[np.intp]:
        """The slots of the ``n``-grams, with those a bound before or after rules out dead."""
        n, before, after = key
        if not (before or after):
            return self._slots[n - 1]
        found = self._bounded.get(key)
        if found is None:
            codes = _codes(self._text)
            word = _ASCII_WORD[np.minimum(codes, 127)] & (codes < 128)
            found = self._slots[n - 1].copy()
            if before:  # a word character before the gram: no word boundary there
                found[1:][word[: len(found) - 1]] = 1 << BITS
            if after:  # one right after it (none after the last gram)
                found[: len(found) - 1][word[n:]] = 1 << BITS
            self._bounded[key] = found
        return found


def _codes(text: str) -> npt.NDArray[np.uint32]:
    """The code points of ``text``, one per character (a lone surrogate as itself)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def line_of(newlines: Positions, positions: Sequence[int] | Positions) -> Positions:
    """The line (0 for the first) each position is on; a "\\n" belongs to the line it ends."""
    return np.searchsorted(newlines, positions, side="left")
