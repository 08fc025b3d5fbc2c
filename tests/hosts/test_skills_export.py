"""Agent-made skills in the host's skills folder: exported, patched, retired; never the user's."""

from __future__ import annotations

from pathlib import Path

from kenning.home import Home
from kenning.hosts.files import Manifest
from kenning.hosts.skills_export import export_skills, remove_exported
from kenning.skills.guards import Writer
from kenning.skills.library import SkillLibrary
from kenning.skills.model import compose_skill_md
from kenning.testing import make_home

AGENT = Writer("agent", "s1")


def skill(name: str, step: str = "1. Do the first thing.") -> str:
    return compose_skill_md(name, f"Does {name}. Use when {name} comes up.", f"## Steps\n{step}\n")


def test_exported_copies_follow_patches_and_retirement_and_leave_the_users_alone(
    tmp_path: Path,
) -> None:
    home: Home = make_home(tmp_path / "home")
    library = SkillLibrary.for_home(home)
    library.create("deploy-api", skill("deploy-api"), by=AGENT)
    library.create("bisect-bug", skill("bisect-bug"), by=AGENT)
    library.create("users-notes", skill("users-notes"))  # written by the user: not exported
    library.create("same-name", skill("same-name"), by=AGENT)
    target = tmp_path / "claude" / "skills"
    (target / "same-name").mkdir(parents=True)
    (target / "same-name" / "SKILL.md").write_text("the user's own skill of that name\n")
    manifest = Manifest("claude-code", "user", skills_dir=str(target))

    first = export_skills(home, manifest, target)
    assert first.written == ["bisect-bug", "deploy-api"]
    assert not (target / "users-notes").exists()
    assert (target / "same-name" / "SKILL.md").read_text() == "the user's own skill of that name\n"
    assert any("same-name is not Kenning's" in s for s in first.skipped)

    library.patch("deploy-api", "1. Do the first thing.", "1. Tag the release first.", by=AGENT)
    library.delete("bisect-bug", by=AGENT)
    again = export_skills(home, manifest, target)
    assert again.written == ["deploy-api"] and again.removed == ["bisect-bug"]
    assert "Tag the release first" in (target / "deploy-api" / "SKILL.md").read_text()
    assert not (target / "bisect-bug").exists()

    # A copy the user edited is theirs from then on: neither rewritten nor removed.
    (target / "deploy-api" / "SKILL.md").write_text("my version\n")
    library.patch("deploy-api", "1. Tag the release first.", "1. Tag it.", by=AGENT)
    edited = export_skills(home, manifest, target)
    assert edited.written == [] and "deploy-api" not in manifest.skills
    assert (target / "deploy-api" / "SKILL.md").read_text() == "my version\n"
    assert remove_exported(manifest, target).removed == []
    assert (target / "deploy-api").exists() and (target / "same-name").exists()


def test_a_change_in_the_library_reaches_the_installed_hosts_copies_at_once(
    tmp_path: Path,
) -> None:
    from kenning.hosts import claude_code

    home: Home = make_home(tmp_path / "home")
    library = SkillLibrary.for_home(home)
    library.create("deploy-api", skill("deploy-api"), by=AGENT)
    where = claude_code.places("user", user_home=tmp_path / "user", project=None)
    (where.skills_dir / "my-own").mkdir(parents=True)
    (where.skills_dir / "my-own" / "SKILL.md").write_text("mine\n")
    claude_code.install(home, where)
    copy = where.skills_dir / "deploy-api" / "SKILL.md"
    assert "Do the first thing" in copy.read_text()

    # No hook event, no refresh: the library's own write updates the host's copy.
    library.patch("deploy-api", "1. Do the first thing.", "1. Tag the release first.", by=AGENT)
    assert "Tag the release first" in copy.read_text()
    library.create("bisect-bug", skill("bisect-bug"), by=AGENT)
    assert (where.skills_dir / "bisect-bug" / "SKILL.md").is_file()
    library.delete("bisect-bug", by=AGENT)  # retired: its copy goes
    assert not (where.skills_dir / "bisect-bug").exists()
    # A copy the user edited, and the user's own skill, stay as they are.
    copy.write_text("my version\n")
    library.patch("deploy-api", "1. Tag the release first.", "1. Tag it.", by=AGENT)
    assert copy.read_text() == "my version\n"
    assert (where.skills_dir / "my-own" / "SKILL.md").read_text() == "mine\n"
    # The manifest knows: uninstall leaves the edited copy and the user's skill.
    assert claude_code.uninstall(home, where) is not None
    assert copy.read_text() == "my version\n" and (where.skills_dir / "my-own").exists()
