"""Providers through the CLI: `kenning sessions compact` tells the provider, a bad name is said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from tests.context.conftest import fill
from tests.providers.conftest import Recorder

from kenning.agent.loop import AgentSession
from kenning.cli import cli
from kenning.home import Home
from kenning.models import registry
from kenning.providers import ProviderSetup, manager
from kenning.testing.summariser import DeterministicSummariser
from kenning.tools.registry import ToolRegistry


def run(*args: str, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """A provider named "recorder", as if built in; selected through the environment."""
    made = Recorder()

    def factory(setup: ProviderSetup) -> Recorder:
        return made

    monkeypatch.setitem(manager.BUILTIN, "recorder", factory)
    monkeypatch.setitem(
        registry.MODEL_FACTORIES, "det", lambda req: DeterministicSummariser(name=req.spec)
    )
    monkeypatch.setenv("KENNING_MEMORY__PROVIDER", "recorder")
    return made


def a_session(tmp_path: Path) -> str:
    session = AgentSession.start(
        Home.open(), DeterministicSummariser(), ToolRegistry(), cwd=tmp_path
    )
    fill(session, [(f"ask {i}: look at build a1b2c3d4{i:04d}", f"answer {i}") for i in range(30)])
    return session.session_id


def test_sessions_compact_lets_the_provider_see_what_it_drops(
    recorder: Recorder, tmp_path: Path
) -> None:
    sid = a_session(tmp_path)
    report = json.loads(run("sessions", "compact", sid, "--model", "det:x", "--json").stdout)
    assert report["compacted"]
    # the command returns only once the queued hooks ran
    assert recorder.hooks() == ["on_pre_compress", "on_session_end", "close"]
    dropped = recorder.heard[0][1]
    assert len(dropped) == report["messages_compacted"] and "answer 3" in dropped


def test_an_unknown_provider_stops_sessions_compact_with_the_valid_names(
    recorder: Recorder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = a_session(tmp_path)
    monkeypatch.setenv("KENNING_MEMORY__PROVIDER", "recordr")
    result = run("sessions", "compact", sid, "--model", "det:x", code=1)
    assert "unknown [memory] provider 'recordr'; use one of: team, recorder" in result.output
