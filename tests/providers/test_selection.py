"""Choosing the provider from ``[memory]``, and what the package may depend on."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import kenning
from kenning.config import ConfigError, MemoryConfig, load
from kenning.providers import (
    MemoryProvider,
    ProviderError,
    ProviderManager,
    ProviderSetup,
    available,
    from_config,
)
from kenning.providers.team import TeamMemory

SRC = Path(kenning.__file__).resolve().parent


class Listed(MemoryProvider):
    name = "listed"

    def __init__(self, setup: ProviderSetup) -> None:
        self.setup = setup


def test_no_provider_means_built_in_memory_only() -> None:
    assert from_config(MemoryConfig(), plugin_factories={}) is None
    assert from_config(MemoryConfig(provider="builtin"), plugin_factories={}) is None


def test_an_unknown_name_lists_every_name_that_works() -> None:
    with pytest.raises(ProviderError) as caught:
        from_config(MemoryConfig(provider="teem"), plugin_factories={"listed": Listed})
    message = str(caught.value)
    assert "unknown [memory] provider 'teem'" in message
    assert "use one of: team, listed" in message and "kenning plugins" in message
    assert available({"listed": Listed}) == ["team", "listed"]


def test_a_plugin_provider_gets_its_options_and_the_built_in_comes_first(tmp_path: Path) -> None:
    cfg = MemoryConfig(provider="listed", provider_options={"depth": 2}, provider_timeout_s=0.5)
    manager = from_config(cfg, home_root=tmp_path, plugin_factories={"listed": Listed})
    assert isinstance(manager, ProviderManager)
    assert manager.names == ("builtin", "listed") and manager.prefetch_timeout_s == 0.5
    assert isinstance(manager.provider, Listed)
    assert manager.provider.setup == ProviderSetup("listed", {"depth": 2}, tmp_path)


def test_a_provider_that_fails_to_start_or_is_no_provider_says_whose() -> None:
    def crashes(setup: ProviderSetup) -> MemoryProvider:
        raise KeyError("token")

    with pytest.raises(ProviderError, match=r"'crash' failed to start \(KeyError: 'token'\)"):
        from_config(MemoryConfig(provider="crash"), plugin_factories={"crash": crashes})
    with pytest.raises(ProviderError, match=r"made a str, not a kenning\.providers\.MemoryP"):
        from_config(MemoryConfig(provider="odd"), plugin_factories={"odd": lambda s: "odd"})


def test_the_team_provider_checks_its_options() -> None:
    def team(**options: object) -> None:
        from_config(MemoryConfig(provider="team", provider_options=options), plugin_factories={})

    with pytest.raises(ProviderError, match=r"needs \[memory\.provider_options\] url"):
        team()
    with pytest.raises(ProviderError, match="urll: not an option of the team provider"):
        team(urll="http://127.0.0.1:1/mcp")
    with pytest.raises(ProviderError, match="limit = 50: use a number from 1 to 20"):
        team(url="http://127.0.0.1:1/mcp", limit=50)
    with pytest.raises(ProviderError, match="mirror_writes = 'yes': use true or false"):
        team(url="http://127.0.0.1:1/mcp", mirror_writes="yes")
    made = from_config(
        MemoryConfig(provider="team", provider_options={"url": "http://127.0.0.1:1/mcp"}),
        plugin_factories={},
    )
    assert made is not None and isinstance(made.provider, TeamMemory)


def test_config_reads_the_provider_and_its_options_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[memory]\nprovider = "team"\nprovider_timeout_s = 1.5\n\n'
        '[memory.provider_options]\nurl = "http://127.0.0.1:8765/mcp"\nlimit = 3\n',
        encoding="utf-8",
    )
    cfg = load(path, environ={})
    assert cfg.memory.provider == "team" and cfg.memory.provider_timeout_s == 1.5
    assert cfg.memory.provider_options == {"url": "http://127.0.0.1:8765/mcp", "limit": 3}
    assert cfg.sources["memory.provider_options"] == "file"
    hash(cfg.memory)  # a frozen config stays hashable with a table in it
    env = {"KENNING_MEMORY__PROVIDER_OPTIONS": '{url = "http://127.0.0.1:9/mcp"}'}
    assert load(path, environ=env).memory.provider_options == {"url": "http://127.0.0.1:9/mcp"}
    with pytest.raises(ConfigError, match="is not a TOML inline table"):
        load(path, environ={"KENNING_MEMORY__PROVIDER_OPTIONS": "url=http://x"})
    with pytest.raises(ConfigError, match="provider_timeout_s must be > 0"):
        load(path, environ={"KENNING_MEMORY__PROVIDER_TIMEOUT_S": "0"})


_AGENT_LAYERS = ("kenning.agent", "kenning.context", "kenning.learning")


def test_the_package_imports_no_agent_layer() -> None:
    """The agent calls providers, never the other way round (no import cycle)."""
    found = []
    for path in sorted((SRC / "providers").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [f"{path.name}: {n}" for n in names if n.startswith(_AGENT_LAYERS)]
    assert found == []
    check = (
        "import sys, kenning.providers, kenning.providers.team; "
        f"print([m for m in sys.modules if m.startswith({_AGENT_LAYERS!r})])"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_readme_config_example_loads_and_builds_the_team_provider(tmp_path: Path) -> None:
    readme = (SRC.parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Memory providers") :]
    [example] = re.findall(r"```toml\n(.*?)```", section[: section.index("\n## ", 5)], re.S)
    path = tmp_path / "config.toml"
    path.write_text(example, encoding="utf-8")
    cfg = load(path, environ={})
    manager = from_config(cfg.memory, plugin_factories={})
    assert manager is not None and isinstance(manager.provider, TeamMemory)
    assert manager.provider.url == "http://127.0.0.1:8765/mcp" and not manager.provider.mirror


def test_doctor_checks_the_configured_provider_without_connecting(tmp_path: Path) -> None:
    from kenning import doctor
    from kenning.memory.store import Target
    from kenning.testing import make_home

    home = make_home(tmp_path / "home")
    home.memory.add(Target.MEMORY, "The home exists")
    root = home.root
    names = [c.name for c in doctor.diagnose(root, environ={}).checks]
    assert "memory provider" not in names  # none configured: nothing to check
    wrong = {"KENNING_MEMORY__PROVIDER": "teem"}
    [bad] = [c for c in doctor.diagnose(root, environ=wrong).checks if c.name == "memory provider"]
    assert bad.status == "fail" and "unknown [memory] provider 'teem'" in bad.summary
    down = {  # nothing listens there; doctor does not try
        "KENNING_MEMORY__PROVIDER": "team",
        "KENNING_MEMORY__PROVIDER_OPTIONS": '{url = "http://127.0.0.1:9/mcp"}',
    }
    [good] = [c for c in doctor.diagnose(root, environ=down).checks if c.name == "memory provider"]
    assert good.status == "ok" and "'team' beside the built-in memory" in good.summary
