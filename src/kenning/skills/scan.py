"""The threat scan of skill files: everything a skill holds is scanned in the "script" scope.

A skill's text reaches the model (SKILL.md via ``skill_view``, the description
in every system prompt) and its commands and scripts get run, so every text
file is scanned with the widest scope of the shared table
(:mod:`kenning.safety.patterns`): prompt injection, secrets, exfiltration,
persistence, destructive commands and fetching-and-running remote code, plus
the code-level rows for scripts. Binary files under ``assets/`` are never
loaded into a prompt or run by Kenning and are not scanned.

``threats.scan`` looks at a text's head and tail only (a cost bound); a
support file may be 1 MiB, so :func:`scan_text` scans it whole, in windows cut
at line breaks (the shell patterns match within one line) that overlap by a
little, so nothing in the middle of a long script goes unseen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kenning.safety import threats
from kenning.skills.errors import ErrorKind, SkillError
from kenning.skills.validate import is_text

SCOPE: threats.Scope = "script"
_WINDOW = 60_000  # under threats' head+tail size, so each window is scanned whole
_OVERLAP = 2_000


@dataclass(frozen=True)
class FileFindings:
    path: str
    findings: tuple[threats.Finding, ...]

    def describe(self) -> str:
        return f"{self.path} {threats.describe(self.findings)} [{threats.explain(self.findings)}]"


def scan_text(text: str) -> list[threats.Finding]:
    """Every finding in ``text`` (all of it), one per pattern id."""
    if len(text) <= _WINDOW:
        return threats.scan(text, SCOPE)
    found: dict[str, threats.Finding] = {}
    start = 0
    while start < len(text):
        end = min(len(text), start + _WINDOW)
        if end < len(text):
            cut = text.rfind("\n", start + _WINDOW // 2, end)
            end = cut + 1 if cut != -1 else end
        for finding in threats.scan(text[start:end], SCOPE):
            found.setdefault(finding.pattern_id, finding)
        if end >= len(text):
            break
        back = text.rfind("\n", end - _OVERLAP, end - 1)
        start = back + 1 if back != -1 else end - _OVERLAP
    return list(found.values())


def scan_files(
    files: Mapping[str, bytes], paths: Iterable[str] | None = None
) -> list[FileFindings]:
    """Findings per text file among ``paths`` (default: every file of the snapshot)."""
    out = []
    for rel in sorted(files if paths is None else set(paths)):
        data = files.get(rel)
        if data is None or not is_text(data):
            continue  # removed, or a binary asset
        findings = scan_text(data.decode("utf-8"))
        if findings:
            out.append(FileFindings(rel, tuple(findings)))
    return out


def raise_if_unsafe(name: str, files: Mapping[str, bytes], paths: Iterable[str]) -> None:
    """SkillError (BLOCKED) naming each file and reason, if the scan finds anything."""
    found = scan_files(files, paths)
    if not found:
        return
    lines = [f.describe() for f in found]
    raise SkillError(
        ErrorKind.BLOCKED,
        f"Refused: in skill '{name}', " + "; ".join(lines) + ". Skills are loaded into prompts "
        "and their commands get run, so they must not carry this.",
        "Nothing was written. Remove or rewrite the flagged part (state a pitfall as a rule "
        "in words rather than as the command itself), then retry.",
        problems=lines,
    )
