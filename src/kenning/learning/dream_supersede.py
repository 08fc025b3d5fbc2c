"""Which newer statement changes a candidate's value — found through an index, not a scan.

Dreaming never promotes a candidate that a statement said later contradicts
(``memory.restate.contradicts``: same subject, another value). The window
holds every statement of its days — on a big archive, hundreds of thousands
of sentences — so checking each candidate against each statement costs
candidates × statements; on a 100,000-message archive from one day, minutes.

The index answers the same question exactly, by two bounds that follow from
the test itself:

- **words**: ``contradicts(older, newer)`` needs ``shared ≥ 3`` and either
  ``shared ≥ .5 · |older ∪ newer|`` or ``shared ≥ .7 · |older|``, so a
  statement that qualifies shares at least ``t = max(3, ⌈.5 · |older|⌉)``
  of the candidate's words. Such a statement holds at least one of the
  candidate's ``|older| − t + 1`` rarest words (prefix filtering): only those
  words' postings are read, and each statement found is checked in full.
- **time**: a statement counts only when said ``SUPERSEDE_GAP_S`` or more
  after the candidate's newest source, so each posting list is kept in time
  order and read from that moment on (a bisection).

``exhaustive`` is the definition itself, every statement against every
candidate; tests and ``kenning bench dream`` compare the two.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence

from kenning.learning import dream_sources as src
from kenning.memory import restate

DUPLICATE = 0.9  # Jaccard above which two texts say the same thing (as ``dream.DUPLICATE``)
# Statements this close together are a list, not a correction (as in search's
# supersession, ``fusion.RankParams.supersede_gap_s``).
SUPERSEDE_GAP_S = 600.0

Lookup = Callable[[src.Candidate], "src.Statement | None"]
Index = Callable[[Sequence[src.Statement], Sequence[src.Candidate]], Lookup]


def _kept(said: Sequence[src.Statement]) -> list[src.Statement]:
    """Statements that can correct: questions ask, they do not correct."""
    return [s for s in said if not s.text.rstrip().endswith(("?", "？"))]


def _least_shared(words: frozenset[str]) -> int:
    """Words a statement must share with ``words`` to contradict them (see above)."""
    return max(restate.SHARED, math.ceil(restate.JACCARD * len(words)))


def _changes(words: frozenset[str], later: frozenset[str]) -> bool:
    """Keeps the candidate's subject and changes its value; a near-duplicate is the fact again."""
    return restate.contradicts(words, later) and src.jaccard(words, later) < DUPLICATE


def after(candidate: src.Candidate) -> float:
    """When a statement must have been said, at the earliest, to supersede ``candidate``."""
    return max(s.at for s in candidate.sources) + SUPERSEDE_GAP_S


class Superseders:
    """A lookup: the newest statement said after a candidate (``SUPERSEDE_GAP_S``
    or more after its newest source) that keeps its subject and changes its
    value, or None; of statements said at the same moment, the first said.
    The same answer as ``exhaustive``, through the index described above;
    only the words of ``candidates`` (those it will be asked about) are indexed."""

    def __init__(self, said: Sequence[src.Statement], candidates: Sequence[src.Candidate]) -> None:
        # Time order (stable, so equal times keep the order they were said in):
        # a statement's position is its rank in both time and tie-breaking.
        self.kept = sorted(_kept(said), key=lambda s: s.source.at)
        self.times = [s.source.at for s in self.kept]
        self.words_of = [s.tokens for s in self.kept]
        asked = frozenset().union(*(c.tokens for c in candidates))
        self.postings: dict[str, list[int]] = {}
        for k, words in enumerate(self.words_of):
            for word in words & asked:
                self.postings.setdefault(word, []).append(k)
        self.weighed = 0  # statements read from the postings, for tests and the benchmark

    def __call__(self, candidate: src.Candidate) -> src.Statement | None:
        words, times, words_of = candidate.tokens, self.times, self.words_of
        need = _least_shared(words)
        start = bisect.bisect_left(times, after(candidate))
        if len(words) < need or start == len(times):
            return None
        # Postings are in time order too, so their length from ``start`` is
        # what reading them costs: the rarest words from then on first (a
        # word no statement has costs nothing and finds nothing).
        empty: list[int] = []
        rest = {
            w: (p, bisect.bisect_left(p, start))
            for w in words
            for p in [self.postings.get(w, empty)]
        }
        rare = sorted(rest, key=lambda w: (len(rest[w][0]) - rest[w][1], w))
        seen: set[int] = set()
        for word in rare[: len(words) - need + 1]:
            posting, first = rest[word]
            seen.update(posting[first:])
        self.weighed += len(seen)
        n, found = len(words), []
        for k in seen:
            later = words_of[k]
            shared = len(words & later)
            # restate's thresholds on the counts: a cheap test every contradiction passes
            if shared < need or (
                shared < restate.KEPT * n and shared < restate.JACCARD * (n + len(later) - shared)
            ):
                continue
            if _changes(words, later):
                found.append(k)
        if not found:
            return None
        # the newest; of statements of that same moment, the first said
        newest = max(times[k] for k in found)
        return self.kept[min(k for k in found if times[k] == newest)]


def exhaustive(said: Sequence[src.Statement], candidates: Sequence[src.Candidate] = ()) -> Lookup:
    """The definition: every statement weighed against the candidate (what
    ``Superseders`` must answer; kept for tests and the benchmark)."""
    kept = _kept(said)

    def newest_against(candidate: src.Candidate) -> src.Statement | None:
        words, since = candidate.tokens, after(candidate)
        found = [s for s in kept if s.source.at >= since and _changes(words, s.tokens)]
        # max keeps the first of equal keys: of one moment, the first said
        return max(found, key=lambda s: s.source.at, default=None)

    return newest_against
