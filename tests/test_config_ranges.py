"""Every numeric setting declares its valid range, checked on every layer when config is read."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning import config
from kenning.cli import cli


def test_every_numeric_setting_declares_a_range_its_default_satisfies() -> None:
    defaults = config.Config()
    missing = []
    for name in defaults.as_dict():
        section = getattr(defaults, name)
        for f in dataclasses.fields(section):
            value = getattr(section, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            valid = f.metadata.get("range")
            if not isinstance(valid, config.Range):
                missing.append(f"{name}.{f.name}")
                continue
            assert value in valid, f"{name}.{f.name}: default {value} outside {valid.describe()}"
    assert not missing, f"numeric settings without a declared range: {missing}"


# One or two out-of-range values per section, with the range the message must state.
BAD = [
    ("memory", "memory_budget", "0", ">= 1 and <= 1,000,000"),
    ("memory", "user_budget", "2000000", ">= 1 and <= 1,000,000"),
    ("rules", "max_file_chars", "0", ">= 1"),
    ("search", "recency_weight", "1.5", ">= 0 and <= 1"),
    ("search", "recency_half_life_days", "0", "> 0"),
    ("search", "chunk_tokens", "0", ">= 1"),
    ("embedding", "batch_size", "0", ">= 1"),
    ("embedding", "min_cos", "1.0", ">= 0 and < 1"),
    ("skills", "stale_after_days", "0", ">= 1"),
    ("model", "timeout_s", "-5", "> 0"),
    ("model", "context_window", "-1", ">= 0"),
    ("model", "max_output_tokens", "0", ">= 1"),
    ("agent", "max_iterations", "0", ">= 1"),
    ("agent", "shell_timeout_s", "0", "> 0"),
    ("context", "compact_at", "5.0", "> 0 and <= 1"),
    ("context", "prune_at", "0", "> 0 and <= 1"),
    ("context", "tail_share", "1", ">= 0 and < 1"),
    ("context", "cooldown_s", "-1", ">= 0"),
    ("review", "timeout_s", "0", "> 0"),
    ("review", "memory_every_user_turns", "-3", ">= 0"),
    ("dream", "min_score", "2", ">= 0 and <= 1"),
    ("dream", "light_days", "0", ">= 1"),
    ("cron", "poll_s", "0", "> 0"),
]


@pytest.mark.parametrize(("section", "key", "value", "valid"), BAD)
def test_out_of_range_values_are_refused_from_every_layer(
    tmp_path: Path, section: str, key: str, value: str, valid: str
) -> None:
    name = f"{section}.{key}"
    env_name = f"KENNING_{section.upper()}__{key.upper()}"
    file = tmp_path / "config.toml"
    file.write_text(f"[{section}]\n{key} = {value}\n", encoding="utf-8")
    attempts = [
        (lambda: config.load(file, environ={}), f"{file}: [{section}] {key}"),
        (lambda: config.load(None, environ={env_name: value}), f"environment {env_name}"),
        (
            lambda: config.load(
                None, environ={}, cli=config.parse_assignments([f"{name}={value}"])
            ),
            f"--set {name}",
        ),
    ]
    for attempt, where in attempts:
        with pytest.raises(config.ConfigError) as info:
            attempt()
        message = str(info.value)
        assert message.startswith(where), message
        assert f"is out of range; {name} must be {valid}" in message, message


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_non_finite_numbers_are_refused(value: str) -> None:
    with pytest.raises(config.ConfigError, match="out of range"):
        config.load(None, environ={"KENNING_MODEL__TIMEOUT_S": value})


def test_bounds_themselves_are_accepted() -> None:
    cfg = config.load(
        None,
        environ={
            "KENNING_CONTEXT__COMPACT_AT": "1",
            "KENNING_MODEL__CONTEXT_WINDOW": "0",
            "KENNING_AGENT__TURN_TIMEOUT_S": "0",
            "KENNING_SEARCH__RECENCY_WEIGHT": "0",
        },
    )
    assert cfg.context.compact_at == 1.0 and cfg.model.context_window == 0


def test_closed_choices_come_from_the_same_declarations() -> None:
    assert config.declared("skills", "mode")["choices"] == ("auto", "propose")
    with pytest.raises(config.ConfigError, match=r"--set skills\.mode: 'manual' is not one of"):
        config.load(None, environ={}, cli=config.parse_assignments(["skills.mode=manual"]))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[memory]\nuser_budget = 10\n\xff\xfe\x00\x01", "is not valid UTF-8 TOML"),
        (b"\x7fELF\x02\x01\x01\x00\xb0\x9c" * 20, "is not valid UTF-8 TOML"),
        (b"\x7fELF\x02\x01\x01\x00" * 20, "not valid TOML"),  # ASCII-only bytes decode
    ],
)
def test_binary_config_file_is_a_config_error(tmp_path: Path, content: bytes, message: str) -> None:
    file = tmp_path / "config.toml"
    file.write_bytes(content)
    with pytest.raises(config.ConfigError, match=message) as info:
        config.load(file, environ={})
    assert str(file) in str(info.value) and "move it aside" in str(info.value)


def test_config_path_that_is_a_directory_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "config.toml").mkdir()
    with pytest.raises(config.ConfigError, match="cannot be read"):
        config.load(tmp_path / "config.toml", environ={})


def test_cli_shows_config_errors_cleanly(_hermetic_home: Path) -> None:
    _hermetic_home.mkdir(parents=True)
    (_hermetic_home / "config.toml").write_bytes(b"\xff\xfe binary")
    result = CliRunner().invoke(cli, ["memory", "show"])
    assert result.exit_code == 1
    assert "config.toml is not valid UTF-8 TOML" in result.output
    assert "Traceback" not in result.output
    (_hermetic_home / "config.toml").unlink()
    result = CliRunner().invoke(cli, ["--set", "model.timeout_s=-5", "config", "show"])
    assert result.exit_code == 1
    assert "--set model.timeout_s: -5.0 is out of range; model.timeout_s must be > 0" in (
        result.output
    )


@pytest.mark.parametrize(
    ("file_text", "env", "message"),
    [
        (
            "[context]\nprune_at = 0.9\n",
            {},
            "context.prune_at must be at most context.placeholder_at",
        ),
        ("", {"KENNING_CONTEXT__COMPACT_AT": "0.6"}, "context.flush_at must be at most"),
        ("[search]\nchunk_overlap = 400\n", {}, "must be smaller than search.chunk_tokens"),
        ("[context]\ncooldown_s = 1000\n", {}, "context.cooldown_s must be at most"),
    ],
)
def test_settings_that_come_in_an_order_are_checked_together(
    tmp_path: Path, file_text: str, env: dict[str, str], message: str
) -> None:
    file = tmp_path / "config.toml"
    file.write_text(file_text)
    with pytest.raises(config.ConfigError, match=message) as info:
        config.load(file, environ=env)
    assert "(file)" in str(info.value) or "(env)" in str(info.value)


def test_ordered_settings_may_move_together(tmp_path: Path) -> None:
    file = tmp_path / "config.toml"
    file.write_text("[context]\nplaceholder_at = 0.95\ncompact_at = 0.95\nflush_at = 0.9\n")
    loaded = config.load(file, environ={"KENNING_CONTEXT__PRUNE_AT": "0.5"})
    assert (loaded.context.prune_at, loaded.context.compact_at) == (0.5, 0.95)
