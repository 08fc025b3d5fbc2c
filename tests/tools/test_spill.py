"""Spill: oversized results go to <home>/spill with a preview; per result and per turn."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from kenning.config import AgentConfig, Config, EmbeddingConfig
from kenning.home import Home
from kenning.models.types import ToolCall
from kenning.tools import ToolContext, ToolRegistry, default_registry, tool
from kenning.tools.registry import ToolOutcome


@tool(read_only=True)
def produce(size: int, fill: str = "x") -> str:
    """Return `size` characters, in lines of 99 plus a newline."""
    line = (fill * 99)[:99] + "\n"
    return (line * (size // 100 + 1))[:size]


@tool(read_only=True)
def blob() -> str:
    """One long line of JSON."""
    return json.dumps({"items": [{"id": i, "text": "y" * 40} for i in range(3000)]})


def small_limits_home(root: Path) -> Home:
    agent = AgentConfig(spill_chars=10_000, spill_turn_chars=25_000, spill_preview_chars=300)
    return Home(root, Config(agent=agent, embedding=EmbeddingConfig(provider="none")))


def registry_for(home: Home) -> ToolRegistry:
    registry = default_registry(home, toolsets=["files"])
    registry.register(produce)
    registry.register(blob)
    return registry


def run(registry: ToolRegistry, ctx: ToolContext, *sizes: int) -> list[ToolOutcome]:
    batch = [
        ToolCall(f"call_{i}", "produce", json.dumps({"size": size})) for i, size in enumerate(sizes)
    ]
    return asyncio.run(registry.execute_batch(batch, ctx))


def test_a_result_over_the_limit_is_spilled_with_a_preview(home: Home, ctx: ToolContext) -> None:
    registry = registry_for(home)  # the defaults: 100k per result, 1,500-char preview
    (small, big) = run(registry, ctx, 5_000, 150_000)
    assert small.spill_path is None and len(small.message.content) == 5_000
    assert big.spill_path is not None
    path = big.spill_path
    assert path.parent == home.layout.spill_dir / "sess-1"
    assert path.name == "produce-call_1.txt"
    assert path.read_text() == asyncio.run(produce.run({"size": 150_000}, ctx)).text
    preview = big.message.content
    assert len(preview) < 2_600
    assert "produce returned 150,000 characters (1,500 lines)" in preview
    assert str(path) in preview and "read_file(path=" in preview and "offset=1" in preview
    assert preview.count("x" * 99) >= 10  # the beginning and the end are there
    assert big.result.meta["spill_path"] == str(path)
    assert ctx.turn.spilled == 1 and ctx.turn.result_chars == 5_000 + len(preview)


def test_spill_file_is_readable_with_read_file(home: Home, ctx: ToolContext) -> None:
    registry = registry_for(home)
    (big,) = run(registry, ctx, 150_000)
    assert big.spill_path is not None
    read = ToolCall("r", "read_file", json.dumps({"path": str(big.spill_path), "offset": 1400}))
    (page,) = asyncio.run(registry.execute_batch([read], ctx))
    assert page.result.ok and page.spill_path is None
    assert page.message.content.startswith("  1400\t" + "x" * 99)
    assert "(End of file. Lines 1400-1500 of 1,500.)" in page.message.content


def test_the_turn_total_spills_the_largest_results_first(tmp_path: Path) -> None:
    home = small_limits_home(tmp_path / "home")
    ctx = ToolContext(home, cwd=tmp_path, session_id="s")
    registry = registry_for(home)
    outcomes = run(registry, ctx, 7_000, 9_000, 8_000, 2_000)  # 26k > 25k; each under 10k
    assert [o.spill_path is not None for o in outcomes] == [False, True, False, False]
    assert ctx.turn.result_chars <= 25_000
    # The next batch of the same turn starts from what the turn already holds.
    (later,) = run(registry, ctx, 9_000)
    assert later.spill_path is not None
    registry.begin_turn(ctx)
    (fresh,) = run(registry, ctx, 9_000)
    assert fresh.spill_path is None


def test_read_file_is_never_spilled_but_counts(tmp_path: Path) -> None:
    home = small_limits_home(tmp_path / "home")
    ctx = ToolContext(home, cwd=tmp_path, session_id="s")
    (tmp_path / "long.txt").write_text("z" * 50 + "\n" * 1 + ("line\n" * 1_500))
    registry = registry_for(home)
    read = ToolCall("r", "read_file", json.dumps({"path": "long.txt"}))
    (page,) = asyncio.run(registry.execute_batch([read], ctx))
    assert page.spill_path is None and len(page.message.content) > 10_000
    assert ctx.turn.result_chars == len(page.message.content)


def test_one_line_json_is_saved_indented_and_names_stay_unique(tmp_path: Path) -> None:
    home = small_limits_home(tmp_path / "home")
    ctx = ToolContext(home, cwd=tmp_path, session_id="s")
    registry = registry_for(home)
    same_id = [ToolCall("dup", "blob", "{}"), ToolCall("dup", "blob", "{}")]
    first, second = asyncio.run(registry.execute_batch(same_id, ctx))
    assert first.spill_path is not None and second.spill_path is not None
    assert {first.spill_path.name, second.spill_path.name} == {"blob-dup.txt", "blob-dup-2.txt"}
    saved = first.spill_path.read_text()
    assert saved.count("\n") > 3000 and json.loads(saved)["items"][0]["id"] == 0
    assert [p.name for p in first.spill_path.parent.iterdir() if p.name.startswith(".")] == []


def test_when_saving_fails_the_model_is_told(tmp_path: Path) -> None:
    home = small_limits_home(tmp_path / "home")
    home.root.mkdir(parents=True)
    home.layout.spill_dir.write_text("not a folder")
    ctx = ToolContext(home, cwd=tmp_path, session_id="s")
    (out,) = run(registry_for(home), ctx, 12_000)
    assert out.spill_path is None
    assert "saving them to a file failed" in out.message.content
    assert len(out.message.content) < 1_000 and "spill_error" in out.result.meta
