"""Staging: a review writes into a scratch copy, then everything lands at once or nothing does.

A background review runs for a while (model calls) next to a user who keeps
working, so it must never hold the home's locks while it thinks, and a review
that fails half-way must leave no half of its work behind. The design follows
Letta's reflection worktree, with a merge that understands our files:

1. ``Staging.create`` copies the hot-memory files and the skills folder into a
   scratch home under ``cache/staging/`` (history off) and remembers each
   skill's content hash (the *base*). The review's ``memory`` and ``skill_*``
   tools work on that copy, with every real check (threat scan, budgets,
   guards, validation), so the model sees the effect of its own writes.
2. Memory writes are recorded as the operation batches that succeeded
   (``add``/``replace``/``remove``), not as file contents: they are *replayed*
   onto the live file at the end, so entries the user saved meanwhile stay.
3. ``land`` takes the live locks (MEMORY.md, USER.md, then the skills lock —
   the order every writer uses), re-plans everything against what is on disk
   *now*, and only if every part applies writes them all and records one
   commit. A replay the live file refuses (the entry to replace is gone, the
   budget is now exceeded), a skill that changed since the base, or a file an
   editor saved during the write aborts the whole landing: files already
   written are put back and nothing is recorded.

Invariant: after ``land`` either every staged change is in the home and in
one commit ("review of session …"), or the home is exactly as the other
writers left it. A user's write during a review is never lost: it either
lands first (and the replay applies on top, or the review aborts) or waits
for the lock and applies on top of the review's result.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

from kenning import clock
from kenning.config import Config, HistoryConfig
from kenning.fsutil import ChangedUnderfootError, FileStamp, atomic_write, held
from kenning.history import History
from kenning.home import Home
from kenning.memory.store import (
    MemoryFileError,
    MemoryStore,
    MemoryWriteError,
    Operation,
    Target,
    WriteResult,
    preview,
)
from kenning.paths import HomeLayout
from kenning.safety import provenance
from kenning.skills import files
from kenning.skills.errors import SkillError
from kenning.skills.library import SkillLibrary
from kenning.skills.proposals import Proposal, ProposalStore
from kenning.skills.state import SkillRecord, StateStore
from kenning.skills.transaction import GITIGNORE

SkillVerb = Literal["created", "patched", "proposed"]


class StagingConflict(RuntimeError):
    """The staged changes cannot land on the home as it is now; nothing was written."""


@dataclass(frozen=True)
class MemoryChange:
    target: Target
    changes: tuple[str, ...]  # one human line per effective operation


@dataclass(frozen=True)
class SkillChange:
    name: str
    verb: SkillVerb


@dataclass(frozen=True)
class Landed:
    memory: tuple[MemoryChange, ...] = ()
    skills: tuple[SkillChange, ...] = ()
    commit: str | None = None
    held: tuple[str, ...] = ()  # memory writes held as proposals (kenning memory proposals)

    @property
    def empty(self) -> bool:
        return not self.memory and not self.skills


class _RecordingStore(MemoryStore):
    """A MemoryStore that remembers every batch that changed something, for the replay."""

    def __init__(self, layout: HomeLayout, config: Config, history: History) -> None:
        super().__init__(layout, config.memory, history)
        self.batches: list[tuple[Target, tuple[Operation, ...], tuple[str, ...]]] = []

    def apply(
        self, target: Target, operations: Sequence[Operation], *, reason: str = ""
    ) -> WriteResult:
        result = super().apply(target, operations, reason=reason)
        if result.changed:
            self.batches.append((target, tuple(operations), result.changes))
        return result


class ScratchHome(Home):
    """The scratch copy as a Home: same settings, no history, a recording memory store."""

    @cached_property
    def memory(self) -> _RecordingStore:
        return _RecordingStore(self.layout, self.config, self.history)


@dataclass(frozen=True)
class _FilePlan:
    path: Path
    old: bytes | None
    new: bytes | None
    stamp: FileStamp | None


@dataclass(frozen=True)
class _SkillPlan:
    name: str
    folder: Path
    before: files.Snapshot
    after: files.Snapshot
    verb: SkillVerb


_TARGET_ORDER = (Target.MEMORY, Target.USER)  # lock order, as every writer takes them


class Staging:
    """The scratch copy for one review; ``land`` merges it into the live home."""

    def __init__(self, live: Home, root: Path) -> None:
        self.live = live
        self.root = root
        config = dataclasses.replace(live.config, history=HistoryConfig(enabled=False))
        self.home = ScratchHome(root, config)
        self.base_hashes: dict[str, str] = {}
        self.base_records: dict[str, SkillRecord] = {}
        self.base_proposals: set[str] = set()
        # What land replays: the recorded batches less the writes held back as proposals.
        self._batches = self.home.memory.batches

    @classmethod
    def create(cls, live: Home) -> Staging:
        """Copy hot memory and the skills folder (under the skills lock) into a temp dir."""
        # Inside the home's cache/ (ignored by history): the same filesystem as
        # the files it copies, which may be much faster than the system's /tmp.
        parent = live.root / "cache" / "staging"
        parent.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(parent)
        root = Path(tempfile.mkdtemp(prefix="review-", dir=parent))
        staging = cls(live, root)
        try:
            staging._copy()
        except BaseException:
            staging.close()
            raise
        return staging

    def _copy(self) -> None:
        for target in _TARGET_ORDER:
            try:
                data, _ = self.live.memory.read_raw(target)  # writers replace atomically
            except MemoryFileError:
                continue  # a link or broken file: the landing refuses it and says why
            if data is not None:
                dest = self.home.memory.path(target)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
        live_dir = self.live.layout.skills_dir
        if not live_dir.is_dir():
            return
        library = SkillLibrary.for_home(self.live)
        scratch_dir = self.home.layout.skills_dir
        with library.recorder.locked():
            for name in library.catalog.home_names():
                try:
                    snapshot = files.read_snapshot(live_dir / name)
                except SkillError:
                    continue  # a link: invisible to the review, so never changed by it
                self.base_hashes[name] = files.snapshot_hash(snapshot)
                _plain_copy(scratch_dir / name, snapshot)
            state = library.state.state_path
            if state.is_file():
                scratch_dir.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(state, scratch_dir / state.name)
            self.base_records = StateStore(scratch_dir, self.root / "backups").records()
            for proposal in library.proposals.all():
                self.base_proposals.add(proposal.id)
                ProposalStore(scratch_dir).save(proposal)

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    # -- what is staged ------------------------------------------------------

    def memory_changes(self) -> list[MemoryChange]:
        found: dict[Target, list[str]] = {}
        for target, _ops, changes in self._batches:
            found.setdefault(target, []).extend(changes)
        return [MemoryChange(t, tuple(found[t])) for t in _TARGET_ORDER if t in found]

    def _touched_skills(self) -> dict[str, files.Snapshot]:
        scratch_dir = self.home.layout.skills_dir
        if not scratch_dir.is_dir():
            return {}
        touched: dict[str, files.Snapshot] = {}
        names = sorted(p.name for p in scratch_dir.iterdir() if p.is_dir())
        # Every write through the library rewrites the skill's record, so only
        # skills whose record changed (or that are new) can differ; reading and
        # hashing all the others would make a big library slow to land.
        records = StateStore(scratch_dir, self.root / "backups").records()
        for name in names:
            if name.startswith(".") or (
                name in self.base_hashes and records.get(name) == self.base_records.get(name)
            ):
                continue
            snapshot = files.read_snapshot(scratch_dir / name)
            if snapshot and files.snapshot_hash(snapshot) != self.base_hashes.get(name):
                touched[name] = snapshot
        missing = sorted(set(self.base_hashes) - set(names))
        if missing:
            raise StagingConflict(f"the review removed skill folders ({', '.join(missing)})")
        return touched

    def _new_proposals(self) -> list[Proposal]:
        scratch = ProposalStore(self.home.layout.skills_dir)
        return [p for p in scratch.all() if p.id not in self.base_proposals]

    # -- landing -------------------------------------------------------------

    def land(
        self,
        session_id: str,
        trailer: str = "",
        *,
        untrusted: Sequence[str] = (),
        suspect: Sequence[str] = (),
    ) -> Landed:
        """Merge everything staged into the live home as one commit (StagingConflict: nothing).

        The commit is "review of session <session_id>", listing each change,
        then ``trailer`` (which review, which messages). A memory write whose content was
        copied from one of ``untrusted`` (the reviewed session's tool results) and looks
        borderline, or that is in ``suspect`` (the model's second opinion, see
        kenning.safety.model_check), is not replayed but held as a proposal for the user.
        """
        batches, held_back = self._hold_borrowed(untrusted, suspect)
        for target, content, why in held_back:
            self.live.proposals.hold(
                target, content, source=f"review of {session_id}", provenance="tool", why=why
            )
        self._batches = batches
        targets = [t for t in _TARGET_ORDER if any(b[0] is t for b in batches)]
        touched = self._touched_skills()
        proposals = self._new_proposals()
        if not targets and not touched and not proposals:
            return Landed(held=tuple(content for _, content, _ in held_back))
        library = SkillLibrary.for_home(self.live)
        with contextlib.ExitStack() as stack:
            for target in targets:
                stack.enter_context(held(self.live.memory.path(target)))
            if touched or proposals:
                stack.enter_context(library.recorder.locked())
            memory_plans = [self._plan_memory(target) for target in targets]
            records = library.state.records()
            skill_plans = [self._plan_skill(library, records, n, s) for n, s in touched.items()]
            new_proposals = self._plan_proposals(library, records, proposals)
            paths = [plan.path for plan in memory_plans if plan.new != plan.old]
            if skill_plans or new_proposals:
                paths.append(self.live.layout.skills_dir)
            if not paths:
                return Landed(held=tuple(content for _, content, _ in held_back))
            self.live.history.record_outside_edits(paths)
            self._write(library, records, memory_plans, skill_plans, new_proposals)
            verbs = [SkillChange(p.name, p.verb) for p in skill_plans]
            verbs += [SkillChange(p.change.name, "proposed") for p in new_proposals]
            memory = tuple(self.memory_changes())
            commit = self.live.history.record(paths, _message(session_id, memory, verbs, trailer))
        return Landed(memory, tuple(verbs), commit, tuple(c for _, c, _ in held_back))

    def _hold_borrowed(
        self, untrusted: Sequence[str], suspect: Sequence[str] = ()
    ) -> tuple[
        list[tuple[Target, tuple[Operation, ...], tuple[str, ...]]], list[tuple[Target, str, str]]
    ]:
        """The batches to replay, and the (target, content, why) of writes held back."""
        batches = list(self.home.memory.batches)
        if not untrusted and not suspect:
            return batches, []
        kept, held_back = [], []
        for target, operations, changes in batches:
            keep, dropped = [], []
            for op in operations:
                borrowed = (
                    op.content is not None
                    and op.action in ("add", "replace")
                    and provenance.borrowed_from(op.content, untrusted)
                )
                why = ""
                if op.content is not None and op.content in suspect:
                    why = "the configured model's second opinion reads it as an injection"
                elif borrowed and op.content is not None:
                    verdict = provenance.gate(op.content, "tool")
                    why = verdict.why if verdict.action == "hold" else ""
                if why and op.content is not None:
                    held_back.append((target, op.content, why))
                    dropped.append(preview(op.content))
                    continue
                keep.append(op)
            if keep:
                shown = tuple(c for c in changes if not any(d in c for d in dropped))
                kept.append((target, tuple(keep), shown))
        return kept, held_back

    def _plan_memory(self, target: Target) -> _FilePlan:
        """Replay the review's batches onto the live file as it is now (under its lock)."""
        path = self.live.memory.path(target)
        try:
            old, stamp = self.live.memory.read_raw(target)
        except MemoryFileError as exc:
            raise StagingConflict(f"{exc.message} {exc.next_step}") from exc
        with tempfile.TemporaryDirectory(prefix="kenning-replay-") as tmp:
            layout = HomeLayout(Path(tmp))
            store = MemoryStore(layout, self.live.config.memory, History(Path(tmp), enabled=False))
            replay = store.path(target)
            if old is not None:
                replay.parent.mkdir(parents=True, exist_ok=True)
                replay.write_bytes(old)
            for batch_target, operations, _changes in self._batches:
                if batch_target is not target:
                    continue
                try:
                    store.apply(target, operations)
                except MemoryWriteError as exc:
                    raise StagingConflict(
                        f"{target.filename} changed during the review and its writes no "
                        f"longer apply: {exc.message}"
                    ) from exc
            new = replay.read_bytes() if replay.exists() else None
        return _FilePlan(path, old, new, stamp)

    def _plan_skill(
        self,
        library: SkillLibrary,
        records: dict[str, SkillRecord],
        name: str,
        after: files.Snapshot,
    ) -> _SkillPlan:
        here = library.catalog.locate(name, records)
        live_hash = here.hash if here.where == "home" else ""
        base_hash = self.base_hashes.get(name, "")
        if live_hash != base_hash:
            raise StagingConflict(f"skill '{name}' changed while the review ran")
        before = here.files if here.where == "home" else {}
        verb: SkillVerb = "patched" if base_hash else "created"
        return _SkillPlan(name, library.dir / name, before, after, verb)

    def _plan_proposals(
        self, library: SkillLibrary, records: dict[str, SkillRecord], staged: list[Proposal]
    ) -> list[Proposal]:
        planned: list[Proposal] = []
        next_id = int(library.proposals.next_id())
        for proposal in staged:
            here = library.catalog.locate(proposal.change.name, records)
            current = here.hash if here.exists else ""
            if proposal.is_stale(current):
                raise StagingConflict(
                    f"skill '{proposal.change.name}' changed while the review proposed a change"
                )
            planned.append(dataclasses.replace(proposal, id=str(next_id)))
            next_id += 1
        return planned

    def _write(
        self,
        library: SkillLibrary,
        records: dict[str, SkillRecord],
        memory_plans: list[_FilePlan],
        skill_plans: list[_SkillPlan],
        proposals: list[Proposal],
    ) -> None:
        """Write every planned change; on any failure put back what was written, then raise."""
        undo: list[Callable[[], None]] = []
        try:
            for plan in memory_plans:
                if plan.new == plan.old:
                    continue
                atomic_write(plan.path, plan.new or b"", expect=plan.stamp)
                undo.append(_restorer(plan))
            ignore = library.dir / ".gitignore"
            if (skill_plans or proposals) and not ignore.exists():
                atomic_write(ignore, GITIGNORE)
                undo.append(lambda: ignore.unlink(missing_ok=True))
            for sp in skill_plans:
                files.write_snapshot(sp.folder, sp.before, sp.after)
                undo.append(_skill_undo(sp))
            if skill_plans:
                staged = StateStore(self.home.layout.skills_dir, self.root / "backups").records()
                new = dict(records)
                for sp in skill_plans:
                    new[sp.name] = staged.get(sp.name) or SkillRecord(created_by="agent")
                library.state.save_records(new)
                undo.append(lambda: library.state.save_records(records))
            for proposal in proposals:
                undo.append(_remover(library.proposals.save(proposal)))
        except (OSError, ChangedUnderfootError, SkillError) as exc:
            for action in reversed(undo):
                with contextlib.suppress(OSError):
                    action()
            raise StagingConflict(
                f"the write did not complete ({exc}); everything was put back"
            ) from exc


def _restorer(plan: _FilePlan) -> Callable[[], None]:
    def restore() -> None:
        if plan.old is None:
            plan.path.unlink(missing_ok=True)
        else:
            atomic_write(plan.path, plan.old)

    return restore


def _remove_abandoned(parent: Path, older_than_s: float = 86_400.0) -> None:
    """Scratch copies of reviews whose process died (no review runs for a day)."""
    cutoff = clock.system_timestamp() - older_than_s  # mtimes are system time
    for child in parent.glob("review-*"):
        with contextlib.suppress(OSError):
            if child.stat().st_mtime < cutoff:
                shutil.rmtree(child, ignore_errors=True)


def _plain_copy(folder: Path, snapshot: files.Snapshot) -> None:
    """Write a scratch copy: no fsync or atomic rename, it is thrown away after the review."""
    for rel, data in snapshot.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _remover(path: Path) -> Callable[[], None]:
    return lambda: path.unlink(missing_ok=True)


def _skill_undo(plan: _SkillPlan) -> Callable[[], None]:
    return lambda: files.write_snapshot(plan.folder, plan.after, plan.before)


def _message(
    session_id: str, memory: Sequence[MemoryChange], skills: Sequence[SkillChange], trailer: str
) -> str:
    lines = [f"review of session {session_id}", ""]
    lines += [f"- {m.target.filename}: {change}" for m in memory for change in m.changes]
    lines += [f"- skill '{s.name}': {s.verb}" for s in skills]
    if trailer:
        lines += ["", trailer]
    return "\n".join(lines)
