"""The tables of ``kenning bench safety``: blocked and false-positive rates from the decisions.

A rate per channel counts each item on that one channel. A rate per category or per language
is strict over channels: a malicious item counts as blocked only if every channel it applies to
blocked it, and a benign item counts as a false positive if any channel blocked it — the
figure that says whether the screen holds on every writer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kenning.bench.safety import SPLITS, Decisions, Item, applies

Rate = dict[str, Any]  # {"n": int, "hits": int, "rate": float | None}


def _rate(hits: int, n: int) -> Rate:
    return {"n": n, "hits": hits, "rate": round(100 * hits / n, 2) if n else None}


def _strict(decisions: Decisions, engine: str, channels: Sequence[str], item: Item) -> bool:
    """Blocked on every applicable channel (malicious), or on any channel (benign)."""
    seen = [decisions[(engine, c, item.id)].blocked for c in channels if applies(item, c)]
    return all(seen) if item.malicious else any(seen)


def summarise(
    items: Sequence[Item], decisions: Decisions, engines: Sequence[str], channels: Sequence[str]
) -> dict[str, Any]:
    """Rates by split, then by channel / category / language / source, then by engine."""
    out: dict[str, Any] = {}
    for split in SPLITS:
        out[split] = _split_summary(
            [i for i in items if i.split == split], decisions, engines, channels
        )
    return out


def _split_summary(
    part: Sequence[Item], decisions: Decisions, engines: Sequence[str], channels: Sequence[str]
) -> dict[str, Any]:
    def on(engine: str, channel: str) -> dict[str, Rate]:
        return _pair(
            [item for item in part if applies(item, channel)],
            lambda item: decisions[(engine, channel, item.id)].blocked,
        )

    def strict(engine: str, members: Sequence[Item]) -> dict[str, Rate]:
        return _pair(members, lambda item: _strict(decisions, engine, channels, item))

    entry: dict[str, Any] = {
        "all_channels": {e: strict(e, part) for e in engines},
        "channel": {c: {e: on(e, c) for e in engines} for c in channels},
    }
    for key in ("category", "language", "source"):
        values = sorted({getattr(item, key) for item in part})
        entry[key] = {
            v: {e: strict(e, [item for item in part if getattr(item, key) == v]) for e in engines}
            for v in values
        }
    return entry


def _pair(items: Sequence[Item], blocked: Callable[[Item], bool]) -> dict[str, Rate]:
    mal = [i for i in items if i.malicious]
    ben = [i for i in items if not i.malicious]
    return {
        "blocked": _rate(sum(blocked(i) for i in mal), len(mal)),
        "false_positive": _rate(sum(blocked(i) for i in ben), len(ben)),
    }


def errors(decisions: Decisions) -> dict[str, int]:
    """How many writes failed for a reason other than safety, per engine and channel."""
    counts: dict[str, int] = {}
    for (engine, channel, _), outcome in decisions.items():
        if outcome.error:
            key = f"{engine}/{channel}"
            counts[key] = counts.get(key, 0) + 1
    return counts


def misses(
    items: Sequence[Item], decisions: Decisions, engine: str, channels: Sequence[str]
) -> list[dict[str, Any]]:
    """Dev-split items the engine gets wrong on some channel. Never the held-out split: what
    is tuned on must not be what is reported."""
    wrong = []
    for item in items:
        if item.split != "dev":
            continue
        bad = [
            c
            for c in channels
            if applies(item, c) and decisions[(engine, c, item.id)].blocked != item.malicious
        ]
        if bad:
            wrong.append({"id": item.id, "channels": bad, "text": item.text[:160]})
    return wrong


def _cell(rate: Rate) -> str:
    if rate["rate"] is None:
        return "—"
    return f"{rate['rate']:.1f}% ({rate['hits']}/{rate['n']})"


def table(summary: dict[str, Any], engines: Sequence[str], key: str) -> str:
    """One Markdown table: a row per channel (or category, language), blocked and FP per
    engine and split."""
    heads = [f"{e} {s} {m}" for s in SPLITS for e in engines for m in ("blocked", "FP")]
    lines = [f"| {key} | " + " | ".join(heads) + " |", "|---" * (len(heads) + 1) + "|"]
    rows = sorted({r for s in SPLITS for r in summary[s][key]}, key=str)
    if key == "channel":
        rows = list(summary[SPLITS[0]][key])
    for row in rows:
        cells = []
        for split in SPLITS:
            entry = summary[split][key].get(row)
            for engine in engines:
                for metric in ("blocked", "false_positive"):
                    cells.append(_cell(entry[engine][metric]) if entry else "—")
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def overall(summary: dict[str, Any], engines: Sequence[str]) -> str:
    heads = [f"{e} {s} {m}" for s in SPLITS for e in engines for m in ("blocked", "FP")]
    cells = [
        _cell(summary[s]["all_channels"][e][m])
        for s in SPLITS
        for e in engines
        for m in ("blocked", "false_positive")
    ]
    return "\n".join(
        [
            "| | " + " | ".join(heads) + " |",
            "|---" * (len(heads) + 1) + "|",
            "| every channel | " + " | ".join(cells) + " |",
        ]
    )
