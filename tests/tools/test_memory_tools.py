"""memory, session_search, memory_search and memory_get as registry tools."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kenning.archive.store import Message
from kenning.config import Config, EmbeddingConfig
from kenning.home import Home
from kenning.memory.store import Target
from kenning.models.types import ToolCall
from kenning.tools import ToolContext, ToolRegistry, default_registry


@pytest.fixture
def keyword_home(tmp_path: Path) -> Home:
    """A home with keyword-only search: no embedding model to load."""
    return Home(tmp_path / "home", Config(embedding=EmbeddingConfig(provider="none")))


def batch(
    registry: ToolRegistry, ctx: ToolContext, *specs: tuple[str, dict[str, Any]]
) -> list[str]:
    calls = [ToolCall(f"c{i}", name, json.dumps(args)) for i, (name, args) in enumerate(specs)]
    return [m.content for m in asyncio.run(registry.run_batch(calls, ctx))]


def test_memory_is_read_only_when_the_context_says_so(home: Home, workspace: Path) -> None:
    home.memory.add(Target.USER, "Prefers tea")
    registry = default_registry(home, toolsets=["memory"])
    sub = ToolContext(home, cwd=workspace, memory_writable=False, purpose="subagent")
    add, ops, show = batch(
        registry,
        sub,
        ("memory", {"action": "add", "target": "user", "content": "Likes jazz"}),
        ("memory", {"target": "memory", "operations": [{"action": "add", "content": "x"}]}),
        ("memory", {"action": "show", "target": "user"}),
    )
    assert add.startswith("Error: memory is read-only in this context (subagent)")
    assert "action='show'" in add and ops.startswith("Error: memory is read-only")
    assert json.loads(show)["entries"] == [{"chars": 11, "text": "Prefers tea"}]
    assert home.memory.read(Target.USER).entries == ("Prefers tea",)
    assert not home.layout.memory_file.exists()


def test_memory_writes_name_the_session_in_history(home: Home, workspace: Path) -> None:
    registry = default_registry(home, toolsets=["memory"])
    ctx = ToolContext(home, cwd=workspace, session_id="20261130-101010-abcdef")
    (saved,) = batch(
        registry, ctx, ("memory", {"action": "add", "target": "user", "content": "Likes jazz"})
    )
    assert json.loads(saved)["success"] is True
    assert home.memory.read(Target.USER).entries == ("Likes jazz",)
    body = subprocess.run(
        ["git", "log", "-1", "--format=%B"],
        cwd=home.root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "session 20261130-101010-abcdef" in body


def test_a_write_and_a_read_of_memory_in_one_batch_run_in_order(
    home: Home, workspace: Path
) -> None:
    registry = default_registry(home, toolsets=["memory", "archive"])
    ctx = ToolContext(home, cwd=workspace)
    _, shown, got = batch(
        registry,
        ctx,
        ("memory", {"action": "add", "target": "memory", "content": "Deploys need VPN"}),
        ("memory", {"action": "show", "target": "memory"}),
        ("memory_get", {"path": "memories/MEMORY.md"}),
    )
    assert "Deploys need VPN" in shown and "Deploys need VPN" in got


def test_session_search_leaves_out_the_current_session(keyword_home: Home, workspace: Path) -> None:
    archive = keyword_home.archive
    old = archive.start_session("cli", title="deploy notes")
    archive.append(old, Message("user", "the bastion host is bastion-7"))
    current = archive.start_session("cli", title="today")
    archive.append(current, Message("user", "which bastion host do we use?"))
    registry = default_registry(keyword_home, toolsets=["archive"])
    ctx = ToolContext(keyword_home, cwd=workspace, session_id=current)
    found, recent = batch(
        registry, ctx, ("session_search", {"query": "bastion host"}), ("session_search", {})
    )
    hits = json.loads(found)
    assert [s["session_id"] for s in hits["sessions"]] == [old]
    assert [s["session_id"] for s in json.loads(recent)["sessions"]] == [old]
    registry.close()


def test_memory_search_and_get_find_journal_notes(keyword_home: Home, workspace: Path) -> None:
    keyword_home.journal.append("Rotated the staging certificates with certbot renew.")
    registry = default_registry(keyword_home, toolsets=["archive"])
    ctx = ToolContext(keyword_home, cwd=workspace)
    (found,) = batch(registry, ctx, ("memory_search", {"query": "staging certificates"}))
    passage = json.loads(found)["passages"][0]
    assert passage["path"].startswith("memory/") and "certbot" in passage["text"]
    got, refused = batch(
        registry,
        ctx,
        ("memory_get", {"path": passage["path"]}),
        ("memory_get", {"path": "../../etc/passwd"}),
    )
    assert "certbot renew" in got
    assert json.loads(refused)["success"] is False
    registry.close()
