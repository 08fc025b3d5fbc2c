"""What a background review costs beyond its model calls, and what it writes.

A scripted 50-turn session (tool calls, a correction from the user, a skill
the agent loaded) is archived in a temporary home with git history on; then
one combined review runs on it with a scripted review model that does what a
good review does: reads memory and the skill it used, saves the correction
to USER.md and a fact to MEMORY.md, patches the used skill and creates a new
one. The model answers instantly and its time is measured and subtracted, so
what remains is Kenning's part: the snapshot, the staging copy of hot memory
and skills, the restricted agent session (archive writes, tool dispatch,
guards, validation, scans), and the all-or-nothing landing with its one git
commit.

Measured at several skills-library sizes, because the staging copy reads
every skill folder. Also reported: the synchronous part of the trigger (what
the user's turn pays when a review starts in the background) and the longest
the event loop went without running other work during the review (``stall``:
what a user typing the next turn would feel).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kenning.agent.loop import AgentSession, AgentSettings
from kenning.config import Config, EmbeddingConfig, ReviewConfig
from kenning.home import Home
from kenning.learning.background import install_review
from kenning.learning.review import KINDS, ReviewReport, run_review, summary_line, take_snapshot
from kenning.models.types import ChatMessage, ToolSpec
from kenning.runtime.factory import build_tools
from kenning.skills.files import write_snapshot
from kenning.skills.state import SkillRecord, StateStore
from kenning.testing.models import FunctionModel, ScriptedModel, tool_call

USED_SKILL = "release-checklist"
SKILL_TEXT = """\
---
name: {name}
description: How to {what} safely, step by step, with the checks that matter.
tags: [ops]
---
# {title}

## When
Use it when you {what}.

## Steps
1. Check the working tree is clean.
2. Run the test suite.
3. Tag and push.

## Pitfalls
- Never tag from a dirty tree: the tag would not match the tested code.

