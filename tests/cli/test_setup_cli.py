"""`kenning setup`: finds a scripted OpenAI-compatible server on a local port,
lists its models, writes [model] into config.toml keeping the rest, tries it."""

from __future__ import annotations

import tomllib
from pathlib import Path

from click.testing import CliRunner, Result

from kenning.cli import cli
from kenning.config.edit import with_values
from kenning.models.discover import Server, candidates
from kenning.testing.wire import OpenAIServer, load_script


def run(*args: str, code: int = 0, stdin: str | None = None) -> Result:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def _listing(*models: str) -> dict[str, object]:
    return {"/v1/models": {"object": "list", "data": [{"id": m} for m in models]}}


def test_setup_finds_the_server_writes_model_and_sends_one_request(
    _hermetic_home: Path,
) -> None:
    _hermetic_home.mkdir(parents=True)
    config = _hermetic_home / "config.toml"
    mine = '# my notes\n[memory]\nuser_budget = 1500  # keep\n\n[model]\ndefault = "x"\n'
    config.write_text(mine)
    with OpenAIServer(["ready"], info=_listing("small-model", "big-model")) as server:
        out = run("setup", "--url", server.base_url, stdin="2\n").output
        asked = server.requests
    assert "1. small-model" in out and "2. big-model" in out
    assert f"at {server.base_url}" in out
    assert "it answers: ready" in out
    written = config.read_text()
    assert written.startswith("# my notes\n[memory]\nuser_budget = 1500  # keep\n")
    assert tomllib.loads(written)["model"] == {"default": "big-model", "base_url": server.base_url}
    assert len(asked) == 1 and asked[0].body["model"] == "big-model"
    # what setup wrote is what the next command uses
    with OpenAIServer(["Hello."], info=_listing("big-model")) as again:
        config.write_text(written.replace(server.base_url, again.base_url))
        assert "Hello." in run("run", "hi").output


def test_setup_says_what_to_start_when_nothing_answers(_hermetic_home: Path) -> None:
    with OpenAIServer() as server:
        url = server.base_url
    out = run("setup", "--url", url, code=1).output
    assert "no model found" in out and "ollama serve" in out and "lms server start" in out


def test_setup_reports_a_failing_test_request(_hermetic_home: Path) -> None:
    script = [{"error": "auth"}]
    with OpenAIServer(load_script(script), info=_listing("m")) as server:
        out = run("setup", "--url", server.base_url, "--yes", code=1).output
    assert "saved, but the test request failed" in out and "authentication failed" in out


def test_servers_on_their_default_ports_become_provider_prefixed_choices() -> None:
    servers = [
        Server("Ollama", "http://127.0.0.1:11434/v1", ("qwen3:8b",)),
        Server("server", "http://127.0.0.1:9999/v1", ("custom",)),
    ]
    found = candidates(servers, {"ANTHROPIC_API_KEY": "sk-x"})
    assert [(c.spec, c.base_url) for c in found] == [
        ("ollama:qwen3:8b", ""),
        ("custom", "http://127.0.0.1:9999/v1"),
        ("anthropic:claude-sonnet-4-5", ""),
    ]


def test_config_edit_replaces_in_place_and_adds_missing_sections() -> None:
    text = '[model]\n# default = "a"\ndefault = "old"  # mine\n[agent]\nmax_iterations = 3\n'
    assert with_values(text, "model", {"default": "new", "timeout_s": 30}) == (
        '[model]\ntimeout_s = 30\n# default = "a"\ndefault = "new"\n[agent]\nmax_iterations = 3\n'
    )
    assert with_values("", "model", {"default": 'q"x'}) == '[model]\ndefault = "q\\"x"\n'
