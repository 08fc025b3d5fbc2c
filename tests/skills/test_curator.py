"""The curator: stale after 30 idle days, archived after 90, revived by use; never deletes,
never touches pinned, user-written, bundled or person-edited skills."""

from __future__ import annotations

import pytest
from tests.skills.conftest import Clock, disk, make_library, skill_md, subjects

from kenning.home import Home
from kenning.skills.catalog import BUNDLED_DIR
from kenning.skills.curator import Curator
from kenning.skills.guards import Writer
from kenning.skills.index import build_index
from kenning.skills.library import SkillLibrary
from kenning.skills.tool import search

AGENT = Writer("agent", "s1")


@pytest.fixture
def library(home: Home, clock: Clock) -> SkillLibrary:
    library = make_library(home, clock, bundled=BUNDLED_DIR)
    library.create("agent-skill", skill_md("agent-skill"), by=AGENT)
    return library


def _status(library: SkillLibrary, name: str = "agent-skill") -> str:
    return library.info(name).status


def test_transitions_happen_at_the_right_ages(
    library: SkillLibrary, home: Home, clock: Clock
) -> None:
    curator = Curator(library)
    clock.advance(days=29, hours=23)
    assert curator.run().transitions == () and _status(library) == "active"
    clock.advance(hours=1)  # 30 days idle
    [t] = curator.run().transitions
    assert (t.name, t.before, t.after, t.idle_days) == ("agent-skill", "active", "stale", 30)
    assert subjects(home)[0] == "skills: curator — 1 stale"
    assert "unused for 30 days" in library.info("agent-skill").record.status_reason
    clock.advance(days=59)  # 89 days idle
    assert curator.run().transitions == () and _status(library) == "stale"
    clock.advance(days=1)  # 90 days idle
    [t] = curator.run().transitions
    assert (t.before, t.after) == ("stale", "archived")
    assert (library.dir / "agent-skill" / "SKILL.md").exists()  # never deleted or moved
    assert curator.run().transitions == ()  # nothing further, ever


def test_using_a_skill_brings_it_back_and_resets_its_age(
    library: SkillLibrary, home: Home, clock: Clock
) -> None:
    clock.advance(days=100)
    Curator(library).run()
    assert _status(library) == "archived"
    assert "agent-skill" not in build_index(library).shown
    assert [h["status"] for h in search(library, "recurring thing")] == ["archived"]
    view = library.view("agent-skill")
    assert view.reactivated_from == "archived" and _status(library) == "active"
    assert subjects(home)[0] == "skills: 'agent-skill' is active again"
    clock.advance(days=29)
    assert Curator(library).run().transitions == ()


def test_a_skill_skipped_since_it_was_planned_is_left_alone(
    library: SkillLibrary, clock: Clock
) -> None:
    clock.advance(days=31)
    curator = Curator(library)
    planned = curator.plan()
    assert [t.name for t in planned.transitions] == ["agent-skill"]
    library.view("agent-skill")  # used between the plan and the run
    assert curator.run().transitions == () and _status(library) == "active"


def test_changing_a_skill_counts_as_activity(library: SkillLibrary, clock: Clock) -> None:
    clock.advance(days=25)
    library.view("agent-skill", session_id="s2")
    library.patch("agent-skill", "first thing", "1st thing", by=Writer("agent", "s2"))
    clock.advance(days=25)
    assert Curator(library).run().transitions == ()


def test_protected_skills_are_never_touched(
    library: SkillLibrary, home: Home, clock: Clock
) -> None:
    library.create("user-skill", skill_md("user-skill"))
    library.create("pinned-skill", skill_md("pinned-skill"), by=AGENT)
    library.pin("pinned-skill")
    library.create("edited-skill", skill_md("edited-skill"), by=AGENT)
    path = library.dir / "edited-skill" / "SKILL.md"
    path.write_text(path.read_text().replace("second", "2nd"))  # by hand
    clock.advance(days=365)
    report = Curator(library).run()
    assert [t.name for t in report.transitions] == ["agent-skill"]
    for name in ("user-skill", "pinned-skill", "edited-skill", "git-bisect", "writing-skills"):
        assert _status(library, name) == "active", name
    assert report.protected >= 6 and report.considered == 1


def test_dry_run_changes_nothing(library: SkillLibrary, home: Home, clock: Clock) -> None:
    clock.advance(days=95)
    before, log = disk(home), subjects(home)
    report = Curator(library).run(dry_run=True)
    assert report.dry_run and [t.after for t in report.transitions] == ["archived"]
    assert report.commit is None
    assert disk(home) == before and subjects(home) == log
