"""Automated writers: only agent-made, untouched, unpinned skills, and only after reading them."""

from __future__ import annotations

import pytest
from tests.skills.conftest import Clock, disk, make_library, skill_md, subjects

from kenning.home import Home
from kenning.skills.catalog import BUNDLED_DIR
from kenning.skills.errors import ErrorKind, SkillError
from kenning.skills.guards import Writer
from kenning.skills.library import SkillLibrary

AGENT = Writer("agent", "live-session")
REVIEW = Writer("agent", "review-1", automated=True)


def _refused(library: SkillLibrary, home: Home, kind: ErrorKind, **patch: str) -> SkillError:
    before, log = disk(home), subjects(home)
    with pytest.raises(SkillError) as caught:
        library.patch(patch.get("name", "x"), "first thing", "1st thing", by=REVIEW)
    assert caught.value.kind is kind, caught.value
    assert disk(home) == before and subjects(home) == log
    return caught.value


def test_a_review_may_change_an_agent_skill_it_has_read(library: SkillLibrary) -> None:
    library.create("x", skill_md("x"), by=AGENT)
    library.view("x", session_id=REVIEW.session_id)
    assert library.patch("x", "first thing", "1st thing", by=REVIEW).commit
    assert library.create("y", skill_md("y"), by=REVIEW).commit  # new skills are fine


def test_an_unread_skill_cannot_be_changed(library: SkillLibrary, home: Home) -> None:
    library.create("x", skill_md("x"), by=AGENT)
    error = _refused(library, home, ErrorKind.NOT_READ)
    assert "skill_view(name='x')" in error.next_step
    library.view("x", session_id="some-other-session")
    _refused(library, home, ErrorKind.NOT_READ)  # another session's read does not count


def test_a_read_goes_stale_when_the_skill_changes(library: SkillLibrary, home: Home) -> None:
    library.create("x", skill_md("x"), by=AGENT)
    library.view("x", session_id=REVIEW.session_id)
    library.patch("x", "second thing", "2nd thing", by=AGENT)  # someone else changes it
    _refused(library, home, ErrorKind.NOT_READ)
    library.view("x", session_id=REVIEW.session_id)
    assert library.patch("x", "first thing", "1st thing", by=REVIEW).commit


def test_overwriting_a_support_file_needs_that_file_read(library: SkillLibrary) -> None:
    library.create("x", skill_md("x"), by=AGENT)
    library.write_file("x", "scripts/run.sh", "pytest -q\n", by=AGENT)
    library.view("x", session_id=REVIEW.session_id)
    with pytest.raises(SkillError) as caught:
        library.write_file("x", "scripts/run.sh", "pytest -x\n", by=REVIEW)
    assert caught.value.kind is ErrorKind.NOT_READ and "scripts/run.sh" in caught.value.message
    library.view("x", "scripts/run.sh", session_id=REVIEW.session_id)
    assert library.write_file("x", "scripts/run.sh", "pytest -x\n", by=REVIEW).commit
    assert library.write_file("x", "scripts/new.sh", "ruff check\n", by=REVIEW).commit


@pytest.mark.parametrize("how", ["user", "pinned", "edited-by-user", "hand-edited"])
def test_protected_skills_are_refused_even_after_reading(
    library: SkillLibrary, home: Home, how: str
) -> None:
    library.create("x", skill_md("x"), by=Writer("user") if how == "user" else AGENT)
    if how == "pinned":
        library.pin("x")
    if how == "edited-by-user":
        library.patch("x", "second thing", "2nd thing")  # the user, via the CLI or the API
    if how == "hand-edited":
        path = home.layout.skills_dir / "x" / "SKILL.md"
        path.write_text(path.read_text().replace("second", "2nd"))
    library.view("x", session_id=REVIEW.session_id)
    error = _refused(library, home, ErrorKind.PROTECTED)
    assert "do not retry" in error.next_step
    with pytest.raises(SkillError):
        library.delete("x", by=REVIEW)
    assert (home.layout.skills_dir / "x").exists()


def test_bundled_skills_are_refused(home: Home, clock: Clock) -> None:
    library = make_library(home, clock, bundled=BUNDLED_DIR)
    library.view("git-bisect", session_id=REVIEW.session_id)
    with pytest.raises(SkillError) as caught:
        library.patch("git-bisect", "## Verify", "## Check", by=REVIEW)
    assert caught.value.kind is ErrorKind.PROTECTED and "bundled" in caught.value.message
    assert (
        not home.layout.skills_dir.exists() or not (home.layout.skills_dir / "git-bisect").exists()
    )


def test_the_agent_in_conversation_is_not_held_to_the_guards(library: SkillLibrary) -> None:
    library.create("x", skill_md("x"))  # the user's
    assert library.patch("x", "first thing", "1st thing", by=AGENT).commit
    assert library.info("x").record.created_by == "user"
