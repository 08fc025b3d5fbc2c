"""What a review may not do, and what it must not lose: restricted tools, guarded skills,
and the user's own writes made while it runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from kenning.home import Home
from kenning.learning import install_review
from kenning.memory.store import Target
from kenning.models.types import ChatMessage, ToolSpec
from kenning.skills.agent_tools import library_for
from kenning.skills.guards import USER, Writer
from kenning.testing.models import FunctionModel, ScriptedModel, tool_call

from .conftest import git_log, learning_home, start
from .test_review_loop import SKILL

AGENT = SKILL.replace("docker-network-fix", "agent-skill")
MINE = SKILL.replace("docker-network-fix", "my-skill")


def _home(tmp_path: Path) -> Home:
    home = learning_home(tmp_path / "home", review={"memory_every_user_turns": 1})
    library = library_for(home)
    library.create("agent-skill", AGENT, by=Writer("agent", "earlier"))
    library.create("my-skill", MINE, by=USER)
    return home


def _review(home: Home, tmp_path: Path, reviewer: Any) -> Any:
    async def run() -> Any:
        session = start(home, ScriptedModel(["ok"]), tmp_path)
        runner = install_review(session, model=reviewer)
        await session.run("do the thing")
        return await runner.wait()

    return asyncio.run(run())


def _results(reviewer: Any) -> list[dict[str, Any] | str]:
    out: list[dict[str, Any] | str] = []
    for message in reviewer.calls[-1].messages:
        if message.role == "tool":
            try:
                out.append(json.loads(message.content))
            except ValueError:
                out.append(message.content)
    return out


def test_tools_outside_the_set_are_refused_at_dispatch(tmp_path: Path) -> None:
    home = _home(tmp_path)
    reviewer = ScriptedModel(
        [
            [
                tool_call("shell", command="rm -rf ~"),
                tool_call("write_file", path="x.txt", content="hi"),
                tool_call("delegate_task", goal="write memory for me"),
                tool_call("memory_get", path="memories/MEMORY.md"),
                tool_call("skill_manage", action="delete", name="agent-skill"),
            ],
            "Nothing to save.",
        ]
    )
    report = _review(home, tmp_path, reviewer)
    assert report.status == "nothing"
    results = _results(reviewer)
    assert all("not available in this context (background review" in str(r) for r in results[:4])
    assert "does not delete skills" in str(results[4])
    assert not (tmp_path / "x.txt").exists()
    assert (home.layout.skills_dir / "agent-skill" / "SKILL.md").is_file()
    offered = {t.name for t in reviewer.calls[0].tools}
    assert offered == {
        "memory", "skill_view", "skill_manage", "session_search", "memory_search",
        "read_file", "list_files", "search_files",
    }  # fmt: skip


def test_protected_and_unread_skills_cannot_be_changed(tmp_path: Path) -> None:
    home = _home(tmp_path)
    patch = {"action": "patch", "old_string": "## When", "new_string": "## When to use"}
    reviewer = ScriptedModel(
        [
            tool_call("skill_view", name="my-skill"),
            tool_call("skill_manage", name="my-skill", **patch),  # user-written
            tool_call("skill_manage", name="agent-skill", **patch),  # not read yet
            tool_call("skill_view", name="agent-skill"),
            tool_call("skill_manage", name="agent-skill", **patch),  # read: allowed
            "Patched agent-skill.",
        ]
    )
    report = _review(home, tmp_path, reviewer)
    results = _results(reviewer)
    assert results[1]["error"] == "protected" and "written by the user" in results[1]["message"]
    assert results[2]["error"] == "not_read"
    assert results[4]["success"] is True
    assert report.status == "saved"
    assert [(s.name, s.verb) for s in report.skills] == [("agent-skill", "patched")]
    assert (home.layout.skills_dir / "my-skill" / "SKILL.md").read_text() == MINE
    assert "## When to use" in (home.layout.skills_dir / "agent-skill" / "SKILL.md").read_text()


def test_user_writes_during_a_review_are_kept(tmp_path: Path) -> None:
    home = _home(tmp_path)
    home.memory.add(Target.MEMORY, "Seed fact.")

    def reviewer_fn(messages: list[ChatMessage], tools: list[ToolSpec], s: Any) -> Any:
        done = sum(1 for m in messages if m.role == "tool")
        if done == 0:
            return tool_call("memory", action="add", target="memory", content="Review fact.")
        if done == 1:
            return tool_call("skill_view", name="agent-skill")
        if done == 2:
            return tool_call(
                "skill_manage", action="patch", name="agent-skill",
                old_string="## Verify", new_string="## Verify it",
            )  # fmt: skip
        # While the review thinks: the user saves through Kenning and edits by hand.
        home.memory.add(Target.USER, "User prefers short answers.")
        home.memory.add(Target.MEMORY, "User fact via the tool.")
        text = home.layout.memory_file.read_text()
        home.layout.memory_file.write_text(text + "§\nEdited in an editor while the review ran.\n")
        library_for(home).create(
            "new-user-skill", SKILL.replace("docker-network-fix", "new-user-skill")
        )
        return "Saved one fact, patched agent-skill."

    report = _review(home, tmp_path, FunctionModel(reviewer_fn))
    assert report.status == "saved", report.error
    memory = home.memory.read(Target.MEMORY).entries
    assert memory == (
        "Seed fact.",
        "User fact via the tool.",
        "Edited in an editor while the review ran.",
        "Review fact.",
    )
    assert home.memory.read(Target.USER).entries == ("User prefers short answers.",)
    assert (home.layout.skills_dir / "new-user-skill" / "SKILL.md").is_file()
    assert "## Verify it" in (home.layout.skills_dir / "agent-skill" / "SKILL.md").read_text()
    log = git_log(home)
    assert log[0].startswith("review of session")
    assert any(line.startswith("hand edit of memories/MEMORY.md") for line in log[:3])


def test_a_skill_changed_by_the_user_aborts_the_whole_review(tmp_path: Path) -> None:
    home = _home(tmp_path)
    before_user = None

    def reviewer_fn(messages: list[ChatMessage], tools: list[ToolSpec], s: Any) -> Any:
        nonlocal before_user
        done = sum(1 for m in messages if m.role == "tool")
        steps = [
            tool_call("memory", action="add", target="user", content="User likes tea."),
            tool_call("skill_view", name="agent-skill"),
            tool_call("skill_manage", action="patch", name="agent-skill",
                      old_string="## When", new_string="## When to use"),
        ]  # fmt: skip
        if done < len(steps):
            return steps[done]
        library_for(home).patch("agent-skill", "## Pitfalls", "## Pitfalls (user)")
        before_user = (home.layout.skills_dir / "agent-skill" / "SKILL.md").read_text()
        return "Done."

    report = _review(home, tmp_path, FunctionModel(reviewer_fn))
    assert report.status == "failed" and "agent-skill' changed while the review ran" in (
        report.error or ""
    )
    assert (home.layout.skills_dir / "agent-skill" / "SKILL.md").read_text() == before_user
    assert not home.layout.user_file.exists()  # all or nothing: the memory part did not land


def test_in_propose_mode_the_review_only_proposes(tmp_path: Path) -> None:
    from kenning.config import SkillsConfig

    home = learning_home(
        tmp_path / "home",
        review={"memory_every_user_turns": 1},
        skills=SkillsConfig(mode="propose"),
    )
    library_for(home).create("agent-skill", AGENT, by=Writer("agent", "earlier"))
    reviewer = ScriptedModel(
        [
            tool_call("skill_view", name="agent-skill"),
            tool_call("skill_manage", action="patch", name="agent-skill",
                      old_string="## Verify", new_string="## Verify it"),
            "Proposed a patch.",
        ]
    )  # fmt: skip
    report = _review(home, tmp_path, reviewer)
    assert report.status == "saved"
    assert [(s.name, s.verb) for s in report.skills] == [("agent-skill", "proposed")]
    assert (home.layout.skills_dir / "agent-skill" / "SKILL.md").read_text() == AGENT
    pending = [p for p, stale in library_for(home).proposal_states() if not stale]
    assert len(pending) == 1 and pending[0].change.new == "## Verify it"
    assert git_log(home)[0].startswith("review of session")


def test_a_symlinked_memory_file_is_neither_copied_nor_replaced_by_a_review(
    tmp_path: Path,
) -> None:
    from kenning.learning.staging import Staging, StagingConflict

    home = learning_home(tmp_path / "home")
    outside = tmp_path / "outside.md"
    outside.write_text("secret outside the home\n")
    home.layout.memory_file.parent.mkdir(parents=True)
    home.layout.memory_file.symlink_to(outside)
    staging = Staging.create(home)
    try:
        assert staging.home.memory.read(Target.MEMORY).entries == ()  # the target stays out
        staging.home.memory.add(Target.MEMORY, "Review fact.")
        with pytest.raises(StagingConflict, match="symbolic link"):
            staging.land("s1")
    finally:
        staging.close()
    assert home.layout.memory_file.is_symlink()
    assert outside.read_text() == "secret outside the home\n"
