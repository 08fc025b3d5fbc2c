"""session_search and memory_search: the four ways in, and results written for a model."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenning.archive.session_search import PREVIEW_CHARS, SessionSearch
from kenning.archive.store import Archive, Message
from kenning.memory.memory_search import MemorySearch
from kenning.memory.store import Target
from kenning.search.engine import SearchEngine
from kenning.testing import FakeEmbedder, make_home


@pytest.fixture
def archive(archive_on: Archive) -> Archive:
    """An empty archive, on each storage backend in turn."""
    return archive_on


def tool_for(archive: Archive, current: str | None = None) -> SessionSearch:
    engine = SearchEngine(archive, FakeEmbedder())
    return SessionSearch(archive, lambda: engine, current_session_id=current)


def fill(archive: Archive, title: str, lines: list[str], **kw: object) -> str:
    sid = archive.start_session("cli", title=title, **kw)  # type: ignore[arg-type]
    for i, text in enumerate(lines):
        archive.append(sid, Message("user" if i % 2 == 0 else "assistant", text))
    return sid


def test_query_finds_sessions_with_context_and_excludes_current(archive: Archive) -> None:
    old = fill(
        archive,
        "deploy",
        ["how do we deploy?", "Run make deploy on bastion-7", "thanks", "the kubeconfig path?"],
    )
    fill(archive, "lunch", ["what's for lunch", "pasta"])
    current = fill(archive, "now", ["remind me how to deploy on bastion"])
    result = tool_for(archive, current)({"query": "deploy bastion"})
    assert result["success"]
    ids = [s["session_id"] for s in result["sessions"]]
    assert ids[0] == old and current not in ids
    messages = result["sessions"][0]["messages"]
    assert any(m.get("match") and "bastion-7" in m["content"] for m in messages)
    assert "session_id and message_id" in result["next_step"]


def test_continuations_count_as_one_result(archive: Archive) -> None:
    first = fill(archive, "part 1", ["the flux capacitor needs 1.21 gigawatts"])
    archive.start_session("cli", session_id="cont", parent_id=first)
    archive.append("cont", Message("user", "flux capacitor wiring continued"))
    result = tool_for(archive)({"query": "flux capacitor"})
    assert len(result["sessions"]) == 1


def test_around_and_bookends(archive: Archive) -> None:
    sid = fill(archive, "long", [f"message number {i}" for i in range(30)])
    target = archive.messages(sid)[14]
    around = tool_for(archive)({"session_id": sid, "message_id": target.id})
    seqs = [m["seq"] for m in around["messages"]]
    assert seqs == list(range(11, 20))
    assert [m["seq"] for m in around["messages"] if m.get("match")] == [15]
    ends = tool_for(archive)({"session_id": sid})
    assert [m["seq"] for m in ends["beginning"]] == [1, 2, 3, 4]
    assert [m["seq"] for m in ends["end"]] == [27, 28, 29, 30]
    assert ends["omitted_messages"] == 22


def test_recent_sessions_when_no_arguments(archive: Archive) -> None:
    a = fill(archive, "a", ["one"])
    b = fill(archive, "b", ["two"])
    result = tool_for(archive, current=b)({})
    assert [s["session_id"] for s in result["sessions"]] == [a]


def test_long_messages_are_capped_with_directions(archive: Archive) -> None:
    fill(archive, "dump", ["zebra " * 1000])
    result = tool_for(archive)({"query": "zebra"})
    message = result["sessions"][0]["messages"][0]
    assert len(message["content"]) == PREVIEW_CHARS
    assert "message_id=" in message["truncated"]


def test_missing_ids_and_bad_arguments(archive: Archive) -> None:
    assert tool_for(archive)({"session_id": "nope"})["success"] is False
    bad = tool_for(archive)({"query": "x", "since": "last tuesday"})
    assert bad["success"] is False and "next_step" in bad


def test_nothing_found_says_what_to_do(archive: Archive) -> None:
    fill(archive, "a", ["apples and pears"])
    result = tool_for(archive)({"query": "xylophone quartet"})
    assert result["sessions"] == [] and "next_step" in result


def test_memory_search_returns_paths_and_lines(tmp_path: Path) -> None:
    home = make_home(tmp_path / "home")
    home.memory.add(Target.MEMORY, "The staging database is Postgres 16 on port 5433")
    home.journal.append("Rotated the TLS certificate for api.example.test today")
    engine = SearchEngine(home.archive, FakeEmbedder(), layout=home.layout)
    tool = MemorySearch(lambda: engine)
    result = tool({"query": "TLS certificate"})
    assert result["success"] and result["passages"]
    top = result["passages"][0]
    assert top["path"].startswith("memory/") and "TLS" in top["text"]
    assert top["lines"].count("-") == 1
    assert tool({"query": ""})["success"] is False


def test_current_sessions_compacted_messages_are_found_but_live_ones_are_not(
    archive: Archive,
) -> None:
    current = fill(
        archive,
        "now",
        ["the staging token is tok-7f3a9c21", "noted", "the quokka deploy window is friday"],
    )
    archive.mark_compacted(current, [1, 2])  # compaction took the first exchange out
    tool = tool_for(archive, current)
    found = tool({"query": "staging token"})
    assert [s["session_id"] for s in found["sessions"]] == [current]
    assert any("tok-7f3a9c21" in m["content"] for m in found["sessions"][0]["messages"])
    live = tool({"query": "quokka deploy window"})
    assert all(
        "quokka" not in m["content"]
        for s in live["sessions"]
        for m in s["messages"]
        if m.get("match")
    )


def test_one_long_message_is_read_whole_a_page_at_a_time(archive: Archive) -> None:
    body = "".join(f"row {i:05d}\n" for i in range(5000))  # 50,000 chars
    sid = fill(archive, "log", ["show the log", body])
    message_id = archive.messages(sid)[1].id
    tool = tool_for(archive)
    pages, offset = [], 0
    while True:
        page = tool({"session_id": sid, "message_id": message_id, "offset": offset})
        assert page["success"]
        pages.append(page["message"]["content"])
        if "offset=" not in page["next_step"]:
            break
        offset = int(page["next_step"].rsplit("offset=", 1)[1].rstrip("."))
    assert "".join(pages) == body and len(pages) == 3
    assert tool({"session_id": sid, "message_id": 10**6, "offset": 0})["success"] is False


def test_secrets_in_old_sessions_are_redacted_for_the_model_but_kept_in_the_archive(
    archive: Archive,
) -> None:
    key = "ghp_" + "Zq7" * 12
    sid = fill(archive, "tokens", [f"here is my token {key} for the deploy", "noted"])
    tool = tool_for(archive)
    shown = str(tool({"query": "deploy token"})) + str(tool({"session_id": sid}))
    assert key not in shown and "[REDACTED secret]" in shown and "for the deploy" in shown
    stored = [m.content for m in archive.messages(sid)]
    assert any(key in text for text in stored)


def test_session_search_says_what_the_query_asked_of_time(archive: Archive) -> None:
    """The model sees why "now" put the newest first (and nothing when no time word)."""
    fill(archive, "deploy", ["how do we deploy?", "Run make deploy on bastion-7"])
    asked = tool_for(archive)({"query": "how do we deploy now"})
    assert asked["time"]["intent"] == "recent" and asked["time"]["phrase"] == "now"
    assert "time" not in tool_for(archive)({"query": "how do we deploy"})
