"""The review prompts are package data and say what to keep and what not to."""

from __future__ import annotations

import pytest

from kenning.archive.store import Message
from kenning.home import Home
from kenning.learning.review import Snapshot, prompt_file, skills_used, system_prompt
from kenning.prompt import template


@pytest.mark.parametrize("kinds", [("memory",), ("skills",), ("memory", "skills")])
def test_each_kind_has_its_prompt(kinds: tuple[str, ...]) -> None:
    text = template(prompt_file(kinds))
    assert "Nothing to save." in text and "secrets" in text and "task progress" in text.lower()
    if "memory" in kinds:
        assert "USER.md" in text and "MEMORY.md" in text and "declarative" in text
    if "skills" in kinds:
        assert "class-level" in text and "skill_view" in text and "patch" in text


def test_the_skills_prompt_names_the_skills_used_in_the_conversation(home: Home) -> None:
    call = {"id": "1", "name": "skill_view", "arguments": '{"name": "git-bisect"}'}
    snapshot = Snapshot(
        "s1",
        (Message("user", "find the bad commit", seq=1),
         Message("assistant", "", tool_calls=[call], seq=2)),
        1,
        2,
    )  # fmt: skip
    assert skills_used(snapshot) == ["git-bisect"]
    prompt = system_prompt(("skills",), home, skills_used(snapshot))
    assert "Skills used in this conversation: 'git-bisect'" in prompt
    assert "## Memory as it is now" in prompt and "## Skills as they are now" in prompt


def test_the_snapshot_leaves_out_kenning_talking_to_itself(home: Home) -> None:
    from kenning.learning.review import render_conversation, take_snapshot

    archive = home.archive
    sid = archive.start_session("cli")
    archive.append(sid, Message("user", "Deploy the api."))
    archive.append(sid, Message("user", "Save what matters now.", meta={"flush": True}))
    archive.append(sid, Message("assistant", "Summary of earlier turns.", meta={"compaction": {}}))
    archive.append(sid, Message("assistant", "Deployed. " + "x" * 5000))
    archive.append(sid, Message("tool", "y" * 5000, tool_name="shell", tool_call_id="c1"))
    snapshot = take_snapshot(archive, sid, 0)
    assert [m.seq for m in snapshot.messages] == [1, 4, 5]
    assert (snapshot.first_seq, snapshot.last_seq) == (1, 5)
    text = render_conversation(snapshot, 60_000)
    assert "Save what matters" not in text and "Summary of earlier" not in text
    assert "chars cut]" in text and len(text) < 6_000  # long messages are cut for the review
    short = render_conversation(snapshot, 1_000)
    assert "earlier messages left out for length" in short and "[5] tool shell" in short
    assert take_snapshot(archive, sid, 5).empty
