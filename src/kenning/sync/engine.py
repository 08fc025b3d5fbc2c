"""``kenning sync``: pull, merge and push the home's repository with one git remote.

A sync, in order:

1. finishes a sync that was killed while writing files (see *Crash safety*);
2. asks the remote which branch it holds (``ls-remote``) and fetches it into
   ``refs/kenning/sync``: nothing local changes, and no lock is held, so
   Kenning keeps writing while the network is slow;
3. takes the locks of the files the remote brings (hot memory's and the
   journal's file locks, the skills library's lock), then history's git lock,
   in the order Kenning's writers take them, so a write made during the sync
   either lands before the merge (and is merged) or waits for it;
4. commits what is uncommitted (hand edits), plans the merge in git's object
   store (:mod:`kenning.sync.plan`) and, unless a file cannot be merged,
   writes the result: each file atomically, then the branch, then the index;
5. pushes; a remote that moved meanwhile is fetched and merged again.

A merge that cannot be made changes nothing locally and raises
:class:`SyncConflict` naming each file and why.

*Crash safety.* Before the first file is written, ``.git/kenning-sync/intent.json``
records the commit being left and the one being reached. The branch moves
only after every file is written, so a kill in between leaves the branch on
the old commit and each file whole (old or new). The next sync (or any
re-run) finishes the job when every file is still one of the two versions;
if someone changed one meanwhile, the intent is dropped and the normal path
commits what is on disk and merges again: nothing is lost either way.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kenning import clock
from kenning.fsutil import atomic_write, held
from kenning.history import HistoryError
from kenning.home import Home
from kenning.locks import Busy, exclusive_lock, locks_dir, try_lock
from kenning.sync.plan import Plan, Planner, Report, skill_unit
from kenning.sync.repo import MIN_GIT, NETWORK_TIMEOUT_S, GitError, Repo, relative_file

REMOTE_NAME = "kenning"
# In .git/kenning-sync/: the move being written (see *Crash safety*) and the last outcome.
INTENT_FILE = "intent.json"
STATE_FILE = "state.json"
# Where Kenning keeps what a home shares: new files here are committed before a merge.
_OWN_PLACES = ("memories", "memory", "skills", "cron", "SOUL.md", "AGENTS.md", "config.toml")
SYNC_REF = "refs/kenning/sync"
# Tests set this to a hook point ("fetched", "locked", "writing", "written", "moved",
# "merged") to kill the sync there.
KILL_ENV = "KENNING_SYNC_KILL_AT"
# ... or "<point>:<file>" to pause there while <file> exists ("locked": inside the locks).
PAUSE_ENV = "KENNING_SYNC_PAUSE_AT"
_ATTEMPTS = 3  # pushes raced by another machine before giving up


class SyncError(RuntimeError):
    """A sync that did not happen; the message says why and what to do. Nothing was lost."""


class SyncConflict(SyncError):
    """The home and the remote cannot be merged; nothing was changed locally."""

    def __init__(self, conflicts: list[str], remote: str) -> None:
        self.conflicts = conflicts
        lines = "\n".join(f"  - {c}" for c in conflicts)
        super().__init__(
            f"this home and {remote} cannot be merged; nothing was changed here:\n{lines}\n"
            "Resolve it on one machine (edit the file so both versions agree, or take one), "
            "then sync again."
        )


@dataclass
class SyncResult:
    remote: str
    branch: str
    outcome: str  # up-to-date, pulled, pushed, merged
    commit: str | None
    reports: list[Report] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "remote": self.remote,
            "branch": self.branch,
            "outcome": self.outcome,
            "commit": self.commit,
            "reports": [r.as_dict() for r in self.reports],
        }


_PAUSED: set[str] = set()


def _hook(point: str) -> None:
    """Test hook points: die (``KILL_ENV``) or wait (``PAUSE_ENV``) at ``point``."""
    if os.environ.get(KILL_ENV) == point:
        os.kill(os.getpid(), signal.SIGKILL)
    where, _, flag = os.environ.get(PAUSE_ENV, "").partition(":")
    if where == point and flag and point not in _PAUSED:
        _PAUSED.add(point)  # once per process: a retry passes through
        # Say we are here (the file appears), then wait until the test removes it.
        Path(flag).write_text(str(os.getpid()), encoding="utf-8")
        deadline = time.monotonic() + 60
        while Path(flag).exists() and time.monotonic() < deadline:
            time.sleep(0.02)


class Syncer:
    def __init__(self, home: Home) -> None:
        self.home = home
        self.repo = Repo(home.history)
        self.dir = self.repo.git_dir / "kenning-sync"

    # -- the remote ----------------------------------------------------------------------------

    def set_remote(self, url: str) -> None:
        """Remember ``url`` as this machine's sync remote (git remote ``kenning``)."""
        self._ready()
        verb = "set-url" if self._remote_names() and REMOTE_NAME in self._remote_names() else "add"
        try:
            self.repo.out("remote", verb, REMOTE_NAME, url)
        except GitError as exc:
            raise SyncError(f"cannot set the remote to {url!r}: {exc}") from exc

    def _remote_names(self) -> list[str]:
        done = self.repo.run("remote")
        return done.stdout.decode().split() if done.returncode == 0 else []

    def remote(self, explicit: str | None = None) -> str:
        """The remote to sync with: the argument, this machine's ``kenning`` remote, config."""
        if explicit:
            return explicit
        if REMOTE_NAME in self._remote_names():
            return REMOTE_NAME
        if self.home.config.sync.remote:
            return self.home.config.sync.remote
        raise SyncError(
            "no sync remote is configured. Run `kenning sync --remote URL` once (a bare "
            "repository path, ssh://host/path or a hosting service URL), or set "
            "`remote` under [sync] in config.toml."
        )

    def _remote_branch(self, remote: str) -> tuple[str, bool]:
        """(branch to sync, whether the remote has it), asking the remote once."""
        done = self.repo.run(
            "ls-remote", "--symref", remote, "HEAD", "refs/heads/*", timeout=NETWORK_TIMEOUT_S
        )
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SyncError(
                f"cannot reach the remote {remote!r}: {said[-1] if said else 'git failed'}. "
                "Check the path or URL (`kenning sync --remote URL` changes it), the network "
                "and your SSH keys. Nothing was changed."
            )
        heads, default = set(), None
        for line in done.stdout.decode("utf-8", "replace").splitlines():
            target, _, name = line.partition("\t")
            if target.startswith("ref: ") and name == "HEAD":
                default = target[5:].removeprefix("refs/heads/")
            elif name.startswith("refs/heads/"):
                heads.add(name.removeprefix("refs/heads/"))
        wanted = self.home.config.sync.branch
        if not wanted:
            wanted = default if default in heads else self.repo.branch()
        return wanted, wanted in heads

    # -- syncing -------------------------------------------------------------------------------

    def sync(self, explicit: str | None = None) -> SyncResult:
        """One sync with ``explicit`` (a remote name or URL) or the configured remote."""
        self._ready()
        remote = self.remote(explicit)
        try:
            with try_lock(locks_dir(self.home.root) / "sync.lock"):
                return self._sync(remote)
        except Busy as exc:
            who = f" (pid {exc.holder})" if exc.holder else ""
            raise SyncError(
                f"another sync of this home is running{who}; let it finish, then sync again"
            ) from exc

    def _sync(self, remote: str) -> SyncResult:
        branch = "?"
        try:
            self.recover()  # local, so it happens even when the remote is out of reach
            branch, exists = self._remote_branch(remote)
            for _attempt in range(_ATTEMPTS):
                theirs = self._fetch(remote, branch) if exists else None
                _hook("fetched")
                result = self._merge(remote, branch, theirs)
                if result.commit == theirs:
                    self._save_state(remote, branch, "ok", result.outcome, [], result.reports)
                    return result
                _hook("merged")
                pushed = self.repo.run(
                    "push",
                    "--quiet",
                    remote,
                    f"{result.commit}:refs/heads/{branch}",
                    timeout=NETWORK_TIMEOUT_S,
                )
                if pushed.returncode == 0:
                    assert result.commit is not None
                    self.repo.out("update-ref", SYNC_REF, result.commit)
                    self._save_state(remote, branch, "ok", result.outcome, [], result.reports)
                    return result
                said = pushed.stderr.decode("utf-8", "replace")
                if "rejected" not in said and "fetch first" not in said:
                    raise SyncError(
                        f"the merge is done here but pushing to {remote!r} failed: "
                        f"{said.strip().splitlines()[-1] if said.strip() else 'git failed'}. "
                        "Check write access to the remote; the next sync pushes again."
                    )
                exists = True  # someone pushed first: fetch their work and merge it too
            raise SyncError(
                f"{remote!r} kept changing while this home pushed ({_ATTEMPTS} tries); "
                "sync again in a moment."
            )
        except SyncConflict as exc:
            self._save_state(remote, branch, "conflict", str(exc), exc.conflicts, [])
            raise
        except SyncError as exc:
            self._save_state(remote, branch, "failed", str(exc), [], [])
            raise
        except GitError as exc:
            self._save_state(remote, branch, "failed", str(exc), [], [])
            raise SyncError(f"sync stopped: {exc}. Nothing was lost; sync again.") from exc

    def _fetch(self, remote: str, branch: str) -> str:
        done = self.repo.run(
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-write-fetch-head",
            remote,
            f"+refs/heads/{branch}:{SYNC_REF}",
            timeout=NETWORK_TIMEOUT_S,
        )
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SyncError(f"fetching from {remote!r} failed: {said[-1] if said else 'git'}")
        theirs = self.repo.rev(SYNC_REF)
        assert theirs is not None
        return theirs

    def _merge(self, remote: str, branch: str, theirs: str | None) -> SyncResult:
        # Writes history missed are committed under their own subjects first.
        self.home.history.catch_up()
        ours_now = self.repo.rev("HEAD")
        touched: set[str] = set()  # every path the merge may write: lock their writers
        if theirs is not None:
            base = self.repo.merge_base(ours_now, theirs) if ours_now else None
            touched = {c.path for c in self.repo.changes(base, theirs)}
            touched |= {c.path for c in self.repo.changes(ours_now, theirs)}
        with self._locked(sorted(touched)):
            self._commit_pending()
            _hook("locked")
            ours = self.repo.rev("HEAD")
            assert ours is not None
            if theirs is None or self.repo.is_ancestor(theirs, ours):
                outcome = "up-to-date" if theirs == ours else "pushed"
                return SyncResult(remote, branch, outcome, ours)
            planner = Planner(self.repo, self.home.config.memory, _stamp())
            plan = planner.plan(ours, theirs)
            if plan.conflicts:
                raise SyncConflict(plan.conflicts, remote)
            # Nothing of ours to keep: take their commit itself (a new home's first commit,
            # only Kenning's defaults, is left behind).
            fast = plan.tree == self.repo.tree_of(theirs) and (
                plan.adopted or self.repo.is_ancestor(ours, theirs)
            )
            if fast:
                new, outcome = theirs, "pulled"
            else:
                new = self.repo.commit_tree(plan.tree, [ours, theirs], _message(remote, plan))
                outcome = "merged"
            self._keep_aside(plan)
            self._apply(ours, new)
            return SyncResult(remote, branch, outcome, new, plan.reports)

    @contextlib.contextmanager
    def _locked(self, paths: list[str]) -> Iterator[None]:
        """The locks of every writer of ``paths``, then history's git lock (their order)."""
        with contextlib.ExitStack() as stack:
            files = sorted(
                {p for p in paths if p.startswith(("memories/", "memory/")) and p.count("/") == 1}
            )
            for path in files:
                stack.enter_context(held(relative_file(self.home.root, path)))
            if any(skill_unit(p) or p.startswith("skills/") for p in paths):
                stack.enter_context(exclusive_lock(self.home.layout.skills_dir / ".library.lock"))
            if any(p.startswith("cron/") for p in paths):
                stack.enter_context(exclusive_lock(self.home.root / "cron" / ".jobs.lock"))
            stack.enter_context(exclusive_lock(self.home.root / ".git-kenning.lock"))
            yield

    def _commit_pending(self) -> None:
        """Commit what is not committed yet, so the merge starts from what is on disk.

        Tracked files, and new files in Kenning's own places only: other folders in the
        home (another profile's home under ``profiles/``, say) are not this home's to share.
        """
        if not self.repo.out("status", "--porcelain", "--untracked-files=no") and not any(
            self.repo.out("ls-files", "--others", "--exclude-standard", "--", place)
            for place in self._own_places()
        ):
            return
        self.repo.out("add", "-u")
        places = self._own_places()
        if places:
            self.repo.out("add", "--", *places)
        if self.repo.run("diff", "--cached", "--quiet").returncode == 0:
            return
        self.repo.out(
            "commit",
            "-q",
            "--no-verify",
            "-m",
            "sync: record changes made outside Kenning before syncing",
        )

    def _own_places(self) -> list[str]:
        return [name for name in _OWN_PLACES if (self.home.root / name).exists()]

    # -- writing the merge ---------------------------------------------------------------------

    def _apply(self, old: str, new: str) -> None:
        """Move the home from commit ``old`` to ``new``: files first, the branch last."""
        changes = self.repo.changes(old, new)
        for change in changes:
            found = self.repo.work_blob(change.path)
            if change.status == "A" and found is not None:
                raise SyncError(
                    f"{change.path} arrives from the remote, but a file that is not in this "
                    "home's history is in its place. Move it aside (or `git add` it in the "
                    "home), then sync again; nothing was changed."
                )
            if change.status != "A" and found != change.old_blob:
                raise SyncError(
                    f"{change.path} changed while the sync was merging; nothing was changed "
                    "or lost. Sync again."
                )
        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write(self._intent, json.dumps({"old": old, "new": new}) + "\n")
        for number, change in enumerate(changes):
            self._write(
                change.path, change.new_blob if not change.deleted else None, change.new_mode
            )
            if number == 0:
                _hook("writing")
        _hook("written")
        self._finish(old, new)

    def _write(self, path: str, blob: str | None, mode: str) -> None:
        target = relative_file(self.home.root, path)
        if blob is None:
            target.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                target.parent.rmdir()  # only if the folder is empty now
            return
        atomic_write(target, self.repo.read_blob(blob))
        target.chmod(0o755 if mode == "100755" else 0o644)

    def _finish(self, old: str, new: str) -> None:
        self.repo.out("update-ref", "-m", "kenning sync", "HEAD", new, old)
        _hook("moved")
        self.repo.out("read-tree", "HEAD")
        self.repo.run("update-index", "-q", "--refresh")
        self._intent.unlink(missing_ok=True)

    @property
    def _intent(self) -> Path:
        return self.dir / INTENT_FILE

    def recover(self) -> bool:
        """Finish a sync killed while writing files; True when there was one to finish."""
        try:
            intent = json.loads(self._intent.read_text(encoding="utf-8"))
            old, new = str(intent["old"]), str(intent["new"])
        except FileNotFoundError:
            return False
        except (ValueError, KeyError, TypeError):
            self._intent.unlink(missing_ok=True)
            return False
        changes = self.repo.changes(old, new)
        with self._locked([c.path for c in changes]):
            head = self.repo.rev("HEAD")
            if head == new:
                self._finish(new, new)  # killed after the branch moved: only the index is left
                return True
            whole = head == old and all(
                self.repo.work_blob(c.path)
                in {None if c.status == "A" else c.old_blob, None if c.deleted else c.new_blob}
                for c in changes
            )
            if not whole:
                # Changed since: what is on disk is committed and merged again by the next sync.
                self._intent.unlink(missing_ok=True)
                return False
            for change in changes:
                want = None if change.deleted else change.new_blob
                if self.repo.work_blob(change.path) != want:
                    self._write(change.path, want, change.new_mode)
            self._finish(old, new)
        return True

    def _keep_aside(self, plan: Plan) -> None:
        """Save what the merge does not take (refused entries, remote versions) first."""
        folder = self.home.layout.backups_dir / "sync"
        for rel, data in plan.aside.items():
            atomic_write(folder / rel, data)
        if plan.quarantine:
            folder.mkdir(parents=True, exist_ok=True)
            with open(folder / "quarantine.jsonl", "a", encoding="utf-8") as handle:
                for item in plan.quarantine:
                    line = {"at": clock.now().isoformat(timespec="seconds"), **item}
                    handle.write(json.dumps(line, ensure_ascii=False) + "\n")

    # -- state and status ----------------------------------------------------------------------

    def _ready(self) -> None:
        if not self.home.config.history.enabled:
            raise SyncError(
                "history is off for this home ([history] enabled = false), and sync works "
                "through it. Turn it on to sync."
            )
        try:
            self.home.history.ensure_repo()
            if self.repo.version() < MIN_GIT:
                raise SyncError("kenning sync needs git 2.38 or newer; upgrade git")
        except (GitError, HistoryError, OSError) as exc:
            raise SyncError(f"the home's git repository cannot be used: {exc}") from exc

    @property
    def _state_file(self) -> Path:
        return self.dir / STATE_FILE

    def _save_state(
        self,
        remote: str,
        branch: str,
        result: str,
        message: str,
        conflicts: list[str],
        reports: list[Report],
    ) -> None:
        state = self._load_state()
        now = clock.now().isoformat(timespec="seconds")
        state.update(
            remote=remote,
            branch=branch,
            last_attempt=now,
            result=result,
            message=message,
            conflicts=conflicts,
            reports=[r.as_dict() for r in reports],
        )
        if result == "ok":
            state["last_sync"] = now
        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write(self._state_file, json.dumps(state, indent=2, ensure_ascii=False) + "\n")

    def _load_state(self) -> dict[str, Any]:
        try:
            raw = json.loads(self._state_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return raw if isinstance(raw, dict) else {}

    def status(self) -> dict[str, Any]:
        """Where the home stands against the remote as last fetched (no network)."""
        state = self._load_state()
        out: dict[str, Any] = {
            "remote": None,
            "branch": state.get("branch"),
            "ahead": None,
            "behind": None,
            "last_sync": state.get("last_sync"),
            "last_attempt": state.get("last_attempt"),
            "last_result": state.get("result"),
            "conflicts": state.get("conflicts", []),
            "reports": state.get("reports", []),
            "interrupted": self._intent.exists(),
        }
        with contextlib.suppress(SyncError):
            out["remote"] = self.remote()
        if out["remote"] == REMOTE_NAME:
            url = self.repo.run("remote", "get-url", REMOTE_NAME).stdout.decode().strip()
            out["url"] = url or None
        if not (self.home.root / ".git").is_dir():
            return out
        head, theirs = self.repo.rev("HEAD"), self.repo.rev(SYNC_REF)
        if head and theirs:
            done = self.repo.run("rev-list", "--left-right", "--count", f"{head}...{theirs}")
            if done.returncode == 0:
                ahead, behind = done.stdout.decode().split()
                out["ahead"], out["behind"] = int(ahead), int(behind)
        elif head:
            count = self.repo.run("rev-list", "--count", head).stdout.decode().strip()
            out["ahead"], out["behind"] = (int(count) if count.isdigit() else None), 0
        return out


def _stamp() -> str:
    return clock.now().strftime("%Y%m%dT%H%M%SZ")


def _message(remote: str, plan: Plan) -> str:
    lines = [f"sync: merge {remote}"]
    if plan.reports:
        lines += ["", *(f"- {r.message}" for r in plan.reports)]
    return "\n".join(lines) + "\n"
