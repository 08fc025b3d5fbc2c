"""The jsonl importer: one message a line, idempotent, appends new lines, skips damaged ones."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kenning.archive.importers import FORMATS, ImportFormatError, import_jsonl, parse_jsonl
from kenning.archive.store import Archive


@pytest.fixture
def archive(archive_on: Archive) -> Archive:
    """An empty archive, on each storage backend in turn."""
    return archive_on


def line(sid: str, role: str, content: str, ts: str, **extra: Any) -> dict[str, Any]:
    return {"session_id": sid, "role": role, "content": content, "timestamp": ts, **extra}


def write(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    text = "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def at(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


ROWS: list[dict[str, Any] | str] = [
    line("trip", "user", "Book the train to Lyon for Friday", "2024-05-02T09:00:00Z",
         session_title="Lyon trip"),
    line("work", "user", "The staging database moved to port 5433", "2024-05-03T08:00:00+02:00"),
    line("trip", "assistant", "Booked the 8:04 from Paris Gare de Lyon", "2024-05-02T09:00:05Z",
         meta={"model": "m1"}),
    # Earlier than the first line of its session: the session starts here.
    line("trip", "user", "I am planning a trip to Lyon", "2024-05-01T18:30:00"),
]  # fmt: skip


def test_lines_become_sessions_with_their_times_titles_and_meta(
    archive: Archive, tmp_path: Path
) -> None:
    report = import_jsonl(archive, write(tmp_path / "h.jsonl", ROWS))
    assert (report.sessions_imported, report.messages_imported) == (2, 4)
    assert report.session_ids == ["trip", "work"] and report.problems == []
    trip = archive.session("trip")
    assert trip is not None and trip.source == "import" and trip.title == "Lyon trip"
    # started_at is the earliest message; a time without an offset is UTC.
    assert trip.started_at == at("2024-05-01T18:30:00+00:00")
    messages = archive.messages("trip")
    # File order is kept; each timestamp is the message's created_at.
    assert [m.content for m in messages] == [
        "Book the train to Lyon for Friday",
        "Booked the 8:04 from Paris Gare de Lyon",
        "I am planning a trip to Lyon",
    ]
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    assert messages[1].created_at == at("2024-05-02T09:00:05+00:00")
    assert messages[1].meta == {"model": "m1"}
    work = archive.session("work")
    assert work is not None and work.started_at == at("2024-05-03T06:00:00+00:00")
    # No session_title: the title is the start of the first user message.
    assert work.title == "The staging database moved to port 5433"


def test_reimport_adds_nothing(archive: Archive, tmp_path: Path) -> None:
    path = write(tmp_path / "h.jsonl", ROWS)
    import_jsonl(archive, path)
    again = import_jsonl(archive, path)
    assert (again.sessions_imported, again.messages_imported) == (0, 0)
    assert (again.sessions_skipped, again.messages_already_there) == (2, 4)
    assert archive.storage.connection().execute("SELECT count(*) FROM messages").fetchone()[0] == 4


def test_new_lines_of_a_known_session_are_appended_alone(archive: Archive, tmp_path: Path) -> None:
    import_jsonl(archive, write(tmp_path / "h.jsonl", ROWS))
    grown: list[dict[str, Any] | str] = [
        *reversed(ROWS),  # reordering changes nothing
        line("trip", "user", "Cancel the hotel", "2024-04-30T12:00:00Z"),
        line("home", "user", "Water the plants", "2024-05-04T07:00:00Z"),
    ]
    report = import_jsonl(archive, write(tmp_path / "grown.jsonl", grown))
    assert (report.sessions_imported, report.sessions_appended) == (1, 1)
    assert (report.messages_imported, report.messages_appended) == (2, 1)
    assert report.messages_already_there == 4
    trip = archive.messages("trip")
    assert [m.seq for m in trip] == [1, 2, 3, 4] and trip[-1].content == "Cancel the hotel"
    session = archive.session("trip")
    assert session is not None and session.started_at == at("2024-04-30T12:00:00+00:00")
    assert import_jsonl(archive, tmp_path / "grown.jsonl").messages_imported == 0


def test_identical_lines_are_each_kept_once(archive: Archive, tmp_path: Path) -> None:
    ok = line("s", "user", "ok", "2024-05-01T10:00:00Z")
    path = write(tmp_path / "h.jsonl", [ok, ok])
    assert import_jsonl(archive, path).messages_imported == 2
    assert import_jsonl(archive, path).messages_imported == 0
    assert import_jsonl(archive, write(path, [ok, ok, ok])).messages_imported == 1
    assert len(archive.messages("s")) == 3


def test_an_edited_line_is_a_new_message_and_the_old_one_stays(
    archive: Archive, tmp_path: Path
) -> None:
    path = write(tmp_path / "h.jsonl", [line("s", "user", "port 5433", "2024-05-01T10:00:00Z")])
    import_jsonl(archive, path)
    write(path, [line("s", "user", "port 5434", "2024-05-01T10:00:00Z", session_title="Ports")])
    assert import_jsonl(archive, path).messages_appended == 1
    assert [m.content for m in archive.messages("s")] == ["port 5433", "port 5434"]
    session = archive.session("s")
    assert session is not None and session.title == "Ports"  # a given title is applied


def test_damaged_lines_are_skipped_with_file_line_and_reason(
    archive: Archive, tmp_path: Path
) -> None:
    path = tmp_path / "h.jsonl"
    good = json.dumps(line("s", "user", "kept", "2024-05-01T10:00:00Z"))
    rows = [
        good,
        '{"session_id": "s", "role": "user", "content": "cut',
        "[1, 2]",
        json.dumps(line("s", "bot", "x", "2024-05-01T10:00:00Z")),
        json.dumps({"session_id": "s", "role": "user", "content": "no time"}),
        json.dumps(line("s", "user", "x", "yesterday")),
        json.dumps(line("s", "user", "x", "2024-05-01T10:00:00Z", meta=[1])),
        json.dumps(line("", "user", "x", "2024-05-01T10:00:00Z")),
        json.dumps(line("s", "user", 42, "2024-05-01T10:00:00Z")),
        "",
        json.dumps(line("s", "assistant", "also kept", "2024-05-01T10:00:01Z", speaker="Bo")),
    ]
    raw = "\n".join(rows).encode("utf-8") + b"\n\xff\xfe not text\n"
    path.write_bytes(raw)
    report = import_jsonl(archive, path)
    assert report.messages_imported == 2
    assert [m.content for m in archive.messages("s")] == ["kept", "also kept"]
    p = str(path)
    assert [str(problem) for problem in report.problems] == [
        f"{p}:2: invalid JSON at column 48 (Unterminated string starting at)",
        f"{p}:3: expected a JSON object, got a list",
        f"{p}:4: 'role' must be one of user, assistant, system, tool (got \"bot\")",
        f"{p}:5: 'timestamp' is missing (it must be an ISO-8601 string like 2024-05-01T09:30:00Z)",
        f"{p}:6: 'timestamp' must be an ISO-8601 string like 2024-05-01T09:30:00Z "
        '(got "yesterday")',
        f"{p}:7: 'meta' must be an object (got [1])",
        f"{p}:8: 'session_id' must be a non-empty string (got \"\")",
        f"{p}:9: 'content' must be a string (got 42)",
        f"{p}:12: not UTF-8 text (byte 0)",
    ]
    assert report.skipped_events == {"unknown field 'speaker' (ignored)": 1}


def test_a_file_with_nothing_importable_is_an_error(archive: Archive, tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match="the file has no lines"):
        parse_jsonl(empty)
    bad = write(tmp_path / "bad.jsonl", ['{"role": "user"}'])
    no_line = r"line 1: no line is a valid message \('session_id"
    with pytest.raises(ImportFormatError, match=no_line):
        parse_jsonl(bad)


def test_a_session_id_of_another_source_is_never_appended_to(
    archive: Archive, tmp_path: Path
) -> None:
    archive.start_session("cli", session_id="live", started_at=at("2024-05-01T00:00:00+00:00"))
    rows: list[dict[str, Any] | str] = [
        line("live", "user", "hijack", "2024-05-01T10:00:00Z"),
        line("other", "user", "fine", "2024-05-01T10:00:00Z"),
    ]
    report = import_jsonl(archive, write(tmp_path / "h.jsonl", rows))
    assert report.session_ids == ["other"] and archive.messages("live") == []
    assert len(report.problems) == 1
    assert "h.jsonl:1: session id 'live' already belongs to a cli session" in str(
        report.problems[0]
    )


def test_jsonl_is_a_registered_format() -> None:
    assert FORMATS["jsonl"] is parse_jsonl


def test_times_with_offsets_and_fractions_are_exact(archive: Archive, tmp_path: Path) -> None:
    rows: list[dict[str, Any] | str] = [
        line("s", "user", "a", "2024-05-01T10:00:00.250+05:30"),
        line("s", "user", "b", "2024-05-01"),
    ]
    import_jsonl(archive, write(tmp_path / "h.jsonl", rows))
    got = [m.created_at for m in archive.messages("s")]
    assert got == [
        datetime(2024, 5, 1, 4, 30, 0, 250_000, tzinfo=UTC).timestamp(),
        datetime(2024, 5, 1, tzinfo=UTC).timestamp(),
    ]
