"""The rules a skill folder must keep: where files may live, how big, and of what kind.

Two kinds of check, both pure (no disk access; :mod:`kenning.skills.files`
checks the disk itself for links):

- :func:`check_support_path` decides whether a path a writer names may become
  a support file. It refuses anything that could leave the skill folder or
  mean something else on another system: ``..``, absolute paths, ``~``,
  NUL and control bytes, backslashes (a Windows separator), drive letters,
  hidden names, and files outside ``references/ templates/ scripts/ assets/``.
- :func:`problems` checks a whole folder snapshot (relative path -> bytes):
  SKILL.md present with valid front matter whose name is the folder's,
  SKILL.md <= 100,000 characters, support files <= 1 MiB and UTF-8 text
  unless under ``assets/``, at most :data:`MAX_FILES` files. Writes are
  refused on any *error*; *warnings* (stray top-level files) show in lint.

A change is valid when the folder it produces is valid, so a skill that was
broken by hand can be repaired by any change that fixes it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from kenning.skills.errors import ErrorKind, SkillError
from kenning.skills.model import SKILL_FILE, parse_skill_md

SUPPORT_DIRS: tuple[str, ...] = ("references", "templates", "scripts", "assets")
MAX_SKILL_MD_CHARS = 100_000
MAX_SUPPORT_BYTES = 1024 * 1024
MAX_FILES = 200  # a skill is a procedure, not a repository; bounds scan and hash cost
MAX_PATH_CHARS = 400
_DRIVE = re.compile(r"^[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    path: str
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def _refuse(raw: str, why: str) -> SkillError:
    return SkillError(
        ErrorKind.INVALID,
        f"The file path {raw[:120]!r} is refused: {why}.",
        "Name a relative path with '/' separators inside one of the folders "
        f"{', '.join(d + '/' for d in SUPPORT_DIRS)} — e.g. scripts/check.sh or "
        "references/api.md.",
    )


def check_support_path(raw: object) -> str:
    """``raw`` as a clean relative path under one of the four folders, or SkillError."""
    if not isinstance(raw, str) or not raw.strip():
        raise SkillError(
            ErrorKind.INVALID,
            "No file path given.",
            "Pass file, e.g. scripts/check.sh or references/notes.md.",
        )
    if "\x00" in raw:
        raise _refuse(raw.replace("\x00", "\\0"), "it contains a NUL byte")
    if _CONTROL.search(raw):
        raise _refuse(raw, "it contains control characters")
    if "\\" in raw:
        raise _refuse(raw, "it contains a backslash (Windows separator); use '/'")
    if _DRIVE.match(raw):
        raise _refuse(raw, "it is a Windows drive path")
    if raw.startswith("/"):
        raise _refuse(raw, "it is an absolute path")
    if raw.startswith("~"):
        raise _refuse(raw, "it starts with '~' (a home directory)")
    if len(raw) > MAX_PATH_CHARS:
        raise _refuse(raw, f"it is longer than {MAX_PATH_CHARS} characters")
    parts = raw.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise _refuse(raw, "it has an empty, '.' or '..' component")
    if any(part.startswith(".") for part in parts):
        raise _refuse(raw, "hidden files and folders are not allowed")
    if any(len(part.encode("utf-8")) > 255 for part in parts):
        raise _refuse(raw, "a component is longer than 255 bytes")
    if raw == SKILL_FILE:
        raise _refuse(raw, "SKILL.md is changed with edit or patch, not as a support file")
    if parts[0] not in SUPPORT_DIRS or len(parts) < 2:
        raise _refuse(raw, "support files live inside references/, templates/, scripts/ or assets/")
    return raw


def is_text(data: bytes) -> bool:
    """UTF-8 without NUL bytes: what may live outside ``assets/``."""
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def problems(folder: str, files: Mapping[str, bytes]) -> list[Problem]:
    """Every rule the folder snapshot ``files`` breaks (errors first, then warnings)."""
    found: list[Problem] = []
    if len(files) > MAX_FILES:
        found.append(Problem(".", f"the skill holds {len(files)} files (at most {MAX_FILES})"))
    skill_md = files.get(SKILL_FILE)
    if skill_md is None:
        found.append(Problem(SKILL_FILE, "missing: every skill needs a SKILL.md"))
    else:
        found.extend(_skill_md_problems(folder, skill_md))
    for rel in sorted(files):
        if rel == SKILL_FILE:
            continue
        data = files[rel]
        try:
            check_support_path(rel)
        except SkillError:
            top = rel.split("/", 1)[0]
            if "/" not in rel or top not in SUPPORT_DIRS:
                found.append(
                    Problem(
                        rel,
                        "outside SKILL.md and the four folders; Kenning neither loads nor scans it",
                        "warning",
                    )
                )
                continue
            found.append(Problem(rel, "the path breaks the support-file rules"))
            continue
        if len(data) > MAX_SUPPORT_BYTES:
            found.append(
                Problem(rel, f"{len(data):,} bytes is over the 1 MiB limit for support files")
            )
        if not rel.startswith("assets/") and not is_text(data):
            found.append(Problem(rel, "not UTF-8 text; binary files belong under assets/"))
    return sorted(found, key=lambda p: (p.severity != "error", p.path))


def _skill_md_problems(folder: str, raw: bytes) -> list[Problem]:
    if not is_text(raw):
        return [Problem(SKILL_FILE, "not UTF-8 text")]
    text = raw.decode("utf-8")
    out = []
    if len(text) > MAX_SKILL_MD_CHARS:
        out.append(
            Problem(
                SKILL_FILE,
                f"{len(text):,} characters is over the {MAX_SKILL_MD_CHARS:,} limit; move "
                "detail into references/",
            )
        )
    try:
        parse_skill_md(text, folder=folder)
    except SkillError as exc:
        out.extend(Problem(SKILL_FILE, p) for p in (exc.problems or [exc.message]))
    return out


def errors(folder: str, files: Mapping[str, bytes]) -> list[Problem]:
    return [p for p in problems(folder, files) if p.severity == "error"]


def raise_if_invalid(folder: str, files: Mapping[str, bytes]) -> None:
    """SkillError listing the errors of the snapshot, if it has any."""
    found = errors(folder, files)
    if found:
        raise SkillError(
            ErrorKind.INVALID,
            f"The change would leave skill '{folder}' invalid: "
            + "; ".join(str(p) for p in found)
            + ".",
            "Nothing was written. Fix the problems listed and retry.",
            problems=[str(p) for p in found],
        )
