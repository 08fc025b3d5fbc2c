"""Kenning as Claude Code's learning loop: install, uninstall, status, refresh.

Where Claude Code reads each piece, by scope (Claude Code's documentation):

============  ===============================  ====================================
piece         ``--scope user``                 ``--scope project`` (folder P)
============  ===============================  ====================================
MCP server    ``~/.claude.json`` mcpServers    ``P/.mcp.json`` mcpServers
hooks         ``~/.claude/settings.json``      ``P/.claude/settings.local.json``
skills        ``~/.claude/skills/<name>/``     ``P/.claude/skills/<name>/``
memory        ``~/.claude/CLAUDE.md``          ``P/CLAUDE.md``
============  ===============================  ====================================

Project hooks go to ``settings.local.json`` (personal, not committed): the
command names this machine's Python. The hooks are ``Stop`` (a turn ended),
``PreCompact`` (before the context is compacted) and ``SessionEnd``; each runs
``hook_entry.py`` (see there: stdlib only, returns at once), which starts
``kenning hosts sync claude-code`` in the background.

Hot memory reaches Claude Code through one ``@`` import line in ``CLAUDE.md``
naming a file Kenning keeps rendered (``<home>/hosts/claude-code-memory.md``),
added only when the user agrees; the MCP resource ``kenning://memory/snapshot``
serves the same block either way.

Everything added is listed in a manifest (``<home>/hosts/claude-code-<scope>….json``,
``files.Manifest``) and ``uninstall`` removes exactly that.
"""

from __future__ import annotations

import hashlib
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kenning.fsutil import FileStamp
from kenning.home import Home
from kenning.hosts import hook_entry
from kenning.hosts.files import (
    HostFileError,
    Manifest,
    add_line,
    add_value,
    read_object,
    remove_lines,
    remove_values,
    write_object,
)
from kenning.hosts.skills_export import export_skills, remove_exported
from kenning.mcp.hosts import NAME, launch

HOST = "claude-code"
HOOK_EVENTS = ("Stop", "PreCompact", "SessionEnd")
HOOK_TIMEOUT_S = 10  # Claude Code's hook timeout is in seconds; ours returns in milliseconds
Scope = Literal["user", "project"]


@dataclass(frozen=True)
class Places:
    """The files Claude Code reads, for one scope."""

    scope: Scope
    project: Path | None
    mcp_file: Path
    settings_file: Path
    skills_dir: Path
    claude_md: Path

    @classmethod
    def of(cls, scope: Scope, *, user_home: Path, project: Path | None) -> Places:
        if scope == "user":
            claude = user_home / ".claude"
            return cls(
                scope,
                None,
                user_home / ".claude.json",
                claude / "settings.json",
                claude / "skills",
                claude / "CLAUDE.md",
            )
        assert project is not None
        return cls(
            scope,
            project,
            project / ".mcp.json",
            project / ".claude" / "settings.local.json",
            project / ".claude" / "skills",
            project / "CLAUDE.md",
        )


def manifest_path(home: Home, places: Places) -> Path:
    suffix = ""
    if places.project is not None:
        suffix = "-" + hashlib.sha256(str(places.project).encode()).hexdigest()[:12]
    return home.root / "hosts" / f"{HOST}-{places.scope}{suffix}.json"


def memory_file(home: Home) -> Path:
    return home.root / "hosts" / f"{HOST}-memory.md"


def import_line(home: Home) -> str:
    return f"@{memory_file(home)}"


@dataclass
class InstallReport:
    places: Places
    done: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def hook_command(home: Home, *, review: bool, assignments: list[str]) -> str:
    """The shell command each hook runs: this Python, the stdlib-only entry, this home."""
    entry = Path(hook_entry.__file__).resolve()
    words = [f"KENNING_HOME={home.root}", sys.executable, str(entry), HOST]
    if not review:
        words.append("--no-review")
    # KENNING_HOME names the profile's own folder already, so --profile is not passed.
    extra = [w for assignment in assignments for w in ("--set", assignment)]
    if extra:
        words += ["--", *extra]
    return " ".join(shlex.quote(w) if i else w for i, w in enumerate(words))


def install(
    home: Home,
    places: Places,
    *,
    review: bool = True,
    claude_md: bool = False,
    profile: str | None = None,
    assignments: list[str] | None = None,
) -> InstallReport:
    """Register the server, the hooks, the skills and (if agreed) the memory import."""
    path = manifest_path(home, places)
    if Manifest.load(path) is not None:
        raise HostFileError(
            f"Kenning is already installed in Claude Code ({places.scope} scope); run "
            f"`kenning hosts uninstall {HOST}` first to change how"
        )
    assignments = list(assignments or [])
    manifest = Manifest(
        HOST,
        places.scope,
        str(places.project) if places.project else None,
        review=review,
        skills_dir=str(places.skills_dir),
    )
    report = InstallReport(places)
    try:
        _install(home, places, manifest, report, claude_md, review, profile, assignments)
    except BaseException:
        _take_back(manifest)  # half an install is worse than none
        raise
    manifest.save(path)
    return report


def _take_back(manifest: Manifest) -> None:
    remove_values(manifest)
    remove_lines(manifest)
    remove_exported(manifest, Path(manifest.skills_dir))
    manifest.remove_created()


