"""memory_get reads memory files only, in numbered, capped parts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kenning.memory.memory_get import MAX_LINES, MemoryGet
from kenning.paths import HomeLayout


@pytest.fixture
def layout(tmp_path: Path) -> HomeLayout:
    layout = HomeLayout(tmp_path / "home")
    layout.memories_dir.mkdir(parents=True)
    layout.memory_file.write_text("line one\nline two\nline three\n")
    layout.journal_dir.mkdir()
    (layout.journal_dir / "2026-11-29.md").write_text("\n".join(f"j{i}" for i in range(1, 501)))
    return layout


def test_reads_numbered_lines(layout: HomeLayout) -> None:
    result = MemoryGet(layout)({"path": "memories/MEMORY.md", "start_line": 2, "end_line": 3})
    assert result["success"] and result["lines"] == "2-3 of 3"
    assert result["text"] == "    2  line two\n    3  line three"
    assert "next_step" not in result


def test_long_files_come_in_parts(layout: HomeLayout) -> None:
    result = MemoryGet(layout)({"path": "memory/2026-11-29.md"})
    assert result["lines"] == f"1-{MAX_LINES} of 500"
    assert f"start_line={MAX_LINES + 1}" in result["next_step"]


@pytest.mark.parametrize(
    "path",
    [
        "../outside.md",
        "/etc/passwd",
        "memories/../../outside.md",
        "config.toml",
        "",
        "a\x00b",
        "memory\\..\\..\\outside.md",
        "skills/x/SKILL.md",
    ],
)
def test_non_memory_paths_are_refused(layout: HomeLayout, path: str) -> None:
    (layout.root.parent / "outside.md").write_text("secret")
    result = MemoryGet(layout)({"path": path})
    assert result["success"] is False
    assert "secret" not in str(result)


def test_symlink_out_of_the_journal_is_refused(layout: HomeLayout, tmp_path: Path) -> None:
    (tmp_path / "target.md").write_text("outside")
    os.symlink(tmp_path / "target.md", layout.journal_dir / "2026-11-30.md")
    result = MemoryGet(layout)({"path": "memory/2026-11-30.md"})
    assert result["success"] is False


def test_extra_paths_are_readable(layout: HomeLayout, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "team.md").write_text("standup at 10")
    result = MemoryGet(layout, extra_paths=[notes])({"path": str(notes / "team.md")})
    assert result["success"] and "standup" in result["text"]


def test_missing_journal_day_says_so(layout: HomeLayout) -> None:
    result = MemoryGet(layout)({"path": "memory/2001-01-01.md"})
    assert result["success"] is False and "does not exist" in result["message"]
