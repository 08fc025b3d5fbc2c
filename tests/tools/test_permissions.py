"""Permission modes through the real tools: a diff before an edit, read-only
commands without asking, "always allow" kept per project, plan and yolo."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from kenning.config import Config, EmbeddingConfig
from kenning.home import Home
from kenning.models.types import ToolCall
from kenning.tools import ToolContext, ToolResult
from kenning.tools.base import ApprovalRequest
from kenning.tools.files import edit_file, write_file
from kenning.tools.permissions import Permissions, ProjectRules, parse_mode, prefix_of
from kenning.tools.registry import default_registry
from kenning.tools.shell import shell


class Approver:
    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: str) -> bool:
        assert isinstance(request, ApprovalRequest)
        self.asked.append(request)
        return self.answer


def make(
    tmp_path: Path, mode: str = "ask", answer: bool = True, project: Path | None = None
) -> tuple[ToolContext, Approver, Permissions]:
    home = Home(tmp_path / "home", Config(embedding=EmbeddingConfig(provider="none")))
    workspace = project or tmp_path / "project"
    workspace.mkdir(exist_ok=True)
    approver = Approver(answer)
    perms = Permissions(parse_mode(mode), rules=ProjectRules(home.root, workspace))
    ctx = ToolContext(home, cwd=workspace, approve=approver, purpose="test")
    ctx.extras["permissions"] = perms
    return ctx, approver, perms


def call(tool: object, ctx: ToolContext, **args: object) -> ToolResult:
    return asyncio.run(tool.run(args, ctx))  # type: ignore[attr-defined]


def test_ask_mode_shows_the_edit_as_a_diff_and_a_no_leaves_the_file(tmp_path: Path) -> None:
    ctx, approver, _ = make(tmp_path, answer=False)
    target = ctx.cwd / "app.py"
    target.write_text("x = 1\ny = 2\n")
    result = call(edit_file, ctx, path="app.py", old="y = 2", new="y = 3")
    assert not result.ok and "the user declined this edit; nothing was done" in result.text
    assert target.read_text() == "x = 1\ny = 2\n"
    [asked] = approver.asked
    assert asked.kind == "edit" and str(asked) == "app.py" and asked.reason == "change app.py"
    assert "--- a/app.py\n+++ b/app.py\n" in asked.detail
    assert "-y = 2\n+y = 3\n" in asked.detail


def test_ask_mode_applies_an_approved_new_file(tmp_path: Path) -> None:
    ctx, approver, _ = make(tmp_path, answer=True)
    assert call(write_file, ctx, path="new.txt", content="hello\n").ok
    assert (ctx.cwd / "new.txt").read_text() == "hello\n"
    assert "--- /dev/null" in approver.asked[0].detail and "+hello" in approver.asked[0].detail


def test_auto_edit_applies_and_shows_without_asking(tmp_path: Path) -> None:
    ctx, approver, perms = make(tmp_path, "auto-edit")
    shown: list[ApprovalRequest] = []
    perms.on_applied = shown.append
    written: list[Path] = []
    perms.before_write = written.append
    assert call(write_file, ctx, path="a.txt", content="one\n").ok
    assert approver.asked == [] and "+one" in shown[0].detail
    assert written == [ctx.cwd / "a.txt"]


def test_read_only_commands_run_without_asking_by_default(tmp_path: Path) -> None:
    ctx, approver, _ = make(tmp_path, answer=False)
    (ctx.cwd / "f.txt").write_text("x")
    assert call(shell, ctx, command="ls && cat f.txt | wc -c").ok
    assert approver.asked == []
    declined = call(shell, ctx, command="touch g.txt")
    assert not declined.ok and [str(a) for a in approver.asked] == ["touch g.txt"]


def test_always_allowed_commands_are_kept_per_project(tmp_path: Path) -> None:
    _, _, perms = make(tmp_path, answer=False)
    assert perms.rules is not None
    perms.rules.add("exact", "touch exact.txt")
    perms.rules.add("prefix", "mkdir -p")
    # A new session (new objects, the same file) in the same project does not ask.
    again, approver, _ = make(tmp_path, answer=False)
    assert call(shell, again, command="touch exact.txt").ok
    assert call(shell, again, command="mkdir -p d/e").ok
    assert approver.asked == []
    # A prefix covers each simple command, not what is chained to it.
    assert not call(shell, again, command="mkdir -p x && touch y").ok
    assert [str(a) for a in approver.asked] == ["mkdir -p x && touch y"]
    # Another project asks.
    other, asked_there, _ = make(tmp_path, answer=False, project=tmp_path / "other")
    assert not call(shell, other, command="touch exact.txt").ok and asked_there.asked
    stored = json.loads((tmp_path / "home" / "cache" / "permissions.json").read_text())
    assert stored["projects"][str((tmp_path / "project").resolve())] == {
        "exact": ["touch exact.txt"],
        "prefix": ["mkdir -p"],
    }


def test_plan_mode_runs_read_only_tools_only(tmp_path: Path) -> None:
    ctx, approver, _ = make(tmp_path, "plan")
    (ctx.cwd / "f.txt").write_text("x\n")
    registry = default_registry(ctx.home)
    calls = [
        ToolCall("1", "read_file", json.dumps({"path": "f.txt"})),
        ToolCall("2", "write_file", json.dumps({"path": "f.txt", "content": "y"})),
        ToolCall("3", "shell", json.dumps({"command": "ls"})),
        ToolCall("4", "shell", json.dumps({"command": "touch g.txt"})),
        ToolCall("5", "memory", json.dumps({"action": "add", "target": "memory", "content": "z"})),
    ]
    read, write, ls, touch, memory = asyncio.run(registry.run_batch(calls, ctx))
    assert "x" in read.content and "f.txt" in ls.content
    for refused in (write, touch, memory):
        assert "plan mode, where only read-only tools run" in refused.content
    assert (ctx.cwd / "f.txt").read_text() == "x\n" and not (ctx.cwd / "g.txt").exists()
    assert approver.asked == []


def test_yolo_asks_nothing(tmp_path: Path) -> None:
    ctx, approver, _ = make(tmp_path, "yolo", answer=False)
    (ctx.cwd / "junk").mkdir()
    assert call(shell, ctx, command="rm -rf junk").ok
    assert call(write_file, ctx, path="a.txt", content="1").ok
    assert approver.asked == [] and not (ctx.cwd / "junk").exists()


def test_without_a_mode_edits_apply_as_before(tmp_path: Path) -> None:
    ctx, approver, _ = make(tmp_path)
    del ctx.extras["permissions"]  # kenning run, cron, the MCP server
    assert call(write_file, ctx, path="a.txt", content="1").ok and approver.asked == []


def test_prefixes_offered_for_always() -> None:
    assert prefix_of("git commit -m 'x y'") == "git commit"
    assert prefix_of("pytest -q tests") == "pytest"
    assert prefix_of("ls | wc -l") is None and prefix_of("A=1 make") is None
