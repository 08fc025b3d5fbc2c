"""The Python workspace's costs: kernel start, per-cell overhead, snapshot time and size.

Baselines from the same run: a bare ``python -c pass`` for the kernel start
(what any subprocess costs on this machine), and the time user code took
inside the kernel, which the per-cell overhead excludes (round trip in the
parent minus the kernel's own ``exec`` time; the snapshot after the cell is
part of the overhead and also reported on its own).

Snapshot sizes are made of NumPy float arrays of at most 10 MB each (the
per-variable limit is 16 MiB), so 100 MB is ten variables; "unchanged" is
the next cell's snapshot when it changed nothing (serialised and hashed, not
rewritten); the restore is a fresh kernel loading that snapshot.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kenning.bench.stats import p50_p95
from kenning.workspace.kernel import Kernel

MB = 1_000_000
CHUNK_MB = 10


def run(
    cells: int = 200,
    sizes_mb: Sequence[int] = (10, 100),
    starts: int = 5,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    tick = progress or (lambda n: None)
    with tempfile.TemporaryDirectory(prefix="kenning-bench-python-") as tmp:
        root = Path(tmp)
        report: dict[str, Any] = {
            "python_start_ms": _ms(_python_start(starts)),
            "kernel_start_ms": _ms(_kernel_starts(root, starts)),
        }
        tick(1)
        report["cell"] = _cells(root / "cells", cells)
        tick(1)
        report["snapshots"] = [_snapshot(root / f"snap-{size}", size) for size in sizes_mb]
        tick(1)
    return report


def _ms(samples: list[float]) -> dict[str, float]:
    p50, p95 = p50_p95([s * 1000 for s in samples])
    return {"p50": round(p50, 2), "p95": round(p95, 2)}


def _python_start(n: int) -> list[float]:
    times = []
    for _ in range(n):
        started = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.monotonic() - started)
    return times


def _kernel_starts(root: Path, n: int) -> list[float]:
    times = []
    for i in range(n):
        kernel = Kernel(root / f"start-{i}", root)
        times.append(kernel.start().seconds)
        kernel.close()
    return times


def _cells(state: Path, n: int) -> dict[str, Any]:
    kernel = Kernel(state, state.parent)
    kernel.start()
    try:
        overhead, snapshot, user = [], [], []
        kernel.run_cell("import math\nvalues = list(range(100))", 30)
        for i in range(n):
            result = kernel.run_cell(f"x = math.sqrt({i})\nx", 30)
            overhead.append(result.seconds - result.exec_s)
            snapshot.append(result.snapshot_s)
            user.append(result.exec_s)
    finally:
        kernel.close()
    return {
        "cells": n,
        "overhead_ms": _ms(overhead),
        "snapshot_ms": _ms(snapshot),
        "user_code_ms": _ms(user),
        "target_ms": 20,
    }


def _snapshot(state: Path, size_mb: int) -> dict[str, Any]:
    kernel = Kernel(state, state.parent)
    kernel.start()
    chunks = max(1, size_mb // CHUNK_MB)
    per_chunk = size_mb * MB // chunks // 8  # float64 values
    code = "import numpy\n" + "".join(
        f"block_{i} = numpy.random.default_rng({i}).random({per_chunk})\n" for i in range(chunks)
    )
    try:
        result = kernel.run_cell(code, 600)
        unchanged = kernel.run_cell("len(block_0)", 600)  # a look: nothing to rewrite
    finally:
        kernel.close()
    restore = Kernel(state, state.parent)
    ready = restore.start()
    restore.close()
    return {
        "size_mb": size_mb,
        "variables": chunks,
        "snapshot_ms": round(result.snapshot_s * 1000, 1),
        "snapshot_bytes": result.snapshot_bytes,
        "unchanged_ms": round(unchanged.snapshot_s * 1000, 1),
        "skipped": sorted(result.skipped),
        "restore_ms": round(ready.seconds * 1000, 1),
        "restored": sorted(ready.restored),
    }


def table(report: dict[str, Any]) -> str:
    cell = report["cell"]
    lines = [
        f"kernel start      p50 {report['kernel_start_ms']['p50']:>8.1f} ms   p95 "
        f"{report['kernel_start_ms']['p95']:>8.1f} ms   (bare python -c pass: p50 "
        f"{report['python_start_ms']['p50']:.1f} ms)",
        f"per-cell overhead p50 {cell['overhead_ms']['p50']:>8.2f} ms   p95 "
        f"{cell['overhead_ms']['p95']:>8.2f} ms   (target ≤ {cell['target_ms']} ms; "
        f"{cell['cells']} cells, user code excluded)",
        f"  of which snapshot p50 {cell['snapshot_ms']['p50']:.2f} ms   p95 "
        f"{cell['snapshot_ms']['p95']:.2f} ms",
        "",
        f"{'variables':<12}{'count':>6}{'snapshot ms':>14}{'unchanged ms':>14}{'size MB':>10}"
        f"{'restore ms':>13}",
    ]
    for snap in report["snapshots"]:
        lines.append(
            f"{snap['size_mb']:>5} MB     {snap['variables']:>6}{snap['snapshot_ms']:>14.1f}"
            f"{snap['unchanged_ms']:>14.1f}"
            f"{snap['snapshot_bytes'] / MB:>10.1f}{snap['restore_ms']:>13.1f}"
            + (f"   skipped: {', '.join(snap['skipped'])}" if snap["skipped"] else "")
        )
    return "\n".join(lines)
