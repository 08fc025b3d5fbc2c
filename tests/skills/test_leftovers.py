"""A killed write leaves hidden debris, never a broken skill; debris never blocks a name or lint."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.skills.conftest import skill_md, subjects

from kenning.home import Home
from kenning.skills import leftovers
from kenning.skills import lint as lint_mod
from kenning.skills.library import SkillLibrary
from kenning.testing.files import touch

# Kill the CLI with SIGKILL at the moment it renames anything into skills/demo:
# the last step of an atomic write or of a staged create, whichever is used.
KILL_MID_CREATE = """
import os, signal, sys
real_replace, real_rename = os.replace, os.rename
def dies_on_demo(real):
    def wrapped(src, dst, *args, **kwargs):
        if "/skills/demo" in os.fspath(dst):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(src, dst, *args, **kwargs)
    return wrapped
os.replace, os.rename = dies_on_demo(real_replace), dies_on_demo(real_rename)
from kenning.cli import cli
cli(["skills", "create", "demo", "-d", "A demo skill. Use when testing a kill."])
"""


def kenning(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kenning", *args],
        env={**os.environ, "KENNING_HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
    )


def age(path: Path, seconds: float) -> None:
    """Make ``path`` look as if it was last written ``seconds`` ago."""
    touch(path, age_s=seconds)


def test_a_create_killed_mid_write_leaves_no_half_made_skill(_hermetic_home: Path) -> None:
    assert kenning(_hermetic_home, "home", "init").returncode == 0
    killed = subprocess.run(
        [sys.executable, "-c", KILL_MID_CREATE],
        env={**os.environ, "KENNING_HOME": str(_hermetic_home)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert killed.returncode == -9, killed.stderr
    skills = _hermetic_home / "skills"
    assert not (skills / "demo").exists()  # all of it, or nothing
    assert "demo" not in kenning(_hermetic_home, "skills", "list").stdout
    linted = kenning(_hermetic_home, "skills", "lint")
    assert linted.returncode == 0, linted.stdout
    assert "staging folder of a skill create" in linted.stdout
    created = kenning(_hermetic_home, "skills", "create", "demo", "-d", "A demo. Use when demoing.")
    assert created.returncode == 0, created.stderr
    assert sorted(p.name for p in (skills / "demo").iterdir()) == ["SKILL.md"]


def test_a_folder_of_leftovers_is_not_a_skill_and_create_reuses_it(
    library: SkillLibrary, home: Home
) -> None:
    folder = home.layout.skills_dir / "demo"
    folder.mkdir(parents=True)
    (folder / ".SKILL.md.k1ll3d00.tmp").write_text("half a skill")
    assert "demo" not in {info.name for info in library.list_skills(archived=True)}
    assert "demo" not in lint_mod.lint(library)
    [found] = lint_mod.leftovers(library)
    assert found.kind == "not-a-skill" and found.path == folder
    assert "kenning skills create demo" in found.fix
    result = library.create("demo", skill_md("demo"))
    assert result.commit is not None
    assert sorted(p.name for p in folder.iterdir()) == ["SKILL.md"]
    assert subjects(home)[0].startswith("skills: create 'demo'")
    assert lint_mod.leftovers(library) == []


def test_a_folder_with_files_but_no_skill_md_is_still_a_broken_skill(
    library: SkillLibrary, home: Home
) -> None:
    folder = home.layout.skills_dir / "half"
    folder.mkdir(parents=True)
    (folder / "notes.md").write_text("someone's real notes")
    infos = {info.name: info for info in library.list_skills()}
    assert infos["half"].error == "SKILL.md is missing"
    assert any(p.severity == "error" for p in lint_mod.lint(library)["half"])


def test_staging_folders_are_swept_by_the_next_write_once_old(
    library: SkillLibrary, home: Home
) -> None:
    library.create("first", skill_md("first"))
    skills = home.layout.skills_dir
    old = skills / ".gone.0badc0de.tmp"
    young = skills / ".busy.0badc0de.tmp"
    for staging in (old, young):
        staging.mkdir()
        (staging / "SKILL.md").write_text("partial")
    age(old, 3600)
    age(young, 0)
    library.create("second", skill_md("second"))
    assert not old.exists()
    assert young.exists()  # may belong to a write that does not take the library lock


def test_young_temps_of_other_files_stay_and_old_ones_go(library: SkillLibrary, home: Home) -> None:
    library.create("demo", skill_md("demo"))
    folder = home.layout.skills_dir / "demo"
    young = folder / ".notes.md.aaaa1111.tmp"
    old = folder / ".script.sh.bbbb2222.tmp"
    young.write_text("x")
    old.write_text("y")
    age(old, 600)
    age(young, 0)
    library.patch("demo", "first thing", "first step")
    assert young.exists() and not old.exists()
    [left] = lint_mod.leftovers(library)
    assert left.path == young and "check again in a minute" in left.fix


def test_sweep_clears_old_debris_everywhere_and_keeps_real_hidden_files(home: Home) -> None:
    skills = home.layout.skills_dir
    (skills / "gone").mkdir(parents=True)
    (skills / "gone" / ".SKILL.md.x1.tmp").write_text("")
    (skills / "kept").mkdir()
    (skills / "kept" / ".SKILL.md.x2.tmp").write_text("")
    (skills / "kept" / ".user-notes").write_text("mine")
    for path in (skills / "gone" / ".SKILL.md.x1.tmp", skills / "kept" / ".SKILL.md.x2.tmp"):
        age(path, 600)
    age(skills / "gone", 600)
    age(skills / "kept", 600)
    removed = leftovers.sweep(skills, skills / ".library.lock")
    assert {item.path.name for item in removed} == {"gone", ".SKILL.md.x2.tmp"}
    assert not (skills / "gone").exists()
    assert (skills / "kept" / ".user-notes").exists()
    assert not (skills / "kept" / ".SKILL.md.x2.tmp").exists()
