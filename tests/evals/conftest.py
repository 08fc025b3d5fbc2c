"""The reference agent, served over a real socket, shared by the scenario tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from kenning.evals.reference import ReferenceAgent


@pytest.fixture
def reference() -> Iterator[Callable[..., ReferenceAgent]]:
    """``reference(*flaws)``: a reference agent (closed after the test)."""
    made: list[ReferenceAgent] = []

    def make(*flaws: str) -> ReferenceAgent:
        agent = ReferenceAgent(flaws)
        made.append(agent)
        return agent

    yield make
    for agent in made:
        agent.close()
        assert not agent.errors, agent.errors
        assert not agent.server.errors, agent.server.errors
