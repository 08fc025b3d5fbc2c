"""Re-importing Claude Code sessions: keyed by the host's ids, updated in place, never twice.

Sessions imported before harness lines became system rows were stored with
those lines as user rows, under a key hashed from the content. Importing the
same transcripts now must find them (by the Claude Code session id), re-type
their harness rows in place and add only what is new.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from kenning.archive.importers import import_claude_code, parse_claude_code, store
from kenning.archive.store import Archive, Message
from kenning.search.engine import SearchEngine

FIXTURES = Path(__file__).parent / "fixtures"
HARNESS = FIXTURES / "claude_code_harness"
HOST_ID = "7c9d1e22-4b8a-4c3f-9d10-2f6a8e4b1c33"


@pytest.fixture
def archive(archive_on: Archive) -> Archive:
    return archive_on


def _import_as_before(archive: Archive, path: Path) -> str:
    """Store ``path`` the way the importer did before harness lines were typed:
    harness lines as user rows, no sub-agents, a content-hash import key."""
    parsed = parse_claude_code(path)
    parsed.sessions = [s for s in parsed.sessions if s.parent_origin is None]
    for session in parsed.sessions:
        session.messages = [_as_user(m) for m in session.messages]
    report = store(archive, parsed)
    (sid,) = report.session_ids
    key = archive.storage.sessions.import_key(sid)
    assert key is not None and not key.startswith("claude-code:session:")
    return sid


def _as_user(message: Message) -> Message:
    meta = dict(message.meta or {})
    if meta.pop("harness", None) is None:
        return message
    return dataclasses.replace(message, role="user", meta=meta)


def test_a_session_imported_before_harness_typing_is_updated_not_duplicated(
    archive: Archive,
) -> None:
    old = _import_as_before(archive, HARNESS)
    engine = SearchEngine(archive, None)
    assert engine.search("zebrafish labels").hits  # the old typing: a harness line is "said"
    report = import_claude_code(archive, HARNESS)
    main = [s for s in archive.sessions() if s.parent_id is None]
    assert [s.id for s in main] == [old] and archive.sessions_by_host_id(HOST_ID) == [old]
    assert (report.sessions_imported, report.messages_updated) == (0, 5)
    roles = [(m.role, (m.meta or {}).get("harness")) for m in archive.messages(old)]
    assert roles == [
        ("system", "caveat"),
        ("system", "command"),
        ("system", "command-output"),
        ("system", "compact-summary"),
        ("user", None),
        ("assistant", None),
        ("tool", None),
        ("system", "interruption"),
        ("user", None),
    ]
    # The re-typed rows left the search index; the conversation is still found.
    for words in ("zebrafish labels", "Caveat local commands", "interrupted"):
        assert SearchEngine(archive, None).search(words).hits == [], words
    assert SearchEngine(archive, None).search("quokka helper").hits
    # The sub-agent the old importer dropped is now there, linked.
    (agent,) = archive.children(old)
    assert archive.messages(agent.id)[0].content == "Search for other quokka callers."
    # And a third import changes nothing.
    again = import_claude_code(archive, HARNESS)
    assert (again.sessions_imported, again.messages_imported, again.messages_updated) == (0, 0, 0)
    assert (again.sessions_skipped, again.subagent_sessions) == (1, 0)


def test_a_grown_transcript_appends_its_new_lines(archive: Archive, tmp_path: Path) -> None:
    folder = tmp_path / "project"
    shutil.copytree(HARNESS, folder)
    transcript = next(folder.glob("*.jsonl"))
    first = import_claude_code(archive, folder)
    (sid,) = first.session_ids
    before = len(archive.messages(sid))
    line = {
        "type": "user",
        "sessionId": HOST_ID,
        "uuid": "c0000000-0000-4000-8000-000000000099",
        "parentUuid": "c0000000-0000-4000-8000-000000000011",
        "timestamp": "2025-08-02T10:09:00.000Z",
        "message": {"role": "user", "content": "One more: rename the wombat too."},
    }
    with transcript.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    grown = import_claude_code(archive, folder)
    assert (grown.sessions_imported, grown.sessions_appended, grown.messages_appended) == (0, 1, 1)
    assert grown.describe()[1] == "Appended 1 new message to 1 session already in the archive."
    messages = archive.messages(sid)
    assert len(messages) == before + 1 and messages[-1].content.endswith("wombat too.")
    assert [s.id for s in archive.sessions() if s.parent_id is None] == [sid]
