"""How a skills change reaches the disk and the history: locked, all-or-nothing, one commit.

Every write of the skills folder holds one lock (``skills/.library.lock``, an
flock: threads and processes queue, and a killed process releases it). Then:

1. hand edits already in the skills folder are committed on their own
   (``History.record_outside_edits``), so Kenning's commit never claims them
   and reverting it never undoes them;
2. the caller's files are written (each atomically), then ``.state.json``,
   then the decided proposal if any; if the disk refuses any step, the steps
   already done are undone, in reverse, and nothing is recorded;
3. one commit records the change: a subject line, the effects, who asked and why;
4. the copies exported from the library (``exports``: a host's skills folder)
   are brought in step, so a patch or a retirement reaches them at once.

Use counters (``.usage.json``) are kept out of history by a ``skills/.gitignore``
written, and committed on its own, before the first write of a home.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kenning.fsutil import atomic_write
from kenning.history import History
from kenning.locks import exclusive_lock
from kenning.skills import files, leftovers
from kenning.skills.changes import Change, Plan
from kenning.skills.errors import ErrorKind, SkillError
from kenning.skills.guards import Writer
from kenning.skills.model import SKILL_FILE, parse_skill_md
from kenning.skills.proposals import Proposal, ProposalStore
from kenning.skills.state import SkillRecord, StateStore

GITIGNORE = (
    "# Kenning: use counters change on every skill_view; they are not history.\n.usage.json\n"
)
LOCK_FILE = ".library.lock"


@dataclass(frozen=True)
class Note:
    """What one commit says: a subject line, one line per effect, who asked, and why."""

    subject: str
    effects: tuple[str, ...] = ()
    by: Writer | str = "user"
    reason: str = ""

    def message(self) -> str:
        lines = [self.subject, ""]
        if len(self.effects) > 1 or (self.effects and " — " not in self.subject):
            lines += [f"- {effect}" for effect in self.effects]
            lines.append("")
        lines.append(f"By: {self.by if isinstance(self.by, str) else self.by.describe()}")
        if self.reason:
            lines.append(f"Why: {self.reason}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Step:
    """A file-system change and its inverse."""

    do: Callable[[], None]
    undo: Callable[[], None]


class Recorder:
    def __init__(
        self,
        home_root: Path,
        skills_dir: Path,
        history: History,
        state: StateStore,
        proposals: ProposalStore,
    ) -> None:
        self.root = home_root
        self.dir = skills_dir
        self.history = history
        self.state = state
        self.proposals = proposals
        # Run after each recorded change (the library keeps exported copies in step).
        self.after: Callable[[], None] | None = None

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the skills lock (not re-entrant: never nest it)."""
        files.refuse_links(self.root, self.dir.name)
        with exclusive_lock(self.dir / LOCK_FILE):
            yield

    def prepare(self) -> None:
        """Keep the use counters out of history (once per home, as its own commit)."""
        ignore = self.dir / ".gitignore"
        if not ignore.exists():
            atomic_write(ignore, GITIGNORE)
            self.history.record([ignore], "skills: keep use counters (.usage.json) out of history")

    def commit(
        self,
        note: Note,
        *,
        step: Step | None = None,
        records: dict[str, SkillRecord] | None = None,
        old_records: dict[str, SkillRecord] | None = None,
        proposal: Proposal | None = None,
    ) -> str | None:
        """Apply ``step``, the new ``records`` and ``proposal`` all-or-nothing; one commit."""
        self.prepare()
        leftovers.sweep_locked(self.dir, deep=False)  # killed writes' staging folders, temps
        self.history.record_outside_edits([self.dir])
        undo: list[Callable[[], None]] = []
        try:
            if step is not None:
                step.do()
                undo.append(step.undo)
            if records is not None:
                self.state.save_records(records)
                previous = old_records if old_records is not None else {}
                undo.append(lambda: self.state.save_records(previous))
            if proposal is not None:
                self.proposals.save(proposal)
        except OSError as exc:
            for action in reversed(undo):
                with contextlib.suppress(OSError):
                    action()
            raise SkillError(
                ErrorKind.IO,
                f"The disk refused the change ({exc.strerror or exc}); everything was put back.",
                "Check free space and permissions of the Kenning home, then retry.",
            ) from exc
        recorded = self.history.record([self.dir], note.message())
        if self.after is not None:
            self.after()
        return recorded


def proposal_suffix(accepting: Proposal | None) -> str:
    return f" (proposal {accepting.id})" if accepting is not None else ""


def author(by: Writer, accepting: Proposal | None) -> Writer | str:
    """Who a commit names: the writer, or the review whose proposal the user accepted."""
    if accepting is None:
        return by
    session = f" (session {accepting.session_id})" if accepting.session_id else ""
    return f"background review{session}, accepted by the user"


def change_subject(change: Change, planned: Plan, accepting: Proposal | None) -> str:
    """The commit subject of a planned change: what happened to which skill."""
    suffix = proposal_suffix(accepting)
    if change.action == "create":
        meta, _ = parse_skill_md(planned.after[SKILL_FILE].decode("utf-8"), folder=change.name)
        short = meta.one_line if len(meta.one_line) <= 70 else meta.one_line[:69] + "…"
        return f"skills: create '{change.name}'{suffix} — {short}"
    verb = change.action.replace("_", " ")
    return f"skills: {verb} '{change.name}'{suffix} — {planned.effects[0]}"
