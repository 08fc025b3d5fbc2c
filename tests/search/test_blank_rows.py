"""A message with no text and no tool calls is never indexed, on either backend.

A tool that printed nothing or a call recorded before its content matches no
question; embedded, it came back from vector search as a blank hit.
"""

from __future__ import annotations

from tests.conftest import raw_sql

from kenning.archive.store import Archive, Message
from kenning.search.engine import SearchEngine
from kenning.testing import FakeEmbedder


def test_blank_rows_get_neither_an_fts_row_nor_a_vector(archive_on: Archive) -> None:
    archive = archive_on
    sid = archive.start_session("cli")
    said = archive.append(sid, Message("user", "Where does the staging database listen?"))
    blank = archive.append(sid, Message("tool", "   ", tool_name="shell", tool_call_id="c1"))
    call = archive.append(
        sid,
        Message("assistant", "", tool_calls=[{"id": "c2", "name": "memory", "arguments": "{}"}]),
    )
    engine = SearchEngine(archive, FakeEmbedder())
    engine.index_pending()
    assert engine.pending() == (0, 0)  # the blank row is not left waiting either
    key = "message_id" if type(archive.storage).__name__ == "PostgresStorage" else "rowid"
    fts = {r[0] for r in raw_sql(archive.storage, f"SELECT {key} FROM message_fts")}
    vectors = {r[0] for r in raw_sql(archive.storage, "SELECT message_id FROM message_vectors")}
    assert fts == vectors == {said.id, call.id}
    assert blank.id not in {h.id for h in engine.search("anything at all").hits}
