"""Arguments that are not UTF-8 get a usage error, never a traceback, from every command.

Python decodes argv bytes that are not UTF-8 to lone surrogates; before, the
first write of one (SQLite, a file, git, stdout) crashed with a
``UnicodeEncodeError`` traceback. Run as a user runs it: a real process, raw
bytes in argv, a strict stdout (as under ``LANG=en_US.UTF-8``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kenning.cli import cli
from kenning.home import Home
from kenning.memory.store import Target

SRC = Path(__file__).resolve().parents[2] / "src"

NASTY: tuple[bytes, ...] = (
    b"\xff",  # never UTF-8
    b"caf\xe9",  # Latin-1 "café"
    b"\xed\xa0\x80",  # a surrogate encoded as UTF-8 (CESU-8)
    b"--\xff",  # looks like an option
)

# X is where the nasty bytes go.
COMMANDS: tuple[tuple[bytes, ...], ...] = (
    (b"search", b"X"),
    (b"search", b"ok", b"--kind", b"X"),
    (b"memory", b"add", b"X"),
    (b"memory", b"add", b"--user", b"X"),
    (b"memory", b"replace", b"X", b"new"),
    (b"memory", b"show"),
    (b"sessions", b"list", b"--source", b"X"),
    (b"sessions", b"show", b"X"),
    (b"skills", b"show", b"X"),
    (b"skills", b"show", b"git-bisect", b"X"),
    (b"journal", b"add", b"X"),
    (b"journal", b"show", b"X"),
    (b"--profile", b"X", b"memory", b"show"),
    (b"--set", b"X", b"memory", b"show"),
    (b"X",),
)


def kenning(args: list[bytes], env: dict[str, str | bytes]) -> subprocess.CompletedProcess[bytes]:
    argv: list[str | bytes] = [sys.executable, "-m", "kenning", *args]
    return subprocess.run(argv, env=env, capture_output=True, timeout=60)


def strict_env(home: Path) -> dict[str, str | bytes]:
    return {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "KENNING_HOME": str(home),
        "KENNING_EMBEDDING__PROVIDER": "none",
        "PYTHONIOENCODING": "utf-8",  # strict: what a UTF-8 locale gives stdout
    }


def allowed(args: list[bytes] | list[str]) -> set[int]:
    """0 done, 1 error, 2 usage; memory and skills document 3-6 too (budget, scan, match…)."""
    nouns = {os.fsdecode(arg) for arg in args}
    return set(range(7)) if nouns & {"memory", "skills"} else {0, 1, 2}


def assert_clean(done: subprocess.CompletedProcess[bytes], args: list[bytes]) -> None:
    stderr = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, (args, stderr)
    assert done.returncode in allowed(args), (args, done.returncode, stderr)


def test_every_command_answers_bytes_that_are_not_utf8(_hermetic_home: Path) -> None:
    env = strict_env(_hermetic_home)
    Home.open(_hermetic_home).memory.add(Target.MEMORY, "The CI runs on Python 3.11")
    # Every command once as a real process (raw argv bytes, strict stdout); the
    # other inputs go through the same decoding in-process, below, for speed.
    calls = [[NASTY[0] if part == b"X" else part for part in command] for command in COMMANDS]
    calls.append([b"memory", b"add", b"caf\xe9"])
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda args: kenning(args, env), calls))
    for args, done in zip(calls, results, strict=True):
        assert_clean(done, args)
    # The text ones are refused as such, saying what to do; nothing was stored broken.
    refused = results[calls.index([b"memory", b"add", b"caf\xe9"])]
    assert refused.returncode == 2
    assert b"not valid UTF-8 text (byte 0xe9 at character 4)" in refused.stderr
    assert b"LANG=C.UTF-8" in refused.stderr
    entries = Home.open(_hermetic_home).memory.read(Target.MEMORY).entries
    assert entries == ("The CI runs on Python 3.11",)


@pytest.mark.parametrize("nasty", NASTY[1:])
def test_every_command_answers_other_undecodable_bytes_in_process(
    _hermetic_home: Path, nasty: bytes
) -> None:
    # What Python makes of argv bytes that are not UTF-8: lone surrogates.
    for command in COMMANDS:
        args = [os.fsdecode(nasty if part == b"X" else part) for part in command]
        done = CliRunner().invoke(cli, args, env={"KENNING_EMBEDDING__PROVIDER": "none"})
        assert not isinstance(done.exception, UnicodeError), (args, done.output)
        assert done.exit_code in allowed(args), (args, done.exit_code, done.output)
        assert "Traceback" not in done.output, (args, done.output)
    entries = Home.open(_hermetic_home).memory.read(Target.MEMORY).entries
    assert not any(0xD800 <= ord(ch) <= 0xDFFF for e in entries for ch in e)  # none stored broken


def test_paths_that_are_not_utf8_still_work_and_print(_hermetic_home: Path, tmp_path: Path) -> None:
    """A file name need not be UTF-8; printing one must not crash a strict stdout."""
    folder = os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9")
    Path(folder).mkdir()
    env = strict_env(_hermetic_home)
    imported = kenning([b"sessions", b"import", b"claude-code", os.fsencode(folder)], env)
    assert_clean(imported, [b"sessions"])
    odd_home = os.fsencode(tmp_path) + b"/home-\xff"
    shown = kenning([b"home", b"path"], {**env, "KENNING_HOME": odd_home})
    assert_clean(shown, [b"home"])
    assert shown.returncode == 0 and shown.stdout.strip().endswith(b"home-\\udcff")


# In-process: any text, lone surrogates included (st.characters never draws one), as arguments.
SURROGATE = st.integers(0xD800, 0xDFFF).map(chr)
TEXT = st.lists(st.one_of(st.characters(), SURROGATE), min_size=1, max_size=12).map("".join)


@pytest.mark.parametrize(
    "command",
    [
        ("search", "--set", "embedding.provider=none"),
        ("memory", "add"),
        ("sessions", "show"),
        ("skills", "show"),
        ("journal", "add"),
    ],
)
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=TEXT)
def test_any_text_argument_is_answered_without_a_crash(
    command: tuple[str, ...], text: str, _hermetic_home: Path
) -> None:
    if command[0] == "search":
        args = ["--set", command[2], "search", "--", text]
    else:
        args = [*command, "--", text]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code in allowed(args), (args, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert result.exit_code == 2 and "not valid UTF-8 text" in result.output