def _install(
    home: Home,
    places: Places,
    manifest: Manifest,
    report: InstallReport,
    claude_md: bool,
    review: bool,
    profile: str | None,
    assignments: list[str],
) -> None:
    # Read everything first: a file that cannot be changed stops the install before any write.
    mcp_stamp, settings_stamp = FileStamp.of(places.mcp_file), FileStamp.of(places.settings_file)
    mcp_data = read_object(places.mcp_file)
    settings = read_object(places.settings_file)
    spec = launch(profile=profile, assignments=assignments, read_only=False)
    entry: dict[str, object] = {"type": "stdio", "command": spec.command, "args": list(spec.args)}
    entry["env"] = {**spec.env, "KENNING_HOME": str(home.root)}
    why = add_value(manifest, places.mcp_file, mcp_data, ["mcpServers", NAME], entry)
    if why:
        report.notes.append(f"MCP server not registered: {why}")
    else:
        write_object(manifest, places.mcp_file, mcp_data, expect=mcp_stamp)
        report.done.append(f"registered the MCP server in {places.mcp_file}")
    command = hook_command(home, review=review, assignments=assignments)
    group = {"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S}]}
    for event in HOOK_EVENTS:
        key = ["hooks", event]
        why = add_value(manifest, places.settings_file, settings, key, group, into_list=True)
        if why:
            report.notes.append(f"hook {event} not installed: {why}")
    write_object(manifest, places.settings_file, settings, expect=settings_stamp)
    report.done.append(
        f"installed hooks {', '.join(HOOK_EVENTS)} in {places.settings_file}"
        + ("" if review else " (background review off)")
    )
    if claude_md:
        render_memory(home)
        if add_line(manifest, places.claude_md, import_line(home)):
            report.done.append(f"added the hot-memory import to {places.claude_md}")
    exported = export_skills(home, manifest, places.skills_dir)
    report.done.append(f"skills: {exported.describe()} ({places.skills_dir})")
    report.notes.extend(exported.skipped)


def uninstall(home: Home, places: Places) -> list[str]:
    """Remove what ``install`` added (and the skills exported since); notes on what was kept."""
    path = manifest_path(home, places)
    manifest = Manifest.load(path)
    if manifest is None:
        raise HostFileError(
            f"Kenning is not installed in Claude Code ({places.scope} scope): nothing to remove"
        )
    notes = remove_values(manifest)
    remove_lines(manifest)
    notes.extend(remove_exported(manifest, Path(manifest.skills_dir)).skipped)
    kept = manifest.remove_created()
    notes.extend(f"{name} holds files that are not Kenning's; left in place" for name in kept)
    path.unlink(missing_ok=True)
    if not list(path.parent.glob(f"{HOST}-*.json")):
        memory_file(home).unlink(missing_ok=True)
    return notes


def manifests(home: Home) -> list[tuple[Path, Manifest]]:
    found = []
    for path in sorted((home.root / "hosts").glob(f"{HOST}-*.json")):
        manifest = Manifest.load(path)
        if manifest is not None:
            found.append((path, manifest))
    return found


def refresh(home: Home, *, skills_dir: Path | None = None) -> list[str]:
    """Bring every installed scope's skills folder and the memory file in step."""
    notes: list[str] = []
    installed = manifests(home)
    if installed and any(m.lines for _, m in installed):
        render_memory(home)
    for path, manifest in installed:
        target = Path(manifest.skills_dir)
        if skills_dir is not None and target != skills_dir:
            continue
        report = export_skills(home, manifest, target)
        notes.extend(report.skipped)
        manifest.save(path)
    return notes


def render_memory(home: Home) -> None:
    """The hot-memory block, as a Kenning session starts with it, for the CLAUDE.md import."""
    from kenning.fsutil import atomic_write

    text = home.snapshot().render().strip()
    header = (
        "<!-- Kenning's hot memory, kept in step by Kenning "
        "(`kenning hosts uninstall claude-code` removes it). -->\n"
    )
    atomic_write(memory_file(home), header + (text or "(Kenning's memory is empty.)") + "\n")


def status(home: Home, places: Places) -> list[str]:
    """What is installed for ``places`` and whether the host still has it."""
    manifest = Manifest.load(manifest_path(home, places))
    if manifest is None:
        return [f"not installed in Claude Code ({places.scope} scope)"]
    lines = [f"installed in Claude Code ({places.scope} scope)"]
    mcp = read_object(places.mcp_file).get("mcpServers")
    has_mcp = isinstance(mcp, dict) and NAME in mcp
    lines.append(f"  MCP server: {'registered' if has_mcp else 'missing'} ({places.mcp_file})")
    hooks = read_object(places.settings_file).get("hooks")
    present = [
        event
        for event in HOOK_EVENTS
        if isinstance(hooks, dict) and "hook_entry.py" in str(hooks.get(event, ""))
    ]
    lines.append(
        f"  hooks: {', '.join(present) or 'missing'} ({places.settings_file})"
        + ("" if manifest.review else ", background review off")
    )
    lines.append(f"  skills exported: {', '.join(sorted(manifest.skills)) or 'none yet'}")
    lines.append(
        f"  hot memory import: {'in ' + str(places.claude_md) if manifest.lines else 'not added'}"
    )
    archived = [
        s
        for s in home.archive.sessions(limit=200, sources=["import"])
        if s.meta.get("host") == HOST
    ]
    lines.append(f"  sessions archived from Claude Code: {len(archived)}")
    return lines
