"""Summary statistics shared by the benchmarks (one definition of p95 for all)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def p50_p95(samples: Sequence[float]) -> tuple[float, float]:
    """Median and 95th percentile (nearest rank) of ``samples``; needs at least one."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95
