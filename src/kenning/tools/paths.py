"""Where the file tools may read and write, and how they walk a tree.

The policy, checked on the resolved path (``~`` expanded, relative to the
workspace, symlinks followed — so a link inside the workspace that points out
of it counts as outside):

- Read: anywhere by default (``ToolContext.read_scope == "anywhere"``); with
  ``"workspace"``, only inside the workspace, the home's ``spill/`` (so spilled
  results stay readable) and ``ctx.extra_read_roots``. Credential files
  (private SSH keys, ``.env``, ``.netrc``, cloud credentials ...) are never
  read: their contents would be copied into the archive for good.
- Write: only inside the workspace, plus the home's ``spill/``. Never inside a
  ``.git`` directory (hooks there run code) and never elsewhere in the Kenning
  home: memory, skills and rules are written through their own tools, which
  scan and version every change, and ``state.db`` belongs to the archive.

Walks skip version-control internals, dependency folders and virtualenvs,
never follow symlinked directories, and stop after a fixed number of entries
so a search of ``/`` ends.
"""

from __future__ import annotations

import difflib
import os
import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from kenning.tools.base import ToolContext, ToolError

IGNORED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".cache",
        ".eggs",
    }
)
WALK_LIMIT = 50_000  # entries visited per walk: bounds time on huge trees
BINARY_PROBE = 8_192

_CREDENTIAL_NAMES = frozenset(
    {".netrc", "_netrc", ".pgpass", ".git-credentials", ".pypirc", ".npmrc"}
)
_ENV_FILE = re.compile(r"^\.env(\.(?!(example|sample|template|dist|defaults?)$)[\w.-]+)?$")
_SSH_KEY = re.compile(r"^id_[\w-]+$")


def is_credentials(path: Path) -> bool:
    """True for files whose whole point is a secret."""
    name = path.name
    parent = path.parent.name
    if name in _CREDENTIAL_NAMES or _ENV_FILE.match(name) or str(path) == "/etc/shadow":
        return True
    if parent == ".ssh" and (_SSH_KEY.match(name) or name == "identity"):
        return True
    return (parent, name) in {
        (".aws", "credentials"),
        (".kube", "config"),
        (".docker", "config.json"),
        ("gh", "hosts.yml"),
    }


def within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def display(path: Path, ctx: ToolContext) -> str:
    """The path as the model should write it next time: relative inside the workspace."""
    if within(path, ctx.cwd) and path != ctx.cwd:
        return path.relative_to(ctx.cwd).as_posix()
    return str(path)


def _spill_dir(ctx: ToolContext) -> Path:
    return ctx.home.layout.spill_dir.resolve()


def check_read(path: Path, ctx: ToolContext) -> None:
    if is_credentials(path):
        raise ToolError(
            f"{display(path, ctx)} is a credentials file; reading it would copy secrets into "
            "the conversation archive.",
            "do not read it. If a value from it is needed, ask the user for that value.",
        )
    if ctx.read_scope == "anywhere":
        return
    roots = (ctx.cwd, _spill_dir(ctx), *(r.resolve() for r in ctx.extra_read_roots))
    if not any(within(path, root) for root in roots):
        raise ToolError(
            f"{path} is outside the workspace ({ctx.cwd}); in this context ({ctx.purpose}) files "
            "can only be read inside it and in the spill folder.",
            "read files inside the workspace, or say in your answer what you would need.",
        )


def check_write(path: Path, ctx: ToolContext) -> None:
    home = ctx.home.root.resolve()
    if within(path, _spill_dir(ctx)):
        return
    if ".git" in path.parts:
        raise ToolError(
            f"{display(path, ctx)} is inside a .git directory; writing there can corrupt the "
            "repository or plant hooks that run code.",
            "change the working tree instead and use git commands through the shell.",
        )
    if within(path, home):
        layout = ctx.home.layout
        if within(path, layout.memories_dir.resolve()):
            how = "use the memory tool to change MEMORY.md or USER.md"
        elif within(path, layout.skills_dir.resolve()):
            how = "use skill_manage to create or change skills"
        else:
            how = "ask the user to edit it by hand if it must change"
        raise ToolError(
            f"{path} is inside the Kenning home ({home}), which the file tools do not write: "
            "every change there goes through a tool that checks and versions it.",
            f"{how}.",
        )
    if not within(path, ctx.cwd):
        raise ToolError(
            f"{path} is outside the workspace ({ctx.cwd}); files are only written inside it.",
            "write the file under the workspace, or tell the user which file outside it "
            "should change and how.",
        )


def missing(path: Path, ctx: ToolContext, *, verb: str = "read") -> ToolError:
    """A not-found error that names near misses in the same folder."""
    parent = path.parent
    near: list[str] = []
    if parent.is_dir():
        try:
            names = [p.name for p in parent.iterdir()][:2_000]
        except OSError:
            names = []
        near = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    hint = f" Similar names there: {', '.join(near)}." if near else ""
    where = display(parent, ctx) if parent != ctx.cwd else "the workspace"
    return ToolError(
        f"cannot {verb} {display(path, ctx)}: no such file.{hint}",
        f"check the path with list_files(path={where!r}); paths are relative to {ctx.cwd}.",
    )


def looks_binary(head: bytes) -> bool:
    return b"\x00" in head[:BINARY_PROBE]


_MAGIC = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive (or docx/xlsx/jar)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\x7fELF", "an executable (ELF)"),
    (b"SQLite format 3", "an SQLite database"),
)


def binary_kind(head: bytes) -> str:
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    return "binary data"


def matches(rel: str, pattern: str) -> bool:
    """Glob on the name (``*.py``) or, if the pattern has a ``/``, on the relative path.

    ``**/`` may match no folder at all, so ``src/**/*.py`` also finds ``src/a.py``.
    """
    if "/" not in pattern:
        return fnmatch(rel.rsplit("/", 1)[-1], pattern)
    return fnmatch(rel, pattern) or fnmatch(rel, pattern.replace("**/", ""))


@dataclass
class WalkStats:
    skipped: set[str] = field(default_factory=set)  # names of folders left out
    truncated: bool = False  # stopped at WALK_LIMIT entries


def walk(root: Path, stats: WalkStats | None = None) -> Iterator[tuple[Path, str]]:
    """``(file, path relative to root)`` breadth-first, shallow files before deep ones."""
    stats = stats if stats is not None else WalkStats()
    queue: deque[Path] = deque([root])
    seen = 0
    while queue:
        folder = queue.popleft()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > WALK_LIMIT:
                stats.truncated = True
                return
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name in IGNORED_DIRS or (Path(entry.path) / "pyvenv.cfg").exists():
                        stats.skipped.add(entry.name)
                        continue
                    queue.append(Path(entry.path))
                elif entry.is_file():
                    path = Path(entry.path)
                    yield path, path.relative_to(root).as_posix()
            except OSError:
                continue
