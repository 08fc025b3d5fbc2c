"""The worker behind a host's hooks: archive the transcript's new lines, review, export.

``kenning hosts sync HOST --event JSON`` is started by the hook
(``hook_entry``) with the hook's input: ``session_id``, ``transcript_path``,
``cwd``, ``hook_event_name`` (the fields Claude Code and Gemini CLI both
document). One pass:

1. Archive: the bytes of the transcript after the offset already archived,
   up to its last complete line, parsed by the host's module
   (``claude_code.parse_lines``, ``gemini_cli.parse_lines``), appended to the
   one archive session of this host session (``import_key``
   ``<host>:live:<session id>``, or the session ``kenning sessions import``
   stored under ``<host>:session:<session id>``, taken over on the first pass
   by adding only the lines it lacks). Sub-agent (sidechain) lines go to
   one child session per sub-agent, keyed as an import keys them
   (``<host>:session:<session id>/sidechain/<agent>``). The messages and the new offset are
   written in one transaction, so a pass killed midway archives nothing twice
   and loses nothing: the next pass starts from the same offset.
2. Review, on the rules of Kenning's own sessions: after the end of a turn
   (the host's ``REVIEW_EVENTS``), the user turns and model replies since
   the last review are counted against ``review.memory_every_user_turns`` and
   ``review.skills_every_iterations``; when one is reached the review runs
   here, already in the background. ``--no-review`` (installed by
   ``kenning hosts install --no-review``) turns it off.
3. Flow back: agent-made skills are exported to the host's skills folder and
   the hot-memory file the ``CLAUDE.md`` import names is rendered again.

Passes of one host session take turns under a lock; each reads from the
offset the one before it stored.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kenning.archive.importers.common import to_timestamp
from kenning.archive.importers.host_keyed import reconcile, session_key
from kenning.archive.store import Archive
from kenning.home import Home
from kenning.hosts.files import HostFileError
from kenning.hosts.hook_entry import safe_name
from kenning.locks import exclusive_lock, locks_dir


def host_module(name: str) -> Any:
    """The module of host ``name`` (its SPEC, REVIEW_EVENTS, parse_lines, places)."""
    if name == "claude-code":
        from kenning.hosts import claude_code

        return claude_code
    if name == "gemini-cli":
        from kenning.hosts import gemini_cli

        return gemini_cli
    raise HostFileError(f"unknown host {name!r}")


@dataclass(frozen=True)
class HookEvent:
    session_id: str
    transcript: Path
    cwd: str | None
    name: str

    @classmethod
    def parse(cls, raw: str) -> HookEvent:
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise HostFileError(f"the hook input is not JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise HostFileError("the hook input is not a JSON object")
        session_id, transcript = data.get("session_id"), data.get("transcript_path")
        if not isinstance(session_id, str) or not session_id:
            raise HostFileError("the hook input has no session_id")
        if not isinstance(transcript, str) or not transcript:
            raise HostFileError("the hook input has no transcript_path")
        cwd = data.get("cwd")
        name = data.get("hook_event_name")
        return cls(
            session_id,
            Path(transcript).expanduser(),
            cwd if isinstance(cwd, str) else None,
            name if isinstance(name, str) else "",
        )


@dataclass
class SyncReport:
    session_id: str | None = None  # the archive session
    added: int = 0
    damaged: int = 0
    offset: int = 0
    user_turns: int = 0
    replies: int = 0
    review: str = ""  # what the review did, or why none ran
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def archive_new_lines(archive: Archive, event: HookEvent, host: str = "claude-code") -> SyncReport:
    """Step 1: append what the transcript gained since the last pass (see the module doc)."""
    module = host_module(host)
    report = SyncReport()
    key = f"{host}:live:{event.session_id}"
    # A session `kenning sessions import` stored first is taken over, not doubled:
    # the first pass reads the whole transcript and adds only the lines it lacks.
    sid = archive.session_by_import_key(key) or archive.session_by_import_key(
        session_key(host, event.session_id)
    )
    stored = archive.session(sid) if sid else None
    meta = stored.meta if stored else {}
    adopting = sid is not None and "offset" not in meta
    offset = int(meta.get("offset") or 0)
    try:
        with event.transcript.open("rb") as handle:
            handle.seek(offset)
            chunk = handle.read()
    except OSError as exc:
        raise HostFileError(
            f"cannot read the transcript {event.transcript}: {exc.strerror or exc}"
        ) from exc
    end = chunk.rfind(b"\n") + 1  # a line still being written waits for the next pass
    chunk = chunk[:end]
    events: list[Any] = []
    document = getattr(module, "read_document", None)
    whole = document(event.transcript) if document is not None else None
    if whole is not None:  # a transcript rewritten whole each time: read all, ids say what is new
        events, offset, end = whole, 0, 0
        chunk = b""
    for line in chunk.split(b"\n"):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except ValueError:  # damaged (not UTF-8, not JSON): skipped, as an import does
            report.damaged += 1
    stored_carry = meta.get("carry")
    carry: dict[str, Any] = stored_carry if isinstance(stored_carry, dict) else {}
    messages, carry, title = module.parse_lines(events, carry, event.session_id)
    report.offset = offset + end
    if sid is None and not messages:
        return report  # nothing said yet: no empty session
    with archive.storage.transaction():
        if adopting:
            assert sid is not None
            messages, _ = reconcile(archive, sid, messages)
        if sid is None:
            first = next(
                (to_timestamp(e.get("timestamp")) for e in events if isinstance(e, dict)), None
            )
            sid = archive.start_session(
                "import",
                title=title,
                workspace=event.cwd,
                model=carry.get("model"),
                started_at=first,
                import_key=key,
                meta={
                    "format": host,
                    "host": host,
                    "session_id": event.session_id,
                    "transcript": str(event.transcript),
                },
            )
        for message in messages:
            archive.append(sid, message)
        report.user_turns = sum(1 for m in messages if m.role == "user")
        report.replies = sum(1 for m in messages if m.role == "assistant")
        tokens_in = sum(m.input_tokens or 0 for m in messages)
        tokens_out = sum(m.output_tokens or 0 for m in messages)
        if tokens_in or tokens_out:
            archive.add_usage(sid, tokens_in, tokens_out)
        updates: dict[str, Any] = {"offset": report.offset, "carry": carry}
        if adopting:  # from now on the hooks' session: reviewed, counted by `hosts status`
            updates |= {"host": host, "transcript": str(event.transcript)}
        sidechains = getattr(module, "parse_sidechains", None)
        if sidechains is not None:
            updates["chains"] = _archive_sidechains(
                archive, sidechains, events, meta.get("chains"), sid, host, event
            )
        archive.update_session_meta(sid, updates)
    report.session_id, report.added = sid, len(messages)
    return report


def _archive_sidechains(
    archive: Archive,
    parse: Any,
    events: list[Any],
    chains: Any,
    parent: str,
    host: str,
    event: HookEvent,
) -> dict[str, str]:
    """The pass's sub-agent lines, each sub-agent in its child session (the one an
    import of the transcript keys the same way); returns the chains to carry on."""
    groups, chains = parse(events, chains if isinstance(chains, dict) else {}, event.session_id)
    for origin, (messages, title) in groups.items():
        key = session_key(host, origin)
        child = archive.session_by_import_key(key)
        if child is None:
            child = archive.start_session(
                "import",
                parent_id=parent,
                title=title,
                workspace=event.cwd,
                started_at=next((m.created_at for m in messages if m.created_at), None),
                import_key=key,
                meta={"format": host, "sidechain": True, "parent_session_id": event.session_id},
            )
        else:
            messages, _ = reconcile(archive, child, messages)  # an import stored it first
        for message in messages:
            archive.append(child, message)
    return dict(chains)


def sync(
    home: Home, event: HookEvent, *, host: str = "claude-code", review: bool = True
) -> SyncReport:
    """One worker pass: archive, maybe review, export skills and memory."""
    from kenning.hosts.install import refresh

    module = host_module(host)
    started = time.monotonic()
    lock = locks_dir(home.root) / f"hosts-{host}-{safe_name(event.session_id)}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(lock):
        report = archive_new_lines(home.archive, event, host)
        if report.session_id is not None:
            after_turn = event.name in module.REVIEW_EVENTS
            report.review = _maybe_review(home, report, after_turn=after_turn, enabled=review)
    report.notes.extend(refresh(module.SPEC, home))
    report.seconds = time.monotonic() - started
    return report


def _maybe_review(home: Home, report: SyncReport, *, after_turn: bool, enabled: bool) -> str:
    """Count the pass's turns into the session's review state; run the review when due."""
    import asyncio

    from kenning.learning.background import load_state, review_locked, save_state
    from kenning.learning.review import KINDS, take_snapshot

    assert report.session_id is not None
    sid = report.session_id
    state = load_state(home.archive, sid)
    state.turns_since_memory += report.user_turns
    state.iterations_since_skill += report.replies
    cfg = home.config.review
    due = []
    if cfg.memory_every_user_turns > 0 and state.turns_since_memory >= cfg.memory_every_user_turns:
        due.append("memory")
    if (
        cfg.skills_every_iterations > 0
        and state.iterations_since_skill >= cfg.skills_every_iterations
    ):
        due.append("skills")
    if due:
        due = [k for k in KINDS if k in set(due) | set(state.pending)]
    if not enabled or not after_turn or not due:
        save_state(home.archive, sid, state)
        return "off" if not enabled else "not due"
    model = _review_model(home)
    if model is None:
        save_state(home.archive, sid, state)
        return "due, but no model is configured ([review] model or [model] default)"
    if "memory" in due:
        state.turns_since_memory = 0
    if "skills" in due:
        state.iterations_since_skill = 0
    snapshot = take_snapshot(home.archive, sid, state.cursor(due))
    if snapshot.empty:
        save_state(home.archive, sid, state)
        return "nothing new to review"
    done = asyncio.run(review_locked(home, snapshot, due, model, state=state))
    return done.status


def _review_model(home: Home) -> Any:
    from kenning.models.errors import ModelError, ModelNotConfigured
    from kenning.models.registry import resolve_model

    spec = home.config.review.model or None
    try:
        return resolve_model(spec, home.config.model, config_path=home.layout.config_file)
    except (ModelNotConfigured, ModelError, ValueError):
        return None
