"""LoCoMo (Maharana et al., 2024): a pure parser for benchmarks and an archive importer.

``read_locomo`` validates the whole file and returns plain values; it never
touches the archive. Sessions come from the ``session_N`` keys that exist (some
``session_N_date_time`` keys have no session) in numeric order; session times
are read as UTC and returned as aware datetimes. Evidence ids are normalised to
``D<session>:<turn>`` without leading zeros, so they compare equal to turn ids.

``import_locomo`` stores one archive session per conversation session, one
message per turn, with ``created_at`` = session start + seq seconds so the
turns keep their order on any timeline.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kenning.archive.importers.common import (
    ImportedSession,
    ImportFormatError,
    ImportReport,
    ParsedImport,
    Progress,
    load_json,
    store,
)
from kenning.archive.store import Archive, Message

FORMAT = "locomo"

_SESSION_KEY = re.compile(r"session_(\d+)")
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
# "1:56 pm on 8 May, 2023"; parsed by hand because strptime's %B and %p follow
# the process locale.
_DATE = re.compile(
    r"\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})\s*",
    re.IGNORECASE,
)
_MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTHS = {name: n for n, full in enumerate(_MONTH_NAMES, 1) for name in (full, full[:3])}
_MONTHS["sept"] = 9


@dataclass(frozen=True)
class LocomoTurn:
    speaker: str
    dia_id: str
    text: str
    blip_caption: str | None = None

    @property
    def content(self) -> str:
        """The turn as the archive stores it: the text plus any image caption."""
        return f"{self.text} [image: {self.blip_caption}]" if self.blip_caption else self.text


@dataclass(frozen=True)
class LocomoSession:
    index: int  # the N of session_N
    started_at: datetime  # aware, UTC
    turns: tuple[LocomoTurn, ...]

    def __iter__(self) -> Iterator[Any]:
        """Unpacks as ``index, started_at, turns``."""
        return iter((self.index, self.started_at, self.turns))


@dataclass(frozen=True)
class LocomoQuestion:
    question: str
    category: int
    evidence: tuple[str, ...]
    answer: str | None  # None for adversarial items (category 5) that only have the trap
    adversarial_answer: str | None = None


@dataclass(frozen=True)
class LocomoConversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: list[LocomoSession]
    qa: list[LocomoQuestion]


def normalise_evidence(raw: str | Iterable[str]) -> tuple[str, ...]:
    """``"D8:6; D9:17"`` → ``("D8:6", "D9:17")``; ``"D30:05"`` → ``D30:5``; ``"D"`` → nothing."""
    items = [raw] if isinstance(raw, str) else list(raw)
    found: list[str] = []
    for item in items:
        for session, turn in _EVIDENCE.findall(item):
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id not in found:
                found.append(dia_id)
    return tuple(found)


def parse_locomo_date(raw: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` → an aware UTC datetime; ValueError if it is not one."""
    match = _DATE.fullmatch(raw)
    if match is None:
        raise ValueError(f"unrecognised date {raw!r} (expected like '1:56 pm on 8 May, 2023')")
    hour, minute, half, day, month_name, year = match.groups()
    month = _MONTHS.get(month_name.lower())
    if month is None or not 1 <= int(hour) <= 12:
        raise ValueError(f"unrecognised date {raw!r}")
    hour24 = int(hour) % 12 + (12 if half.lower() == "p" else 0)
    return datetime(int(year), month, int(day), hour24, int(minute), tzinfo=UTC)


def read_locomo(path: Path | str) -> list[LocomoConversation]:
    """Every conversation in a LoCoMo JSON file, validated; ImportFormatError names the spot."""
    path = Path(path)
    data = load_json(path)
    if not isinstance(data, list):
        raise ImportFormatError(path, "top level", "expected a list of conversations")
    return [_conversation(path, number, item) for number, item in enumerate(data)]


def parse_locomo(path: Path | str, *, sample_ids: Iterable[str] | None = None) -> ParsedImport:
    """The archive sessions a LoCoMo file holds (optionally only some conversations)."""
    path = Path(path)
    conversations = read_locomo(path)
    if sample_ids is not None:
        wanted = list(sample_ids)
        known = [c.sample_id for c in conversations]
        missing = [s for s in wanted if s not in known]
        if missing:
            raise ImportFormatError(
                path, "", f"no conversation {', '.join(missing)} (it has {', '.join(known)})"
            )
        conversations = [c for c in conversations if c.sample_id in wanted]
    sessions = [_imported(c, s) for c in conversations for s in c.sessions]
    return ParsedImport(FORMAT, [str(path)], sessions)


