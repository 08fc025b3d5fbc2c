"""The questions ``kenning bench letta`` lost, with what supersession decided for each.

``--losses dev`` lists, for the kenning system on one split, every update
question whose newer fact did not outrank the stale one (per layout) and every
hard-negative question whose supporting fact was not first: the question,
each fact's rank and which later message, if any, superseded it (the hit's
``superseded_by``). That is what grouping the losses by cause starts from;
tune on dev, and read held-out only to report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kenning.bench.corpus import DEPTH
from kenning.search.engine import SearchEngine


def wanted(split: str | None, world_split: str) -> bool:
    """Are ``world_split``'s losses listed when ``--losses`` asked for ``split``?"""
    return split is not None and split in ("all", world_split)


def update_loss(
    engine: SearchEngine,
    question: str,
    texts: dict[int, str],
    newer: int,
    stale: Sequence[int],
    where: dict[str, Any],
) -> dict[str, Any]:
    """One lost update question: the newer fact and each stale one, ranked and marked."""
    ranks, later = _search(engine, question)
    return where | {
        "question": question,
        "newer": {"text": texts[newer], "rank": ranks.get(newer)},
        "stale": [_fact(i, texts, ranks, later, newer) for i in stale],
    }


def others_loss(
    engine: SearchEngine,
    question: str,
    texts: dict[int, str],
    supporting: Sequence[int],
    corrections: Sequence[int],
    where: dict[str, Any],
) -> dict[str, Any]:
    """One lost hard-negative question: what came first, and each supporting fact."""
    ranks, later = _search(engine, question)
    first = next((i for i, r in ranks.items() if r == 1), None)
    top = None if first is None else {"text": texts[first], "correction": first in corrections}
    return where | {
        "question": question,
        "top": top,
        "supporting": [_fact(i, texts, ranks, later, None) for i in supporting],
    }


def _search(engine: SearchEngine, question: str) -> tuple[dict[int, int], dict[int, int]]:
    hits = engine.search(question, kinds=("message",), limit=DEPTH).hits
    ranks = {h.id: r for r, h in enumerate(hits, 1)}
    return ranks, {h.id: h.superseded_by for h in hits if h.superseded_by is not None}


def _fact(
    i: int, texts: dict[int, str], ranks: dict[int, int], later: dict[int, int], newer: int | None
) -> dict[str, Any]:
    by = later.get(i)
    return {
        "text": texts[i],
        "rank": ranks.get(i),
        "superseded_by": None if by is None else texts.get(by, f"message {by}"),
        "by_the_newer": by is not None and by == newer,
    }


def table(losses: dict[str, Any]) -> list[str]:
    """The listing under the tables: one block per lost question."""
    update, others = losses["update"], losses["others_corrected"]
    lines = [
        "",
        f"kenning's losses on {losses['split']}: {len(update)} update questions (over all "
        f"layouts), {len(others)} others-corrected questions; rank '-' = not in the top {DEPTH}",
    ]
    for loss in update:
        lines.append(f"[{loss['layout']}] world {loss['world']}: {loss['question']}")
        lines.append(f"  newer #{_rank(loss['newer']['rank'])}: {loss['newer']['text']}")
        lines += [_stale_line("stale", f) for f in loss["stale"]]
    for loss in others:
        lines.append(f"[others corrected] world {loss['world']}: {loss['question']}")
        top = loss["top"]
        if top is not None:
            kind = "a correction of another fact" if top["correction"] else "another fact"
            lines.append(f"  first ({kind}): {top['text']}")
        lines += [_stale_line("supporting", f) for f in loss["supporting"]]
    return lines


def _stale_line(label: str, fact: dict[str, Any]) -> str:
    by = fact["superseded_by"]
    if by is None:
        said = "not superseded"
    elif fact["by_the_newer"]:
        said = "superseded by the newer fact"
    else:
        said = f"superseded by: {by}"
    return f"  {label} #{_rank(fact['rank'])}: {fact['text']}  [{said}]"


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)
