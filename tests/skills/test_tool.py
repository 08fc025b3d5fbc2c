"""The model's tools: results say what happened and what to do next."""

from __future__ import annotations

from tests.skills.conftest import Clock, last_message, make_library, skill_md

from kenning.home import Home
from kenning.skills.library import SkillLibrary
from kenning.skills.tool import (
    MANAGE_SCHEMA,
    MAX_FAILURES_PER_TURN,
    SEARCH_SCHEMA,
    VIEW_SCHEMA,
    session_skill_tools,
)


def test_schemas_are_plain_and_name_their_tools() -> None:
    for schema, name in ((VIEW_SCHEMA, "skill_view"), (SEARCH_SCHEMA, "skills_search")):
        assert schema["name"] == name and schema["parameters"]["type"] == "object"
    props = MANAGE_SCHEMA["parameters"]["properties"]
    assert props["action"]["enum"] == [
        "create", "patch", "edit", "delete", "write_file", "remove_file",
    ]  # fmt: skip
    assert "oneOf" not in str(MANAGE_SCHEMA) and "anyOf" not in str(MANAGE_SCHEMA)


def test_create_view_patch_through_the_tools(library: SkillLibrary, home: Home) -> None:
    view, search, manage = session_skill_tools(library, "s1")
    created = manage({"action": "create", "name": "x", "content": skill_md("x"), "reason": "new"})
    assert created["success"] and created["done"] and "do not repeat" in created["message"]
    assert library.info("x").record.created_by == "agent"
    assert "Why: new" in last_message(home)

    shown = view({"name": "x"})
    assert shown["success"] and shown["content"].startswith("---\nname: x")
    assert shown["support_files"] == []
    assert library.info("x").usage.count == 1

    patched = manage({"action": "patch", "name": "x", "old_string": "first", "new_string": "1st"})
    assert patched["success"], patched
    hits = search({"query": "recurring thing"})
    assert [h["name"] for h in hits["results"]] == ["x"]


def test_failures_carry_the_next_step_and_stop_a_retry_loop(library: SkillLibrary) -> None:
    _, _, manage = session_skill_tools(library, "s1")
    manage({"action": "create", "name": "x", "content": skill_md("x")})
    first = manage({"action": "patch", "name": "x", "old_string": "absent", "new_string": "y"})
    assert first == {
        "success": False,
        "error": "no_match",
        "message": "old_string does not occur in SKILL.md of skill 'x'.",
        "next_step": "Call skill_view(name='x') and copy the text exactly (spaces and line "
        "breaks included).",
    }
    bad = manage({"action": "create", "name": "Bad Name", "content": "x"})
    assert bad["error"] == "invalid" and "lowercase" in bad["message"]
    third = manage({"action": "frobnicate", "name": "x"})
    assert third["done"] and f"{MAX_FAILURES_PER_TURN} skill changes failed" in third["next_step"]
    manage.begin_turn()
    assert "done" not in manage({"action": "delete", "name": "nope"})


def test_invalid_skill_reports_each_problem(library: SkillLibrary) -> None:
    _, _, manage = session_skill_tools(library, "s1")
    result = manage({"action": "create", "name": "x", "content": "---\nname: y\n---\n\n"})
    assert result["error"] == "invalid" and len(result["problems"]) == 3


def test_view_of_an_unknown_skill_suggests_similar_ones(library: SkillLibrary) -> None:
    library.create("deploy-web-app", skill_md("deploy-web-app", "Deploy the web app."))
    view, _, _ = session_skill_tools(library, "s1")
    result = view({"name": "deploy-app"})
    assert result["error"] == "not_found" and result["similar"] == ["deploy-web-app"]
    missing_file = view({"name": "deploy-web-app", "file": "scripts/none.sh"})
    assert missing_file["error"] == "not_found"


def test_search_includes_archived_skills_and_says_when_nothing_matches(
    library: SkillLibrary,
) -> None:
    library.create("old-way", skill_md("old-way", "Migrate the billing database."))
    library.set_statuses({"old-way": ("archived", "test")}, "skills: test")
    _, search, _ = session_skill_tools(library, "s1")
    [hit] = search({"query": "billing migration"})["results"]
    assert hit["status"] == "archived"
    empty = search({"query": "quantum chromodynamics"})
    assert empty["results"] == [] and "No skill matches" in empty["message"]
    assert search({"query": "  "})["success"] is False


def test_the_automated_review_reads_first_and_proposes(home: Home, clock: Clock) -> None:
    library = make_library(home, clock, mode="propose")
    _, _, live = session_skill_tools(library, "live")
    live({"action": "create", "name": "x", "content": skill_md("x")})
    view, _, review = session_skill_tools(library, "review", automated=True)
    args = {"action": "patch", "name": "x", "old_string": "first", "new_string": "1st"}
    refused = review(args)
    assert refused["error"] == "not_read" and "skill_view(name='x')" in refused["next_step"]
    view({"name": "x"})
    proposed = review(args)
    assert proposed["proposed"] and proposed["proposal_id"] == "1"
    assert "first thing" in library.view("x", use=False).text
