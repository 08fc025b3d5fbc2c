"""Identity and standing rules: SOUL.md and the AGENTS.md / CLAUDE.md chain.

Which files load is decided by the working directory, most general first:
1. ``SOUL.md`` in the home (who the agent is);
2. ``AGENTS.md`` / ``CLAUDE.md`` in the home (the user's standing rules);
3. the same names at the project root — the nearest git root above the
   working directory — and in every directory between it and the working
   directory, in that order, so a more specific file can refine a general one.

Each file is capped (``rules.max_file_chars``), with a visible note when cut,
and scanned: the user writes these, so ordinary role statements ("You are a
terse reviewer") are fine, but hidden Unicode, exfiltration and persistence
commands are neutralised paragraph by paragraph before they reach a prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kenning.paths import HomeLayout
from kenning.safety import threats

RULE_FILENAMES = ("AGENTS.md", "CLAUDE.md")


@dataclass(frozen=True)
class RuleFile:
    path: Path
    scope: str  # "identity" | "user" | "project" | "directory"
    text: str  # as it goes into the prompt (capped, neutralised)
    truncated: bool
    blocked_paragraphs: int


def find_project_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding a ``.git`` entry."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def rule_files(layout: HomeLayout, cwd: Path) -> list[tuple[Path, str]]:
    """Existing rule files that apply in ``cwd``, most general first, without repeats."""
    found: list[tuple[Path, str]] = []
    if layout.soul_file.is_file():
        found.append((layout.soul_file, "identity"))
    found += [(p, "user") for p in _rules_in(layout.root)]
    cwd = cwd.absolute()
    root = find_project_root(cwd)
    if root is not None:
        chain = [root, *reversed([d for d in cwd.parents if root in d.parents]), cwd]
        seen_dirs: set[Path] = set()
        for directory in chain:
            if directory in seen_dirs or directory == layout.root:
                continue
            seen_dirs.add(directory)
            scope = "project" if directory == root else "directory"
            found += [(p, scope) for p in _rules_in(directory)]
    return _dedupe(found)


def load_rules(layout: HomeLayout, cwd: Path, *, max_file_chars: int) -> list[RuleFile]:
    return [_load(path, scope, max_file_chars) for path, scope in rule_files(layout, cwd)]


def render_rules(rules: list[RuleFile]) -> str:
    """The rules section of a system prompt (empty string when there are none)."""
    parts = []
    for rule in rules:
        label = "Identity" if rule.scope == "identity" else f"Standing rules ({rule.scope})"
        parts.append(f"## {label}: {rule.path}\n{rule.text.rstrip()}")
    return "\n\n".join(parts)


def _rules_in(directory: Path) -> list[Path]:
    return [directory / name for name in RULE_FILENAMES if (directory / name).is_file()]


def _dedupe(found: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    # CLAUDE.md is often a symlink to (or a copy of) AGENTS.md: load it once.
    result: list[tuple[Path, str]] = []
    seen: set[tuple[Path, bytes]] = set()
    for path, scope in found:
        key = (path.resolve().parent, path.read_bytes())
        if key in seen:
            continue
        seen.add(key)
        result.append((path, scope))
    return result


def _load(path: Path, scope: str, max_chars: int) -> RuleFile:
    text = path.read_text(encoding="utf-8", errors="replace")
    truncated = len(text) > max_chars
    if truncated:
        text = (
            text[:max_chars].rstrip()
            + f"\n[… {path.name} cut at {max_chars:,} of {len(text):,} chars; "
            "read the file for the rest]"
        )
    paragraphs = text.split("\n\n")
    safe = [threats.neutralise(p, "rules") for p in paragraphs]
    blocked = sum(1 for a, b in zip(paragraphs, safe, strict=True) if a != b)
    return RuleFile(path, scope, "\n\n".join(safe), truncated, blocked)
