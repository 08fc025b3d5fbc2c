"""``kenning bench dream``: the dry run's time on big archives, beside the exhaustive check.

Each home is ``bench ui``'s without the extras (``bench.mcp.build_home``: N
synthetic archived messages of interactive sessions, hot memory, two months
of journal, everything indexed) plus searches in the recall log, so dreaming
has recalled candidates. The synthetic archive is all from today, so the
deep phase's window holds every message: the worst case for the check that
a newer statement contradicts no candidate.

Timed: the dry run itself (``Dreamer.run(dry_run=True)``, all phases — the
command's work, without printing). Beside it, in the same run, on the
smaller homes only (it grows as candidates × statements): the same dry run
with the exhaustive check (``dream_supersede.exhaustive``, every statement
weighed), and whether both decided the same. The safety scan's patterns are
compiled once beforehand, as any second run in a process finds them.
"""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from kenning import clock
from kenning.bench import scale
from kenning.bench.mcp import build_home
from kenning.home import Home
from kenning.learning import dream_supersede as supersede
from kenning.learning.dream import Dreamer, DreamReport
from kenning.safety import threats

SEARCHES = 20  # as ``bench ui`` furnishes its home
EXHAUSTIVE_UP_TO = 20_000  # messages; past this the exhaustive check takes minutes
Progress = Callable[[str, int], None]


def _searched(root: Path, rng: random.Random) -> None:
    home = Home.open(root, overrides={"embedding": {"provider": "none"}})
    try:
        for query in scale._queries(rng, SEARCHES):
            home.search.search(query)
    finally:
        home.close()


def _timed(home: Home, index: supersede.Index, now: datetime) -> tuple[float, DreamReport]:
    began = time.perf_counter()
    report = Dreamer(home, clock=lambda: now, superseders=index).run(dry_run=True)
    return time.perf_counter() - began, report


def _summary(report: DreamReport) -> dict[str, int]:
    return {
        "candidates": len(report.considered),
        "superseded": sum(s.superseded_by is not None for s in report.considered),
        "promoted": len(report.promoted),
    }


def measure(root: Path, messages: int, exhaustive: bool) -> dict[str, Any]:
    home = Home.open(root, overrides={"embedding": {"provider": "none"}})
    try:
        now = clock.local()  # one moment for both runs, so their reports compare whole
        seconds, report = _timed(home, supersede.Superseders, now)
        out: dict[str, Any] = {"messages": messages, "dry_run_s": round(seconds, 2)}
        out |= _summary(report)
        if exhaustive:
            slow, every = _timed(home, supersede.exhaustive, now)
            out["exhaustive_s"] = round(slow, 2)
            out["same_decisions"] = report.to_dict() == every.to_dict()
        return out
    finally:
        home.close()


def run(
    sizes: Sequence[int],
    *,
    exhaustive_up_to: int = EXHAUSTIVE_UP_TO,
    seed: int = 7,
    progress: Progress | None = None,
) -> dict[str, Any]:
    report = progress or (lambda stage, n: None)
    threats.scan("a warm-up line for the safety scan's patterns", "memory")
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="kenning-bench-dream-") as tmp:
            root = Path(tmp) / "home"
            began = time.perf_counter()
            build_home(root, n, seed=seed)
            _searched(root, random.Random(seed + 2))
            build_s = round(time.perf_counter() - began, 1)
            row = measure(root, n, exhaustive=n <= exhaustive_up_to) | {"build_s": build_s}
            rows.append(row)
            shutil.rmtree(root, ignore_errors=True)
        report("sizes", 1)
    return {"sizes": rows, "searches": SEARCHES, "exhaustive_up_to": exhaustive_up_to}


def table(report: dict[str, Any]) -> str:
    lines = [
        "kenning dream --dry-run · synthetic archive, all of it from today (the window holds "
        f"every message) · {report['searches']} searches recalled",
        f"{'messages':>9}{'candidates':>12}{'superseded':>12}"
        f"{'dry run s':>11}{'exhaustive s':>14}  same decisions",
    ]
    for row in report["sizes"]:
        slow = f"{row['exhaustive_s']:>14.2f}" if "exhaustive_s" in row else f"{'—':>14}"
        same = {True: "yes", False: "NO"}.get(row.get("same_decisions"), "—")
        lines.append(
            f"{row['messages']:>9,}{row['candidates']:>12}"
            f"{row['superseded']:>12}{row['dry_run_s']:>11.2f}{slow}  {same}"
        )
    lines.append(
        "dry run: the indexed check dreaming runs; exhaustive: every statement weighed against "
        f"every candidate (sizes ≤ {report['exhaustive_up_to']:,} only)"
    )
    return "\n".join(lines)
