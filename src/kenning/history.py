"""The home's history: every write Kenning makes is a git commit saying why.

Files are the truth for memory, journal and skills; git makes them
reviewable (``log``, ``diff``) and undoable (``revert``). History is layered
over the write, never a condition for it: if git is missing or broken, the
write still lands. But history never stops silently: every write that could
not be committed logs a warning (the CLI prints it on stderr) saying why and
how to fix it, and the reason is returned (``try_record``) so a tool result
can say it too. Later writes keep trying, and the next commit of a path picks
up every change made to it meanwhile.

A git killed mid-commit leaves ``.git/index.lock`` (or a ref's ``.lock``)
behind, which would fail every later commit. Under the home lock, a commit
that fails removes such locks when :mod:`kenning.gitlocks` shows that no
running git owns them, says so, and retries once.

Commits are authored as "Kenning" with hooks and signing disabled, so a
user's global git configuration can neither block a memory write nor prompt
for a passphrase. A home-wide lock serialises git calls between processes,
because git's own ``index.lock`` makes concurrent commits fail, not wait.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kenning import clock, gitlocks
from kenning.fsutil import atomic_write
from kenning.locks import exclusive_lock

log = logging.getLogger(__name__)

GITIGNORE = """\
# Kenning: the archive database is the truth for transcripts and is not
# versioned here; spilled tool results and lock/temp files are ephemeral.
state.db
state.db-*
spill/
backups/
cache/
*.lock
.*.tmp
"""

_AUTHOR = {
    "GIT_AUTHOR_NAME": "Kenning",
    "GIT_AUTHOR_EMAIL": "kenning@localhost",
    "GIT_COMMITTER_NAME": "Kenning",
    "GIT_COMMITTER_EMAIL": "kenning@localhost",
}
# Options that neutralise user-level git config that would block or prompt.
_SAFE_OPTIONS = (
    "-c",
    "commit.gpgsign=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.quotepath=false",
)


# Subjects of writes that could not be committed, one JSON line each, kept in
# .git (never versioned) so the commit that finally records their paths can
# say what it carries instead of passing Kenning's writes off as hand edits.
_MISSED = "kenning-missed"
_MISSED_MAX_BYTES = 64_000  # a home with history broken for months stops noting

# First line of `git commit` output: "[main 1a2b3c4] subject" or "[main (root-commit) …]".
_COMMIT_ID = re.compile(r"^\[[^\]]*?([0-9a-f]{7,40})\]", re.MULTILINE)


class HistoryError(RuntimeError):
    """A history query (log/diff/show) could not be answered."""


@dataclass(frozen=True)
class Recorded:
    """What became of one write's commit: its id, or why there is none.

    Both None: history is off, or nothing changed.
    """

    commit: str | None = None
    problem: str | None = None  # why this write is not in history, and how to fix it


@dataclass(frozen=True)
class Commit:
    rev: str
    date: str
    message: str
    files: tuple[str, ...]


class History:
    """Git-backed history of one home directory."""

    def __init__(self, root: Path, *, enabled: bool = True) -> None:
        self.root = root
        self.enabled = enabled
        self._git = shutil.which("git")

    # -- writing -----------------------------------------------------------

    def record(self, paths: Sequence[Path], message: str) -> str | None:
        """Commit the current content of ``paths`` with ``message``; the commit id or None.

        Never raises: history must not fail a write (see :meth:`try_record`).
        """
        return self.try_record(paths, message).commit

    def try_record(self, paths: Sequence[Path], message: str) -> Recorded:
        """Commit ``paths``; on failure, warn and return why the write is not in history."""
        return self._try_record(paths, message, report=True)

    def _try_record(self, paths: Sequence[Path], message: str, *, report: bool) -> Recorded:
        if not self.enabled:
            return Recorded()
        try:
            with exclusive_lock(self.root / ".git-kenning.lock"):
                try:
                    return Recorded(self._commit(paths, message))
                except HistoryError as exc:
                    problem = self._explain(exc)  # while no git of ours can run
        except (OSError, subprocess.SubprocessError) as exc:
            problem = self._explain(exc)
        if report:
            log.warning("%s", problem)
            self._note_missed(paths, message)
        return Recorded(problem=problem)

    def _commit(self, paths: Sequence[Path], message: str) -> str | None:
        """Add and commit under the home lock; a stale git lock is removed and retried once."""
        self._ensure_repo()
        rel = [self._relative(p) for p in paths]
        missed = self._missed_for(rel)
        if missed:
            message += "\n\nAlso records earlier writes that history missed:\n" + "\n".join(
                f"- {subject}" for subject in missed
            )
        try:
            commit = self._add_and_commit(rel, message)
        except HistoryError:
            removed = gitlocks.remove_stale(self.root)
            if not removed:
                raise
            for lock in removed:
                log.warning(
                    "history: removed a stale git lock: %s; retrying the commit",
                    lock.describe(self.root),
                )
            commit = self._add_and_commit(rel, message)
        if missed:
            self._forget_missed(rel)
        return commit

    def _add_and_commit(self, rel: Sequence[str], message: str) -> str | None:
        self._run("add", "-A", "--", *rel)
        # Two git processes per write: `commit` itself reports "nothing to
        # commit" and prints the new id, so no diff or rev-parse is needed.
        done = self._run("commit", "--no-verify", "-m", message, "--", *rel, check=False)
        if done.returncode != 0:
            if "nothing" in done.stdout or "no changes" in done.stdout:
                return None
            raise HistoryError(f"git commit: {done.stderr.strip() or done.stdout.strip()}")
        match = _COMMIT_ID.search(done.stdout)
        return match.group(1) if match else None

    def record_outside_edits(self, paths: Sequence[Path]) -> str | None:
        """Commit changes made to ``paths`` outside Kenning (e.g. in an editor).

        Called before Kenning writes, so a hand edit gets its own commit and a
        later revert of Kenning's change does not undo the user's. Costs one
        ``git status`` when nothing changed. Failures here are not reported:
        the caller's own commit follows at once and reports them.
        """
        existing = [p for p in paths if p.exists()]
        if not self.enabled or not existing:
            return None
        try:
            with exclusive_lock(self.root / ".git-kenning.lock"):
                self._ensure_repo()
                rel = [self._relative(p) for p in existing]
                dirty = self._run("status", "--porcelain", "--", *rel).stdout.strip()
        except (OSError, subprocess.SubprocessError, HistoryError) as exc:
            log.debug("history: hand edits not checked (%s)", exc)
            return None
        if not dirty:
            return None
        names = ", ".join(rel)
        if self._missed_for(rel):
            subject = f"catch-up of {names}: writes history missed earlier (and any hand edits)"
        else:
            subject = f"hand edit of {names} (found before a Kenning write)"
        # Unreported on failure: the caller's own commit follows and reports it.
        return self._try_record(existing, subject, report=False).commit

    # -- reading -----------------------------------------------------------

    @property
    def available(self) -> bool:
        return self._git is not None and (self.root / ".git").is_dir()

    def broken(self) -> str | None:
        """Why the repository cannot answer (None when it can): e.g. a garbled HEAD."""
        result = self._run("rev-parse", "--verify", "-q", "HEAD", check=False)
        if result.returncode == 0:
            return None
        return result.stderr.strip() or "HEAD does not name a commit"

    def uncommitted(self) -> list[str]:
        """``git status --porcelain`` lines: changes made outside Kenning, not yet committed.

        Takes no optional lock, so it never rewrites the index (a pure read).
        """
        out = self._query("--no-optional-locks", "status", "--porcelain")
        return [line for line in out.splitlines() if line.strip()]

    def missed(self) -> list[str]:
        """Subjects of writes that could not be committed yet (their next commit adds them)."""
        return [subject for _paths, subject in self._missed_entries()]

    def catch_up(self) -> str | None:
        """Commit every write history missed now, instead of with the next write to its files.

        Returns the commit id, or None when nothing was missed or git still cannot commit.
        """
        rel = sorted({path for paths, _subject in self._missed_entries() for path in paths})
        if not rel:
            return None
        commit = self.record_outside_edits([self.root / path for path in rel])
        if commit is None and self.available:
            clean = self._run("status", "--porcelain", "--", *rel, check=False)
            if clean.returncode == 0 and not clean.stdout.strip():
                self._forget_missed(rel)  # committed meanwhile (by hand): nothing is missing
        return commit

    def log(self, paths: Sequence[str] = (), limit: int = 20) -> list[Commit]:
        if not self.available:
            return []
        sep = "\x1f"
        out = self._query(
            "log",
            f"-n{limit}",
            f"--format=%x1e%h{sep}%ad{sep}%s",
            "--date=iso-strict",
            "--name-only",
            "--",
            *paths,
        )
        commits = []
        for block in out.split("\x1e")[1:]:
            head, _, rest = block.partition("\n")
            rev, date, message = head.split(sep, 2)
            files = tuple(line for line in rest.splitlines() if line.strip())
            commits.append(Commit(rev, date, message, files))
        return commits

    def diff(self, rev: str | None, paths: Sequence[str] = ()) -> str:
        """Changes since ``rev`` (default: uncommitted changes) under ``paths``."""
        if not self.available:
            raise HistoryError("no history yet: this home is not a git repository")
        args = ["diff", "--no-color"]
        if rev:
            args.append(self.resolve(rev))
        return self._query(*args, "--", *paths)

    def change(self, rev: str, paths: Sequence[str] = ()) -> str:
        """The patch commit ``rev`` made (under ``paths``): its own change, not all since."""
        if not self.available:
            raise HistoryError("no history yet: this home is not a git repository")
        return self._query("show", "--no-color", "--format=", self.resolve(rev), "--", *paths)

    def show(self, rev: str, path: str) -> str | None:
        """Content of ``path`` at ``rev``, or None if it did not exist there."""
        result = self._run("show", f"{rev}:{path}", check=False)
        return result.stdout if result.returncode == 0 else None

    def files_changed(self, rev: str) -> list[str]:
        out = self._query("show", "--format=", "--name-only", self.resolve(rev))
        return [line for line in out.splitlines() if line.strip()]

    def parent(self, rev: str) -> str | None:
        result = self._run("rev-parse", "--verify", "-q", f"{self.resolve(rev)}^", check=False)
        return result.stdout.strip() or None

    def resolve(self, rev: str) -> str:
        if rev.startswith("-"):
            raise HistoryError(f"{rev!r} is not a revision")
        result = self._run("rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False)
        if result.returncode != 0:
            raise HistoryError(f"unknown revision {rev!r}; `kenning memory log` lists them")
        return result.stdout.strip()

    # -- plumbing ----------------------------------------------------------

    def _ensure_repo(self) -> None:
        if (self.root / ".git").is_dir():
            return
        self.root.mkdir(parents=True, exist_ok=True)
        self._run("init", "-q", "-b", "main")
        ignore = self.root / ".gitignore"
        if not ignore.exists():
            ignore.write_text(GITIGNORE, encoding="utf-8")
        self._run("add", ".gitignore")
        self._run("commit", "-q", "--no-verify", "-m", "initialise Kenning home")

    def _note_missed(self, paths: Sequence[Path], message: str) -> None:
        missed = self.root / ".git" / _MISSED
        if self._git is None or not missed.parent.is_dir():
            return  # no repository to catch up with later
        with contextlib.suppress(OSError, ValueError):
            if missed.exists() and missed.stat().st_size > _MISSED_MAX_BYTES:
                return
            entry = {"paths": [self._relative(p) for p in paths], "subject": message.split("\n")[0]}
            with open(missed, "a", encoding="utf-8") as handle:  # one short line: O_APPEND
                handle.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def _missed_entries(self) -> list[tuple[list[str], str]]:
        """(paths, subject) of each write noted as missed, oldest first."""
        try:
            lines = (self.root / ".git" / _MISSED).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return []
        out = []
        for line in lines:
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                if isinstance(entry, dict) and isinstance(entry.get("paths"), list):
                    out.append(([str(p) for p in entry["paths"]], str(entry.get("subject", ""))))
        return out

    def _missed_for(self, rel: Sequence[str]) -> list[str]:
        return [subject for paths, subject in self._missed_entries() if _overlaps(paths, rel)]

    def _forget_missed(self, rel: Sequence[str]) -> None:
        kept = [(p, subj) for p, subj in self._missed_entries() if not _overlaps(p, rel)]
        missed = self.root / ".git" / _MISSED
        with contextlib.suppress(OSError):
            if not kept:
                missed.unlink(missing_ok=True)
                return
            lines = [
                json.dumps({"paths": p, "subject": subj}, ensure_ascii=False) for p, subj in kept
            ]
            atomic_write(missed, "\n".join(lines) + "\n")

    def _relative(self, path: Path) -> str:
        return str(path.absolute().relative_to(self.root.absolute()))

    def _query(self, *args: str) -> str:
        result = self._run(*args, check=False)
        if result.returncode != 0:
            raise HistoryError(result.stderr.strip() or f"git {args[0]} failed")
        return result.stdout

    def ensure_repo(self) -> None:
        """Make the home a repository with its first commit, if it is not one yet."""
        self._ensure_repo()

    def git(
        self,
        *args: str,
        stdin: bytes | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 30.0,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run git in the home as history does (author, no hooks, no prompts), bytes out.

        For callers that drive git themselves (``kenning.sync``); never checks the exit code.
        """
        if self._git is None:
            raise HistoryError("git is not installed")
        return subprocess.run(
            [self._git, *_SAFE_OPTIONS, *args],
            cwd=self.root,
            env={**self._env(), **(env or {})},
            input=stdin,
            capture_output=True,
            timeout=timeout,
        )

    def _env(self) -> dict[str, str]:
        # Commit dates come from Kenning's clock, like every other stamp in the home.
        stamp = clock.git_date()
        env = {
            **os.environ,
            **_AUTHOR,
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_DATE": stamp,
            "GIT_TERMINAL_PROMPT": "0",
        }
        # A GIT_DIR inherited from a calling git hook would point us at the wrong repo.
        for var in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
            env.pop(var, None)
        return env

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        if self._git is None:
            raise HistoryError("git is not installed")
        result = subprocess.run(
            [self._git, *_SAFE_OPTIONS, *args],
            cwd=self.root,
            env=self._env(),
            capture_output=True,
            text=True,
            timeout=30,
        )
        if check and result.returncode != 0:
            raise HistoryError(f"git {args[0]}: {result.stderr.strip() or result.returncode}")
        return result

    def _explain(self, exc: BaseException) -> str:
        """Why this write is not in history and exactly what fixes it, in one message."""
        lead = "history: this change is saved but NOT recorded in git"
        off = (
            f"or turn history off with `enabled = false` under [history] in {self.root}/config.toml"
        )
        if self._git is None:
            return f"{lead}: git is not installed. Install git, {off}."
        held = [lock for lock in gitlocks.inspect(self.root) if not lock.stale]
        if held:
            what = "; ".join(lock.describe(self.root) for lock in held)
            paths = " ".join(str(lock.path) for lock in held)
            return (
                f"{lead}: git's lock is taken ({what}). Let that git finish; if no git is "
                f"running in {self.root}, run `kenning doctor --fix` (or `rm {paths}`)."
            )
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"{lead} ({detail}). Run `kenning doctor` to find the cause, {off}."


def _overlaps(paths: Sequence[str], rel: Sequence[str]) -> bool:
    """Whether any of ``paths`` is, contains or lies inside one of ``rel``."""
    for path in paths:
        for other in rel:
            if path == other or path.startswith(other + "/") or other.startswith(path + "/"):
                return True
    return False
