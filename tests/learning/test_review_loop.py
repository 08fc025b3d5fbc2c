"""The loop closes: what a review keeps is in the next session's prompt and skills."""

from __future__ import annotations

import asyncio
from pathlib import Path

from kenning.agent.events import Notice
from kenning.home import Home
from kenning.learning import install_review, runner_for, take_notices
from kenning.runtime.factory import open_session
from kenning.testing.models import ScriptedModel, tool_call

from .conftest import git_log, start

CORRECTION = "User's projects install dependencies with pnpm, never npm."


def test_a_correction_reaches_the_next_sessions_system_prompt(lhome: Home, tmp_path: Path) -> None:
    model = ScriptedModel(["Run `npm install`.", "Understood: `pnpm install` from now on."])
    reviewer = ScriptedModel(
        [tool_call("memory", action="add", target="user", content=CORRECTION), "Saved."]
    )

    async def session_a() -> str:
        session = start(lhome, model, tmp_path)
        runner = install_review(session, model=reviewer)
        await session.run("How do I install the dependencies?")
        assert not runner.running  # one user turn: below the threshold of 2
        await session.run("No — we always use pnpm, never npm.")
        assert runner.running  # started in the background; the turn did not wait
        await runner.wait()
        await session.close()
        return session.session_id

    sid = asyncio.run(session_a())
    reviewer.assert_complete()
    report = install_review_report(lhome, sid)
    assert report["status"] == "review saved"
    # the review saw the conversation, as data, and its instruction names the range
    seen = reviewer.calls[0].messages
    assert "we always use pnpm" in seen[1].content and "<conversation" in seen[1].content
    assert f"Review session {sid}, messages 1-4" in seen[2].content
    assert CORRECTION in lhome.layout.user_file.read_text()
    assert git_log(lhome)[0] == f"review of session {sid}"

    model_b = ScriptedModel(["Hello."])
    asyncio.run(start(lhome, model_b, tmp_path).run("hi"))
    assert CORRECTION in model_b.calls[0].messages[0].content


def install_review_report(home: Home, session_id: str) -> dict[str, object]:
    reviews = [s for s in home.archive.sessions(limit=20) if s.source == "review"]
    assert len(reviews) == 1 and reviews[0].parent_id == session_id
    return {"status": reviews[0].end_reason}


def test_the_user_sees_one_line_or_nothing(lhome: Home, tmp_path: Path) -> None:
    model = ScriptedModel(["a", "b", "c", "d"])
    reviewer = ScriptedModel(
        [
            tool_call("memory", action="add", target="memory", content="The API listens on 8080."),
            "Saved.",
            "Nothing to save.",
        ]
    )

    async def run() -> tuple[list[Notice], list[Notice]]:
        session = start(lhome, model, tmp_path)
        runner = install_review(session, model=reviewer)
        await session.run("one")
        await session.run("two")
        await runner.wait()
        first = take_notices(session)
        await session.run("three")
        await session.run("four")
        await runner.wait()
        return first, take_notices(session)

    first, second = asyncio.run(run())
    assert first == [Notice("memory updated")]
    assert second == []


SKILL = """\
---
name: docker-network-fix
description: Fix containers that cannot reach each other on a user-defined Docker network.
tags: [docker, networking]
---
# Docker network fix

## When
Containers on one compose project cannot resolve each other by service name.

## Steps
1. `docker network inspect <net>` and check both containers are attached.
2. Attach the missing one: `docker network connect <net> <container>`.

## Pitfalls
- Use the service name, not the container name: compose aliases only the service.

## Verify
`docker exec <a> getent hosts <b>` prints an address.
"""


def test_a_method_becomes_a_skill_the_next_session_lists_and_loads(
    tmp_path: Path,
) -> None:
    from .conftest import learning_home

    home = learning_home(
        tmp_path / "home", review={"memory_every_user_turns": 0, "skills_every_iterations": 3}
    )
    (tmp_path / "compose.yml").write_text("services: {api: {}, db: {}}\n")
    model = ScriptedModel(
        [
            tool_call("read_file", path="compose.yml"),
            tool_call("read_file", path="missing-network.txt"),  # a failed attempt
            tool_call("write_file", path="fix.sh", content="docker network connect app db\n"),
            "Fixed: the db container was not on the app network; connected it.",
        ]
    )
    reviewer = ScriptedModel(
        [
            tool_call("skill_manage", action="create", name="docker-network-fix", content=SKILL),
            "Created skill docker-network-fix.",
        ]
    )

    async def session_a() -> None:
        session = start(home, model, tmp_path)
        runner = install_review(session, model=reviewer)
        await session.run("The api container cannot reach db. Fix it.")
        report = await runner.wait()
        assert report is not None and report.status == "saved", report
        assert [(s.name, s.verb) for s in report.skills] == [("docker-network-fix", "created")]
        assert take_notices(session) == [Notice("skill 'docker-network-fix' created")]
        await session.close()

    asyncio.run(session_a())
    # the skills review prompt is the skills one, with the index
    assert "Background review: skills" in reviewer.calls[0].messages[0].content

    model_b = ScriptedModel([tool_call("skill_view", name="docker-network-fix"), "Done."])
    session_b = open_session(home, model=model_b, cwd=tmp_path)  # the real wiring
    assert runner_for(session_b) is not None  # open_session installs the review
    asyncio.run(session_b.run("containers cannot talk"))
    assert "docker-network-fix" in model_b.calls[0].messages[0].content
    viewed = model_b.calls[1].messages[-1]
    assert viewed.role == "tool" and "docker network connect" in viewed.content


def test_review_now_in_the_foreground_and_its_session_ranks_low(
    lhome: Home, tmp_path: Path
) -> None:
    from kenning.learning import describe, review_now

    model = ScriptedModel(["Noted."])
    reviewer = ScriptedModel(
        [tool_call("memory", action="add", target="user", content="User's cat is named Biscuit."),
         "Saved."]
    )  # fmt: skip

    async def run() -> object:
        session = start(lhome, model, tmp_path)
        await session.run("My cat Biscuit knocked the router over again.")
        report = await review_now(session, model=reviewer)
        again = await review_now(session, model=reviewer)
        assert (
            again.status == "empty" and describe(again) == "nothing new to review in this session"
        )
        return report

    report = asyncio.run(run())
    assert describe(report) == "memory updated"  # type: ignore[arg-type]
    review = next(s for s in lhome.archive.sessions(limit=5) if s.source == "review")
    stored = [m.content for m in lhome.archive.messages(review.id)]
    # the conversation was shown to the review model but not copied into its archived session
    assert not any("knocked the router" in text for text in stored)
    hits = lhome.search.search("Biscuit router", kinds=("message",)).hits
    assert hits and all(h.source != "review" for h in hits)


def test_one_review_per_session_across_processes(lhome: Home, tmp_path: Path) -> None:
    from kenning.learning.background import lock_file
    from kenning.locks import try_lock

    model = ScriptedModel(["a", "b"])
    reviewer = ScriptedModel([])

    async def run() -> object:
        session = start(lhome, model, tmp_path)
        runner = install_review(session, model=reviewer)
        await session.run("one")
        with try_lock(lock_file(lhome, session.session_id)):  # another process reviews it
            await session.run("two")
            return await runner.wait()

    report = asyncio.run(run())
    assert report is not None and report.status == "busy"  # type: ignore[attr-defined]
    assert reviewer.calls == []
