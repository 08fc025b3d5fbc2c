"""Fixtures for ``kenning ui``: a home with something in every part, and a client with the token."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from kenning.archive.store import Message
from kenning.home import Home
from kenning.learning.dream import Dreamer
from kenning.memory.store import Target
from kenning.skills.guards import Writer
from kenning.skills.library import SkillLibrary
from kenning.skills.model import compose_skill_md
from kenning.ui.app import Ui, build_app
from kenning.ui.security import Guard

# The settings every UI test home uses: keyword search (no model to load),
# and automated skill writers propose rather than write.
SETTINGS = {"embedding": {"provider": "none"}, "skills": {"mode": "propose"}}
SET_ARGS = ("--set", "embedding.provider=none", "--set", "skills.mode=propose")
PORT = 8765
AGENT = Writer("agent", "live")
REVIEW = Writer("agent", "review-7", automated=True)


@dataclass(frozen=True)
class Seeded:
    root: Path
    session: str  # a chat with a tool call and a compaction
    child: str  # its review session


def seed(root: Path) -> Seeded:
    """Hot memory, a journal, sessions (tool call, compaction, a child), a skill and a proposal,
    and a few searches in the recall log."""
    home = Home.open(root, overrides=SETTINGS)
    try:
        home.memory.add(Target.MEMORY, "The staging database is Postgres 17 on port 5433")
        home.memory.add(Target.MEMORY, "Deploys go through make deploy from the bastion host")
        home.memory.add(Target.USER, "Prefers pnpm over npm for front-end projects")
        home.journal.append("Decided to keep the staging database on port 5433")
        archive = home.archive
        sid = archive.start_session("cli", title="staging deploy")
        archive.append(sid, Message("user", "Which port does the staging database use?"))
        archive.append(
            sid,
            Message(
                "assistant",
                "Let me look that up.",
                tool_calls=[
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "memory_search", "arguments": '{"query": "port"}'},
                    }
                ],
            ),
        )
        archive.append(
            sid, Message("tool", "MEMORY.md: staging database … 5433", tool_call_id="c1")
        )
        archive.append(sid, Message("assistant", "The staging database listens on port 5433."))
        summary = Message(
            "user",
            "[summary of messages 1-4] the staging database is on port 5433",
            speaker="kenning",
            meta={"compaction": {"cycle": 1, "reason": "budget", "replaces": "1-4"}},
        )
        archive.replace_with_summary(sid, summary, [1, 2])
        child = archive.start_session("review", title="review of staging deploy", parent_id=sid)
        archive.append(child, Message("user", "Review the staging deploy session."))
        for query in ("staging database port", "which port for staging", "bastion deploy"):
            home.search.search(query)
        library = SkillLibrary.for_home(home)
        body = "## Steps\n1. Run `make deploy` on the bastion.\n2. Check the *health* page.\n"
        text = compose_skill_md("deploy-steps", "How to deploy. Use when deploying.", body)
        library.create("deploy-steps", text, by=AGENT)
        library.view("deploy-steps", session_id=REVIEW.session_id)
        library.patch("deploy-steps", "health", "status", by=REVIEW, reason="renamed page")
        return Seeded(root, sid, child)
    finally:
        home.close()


@pytest.fixture
def seeded(_hermetic_home: Path) -> Seeded:
    return seed(_hermetic_home)


@dataclass
class Client:
    http: TestClient
    guard: Guard
    home: Home

    def post(self, path: str, data: dict[str, str]) -> object:
        return self.http.post(path, data={"csrf": self.guard.csrf, **data})


def client_for(
    root: Path, *, read_only: bool = False, dreamer: Callable[[Home], Dreamer] = Dreamer
) -> Iterator[Client]:
    home = Home.open(root, overrides=SETTINGS)
    guard = Guard("127.0.0.1", PORT, read_only=read_only)
    ui = Ui(home, guard, dreamer=dreamer)
    http = TestClient(build_app(ui), base_url=f"http://127.0.0.1:{PORT}")
    http.cookies.set(guard.cookie, guard.token)
    try:
        yield Client(http, guard, home)
    finally:
        http.close()
        ui.close()
        home.close()


def candidates_when_ready(client: Client, *, timeout: float = 60.0) -> str:
    """The candidates fragment once the background dry run for now's inputs is done."""
    deadline = time.monotonic() + timeout
    while True:
        body = client.http.get("/dreams/candidates", headers={"hx-request": "true"}).text
        if "computing…" not in body:
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"the candidates were still computing after {timeout} s")
        time.sleep(0.05)


@pytest.fixture
def client(seeded: Seeded) -> Iterator[Client]:
    yield from client_for(seeded.root)
