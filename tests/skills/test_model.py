"""SKILL.md front matter: the rules a skill's text must keep."""

from __future__ import annotations

import pytest

from kenning.skills.errors import ErrorKind, SkillError
from kenning.skills.model import (
    body_template,
    check_name,
    compose_skill_md,
    parse_skill_md,
)


def test_a_composed_skill_parses_back() -> None:
    text = compose_skill_md(
        "deploy-app",
        "Deploy: the safe way. Use when releasing.",
        "## Steps\n1. Go.",
        tags=["deploy", "ops"],
        version="1.2",
        related=["rollback"],
    )
    meta, body = parse_skill_md(text, folder="deploy-app")
    assert meta.name == "deploy-app"
    assert meta.description == "Deploy: the safe way. Use when releasing."
    assert meta.tags == ("deploy", "ops") and meta.related == ("rollback",)
    assert meta.version == "1.2"
    assert body.strip() == "## Steps\n1. Go."


@pytest.mark.parametrize("name", ["git-bisect", "a", "v2.release_notes", "x" * 64, "9lives"])
def test_good_names(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize(
    "name", ["", "-x", ".hidden", "Git", "a b", "a/b", "..", "x" * 65, "ünï", "a\\b", "名前"]
)
def test_bad_names_are_refused_with_the_rule(name: str) -> None:
    with pytest.raises(SkillError) as caught:
        check_name(name)
    assert caught.value.kind is ErrorKind.INVALID
    assert "lowercase letters, digits" in caught.value.message


def _problems(text: str, folder: str = "demo") -> list[str]:
    with pytest.raises(SkillError) as caught:
        parse_skill_md(text, folder=folder)
    return caught.value.problems or [caught.value.message]


def test_name_must_equal_the_folder() -> None:
    text = compose_skill_md("other", "Something useful.", "body")
    assert any("differs from the folder name 'demo'" in p for p in _problems(text))


def test_description_is_required_and_bounded() -> None:
    assert any("non-empty 'description'" in p for p in _problems("---\nname: demo\n---\nbody\n"))
    long = compose_skill_md("demo", "x" * 1025, "body")
    assert any("1,025 characters" in p for p in _problems(long))
    assert parse_skill_md(compose_skill_md("demo", "x" * 1024, "body"), folder="demo")


def test_every_problem_is_reported_at_once() -> None:
    problems = _problems("---\nname: Bad Name\ntags: 3\n---\n\n")
    assert len(problems) == 4  # name, description, tags, empty body


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("no front matter\n", "must start with YAML front matter"),
        ("---\nname: demo\n", "never closed"),
        ("---\nname: demo\ndescription: a: b: c\n---\nbody\n", "not valid YAML"),
        ("---\n- a list\n---\nbody\n", "must be a mapping"),
    ],
)
def test_malformed_front_matter_says_how_to_fix_it(text: str, says: str) -> None:
    with pytest.raises(SkillError) as caught:
        parse_skill_md(text, folder="demo")
    assert says in caught.value.message
    assert caught.value.next_step


def test_lenient_where_it_is_harmless() -> None:
    text = "\ufeff---\nname: demo\ndescription: Useful.\ntags: git\nlicense: MIT\n---\nbody\n"
    meta, _ = parse_skill_md(text, folder="demo")
    assert meta.tags == ("git",)  # one tag as a plain string
    assert meta.extra == {"license": "MIT"}  # unknown keys are kept, not refused


def test_the_skeleton_has_the_four_sections() -> None:
    body = body_template("deploy-app")
    for section in ("## When to use", "## Steps", "## Pitfalls", "## Verify"):
        assert section in body
    assert parse_skill_md(compose_skill_md("deploy-app", "d", body), folder="deploy-app")
