"""Write latency of hot-memory ``add``, with history (git commits) on and off.

Both variants run in the same process, on fresh temporary homes, interleaved
in rounds so that a noisy neighbour on a shared machine hurts both alike. The
history-off run is the baseline: it is the lock + re-read + fsync + rename
cost alone; the difference is what git costs per write.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kenning.bench.stats import p50_p95
from kenning.config import Config, HistoryConfig, MemoryConfig
from kenning.home import Home
from kenning.memory.store import Target


@dataclass(frozen=True)
class LatencyStats:
    writes: int
    median_ms: float
    p95_ms: float
    mean_ms: float

    @classmethod
    def of(cls, samples: list[float]) -> LatencyStats:
        median, p95 = p50_p95(samples)
        return cls(len(samples), median, p95, statistics.fmean(samples))


def _home(root: Path, history: bool) -> Home:
    # A budget large enough that the run measures writes, not refusals.
    config = Config(
        memory=MemoryConfig(memory_budget=1_000_000, user_budget=1_000_000),
        history=HistoryConfig(enabled=history),
    )
    return Home(root, config)


def run(writes: int, progress: Callable[[int], None] | None = None) -> dict[str, LatencyStats]:
    samples: dict[str, list[float]] = {"history_off": [], "history_on": []}
    with tempfile.TemporaryDirectory(prefix="kenning-bench-") as tmp:
        homes = {
            "history_off": _home(Path(tmp) / "off", history=False),
            "history_on": _home(Path(tmp) / "on", history=True),
        }
        for i in range(writes):
            for name, home in homes.items():
                # distinct words per fact, so no add looks like an update of another
                text = f"Fact {i}: " + " ".join(f"w{i}x{k}" for k in range(7))
                start = time.perf_counter()
                home.memory.add(Target.MEMORY, text, reason="benchmark")
                samples[name].append((time.perf_counter() - start) * 1000)
            if progress is not None:
                progress(1)
    return {name: LatencyStats.of(values) for name, values in samples.items()}
