"""`kenning doctor`'s checks of what a chat needs beyond the home: the model
answers, the embedder is there, MCP registrations start, the daemon runs jobs."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

from kenning import doctor
from kenning.doctor import Check, Report
from kenning.memory.store import Target
from kenning.testing import make_home
from kenning.testing.wire import OpenAIServer


def check(report: Report, name: str) -> Check:
    [found] = [c for c in report.checks if c.name == name]
    return found


def run(root: Path, **env: str) -> Report:
    return doctor.diagnose(root, environ={"HOME": str(root.parent / "user"), **env})


def _home(tmp_path: Path) -> Path:
    home = make_home(tmp_path / "home")
    home.memory.add(Target.MEMORY, "Project uses pnpm")  # creates the home
    return home.root


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_no_model_warns_with_setup(tmp_path: Path) -> None:
    root = _home(tmp_path)
    found = check(run(root), "model")
    assert found.status == "warn" and "kenning setup" in found.fix


def test_a_stopped_local_server_fails_with_the_command_that_starts_it(tmp_path: Path) -> None:
    root = _home(tmp_path)
    env = {"KENNING_MODEL__DEFAULT": "ollama:qwen3", "OLLAMA_HOST": f"127.0.0.1:{_free_port()}"}
    found = check(run(root, **env), "model")
    assert found.status == "fail" and "nothing answers" in found.summary
    assert "`ollama serve`" in found.fix


def test_a_served_model_is_ok_and_one_not_served_fails(tmp_path: Path) -> None:
    root = _home(tmp_path)
    listing = {"/v1/models": {"object": "list", "data": [{"id": "local-model"}]}}
    with OpenAIServer(info=listing) as server:
        env = {"KENNING_MODEL__BASE_URL": server.base_url}
        good = check(run(root, KENNING_MODEL__DEFAULT="local-model", **env), "model")
        bad = check(run(root, KENNING_MODEL__DEFAULT="other", **env), "model")
    assert good.status == "ok" and "answers" in good.summary
    assert server.requests == []  # asked for its models, never for an answer
    assert bad.status == "fail" and "does not serve other (it serves local-model)" in bad.summary


def test_a_hosted_model_without_its_key_fails_with_the_export(tmp_path: Path) -> None:
    root = _home(tmp_path)
    found = check(run(root, KENNING_MODEL__DEFAULT="anthropic:claude-sonnet-4-5"), "model")
    assert found.status == "fail" and "export ANTHROPIC_API_KEY=" in found.fix


def test_an_unreachable_embedding_server_fails(tmp_path: Path) -> None:
    root = _home(tmp_path)
    env = {
        "KENNING_EMBEDDING__PROVIDER": "openai",
        "KENNING_EMBEDDING__BASE_URL": f"http://127.0.0.1:{_free_port()}/v1",
        "KENNING_EMBEDDING__MODEL": "nomic-embed-text",
    }
    found = check(run(root, **env), "embedding-model")
    assert found.status == "fail" and "nothing answers" in found.summary


def test_an_mcp_registration_whose_command_is_gone_fails(tmp_path: Path) -> None:
    root = _home(tmp_path)
    user = tmp_path / "user"
    user.mkdir()
    assert check(run(root), "mcp-hosts").status == "ok"
    gone = {"command": str(tmp_path / "old-venv" / "bin" / "kenning"), "args": ["mcp"]}
    claude = {"projects": {"/src/app": {"mcpServers": {"kenning": gone}}}}
    (user / ".claude.json").write_text(json.dumps(claude))
    found = check(run(root), "mcp-hosts")
    assert found.status == "fail" and "Claude Code (/src/app)" in found.summary
    assert "mcp config" in found.fix
    claude["mcpServers"] = {"kenning": {"command": sys.executable, "args": ["-m", "kenning"]}}
    del claude["projects"]
    (user / ".claude.json").write_text(json.dumps(claude))
    assert check(run(root), "mcp-hosts").summary == "registered with Claude Code (user)"


def test_cron_jobs_without_a_running_daemon_warn(tmp_path: Path) -> None:
    root = _home(tmp_path)
    assert check(run(root), "daemon").status == "ok"
    (root / "cron").mkdir(exist_ok=True)
    job = {"name": "digest", "schedule": "daily 08:00", "task": "x", "model": "m"}
    (root / "cron" / "jobs.json").write_text(json.dumps({"jobs": [job]}))
    found = check(run(root), "daemon")
    assert found.status == "warn" and "1 cron job(s) will not run" in found.summary
    assert "kenning daemon" in found.fix


def test_a_bad_mcp_server_entry_fails_by_name(tmp_path: Path) -> None:
    root = _home(tmp_path)
    assert check(run(root), "mcp-servers").status == "ok"
    (root / "config.toml").write_text('[mcp.servers.docs]\ntransport = "http"\n')
    found = check(run(root), "mcp-servers")
    assert found.status == "fail" and "'docs': an http server needs url" in found.details[0]
