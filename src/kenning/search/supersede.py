"""Supersession: a later message that says nearly the same outranks the earlier one.

"The staging database is on port 5432" then, a day or a year later, "…on port
5433": both are found, the newer first, and the older one's hit names the
message that supersedes it (``SearchHit.superseded_by``). No model is asked:
two messages are one statement restated when their own vectors are close,
they answer the query about equally well and they share their words;
statements typed together are a list, never corrections of one another.

Words are compared as the index sees them (porter stems), and a statement's
named subject — the names that open its sentence, "Lorae Jonis received…",
"A, B, and Dr. C attended…" (``search.subjects``) — counts apart from the
rest. A correction may keep only the subject and
change everything else ("Lorae Jonis did not receive any awards in 2021;
instead…"), so sharing it is one way to match; but later statements about
the same person are many, so the newer one must also keep the subject the
query asks about and at least half of the other query words the older one
matched (what the query asks about, not just who) — or, when it says all
of that anew ("…fluent in English and Spanish" -> "…only speaks French and
German"), be the very earlier statement it is closest to among the
candidates, whatever that one's words or score, and nearly as relevant to
the query. A correction of one fact also resembles the others said of the
same people, so a later message supersedes only an earlier statement close
to the closest it has (give or take a little), and of those only the nearest.
Two subjects may differ: a correction about one of a group the older one
named ("All three, A, B, and C, are members of X" -> "A is not a member of
X") is compared with what the older one says of them; and when the query
names both people to choose between them ("…, A, B, or C?"), saying the same
of another of them answers it anew. A denial of what the older one says ("has
no experience in education or teaching", 没有…) may be a little less like the
query, since it keeps fewer of its words. A newer one that keeps every query
word the older one matched may be a little farther than its closest; one that
keeps the query words and names the very subject the older one names ("A and
B met during…" -> "A and B first met while…") need only be near the closest
of what was said of that subject, not of what was said of A alone. When the
query asks nothing of the older one but who ("What is X's profession?"), a
later statement about the same subject that goes on as it did ("X is a
graphic designer" -> "X is a software engineer") answers it anew.

A superseded statement stays in the results, a little lower (its score x
``supersede_stale``), so it also falls below the corrections of other facts
that answered the same query. And when two facts answer the query together
("A is a dentist who volunteers at clinics", "Jessa Lann and A took part in
the outreach"), a correction of one ("…never took part; Roland Colan did")
also outranks the other, still true but no longer the answer (``completes``).
The thresholds are in ``fusion.RankParams`` with the dev split they were
chosen on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from kenning.search.fusion import Floats, Ints, RankParams
from kenning.search.index import VectorSet
from kenning.search.subjects import Subjects, denied, named, subjects_of
from kenning.storage.query import Kind
from kenning.storage.text import MAX_QUERY_CHARS, query_terms

if TYPE_CHECKING:
    from kenning.storage import TextIndex

Scored = list[tuple[float, Kind, int]]


def rerank(
    index: TextIndex,
    vectors: VectorSet | None,
    query: str,
    scored: Scored,
    facts: dict[int, tuple[float, float]],
    params: RankParams,
) -> tuple[Scored, dict[int, int]]:
    """``scored`` (best first) with corrections lifted above what they supersede.

    ``facts`` maps message id -> (created_at, cosine to the query). Returns the
    re-sorted list and {superseded message id: the id of the later message}.
    """
    top = [j for j, t in enumerate(scored) if t[1] == "message"][: params.supersede_pool]
    if len(top) < 2 or vectors is None or not len(vectors) or params.supersede_cos >= 1.0:
        return scored, {}
    ids = np.array([scored[j][2] for j in top], dtype=np.int64)
    pos = vectors.positions(ids)
    rows = np.zeros((len(top), vectors.matrix.shape[1]), dtype=np.float32)
    rows[pos >= 0] = vectors.matrix[pos[pos >= 0]]
    asked = frozenset(index.stems(query_terms(query)))
    mentioned = frozenset(index.stems(list(named(query))))

    seen: dict[int, Words] = {}

    def read(items: Iterable[int]) -> None:
        # read only for items that pass the vector tests, one query per call
        missing = sorted({int(ids[k]) for k in items} - seen.keys())
        if missing:
            seen.update(_words(index, missing))

    def words(pairs: list[tuple[int, int]]) -> list[Match]:
        read([k for pair in pairs for k in pair])
        return [match(seen[int(ids[i])], seen[int(ids[j])], asked, params) for i, j in pairs]

    def parts(triples: list[tuple[int, int, int]]) -> list[bool]:
        read([k for triple in triples for k in triple])
        known = asked - mentioned
        return [
            completes(seen[int(ids[k])], seen[int(ids[i])], seen[int(ids[j])], known, params)
            for k, i, j in triples
        ]

    def who(items: list[int]) -> list[frozenset[str]]:
        read(items)
        return [seen[int(ids[k])].names for k in items]

    new, newer = supersede(
        np.array([scored[j][0] for j in top]),
        np.array([facts[int(i)][1] for i in ids]),
        np.array([facts[int(i)][0] for i in ids]),
        rows,
        params,
        words,
        parts,
        who,
    )
    out = list(scored)
    for k, j in enumerate(top):
        out[j] = (float(new[k]), "message", scored[j][2])
    later = {int(ids[k]): int(ids[newer[k]]) for k in range(len(top)) if newer[k] >= 0}
    return sorted(out, key=lambda t: -t[0]), later


def _words(index: TextIndex, ids: list[int]) -> dict[int, Words]:
    found = index.message_texts(ids)
    texts = {i: str(found.get(i, "")) for i in ids}
    vocab = list({t for text in texts.values() for t in _vocabulary(text)})
    stem = dict(zip(vocab, index.stems(vocab), strict=True))  # one pass; forms are cached
    return {i: words_of(text, lambda terms: [stem[t] for t in terms]) for i, text in texts.items()}


def _vocabulary(text: str) -> set[str]:
    terms, who, spans = _tokens(text)
    return {*terms, *who.names, *(t for span in spans for t in query_terms(span))}


def _tokens(text: str) -> tuple[tuple[str, ...], Subjects, tuple[str, ...]]:
    """(``query_terms``, ``subjects_of``, ``denied``) of what they read (a tool dump is not a
    cache key)."""
    return _tokens_of(text[:MAX_QUERY_CHARS])


@lru_cache(maxsize=4096)
def _tokens_of(text: str) -> tuple[tuple[str, ...], Subjects, tuple[str, ...]]:
    # cached: the same top hits come back query after query
    return tuple(query_terms(text)), subjects_of(text), denied(text)


@dataclass(frozen=True)
class Words:
    """A message's words as the pair test sees them."""

    terms: frozenset[str]  # ``text.query_terms``, stemmed
    names: frozenset[str]  # its named subjects (``subjects.names_in``), stemmed alike
    group: bool = False  # it names two or more people as one subject
    denies: bool = False  # it denies something: "not", "never", 没有, 并非… (``subjects.denied``)
    denied: frozenset[str] = frozenset()  # the words of what it denies, stemmed alike
    frame: tuple[str, ...] = ()  # how its subject's sentence goes on (``Subjects.frame``)


