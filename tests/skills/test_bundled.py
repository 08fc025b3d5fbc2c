"""The bundled example skills: valid, clean, shaped the way skills should be, and shipped."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from kenning.skills.catalog import BUNDLED_DIR
from kenning.skills.files import read_snapshot
from kenning.skills.model import parse_skill_md
from kenning.skills.scan import scan_files
from kenning.skills.validate import problems

NAMES = sorted(p.name for p in BUNDLED_DIR.iterdir() if p.is_dir())


def test_there_are_a_few() -> None:
    assert 2 <= len(NAMES) <= 5


@pytest.mark.parametrize("name", NAMES)
def test_each_is_valid_clean_and_well_shaped(name: str) -> None:
    files = read_snapshot(BUNDLED_DIR / name)
    assert problems(name, files) == []
    assert scan_files(files) == []
    meta, body = parse_skill_md(files["SKILL.md"].decode(), folder=name)
    assert meta.tags and len(meta.description) <= 300
    for section in ("## When to use", "## Steps", "## Pitfalls", "## Verify"):
        assert section in body, section
    pitfalls = body.split("## Pitfalls", 1)[1].split("## Verify", 1)[0]
    rules = [" ".join(item.split()) for item in pitfalls.split("\n- ")[1:]]
    assert len(rules) >= 3
    for rule in rules:  # "do X: because Y" — a rule, then its reason
        assert any(joint in rule for joint in (":", ";", " — ", "because")), rule


def test_package_data_ships_them() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    globs = pyproject["tool"]["setuptools"]["package-data"]["kenning"]
    root = BUNDLED_DIR.parent.parent  # src/kenning
    shipped = {p for g in globs for p in root.glob(g)}
    for name in NAMES:
        for path in (BUNDLED_DIR / name).rglob("*"):
            if path.is_file():
                assert path in shipped, path
