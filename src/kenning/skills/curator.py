"""The curator: agent-made skills nobody uses fade from the index, and come back when used.

Rules (``skills.stale_after_days`` = 30, ``skills.archive_after_days`` = 90):

- A skill is *idle* since the later of its last use (``skill_view``) and its
  last deliberate change (create, patch, restore, pin ...). Idle 30 days or
  more: ``stale`` (still listed). Idle 90 days or more: ``archived`` (left out
  of the index, still found by ``skills_search``, and one ``skill_view`` makes
  it active again). The curator only ever moves forward; using a skill is
  what brings it back.
- Only skills the agent created and nobody has touched are considered:
  pinned, user-written, bundled and person-edited skills are never touched.
  (Hermes' curator archived ten active skills at once; ours needs a known
  idle time — a skill with no recorded date is left alone.)
- It never deletes and never moves files: a transition is a state change,
  reported with its reason and recorded as one commit per run.

The clock is a parameter, so tests (and ``--dry-run``) can ask "what would
happen on this date".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from kenning.skills import guards
from kenning.skills.errors import SkillError
from kenning.skills.library import SkillLibrary
from kenning.skills.state import SkillRecord, Status, Usage, parse_iso


@dataclass(frozen=True)
class Transition:
    name: str
    before: str
    after: Status
    idle_days: int
    reason: str


@dataclass(frozen=True)
class CurationReport:
    transitions: tuple[Transition, ...]
    considered: int  # agent-made skills the curator may manage
    protected: int  # skills it left alone by rule
    dry_run: bool
    commit: str | None = None


class Curator:
    def __init__(
        self, library: SkillLibrary, *, clock: Callable[[], datetime] | None = None
    ) -> None:
        self.library = library
        self.clock = clock or library.clock

    def plan(self) -> CurationReport:
        """What a run would change now, changing nothing."""
        return self._run(dry_run=True)

    def run(self, *, dry_run: bool = False) -> CurationReport:
        return self._run(dry_run=dry_run)

    def _run(self, *, dry_run: bool) -> CurationReport:
        now = self.clock()
        transitions: list[Transition] = []
        considered = protected = 0
        for info in self.library.list_skills(archived=True):
            if info.where != "home":
                protected += 1
                continue
            try:
                current = self.library.locate(info.name)
            except SkillError:
                protected += 1  # unreadable (a link): not ours to judge
                continue
            if guards.protection(info.record, current.hash) is not None:
                protected += 1
                continue
            considered += 1
            due = self._due(info.record, info.usage, now)
            if due is not None:
                target, idle, why = due
                transitions.append(Transition(info.name, info.record.status, target, idle, why))
        commit = None
        if transitions and not dry_run:
            changes = {t.name: (t.after, t.reason) for t in transitions}
            wanted = {t.name: t.after for t in transitions}

            def still_due(name: str, record: SkillRecord, usage: Usage) -> bool:
                due = self._due(record, usage, now)
                return due is not None and due[0] == wanted[name]

            commit, done = self.library.set_statuses(
                changes, "skills: curator", still_due=still_due, now=now
            )
            transitions = [t for t in transitions if t.name in done]
        return CurationReport(tuple(transitions), considered, protected, dry_run, commit)

    def _due(
        self, record: SkillRecord, usage: Usage, now: datetime
    ) -> tuple[Status, int, str] | None:
        """(new status, idle days, reason) if the skill should move on now, else None."""
        config = self.library.config
        moments = [m for m in (parse_iso(usage.last_used), parse_iso(record.touched_at)) if m]
        if not moments:
            return None  # no known date: never guess an age
        last = max(moments)
        idle = (now - last).days
        if idle >= config.archive_after_days and record.status != "archived":
            target: Status = "archived"
        elif idle >= config.stale_after_days and record.status == "active":
            target = "stale"
        else:
            return None
        what = "used" if usage.last_used and parse_iso(usage.last_used) == last else "changed"
        return target, idle, f"unused for {idle} days (last {what} {last.date().isoformat()})"