def words_of(text: str, stem: Callable[[Iterable[str]], list[str]] = list) -> Words:
    terms, who, spans = _tokens(text)
    said = frozenset(stem([t for span in spans for t in query_terms(span)]))
    return Words(
        frozenset(stem(terms)), frozenset(stem(who.names)), who.group, bool(spans), said, who.frame
    )


@dataclass(frozen=True)
class Match:
    """What two messages' words say of them: one statement (restated or corrected)?"""

    same: bool  # one statement, by their words
    covered: bool  # and the newer keeps the query words the older one matched
    denial: bool = False  # and it denies what the older one says
    whole: bool = False  # and it keeps every one of the query words the older one matched


SAME = Match(True, True)  # what ``supersede`` assumes when it is given no words
NOT_SAME = Match(False, False)


def same_statement(old: Words, new: Words, query: frozenset[str], params: RankParams) -> bool:
    """Do two messages' words make them one statement, restated or corrected,
    the newer one still answering what the query asked of the older?"""
    said = match(old, new, query, params)
    return said.same and said.covered


def match(old: Words, new: Words, query: frozenset[str], params: RankParams) -> Match:
    """``same_statement`` in two parts: one statement by their words, and the cover."""
    older, newer = old.terms, new.terms
    who = old.names & query  # the subject the query asks about: the newer must keep it
    if not who <= newer:
        if old.group and new.names and new.names <= old.names:
            # it speaks of some of a group the older one named ("A, B and C
            # attended…" -> "A could not attend…"): compare it with what the
            # older one says of them, the others' names left out
            older = older - (old.names - newer)
        elif who and new.names and new.names <= query and not new.names & old.names:
            # the query names both, to choose between them ("…, A, B or C?"):
            # saying the same of another of them answers it anew
            older, newer = older - old.names, newer - new.names
        else:
            return NOT_SAME
    # Names are shared by everything said about someone: the other words tell
    # two statements apart, and the other query words say what is asked of them.
    names = old.names | new.names
    asked = (older & query) - names
    covered = len(asked & newer) >= params.supersede_cover * len(asked)
    shared = len(older & newer)
    alike = shared >= params.supersede_jaccard * len(older | newer)
    # a correction often adds its reason ("…; instead, she was nominated"): it
    # keeps most of the older statement's words while its Jaccard falls
    kept = shared >= max(params.supersede_shared, params.supersede_contain * len(older))
    # it denies what the older one says ("no experience in education or
    # teaching" for "…a background in education or teaching")
    denial = new.denies and not old.denies and bool(older & new.denied)
    whole = len(asked) >= params.supersede_whole and asked <= newer
    if (alike or kept) and (older & newer) - names:
        return Match(True, covered, denial, whole)
    # or it keeps only who it is about and says the rest anew ("Lorae Jonis did
    # not receive any awards in 2021; instead…"): then it must answer what the
    # older one answered of the query, beyond the name
    subject = bool(who) and who <= new.names and shared >= params.supersede_subject_shared
    # a query that asks nothing but who ("What is X's profession?") is
    # answered anew by a statement that goes on as the older one did ("X is a
    # graphic designer" -> "X is a software engineer")
    framed = params.supersede_frame and bool(old.frame) and old.frame == new.frame
    return Match(True, covered, denial, whole) if subject and (asked or framed) else NOT_SAME


