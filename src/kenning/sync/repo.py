"""Git plumbing for ``kenning sync``: objects, trees and merges without touching files.

Every merge is computed in git's object store (``git merge-tree --write-tree``,
a private index file for the result) and only then written to the home, so
a sync that stops anywhere before that has changed no file. Commands run as
history runs them (:meth:`kenning.history.History.git`): Kenning as author,
no hooks, no prompts.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kenning.history import History, HistoryError

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
# Network operations get longer than local ones: a slow SSH handshake is not a failure.
NETWORK_TIMEOUT_S = 300.0
# Which refs merge-tree needs 2.38 for.
MIN_GIT = (2, 38)


class GitError(RuntimeError):
    """A git command failed; the message carries git's own words."""


@dataclass(frozen=True)
class Change:
    """One path that differs between two commits."""

    path: str
    old_mode: str
    new_mode: str
    old_blob: str
    new_blob: str
    status: str  # A, M, D, T

    @property
    def deleted(self) -> bool:
        return self.status == "D"


@dataclass(frozen=True)
class MergeTree:
    tree: str
    conflicted: tuple[str, ...]
    messages: tuple[str, ...]


def blob_id(data: bytes) -> str:
    """The id git gives ``data`` as a blob (SHA-1 repositories, git's default)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


class Repo:
    """The home's repository, driven through ``History.git``."""

    def __init__(self, history: History) -> None:
        self.history = history
        self.root = history.root
        self.git_dir = history.root / ".git"

    def run(
        self,
        *args: str,
        stdin: bytes | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 60.0,
    ) -> subprocess.CompletedProcess[bytes]:
        try:
            return self.history.git(*args, stdin=stdin, env=env, timeout=timeout)
        except HistoryError as exc:
            raise GitError(str(exc)) from exc
        except subprocess.TimeoutExpired as exc:
            raise GitError(f"git {args[0]} took longer than {timeout:.0f} s") from exc

    def out(self, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None) -> str:
        """Standard output of a git command that must succeed (GitError otherwise)."""
        done = self.run(*args, stdin=stdin, env=env)
        if done.returncode != 0:
            raise GitError(_said(done) or f"git {args[0]} failed ({done.returncode})")
        return done.stdout.decode("utf-8", "replace").strip()

    def version(self) -> tuple[int, int]:
        words = self.out("version").split()
        parts = (words[2] if len(words) > 2 else "0.0").split(".")
        with contextlib.suppress(ValueError, IndexError):
            return int(parts[0]), int(parts[1])
        return (0, 0)

    # -- refs and objects --------------------------------------------------------------------

    def rev(self, ref: str) -> str | None:
        done = self.run("rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
        return done.stdout.decode().strip() or None if done.returncode == 0 else None

    def branch(self) -> str:
        done = self.run("symbolic-ref", "--short", "-q", "HEAD")
        name = done.stdout.decode().strip()
        if done.returncode != 0 or not name:
            raise GitError("HEAD is detached; check out a branch in the home (git switch main)")
        return name

    def is_ancestor(self, older: str, newer: str) -> bool:
        return self.run("merge-base", "--is-ancestor", older, newer).returncode == 0

    def merge_base(self, a: str, b: str) -> str | None:
        done = self.run("merge-base", a, b)
        return done.stdout.decode().strip() or None if done.returncode == 0 else None

    def tree_of(self, rev: str) -> str:
        return self.out("rev-parse", f"{rev}^{{tree}}")

    def blob(self, rev: str | None, path: str) -> bytes | None:
        """The content of ``path`` at ``rev`` (None: no such file there, or no ``rev``)."""
        if rev is None:
            return None
        done = self.run("cat-file", "blob", f"{rev}:{path}")
        return done.stdout if done.returncode == 0 else None

    def read_blob(self, blob: str) -> bytes:
        done = self.run("cat-file", "blob", blob)
        if done.returncode != 0:
            raise GitError(_said(done) or f"blob {blob} is missing")
        return done.stdout

    def write_blob(self, data: bytes) -> str:
        return self.out("hash-object", "-w", "--stdin", stdin=data)

    def files(self, rev: str, prefix: str = "") -> list[tuple[str, str, str]]:
        """(mode, blob, path) of every file at ``rev`` (under ``prefix``)."""
        args = ["ls-tree", "-r", "-z", rev]
        if prefix:
            args += ["--", prefix]
        done = self.run(*args)
        if done.returncode != 0:
            raise GitError(_said(done) or "git ls-tree failed")
        found = []
        for record in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
            if record:
                meta, _, path = record.partition("\t")
                mode, _kind, blob = meta.split()
                found.append((mode, blob, path))
        return found

    def changes(self, old: str | None, new: str) -> list[Change]:
        """Every file that differs from ``old`` (None: nothing) to ``new``, renames unpaired."""
        done = self.run("diff-tree", "-r", "-z", "--no-renames", old or EMPTY_TREE, new)
        if done.returncode != 0:
            raise GitError(_said(done) or "git diff-tree failed")
        fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
        found = []
        for meta, path in zip(fields[0::2], fields[1::2], strict=False):
            if not meta.startswith(":"):
                continue
            old_mode, new_mode, old_blob, new_blob, status = meta[1:].split()
            found.append(Change(path, old_mode, new_mode, old_blob, new_blob, status[0]))
        return found

    def merge_tree(self, ours: str, theirs: str, *, unrelated: bool) -> MergeTree:
        """Git's own merge of two commits, as a tree: conflicted files hold the markers."""
        args = ["merge-tree", "--write-tree", "--name-only"]
        if unrelated:
            args.append("--allow-unrelated-histories")
        done = self.run(*args, ours, theirs)
        if done.returncode not in (0, 1):
            raise GitError(_said(done) or "git merge-tree failed")
        head, _, messages = done.stdout.decode("utf-8", "replace").partition("\n\n")
        lines = head.splitlines()
        conflicted = tuple(dict.fromkeys(line for line in lines[1:] if line))
        said = tuple(line for line in messages.splitlines() if line.strip())
        return MergeTree(lines[0].strip(), conflicted, said)

    def build_tree(
        self, start: str, writes: dict[str, tuple[str, bytes] | None], restore: dict[str, str]
    ) -> str:
        """``start`` with ``writes`` (path -> (mode, content), None = delete) applied and
        each folder in ``restore`` (folder -> commit) put back as it is in that commit."""
        index = self.git_dir / "kenning-sync" / "index"
        index.parent.mkdir(parents=True, exist_ok=True)
        env = {"GIT_INDEX_FILE": str(index)}
        try:
            self.out("read-tree", start, env=env)
            for folder, rev in sorted(restore.items()):
                self.out(
                    "rm", "--cached", "-r", "-q", "-f", "--ignore-unmatch", "--", folder, env=env
                )
                rows = "".join(f"{m} {b}\t{p}\0" for m, b, p in self.files(rev, folder))
                if rows:
                    self.out("update-index", "-z", "--index-info", stdin=rows.encode(), env=env)
            for path, content in sorted(writes.items()):
                if content is None:
                    self.out("update-index", "--force-remove", "--", path, env=env)
                else:
                    blob = self.write_blob(content[1])
                    self.out(
                        "update-index",
                        "--add",
                        "--cacheinfo",
                        f"{content[0]},{blob},{path}",
                        env=env,
                    )
            return self.out("write-tree", env=env)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(index)

    def commit_tree(self, tree: str, parents: list[str], message: str) -> str:
        args = ["commit-tree", tree]
        for parent in parents:
            args += ["-p", parent]
        return self.out(*args, "-F", "-", stdin=message.encode("utf-8"))

    def work_blob(self, path: str) -> str | None:
        """The blob id of the home's file at ``path`` now (None: there is none)."""
        try:
            return blob_id((self.root / path).read_bytes())
        except FileNotFoundError:
            return None
        except (IsADirectoryError, NotADirectoryError):
            return "not-a-file"


def _said(done: subprocess.CompletedProcess[bytes]) -> str:
    text = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
    return " ".join(line.strip() for line in text.splitlines() if line.strip())[:600]


def relative_file(root: Path, path: str) -> Path:
    """``root / path`` for a path that came out of git (always relative, inside the tree)."""
    return root.joinpath(*path.split("/"))
