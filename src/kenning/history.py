"""The home's history: every write Kenning makes is a git commit saying why.

Files are the truth for memory, journal and skills; git makes them
reviewable (``log``, ``diff``) and undoable (``revert``). History is a
convenience layered over the write, never a condition for it: if git is
missing or broken, the write still lands, a warning is logged once per home,
and later writes keep trying (a repaired git picks up where it left off).

Commits are authored as "Kenning" with hooks and signing disabled, so a
user's global git configuration can neither block a memory write nor prompt
for a passphrase. A home-wide lock serialises git calls between processes,
because git's own ``index.lock`` makes concurrent commits fail, not wait.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kenning import clock
from kenning.fsutil import exclusive_lock

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


# First line of `git commit` output: "[main 1a2b3c4] subject" or "[main (root-commit) …]".
_COMMIT_ID = re.compile(r"^\[[^\]]*?([0-9a-f]{7,40})\]", re.MULTILINE)


class HistoryError(RuntimeError):
    """A history query (log/diff/show) could not be answered."""


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
        self._warned = False
        self._git = shutil.which("git")

    # -- writing -----------------------------------------------------------

    def record(self, paths: Sequence[Path], message: str) -> str | None:
        """Commit the current content of ``paths`` with ``message``.

        Returns the new commit id, or None when history is off, unavailable,
        or nothing changed. Never raises: history must not fail a write.
        """
        if not self.enabled:
            return None
        try:
            with exclusive_lock(self.root / ".git-kenning.lock"):
                self._ensure_repo()
                rel = [self._relative(p) for p in paths]
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
        except (OSError, subprocess.SubprocessError, HistoryError) as exc:
            self._warn(exc)
            return None

    def record_outside_edits(self, paths: Sequence[Path]) -> str | None:
        """Commit changes made to ``paths`` outside Kenning (e.g. in an editor).

        Called before Kenning writes, so a hand edit gets its own commit and a
        later revert of Kenning's change does not undo the user's. Costs one
        ``git status`` when nothing changed.
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
            self._warn(exc)
            return None
        if not dirty:
            return None
        names = ", ".join(rel)
        return self.record(existing, f"hand edit of {names} (found before a Kenning write)")

    # -- reading -----------------------------------------------------------

    @property
    def available(self) -> bool:
        return self._git is not None and (self.root / ".git").is_dir()

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

    def _relative(self, path: Path) -> str:
        return str(path.absolute().relative_to(self.root.absolute()))

    def _query(self, *args: str) -> str:
        result = self._run(*args, check=False)
        if result.returncode != 0:
            raise HistoryError(result.stderr.strip() or f"git {args[0]} failed")
        return result.stdout

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        if self._git is None:
            raise HistoryError("git is not installed")
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
        result = subprocess.run(
            [self._git, *_SAFE_OPTIONS, *args],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        if check and result.returncode != 0:
            raise HistoryError(f"git {args[0]}: {result.stderr.strip() or result.returncode}")
        return result

    def _warn(self, exc: BaseException) -> None:
        if not self._warned:
            self._warned = True
            log.warning("history unavailable (%s); writes continue without git commits", exc)
