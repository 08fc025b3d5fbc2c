"""The in-memory message metadata used for ranking stays exact as the archive grows."""

from __future__ import annotations

from pathlib import Path

from kenning.archive.store import Archive, Message
from kenning.search.meta import MessageMeta


def test_refresh_sees_new_messages_from_another_connection(tmp_path: Path) -> None:
    writer = Archive(tmp_path / "state.db")
    sid = writer.start_session("cli")
    first = writer.append(sid, Message("user", "hello", speaker="Ann"))
    system = writer.append(sid, Message("system", "a note"))
    reader = Archive(tmp_path / "state.db")
    meta = MessageMeta()
    meta.refresh(reader.storage.sessions)
    assert meta.lookup([first.id, system.id, 999]) == {
        first.id: (sid, first.created_at, 1, "Ann")
    }  # system messages and unknown ids are left out
    other = writer.start_session("cli")
    later = writer.append(other, Message("assistant", "again"))
    meta.refresh(reader.storage.sessions)
    assert meta.lookup([later.id])[later.id][0] == other and len(meta.names) == 2
    assert meta.lookup([later.id])[later.id][3] is None and meta.speakers == ["Ann", None]
    meta.refresh(reader.storage.sessions)  # nothing new: no duplicates
    assert len(meta.ids) == 3