def completes(
    other: Words, old: Words, new: Words, query: frozenset[str], params: RankParams
) -> bool:
    """Is ``old`` the other half of the answer ``other`` gives, so that ``new``,
    correcting ``old``, answers the query anew? ("Who is the dentist who
    volunteers at clinics and took part in the outreach with Jessa Lann?":
    "A is a dentist who volunteers at clinics" and "Jessa Lann and A took part
    in the outreach", corrected by "…never took part; Roland Colan did".) The
    two speak of the same person and each matches query words the other does
    not, names apart (``query`` comes without the names it mentions: in "Who
    among A, B and C…?" a name is not a part of the answer); the newer keeps
    what the older one added."""
    if not other.names & old.names:
        return False
    asked = query - (other.names | old.names | new.names)
    mine, theirs = old.terms & asked, other.terms & asked
    added, kept = mine - theirs, theirs - mine
    need = params.supersede_complement
    if need <= 0 or len(added) < need or len(kept) < need:
        return False
    return len(added & new.terms) >= params.supersede_cover * len(added)


def supersede(
    score: Floats,
    relevance: Floats,
    created: Floats,
    vectors: npt.NDArray[np.float32],
    params: RankParams,
    words: Callable[[list[tuple[int, int]]], list[Match]] = lambda pairs: [SAME] * len(pairs),
    parts: Callable[[list[tuple[int, int, int]]], list[bool]] = lambda t: [False] * len(t),
    who: Callable[[list[int]], list[frozenset[str]]] = lambda items: [frozenset()] * len(items),
) -> tuple[Floats, Ints]:
    """Scores with each correction lifted just above what it supersedes.

    Items are sorted best first; ``vectors`` are unit rows (zero rows, for
    messages without one, never match); ``relevance`` is each item's cosine to
    the query; ``words(pairs)`` says for each (older i, newer j) whether they
    are one statement by their words (``match``). A newer item j corrects an
    older one only if that is (near) the earlier statement j is closest to
    among all ``supersede_pool`` items: within ``supersede_closest`` when j
    keeps the query's words (or, when i and j name the same subject, of the
    closest of the items naming it: ``who(items)`` gives each item's names),
    exactly the closest (and nearly as relevant, see
    ``supersede_margin_uncovered``) when it says the rest anew. Then a newer
    item supersedes only the older ones within ``supersede_nearest`` of the
    cosine of its nearest such one. Returns the new scores and, per item, the
    index of the newest item that supersedes it (else -1). Corrections are
    applied oldest first, so in a chain the newest ends on top.
    """
    m = min(len(score), params.supersede_pool)
    n = min(m, params.supersede_top)
    out, newer = score.copy(), np.full(len(score), -1, dtype=np.int64)
    if n < 1 or m < 2 or params.supersede_cos >= 1.0:
        return out, newer
    c = created[:m]
    r = relevance[:m]
    gram = _gram(vectors[:m])
    sim = gram[:n]
    before = c[None, :] - c[:, None] >= params.supersede_gap_s  # [i, j]: i said before j
    # how close each item's closest earlier statement is, whatever it says or scores
    closest = np.where(before, gram, -np.inf).max(axis=0)
    # [older candidate i, newer candidate j]: the cheap tests, all at once
    wide = params.supersede_margin + params.supersede_denial_margin
    maybe = (sim >= params.supersede_cos) & before[:n] & (r[None, :] >= r[:n, None] - wide)
    pairs = [(int(i), int(j)) for i, j in zip(*np.nonzero(maybe), strict=True)]

    def corrects(i: int, j: int, said: Match) -> bool:
        if not said.same:
            return False
        # a denial keeps fewer of the query's words, so it may be less like the query
        extra = params.supersede_denial_margin if said.denial else 0.0
        if r[j] < r[i] - params.supersede_margin - extra:
            return False
        if said.covered:
            slack = params.supersede_closest_whole if said.whole else params.supersede_closest
            near = sim[i, j] >= closest[j] - slack
            return bool(near or sim[i, j] >= closest_alike(i, j) - slack)
        near = sim[i, j] >= closest[j] - params.supersede_closest_uncovered
        return bool(near and r[j] >= r[i] - params.supersede_margin_uncovered - extra)

    def closest_alike(i: int, j: int) -> float:
        # the closest earlier statement with the very subject i and j share:
        # a later statement about A and B corrects what was said of A and B,
        # even when something said of A alone is closer ("A has led
        # expeditions, some filmed by B" for "A and B first met while filming
        # an expedition"); read only when the closest test fails
        if not params.supersede_same_subject:
            return float("inf")
        subject, theirs = who([i, j])
        if not subject or subject != theirs:
            return float("inf")
        earlier = [int(k) for k in np.nonzero(before[:, j])[0]]
        alike = (gram[k, j] for k, s in zip(earlier, who(earlier), strict=True) if s == subject)
        return float(max(alike))  # i itself is among them

    said = words(pairs) if pairs else []
    pairs = [ij for ij, s in zip(pairs, said, strict=True) if corrects(*ij, s)]
    # a later message corrects the earlier statement it is nearest to, not
    # everything it resembles that was said about the same people
    nearest = np.full(m, -np.inf)
    for i, j in pairs:
        nearest[j] = max(nearest[j], sim[i, j])
    pairs = [(i, j) for i, j in pairs if sim[i, j] >= nearest[j] - params.supersede_nearest]
    for i, j in sorted(pairs, key=lambda ij: c[ij[1]]):
        out[j] = max(out[j], np.nextafter(out[i], np.inf))
        newer[i] = j
    # a correction of one half of the answer also outranks the other half
    # (``completes``), still true but no longer the answer
    triples = [
        (k, i, j)
        for i, j in pairs
        for k in range(m)
        if k not in (i, j) and before[k, j] and newer[k] < 0 and out[k] >= out[j]
    ]
    for (k, _, j), whole in zip(triples, parts(triples) if triples else [], strict=True):
        if whole:
            out[j] = max(out[j], np.nextafter(out[k], np.inf))
    out[newer >= 0] *= params.supersede_stale
    return out, newer


_BLOCK = 10  # rows per product: see ``_gram``


def _gram(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """All cosines among ``vectors``, in products of ``_BLOCK`` rows.

    One 50 x 50 product makes OpenBLAS start its threads, which cost more than
    the product (LoCoMo query p50 4 -> 21 ms on two busy cores). Every cosine
    is read from this one matrix, so the closest one compares equal to itself.
    """
    out = np.empty((len(vectors), len(vectors)), dtype=np.float32)
    for start in range(0, len(vectors), _BLOCK):
        out[start : start + _BLOCK] = vectors[start : start + _BLOCK] @ vectors.T
    return out
