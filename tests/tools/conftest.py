"""Fixtures for the tools layer: a workspace folder and a context rooted in it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kenning.home import Home
from kenning.tools import Tool, ToolContext, ToolResult


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


@pytest.fixture
def ctx(home: Home, workspace: Path) -> ToolContext:
    return ToolContext(home, cwd=workspace, session_id="sess-1")


@pytest.fixture
def call(ctx: ToolContext) -> Callable[..., ToolResult]:
    """``call(tool, **args)``: run one tool in ``ctx`` and return its result."""

    def run(tool: Tool, /, **args: Any) -> ToolResult:
        return asyncio.run(tool.run(args, ctx))

    return run
