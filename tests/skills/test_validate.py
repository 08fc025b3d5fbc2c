"""Folder rules: where support files may live, their size and kind, and no path escapes."""

from __future__ import annotations

import pytest
from tests.skills.conftest import skill_md

from kenning.skills.errors import SkillError
from kenning.skills.validate import (
    MAX_SKILL_MD_CHARS,
    MAX_SUPPORT_BYTES,
    check_support_path,
    problems,
)

ESCAPES = [
    "../outside.sh",
    "scripts/../../outside.sh",
    "scripts/./x.sh",
    "/etc/passwd",
    "scripts/a\x00b.sh",
    "scripts\\evil.sh",
    "..\\..\\evil.sh",
    "C:\\Windows\\evil.bat",
    "C:/evil.bat",
    "c:evil",
    "~/.bashrc",
    "scripts//x.sh",
    "scripts/.hidden",
    ".git/config",
    "notes.txt",
    "scripts",
    "bin/tool.sh",
    "SKILL.md",
    "scripts/line\nbreak.sh",
    "",
]


@pytest.mark.parametrize("path", ESCAPES, ids=repr)
def test_escaping_or_misplaced_paths_are_refused(path: str) -> None:
    with pytest.raises(SkillError) as caught:
        check_support_path(path)
    assert caught.value.next_step


@pytest.mark.parametrize(
    "path", ["scripts/run.sh", "references/deep/api.md", "assets/logo.png", "templates/a b.md"]
)
def test_ordinary_support_paths_pass(path: str) -> None:
    assert check_support_path(path) == path


def _errors(files: dict[str, bytes]) -> list[str]:
    return [str(p) for p in problems("demo", files) if p.severity == "error"]


def test_a_valid_folder_has_no_problems() -> None:
    files = {
        "SKILL.md": skill_md("demo").encode(),
        "scripts/run.sh": b"python -m pytest -q\n",
        "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00",
    }
    assert problems("demo", files) == []


def test_size_limits() -> None:
    huge = skill_md("demo", body="x" * MAX_SKILL_MD_CHARS)
    assert any("over the 100,000 limit" in e for e in _errors({"SKILL.md": huge.encode()}))
    big = {
        "SKILL.md": skill_md("demo").encode(),
        "references/big.md": b"a" * (MAX_SUPPORT_BYTES + 1),
    }
    assert any("over the 1 MiB limit" in e for e in _errors(big))
    exact = {"SKILL.md": skill_md("demo").encode(), "references/ok.md": b"a" * MAX_SUPPORT_BYTES}
    assert _errors(exact) == []


def test_text_only_outside_assets() -> None:
    binary = b"\x00\x01\x02binary"
    files = {"SKILL.md": skill_md("demo").encode(), "scripts/tool": binary}
    assert any("binary files belong under assets/" in e for e in _errors(files))
    assert _errors({"SKILL.md": skill_md("demo").encode(), "assets/tool": binary}) == []
    latin1 = {"SKILL.md": skill_md("demo").encode(), "references/x.md": "café".encode("latin-1")}
    assert _errors(latin1)


def test_missing_skill_md_and_stray_files() -> None:
    assert any("missing" in e for e in _errors({"scripts/run.sh": b"echo"}))
    stray = problems("demo", {"SKILL.md": skill_md("demo").encode(), "README.md": b"hi"})
    assert [p.severity for p in stray] == ["warning"]
