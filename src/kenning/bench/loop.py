"""The runtime's own cost per turn: everything but the model.

A turn here is what a typical tool-using turn does: the user message is
archived, the model (an instant ``FunctionModel``, streamed like a real
adapter) asks for ``read_file``, the tool runs, its result is archived, the
model answers, the answer is archived. The time inside the model is measured
and subtracted, so what remains is the loop: persistence (with the archive's
FTS triggers), tool dispatch and batching, spill accounting, events, hooks.

Measured side by side in one run: the same turns against an empty archive
(the baseline) and against an archive of N synthetic messages (the scale
benchmark's generator), because the archive's size is what could make
per-message persistence slow.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kenning.agent.loop import AgentSession, AgentSettings
from kenning.bench.scale import fill_archive
from kenning.bench.stats import p50_p95
from kenning.config import Config, EmbeddingConfig, HistoryConfig
from kenning.home import Home
from kenning.models.types import ChatMessage, ToolSpec
from kenning.runtime.factory import build_tools
from kenning.testing.models import FunctionModel, tool_call


class _TimedModel(FunctionModel):
    """An instant model that also records how long its own calls took."""

    def __init__(self) -> None:
        super().__init__(self._reply, name="bench:instant")
        self.model_seconds = 0.0

    def _reply(self, messages: list[ChatMessage], tools: list[ToolSpec], settings: Any) -> Any:
        if messages[-1].role == "user":
            return tool_call("read_file", path="README.md")
        return "The README says hello."

    async def request(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await super().request(*args, **kwargs)
        finally:
            self.model_seconds += time.perf_counter() - started

    async def stream(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            async for event in super().stream(*args, **kwargs):
                yield event
        finally:
            self.model_seconds += time.perf_counter() - started


def _fill(home: Home, n_messages: int, progress: Callable[[str, int], None] | None) -> None:
    fill_archive(home.archive, n_messages, random.Random(11), progress=progress, stage="archive")
    home.archive.storage.index.sync()


def _turns(home: Home, workdir: Path, turns: int, progress: Any) -> list[float]:
    model = _TimedModel()
    session = AgentSession.start(
        home,
        model,
        build_tools(home),
        cwd=workdir,
        settings=AgentSettings.from_home(home),
        system_prompt="You are a benchmark.",
    )
    overhead: list[float] = []

    async def drive() -> None:
        for i in range(turns):
            model.model_seconds = 0.0
            started = time.perf_counter()
            ended = await session.run(f"turn {i}: what does the README say?")
            elapsed = time.perf_counter() - started
            assert ended.ok, ended.error
            overhead.append((elapsed - model.model_seconds) * 1000)
            if progress is not None:
                progress("turns", 1)

    asyncio.run(drive())
    return overhead


def run(
    n_messages: int,
    *,
    turns: int = 100,
    workdir: Path | None = None,
    progress: Callable[[str, int], None] | None = None,
) -> dict[str, Any]:
    config = Config(embedding=EmbeddingConfig(provider="none"), history=HistoryConfig(False))
    results: dict[str, Any] = {"messages": n_messages, "turns": turns}
    with tempfile.TemporaryDirectory(prefix="kenning-loop-", dir=workdir) as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        (work / "README.md").write_text("# Demo\n\nHello from the benchmark.\n")
        for label, size in (("empty_archive", 0), ("archive", n_messages)):
            home = Home(Path(tmp) / f"home-{label}", config)
            if size:
                _fill(home, size, progress)
            samples = _turns(home, work, turns, progress)
            p50, p95 = p50_p95(samples)
            results[label] = {"p50_ms": round(p50, 2), "p95_ms": round(p95, 2)}
            home.archive.close()
    return results


def format_table(results: dict[str, Any], target_ms: float = 10.0) -> Sequence[str]:
    base = results["empty_archive"]
    lines = [
        f"runtime overhead per turn (model time excluded), {results['turns']} turns each",
        f"{'archive':<22}{'p50 ms':>10}{'p95 ms':>10}{'× baseline':>13}",
    ]
    for label, name in (("empty_archive", "empty (baseline)"), ("archive", None)):
        row = results[label]
        title = name or f"{results['messages']:,} messages"
        ratio = row["p50_ms"] / base["p50_ms"] if base["p50_ms"] else float("nan")
        lines.append(f"{title:<22}{row['p50_ms']:>10.2f}{row['p95_ms']:>10.2f}{ratio:>12.2f}×")
    verdict = "met" if results["archive"]["p50_ms"] <= target_ms else "NOT met"
    lines.append(f"target p50 ≤ {target_ms:g} ms at {results['messages']:,} messages: {verdict}")
    return lines
