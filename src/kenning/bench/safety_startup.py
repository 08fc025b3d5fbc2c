"""What a new process pays before its first threat-screen verdict (``kenning bench safety``).

Every ``kenning memory add``, hook and MCP server start is a new process, so the screen's start
matters as much as its scan. Each measure starts a fresh Python that imports the screen and
screens one short note, and reports its wall and CPU time (the child's own, from
``resource``): the screen with an empty cache folder (a machine's first run, or the first after
an upgrade: it compiles the rule table and writes the cache, :mod:`kenning.safety.compiled`);
the screen with that cache made; and the frozen baseline scanner, in a process that reads the
same cache (importing ``kenning`` loads the screen's rule table too, so this is the floor:
what the import costs without the screen's first scan). The three take turns, round after
round, so a change in the machine's load falls on all alike.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

from kenning.bench.stats import p50_p95

KINDS: Final = ("screen_cold", "screen_warm", "baseline")  # in the order each round runs them
_NOTE: Final = "The staging database moved to db-2.internal; deploys run on Fridays."
_PROGRAMS: Final = {
    "baseline": f"from kenning.safety import legacy; legacy.scan({_NOTE!r}, 'memory')",
    "screen": f"from kenning.safety import threats; threats.current({_NOTE!r}, 'memory')",
}


def _run(program: str, cache: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh process running ``program``."""
    env = {**os.environ, "KENNING_CACHE_DIR": str(cache)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", program], env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def startup(rounds: int = 3) -> dict[str, dict[str, float]]:
    """p50 wall and CPU milliseconds of a first verdict, per kind of start (:data:`KINDS`);
    nothing for 0 rounds."""
    if rounds < 1:
        return {}
    walls: dict[str, list[float]] = {kind: [] for kind in KINDS}
    cpus: dict[str, list[float]] = {kind: [] for kind in KINDS}
    with tempfile.TemporaryDirectory(prefix="kenning-bench-start-") as scratch:
        for n in range(rounds):
            cold = Path(scratch) / f"cold-{n}"  # empty: this round's cold start makes it
            for kind in KINDS:
                program = _PROGRAMS["baseline" if kind == "baseline" else "screen"]
                # the later starts read what this round's cold start wrote
                wall, cpu = _run(program, cold)
                walls[kind].append(wall * 1000)
                cpus[kind].append(cpu * 1000)
    return {
        kind: {
            "p50_ms": round(p50_p95(walls[kind])[0], 1),
            "cpu_p50_ms": round(p50_p95(cpus[kind])[0], 1),
        }
        for kind in KINDS
    }