## Verify
The tag exists on the remote and CI is green.
"""


def _skill(name: str, what: str) -> bytes:
    title = name.replace("-", " ").capitalize()
    return SKILL_TEXT.format(name=name, what=what, title=title).encode("utf-8")


def _home(root: Path, skills: int) -> Home:
    config = Config(
        embedding=EmbeddingConfig(provider="none"),
        review=ReviewConfig(memory_every_user_turns=0, skills_every_iterations=0),
    )
    home = Home(root, config)
    folder = home.layout.skills_dir
    records = {}
    for i in range(skills):
        name = USED_SKILL if i == 0 else f"library-skill-{i:04d}"
        write_snapshot(folder / name, {}, {"SKILL.md": _skill(name, f"handle case {i}")})
        records[name] = SkillRecord(created_by="agent", created_at="2026-11-01T00:00:00+00:00")
    if skills:
        StateStore(folder, home.layout.backups_dir).save_records(records)
        from kenning.skills.transaction import GITIGNORE

        (folder / ".gitignore").write_text(GITIGNORE)
        home.history.record([folder], f"bench: {skills} agent skills")
    return home


def _session_model(turns: int) -> FunctionModel:
    def reply(messages: list[ChatMessage], tools: list[ToolSpec], settings: Any) -> Any:
        last = messages[-1]
        user_turns = sum(1 for m in messages if m.role == "user")
        if last.role == "user":
            if user_turns == 1:
                return tool_call("skill_view", name=USED_SKILL)
            if user_turns % 3 == 0:
                return tool_call("read_file", path="README.md")
        return f"Done with step {user_turns} of {turns}."

    return FunctionModel(reply, name="bench:session")


def _user_text(i: int) -> str:
    if i == 10:
        return "No — never push tags before CI is green; always wait for the green build first."
    return f"Step {i}: please continue with the release work and tell me what changed."


def _reviewer() -> ScriptedModel:
    new_skill = _skill("ci-gate-before-tag", "gate a release tag on CI").decode()
    return ScriptedModel(
        [
            [
                tool_call("memory", action="show", target="user"),
                tool_call("skill_view", name=USED_SKILL),
            ],
            [
                tool_call(
                    "memory",
                    action="add",
                    target="user",
                    content="User wants release tags pushed only after CI is green.",
                ),
                tool_call(
                    "memory",
                    action="add",
                    target="memory",
                    content="Releases are cut from a clean tree after the full test suite passes.",
                ),
            ],
            tool_call(
                "skill_manage",
                action="patch",
                name=USED_SKILL,
                old_string="3. Tag and push.",
                new_string="3. Wait for CI to be green.\n4. Tag and push.",
            ),
            tool_call(
                "skill_manage", action="create", name="ci-gate-before-tag", content=new_skill
            ),
            "USER.md: tags only after green CI. MEMORY.md: release facts. Patched "
            f"{USED_SKILL}; created ci-gate-before-tag.",
        ]
    )


async def _one(root: Path, turns: int, skills: int) -> dict[str, Any]:
    home = _home(root / "home", skills)
    (root / "README.md").write_text("# Project\nRelease notes live here.\n")
    session = AgentSession.start(
        home,
        _session_model(turns),
        build_tools(home),
        cwd=root,
        settings=AgentSettings(source="cli", stream=False),
    )
    for i in range(1, turns + 1):
        await session.run(_user_text(i))
    runner = install_review(session, model=_reviewer())
    t0 = time.perf_counter()
    snapshot = take_snapshot(home.archive, session.session_id)
    trigger_s = time.perf_counter() - t0
    stall = _LoopWatch()
    watcher = asyncio.get_running_loop().create_task(stall.watch())
    report = await run_review(home, snapshot, KINDS, runner.model or session.model, cwd=root)
    watcher.cancel()
    await session.close()
    return {
        "report": report,
        "trigger_s": trigger_s,
        "messages": len(snapshot.messages),
        "stall_s": stall.worst,
    }


class _LoopWatch:
    """The longest the event loop went without running a ready task (what a user would feel)."""

    def __init__(self) -> None:
        self.worst = 0.0

    async def watch(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.worst = max(self.worst, now - last - 0.001)
            last = now


def run(
    turns: int = 50,
    skills: Sequence[int] = (1, 300),
    repeats: int = 3,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """One row per library size: medians over ``repeats`` fresh homes."""
    rows = []
    for size in skills:
        samples: list[dict[str, Any]] = []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory(prefix="kenning-bench-review-") as tmp:
                samples.append(asyncio.run(_one(Path(tmp), turns, max(1, size))))
            if progress is not None:
                progress(1)
        reports: list[ReviewReport] = [s["report"] for s in samples]

        def med(values: list[float]) -> float:
            return round(statistics.median(values) * 1000, 1)

        last = reports[-1]
        rows.append(
            {
                "skills": max(1, size),
                "turns": turns,
                "messages_reviewed": samples[-1]["messages"],
                "status": last.status,
                "total_ms": med([r.seconds for r in reports]),
                "model_ms": med([r.model_seconds for r in reports]),
                "overhead_ms": med([r.seconds - r.model_seconds for r in reports]),
                "staging_copy_ms": med([r.stages.get("staging_copy", 0.0) for r in reports]),
                "prepare_ms": med([r.stages.get("prepare", 0.0) for r in reports]),
                "landing_ms": med([r.stages.get("landing", 0.0) for r in reports]),
                "trigger_snapshot_ms": med([s["trigger_s"] for s in samples]),
                "loop_stall_ms": med([s["stall_s"] for s in samples]),
                "model_requests": last.model_requests,
                "wrote": summary_line(last),
                "memory_changes": [
                    f"{m.target.filename}: {c}" for m in last.memory for c in m.changes
                ],
                "commit": last.commit,
                "error": last.error,
            }
        )
    return {"rows": rows, "repeats": repeats}


def table(report: dict[str, Any]) -> list[str]:
    lines = [
        f"{'skills':>7}{'msgs':>6}{'total ms':>10}{'model ms':>10}{'overhead':>10}"
        f"{'copy':>8}{'prepare':>9}{'landing':>9}{'trigger':>9}{'stall':>7}"
    ]
    for r in report["rows"]:
        lines.append(
            f"{r['skills']:>7}{r['messages_reviewed']:>6}{r['total_ms']:>10}{r['model_ms']:>10}"
            f"{r['overhead_ms']:>10}{r['staging_copy_ms']:>8}{r['prepare_ms']:>9}"
            f"{r['landing_ms']:>9}{r['trigger_snapshot_ms']:>9}{r['loop_stall_ms']:>7}"
        )
    last = report["rows"][-1]
    lines.append(f"status: {last['status']}; wrote: {last['wrote'] or 'nothing'}")
    lines += [f"  {line}" for line in last["memory_changes"]]
    lines.append(f"one commit: {last['commit']} ({last['model_requests']} model requests)")
    if last["error"]:
        lines.append(f"error: {last['error']}")
    return lines