def import_locomo(
    archive: Archive,
    path: Path | str,
    *,
    sample_ids: Iterable[str] | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    return store(archive, parse_locomo(path, sample_ids=sample_ids), progress=progress)


def _imported(conv: LocomoConversation, session: LocomoSession) -> ImportedSession:
    start = session.started_at.timestamp()
    messages = [
        Message(
            role="user" if turn.speaker == conv.speaker_a else "assistant",
            content=turn.content,
            speaker=turn.speaker,
            created_at=start + seq,
            meta={"dia_id": turn.dia_id, "sample_id": conv.sample_id},
        )
        for seq, turn in enumerate(session.turns, 1)
    ]
    return ImportedSession(
        format=FORMAT,
        origin=f"{conv.sample_id}/session_{session.index}@{session.started_at.isoformat()}",
        started_at=start,
        messages=messages,
        title=f"{conv.sample_id} session {session.index}",
        meta={"sample_id": conv.sample_id, "session": session.index},
    )


# -- validation --------------------------------------------------------------


def _conversation(path: Path, number: int, item: Any) -> LocomoConversation:
    where = f"conversation {number}"
    if not isinstance(item, dict):
        raise ImportFormatError(path, where, "expected an object")
    sample_id = item.get("sample_id")
    if not isinstance(sample_id, str) or not sample_id:
        raise ImportFormatError(path, where, "'sample_id' must be a non-empty string")
    where = f"conversation {number} ({sample_id})"
    conv = item.get("conversation")
    if not isinstance(conv, dict):
        raise ImportFormatError(path, where, "'conversation' must be an object")
    speakers = [conv.get("speaker_a"), conv.get("speaker_b")]
    if not all(isinstance(s, str) and s for s in speakers):
        raise ImportFormatError(path, where, "'speaker_a' and 'speaker_b' must be strings")
    numbers = sorted(int(m[1]) for key in conv if (m := _SESSION_KEY.fullmatch(key)))
    sessions = [_session(path, where, conv, n) for n in numbers]
    qa = item.get("qa", [])
    if not isinstance(qa, list):
        raise ImportFormatError(path, where, "'qa' must be a list")
    questions = [_question(path, f"{where}, qa {i}", q) for i, q in enumerate(qa)]
    return LocomoConversation(sample_id, str(speakers[0]), str(speakers[1]), sessions, questions)


def _session(path: Path, where: str, conv: dict[str, Any], n: int) -> LocomoSession:
    where = f"{where}, session_{n}"
    turns = conv[f"session_{n}"]
    if not isinstance(turns, list):
        raise ImportFormatError(path, where, "expected a list of turns")
    raw_date = conv.get(f"session_{n}_date_time")
    if not isinstance(raw_date, str):
        raise ImportFormatError(path, where, f"'session_{n}_date_time' is missing")
    try:
        started = parse_locomo_date(raw_date)
    except ValueError as exc:
        raise ImportFormatError(path, f"{where}_date_time", str(exc)) from exc
    return LocomoSession(n, started, tuple(_turn(path, where, i, t) for i, t in enumerate(turns)))


def _turn(path: Path, where: str, index: int, turn: Any) -> LocomoTurn:
    where = f"{where}, turn {index}"
    if not isinstance(turn, dict):
        raise ImportFormatError(path, where, "expected an object")
    for key in ("speaker", "dia_id", "text"):
        if not isinstance(turn.get(key), str):
            raise ImportFormatError(path, where, f"'{key}' must be a string")
    caption = turn.get("blip_caption")
    if caption is not None and not isinstance(caption, str):
        raise ImportFormatError(path, where, "'blip_caption' must be a string")
    return LocomoTurn(turn["speaker"], turn["dia_id"], turn["text"], caption or None)


def _question(path: Path, where: str, item: Any) -> LocomoQuestion:
    if not isinstance(item, dict):
        raise ImportFormatError(path, where, "expected an object")
    question, category = item.get("question"), item.get("category")
    if not isinstance(question, str):
        raise ImportFormatError(path, where, "'question' must be a string")
    if not isinstance(category, int) or isinstance(category, bool):
        raise ImportFormatError(path, where, "'category' must be an integer")
    evidence = item.get("evidence", [])
    if isinstance(evidence, str):
        evidence = [evidence]
    if not isinstance(evidence, list) or not all(isinstance(e, str) for e in evidence):
        raise ImportFormatError(path, where, "'evidence' must be a list of dialog ids")
    return LocomoQuestion(
        question=question,
        category=category,
        evidence=normalise_evidence(evidence),
        answer=_scalar(item.get("answer")),
        adversarial_answer=_scalar(item.get("adversarial_answer")),
    )


def _scalar(value: Any) -> str | None:
    # Some gold answers are numbers (e.g. a year); benchmarks compare text.
    return None if value is None else str(value)
