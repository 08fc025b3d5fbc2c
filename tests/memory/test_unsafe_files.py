"""Hot-memory files that are not what they should be: links, folders, huge or binary files.

Every reader (store, snapshot, the memory tool, the CLI) refuses them with
MemoryFileError or a notice naming the file and the fix; no write goes
through, nothing is committed, and the file on disk stays exactly as it was.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from kenning.cli import cli
from kenning.fsutil import UnsafeFileError, read_regular
from kenning.home import Home
from kenning.memory.store import MIN_READ_CAP, ErrorKind, MemoryFileError, MemoryWriteError, Target
from kenning.memory.tool import MemoryTool
from kenning.testing import make_home

M = Target.MEMORY
SECRET = "root:x:0:0:secret-outside-the-home"


def git_log(home: Home) -> str:
    if not (home.root / ".git").is_dir():
        return ""
    return subprocess.run(
        ["git", "-C", str(home.root), "log", "-p", "--all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.fixture
def linked(home: Home, tmp_path: Path) -> Path:
    """MEMORY.md as a symbolic link to a file outside the home."""
    home.memory.add(Target.USER, "User's name is Ada")  # a real history exists
    outside = tmp_path / "outside.txt"
    outside.write_text(f"{SECRET}\n", encoding="utf-8")
    home.memory.path(M).symlink_to(outside)
    return outside


def test_symlinked_file_is_refused_by_every_reader(home: Home, linked: Path) -> None:
    with pytest.raises(MemoryFileError) as info:
        home.memory.read(M)
    assert info.value.problem == "link"
    assert "symbolic link" in str(info.value) and str(home.memory.path(M)) in str(info.value)
    assert "Replace the link with a regular file" in info.value.next_step
    rendered = home.snapshot().render()
    assert SECRET not in rendered and "symbolic link" in rendered
    assert "User's name is Ada" in rendered  # the other file is unaffected
    shown = MemoryTool(home.memory)({"action": "show", "target": "memory"})
    assert shown["success"] is False and shown["error"] == "unusable"
    assert SECRET not in str(shown)
    # The link's target is text its maker chose: the human is told, the model is not.
    assert str(linked) in str(info.value)
    assert str(linked) not in rendered and str(linked) not in str(shown)


def test_write_to_a_symlink_is_refused_and_nothing_goes_through_or_into_history(
    home: Home, linked: Path
) -> None:
    before = git_log(home)
    with pytest.raises(MemoryWriteError) as info:
        home.memory.add(M, "a new fact")
    assert info.value.kind is ErrorKind.UNUSABLE
    assert "Nothing was written" in info.value.message
    assert home.memory.path(M).is_symlink()  # the link itself is left as it was
    assert linked.read_text(encoding="utf-8") == f"{SECRET}\n"  # its target too
    assert git_log(home) == before and SECRET not in git_log(home)
    result = MemoryTool(home.memory)({"action": "add", "target": "memory", "content": "x y z"})
    assert result["success"] is False and result["error"] == "unusable"
    assert str(linked) not in str(result)
    assert not list((home.root / "backups").glob("**/*.bak"))  # no copy of the target either


def test_symlinked_memories_folder_is_refused(home: Home, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "MEMORY.md").write_text(f"{SECRET}\n", encoding="utf-8")
    home.root.mkdir(parents=True, exist_ok=True)
    home.layout.memories_dir.symlink_to(elsewhere)
    with pytest.raises(MemoryFileError) as info:
        home.memory.read(M)
    assert info.value.problem == "link" and "memories" in str(info.value)
    with pytest.raises(MemoryWriteError):
        home.memory.add(Target.USER, "a fact")
    assert sorted(p.name for p in elsewhere.iterdir()) == ["MEMORY.md"]


def test_directory_in_place_of_the_file(home: Home) -> None:
    home.memory.path(M).mkdir(parents=True)
    with pytest.raises(MemoryFileError) as info:
        home.memory.read(M)
    assert info.value.problem == "not_file" and "is a directory" in str(info.value)
    assert "mv " in info.value.next_step
    with pytest.raises(MemoryWriteError) as refused:
        home.memory.add(M, "a fact")
    assert refused.value.kind is ErrorKind.UNUSABLE
    assert "is a directory" in home.snapshot().render()
    assert home.memory.path(M).is_dir()


def test_named_pipe_does_not_hang_the_read(home: Home) -> None:
    home.layout.memories_dir.mkdir(parents=True)
    os.mkfifo(home.memory.path(M))
    with pytest.raises(MemoryFileError) as info:
        home.memory.read(M)
    assert info.value.problem == "not_file" and "named pipe" in str(info.value)


def test_oversized_file_is_refused_fast_and_left_untouched(home: Home) -> None:
    path = home.memory.path(M)
    path.parent.mkdir(parents=True)
    content = ("a fact that repeats\n§\n" * 400_000).encode()  # ~8.8 MB
    path.write_bytes(content)
    rendered = home.snapshot().render()  # refused by size: none of it is parsed
    assert "a fact that repeats" not in rendered and "more than the 256 KiB" in rendered
    assert len(rendered) < 2_000
    with pytest.raises(MemoryFileError) as info:
        home.memory.read(M)
    assert info.value.problem == "too_large" and "Trim it by hand" in info.value.next_step
    with pytest.raises(MemoryWriteError) as refused:
        home.memory.add(M, "one more")
    assert refused.value.kind is ErrorKind.UNUSABLE
    assert path.read_bytes() == content  # never truncated


def test_read_cap_is_well_above_the_budget_and_grows_with_it(tmp_path: Path) -> None:
    small = make_home(tmp_path / "a")
    assert small.memory.read_cap(M) == MIN_READ_CAP > 100 * small.memory.budget(M)
    big = make_home(tmp_path / "b", memory_budget=100_000)
    assert big.memory.read_cap(M) >= 8 * 4 * 100_000
    # A hand-edited file far over its budget but under the cap still loads, to be consolidated.
    path = small.memory.path(M)
    path.parent.mkdir(parents=True)
    path.write_text("\n§\n".join(f"fact number {i}" for i in range(3000)), encoding="utf-8")
    assert len(small.memory.read(M).entries) == 3000
    assert "OVER BUDGET" in small.snapshot().render()


def test_binary_file_is_refused_everywhere_without_its_bytes(home: Home) -> None:
    path = home.memory.path(M)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\xff\xfe" * 10)
    with pytest.raises(MemoryFileError) as info:
        home.memory.read(M)
    assert info.value.problem == "unparseable" and "UTF-8" in str(info.value)
    rendered = home.snapshot().render()
    assert "ELF" not in rendered and "UTF-8" in rendered
    shown = MemoryTool(home.memory)({"action": "show", "target": "memory"})
    assert shown["error"] == "unparseable"


def test_read_regular_refuses_without_following(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_bytes(b"data")
    link = tmp_path / "link"
    link.symlink_to(target)
    with pytest.raises(UnsafeFileError, match="symbolic link") as info:
        read_regular(link, max_bytes=100)
    assert info.value.problem == "link"
    assert read_regular(tmp_path / "missing", max_bytes=100) is None
    assert read_regular(tmp_path / "no-folder" / "x", max_bytes=100) is None
    found = read_regular(target, max_bytes=4)
    assert found is not None and found[0] == b"data"
    with pytest.raises(UnsafeFileError) as big:
        read_regular(target, max_bytes=3)
    assert big.value.problem == "too_large"


# -- the command line ----------------------------------------------------------------------


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_cli_names_the_file_and_the_fix(_hermetic_home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "passwd"
    outside.write_text(f"{SECRET}\n", encoding="utf-8")
    memories = _hermetic_home / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").symlink_to(outside)
    code, output = run("memory", "show")
    assert code == 1 and "symbolic link" in output and "Replace the link" in output
    code, output = run("memory", "add", "a fact")
    assert code == 6 and "symbolic link" in output and "Nothing was written" in output
    code, output = run("memory", "render")
    assert code == 0 and SECRET not in output
    assert "[unreadable]" in output and "warning:" in output
    (memories / "MEMORY.md").unlink()
    (memories / "MEMORY.md").mkdir()
    for args in (("memory", "show"), ("memory", "add", "a fact")):
        code, output = run(*args)
        assert code != 0 and "is a directory" in output and "Traceback" not in output
