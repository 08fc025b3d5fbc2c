"""Installing Kenning in a host, whichever: the parts every host shares.

A host module (``claude_code``, ``gemini_cli``) describes where the host
reads each piece (``Places``, by scope) and the shape of its entries
(``HostSpec``); this module writes them:

* the MCP server entry (``mcpServers.kenning``) in the host's MCP file;
* one hook group per event in the host's settings file, running
  ``hook_entry.py`` (stdlib only, returns at once), which starts
  ``kenning hosts sync <host>`` in the background;
* agent-made skills, copied into the host's skills folder (``skills_export``),
  and kept in step by the skills library at each change (``skills.exports``);
* with the user's agreement, one ``@`` import line in the host's memory file
  (``CLAUDE.md``, ``GEMINI.md``) naming a file Kenning keeps rendered
  (``<home>/hosts/<host>-memory.md``).

Everything added is listed in a manifest (``<home>/hosts/<host>-<scope>….json``,
``files.Manifest``); ``uninstall`` removes exactly that, and an install that
fails midway takes back what it wrote.
"""

from __future__ import annotations

import hashlib
import json
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
from kenning.skills import exports
from kenning.skills.library import SkillLibrary

Scope = Literal["user", "project"]


@dataclass(frozen=True)
class Places:
    """The files a host reads, for one scope."""

    scope: Scope
    project: Path | None
    mcp_file: Path
    settings_file: Path
    skills_dir: Path
    memory_md: Path


@dataclass(frozen=True)
class HostSpec:
    """What differs between hosts in what ``install`` writes."""

    name: str  # the CLI's name: claude-code
    title: str  # for people: Claude Code
    hook_events: tuple[str, ...]
    hook_timeout: int  # in the host's own unit (Claude Code: seconds; Gemini CLI: ms)
    mcp_type: bool = True  # the MCP entry carries "type": "stdio"
    hook_name: bool = False  # the hook entry carries a name and description


def manifest_path(spec: HostSpec, home: Home, places: Places) -> Path:
    suffix = ""
    if places.project is not None:
        suffix = "-" + hashlib.sha256(str(places.project).encode()).hexdigest()[:12]
    return home.root / "hosts" / f"{spec.name}-{places.scope}{suffix}.json"


def memory_file(spec: HostSpec, home: Home) -> Path:
    return home.root / "hosts" / f"{spec.name}-memory.md"


def import_line(spec: HostSpec, home: Home) -> str:
    return f"@{memory_file(spec, home)}"


@dataclass
class InstallReport:
    places: Places
    done: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def hook_command(spec: HostSpec, home: Home, *, review: bool, assignments: list[str]) -> str:
    """The shell command each hook runs: this Python, the stdlib-only entry, this home."""
    entry = Path(hook_entry.__file__).resolve()
    words = [f"KENNING_HOME={home.root}", sys.executable, str(entry), spec.name]
    if not review:
        words.append("--no-review")
    # KENNING_HOME names the profile's own folder already, so --profile is not passed.
    extra = [w for assignment in assignments for w in ("--set", assignment)]
    if extra:
        words += ["--", *extra]
    return " ".join(shlex.quote(w) if i else w for i, w in enumerate(words))


def install(
    spec: HostSpec,
    home: Home,
    places: Places,
    *,
    review: bool = True,
    memory_md: bool = False,
    profile: str | None = None,
    assignments: list[str] | None = None,
) -> InstallReport:
    """Register the server, the hooks, the skills and (if agreed) the memory import."""
    path = manifest_path(spec, home, places)
    if Manifest.load(path) is not None:
        raise HostFileError(
            f"Kenning is already installed in {spec.title} ({places.scope} scope); run "
            f"`kenning hosts uninstall {spec.name}` first to change how"
        )
    assignments = list(assignments or [])
    manifest = Manifest(
        spec.name,
        places.scope,
        str(places.project) if places.project else None,
        review=review,
        skills_dir=str(places.skills_dir),
    )
    report = InstallReport(places)
    try:
        _install(spec, home, places, manifest, report, memory_md, review, profile, assignments)
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
    spec: HostSpec,
    home: Home,
    places: Places,
    manifest: Manifest,
    report: InstallReport,
    memory_md: bool,
    review: bool,
    profile: str | None,
    assignments: list[str],
) -> None:
    # Read everything first: a file that cannot be changed stops the install before any
    # write. (Gemini CLI keeps servers and hooks in one file: it is read and written once.)
    files: dict[Path, tuple[FileStamp | None, dict[str, object]]] = {}
    before: dict[Path, str] = {}
    for file in (places.mcp_file, places.settings_file):
        if file not in files:
            files[file] = (FileStamp.of(file), read_object(file))
            before[file] = json.dumps(files[file][1], sort_keys=True)
    mcp_data, settings = files[places.mcp_file][1], files[places.settings_file][1]
    server = launch(profile=profile, assignments=assignments, read_only=False)
    entry: dict[str, object] = {"type": "stdio"} if spec.mcp_type else {}
    entry.update({"command": server.command, "args": list(server.args)})
    entry["env"] = {**server.env, "KENNING_HOME": str(home.root)}
    why = add_value(manifest, places.mcp_file, mcp_data, ["mcpServers", NAME], entry)
    if why:
        report.notes.append(f"MCP server not registered: {why}")
    else:
        report.done.append(f"registered the MCP server in {places.mcp_file}")
    command = hook_command(spec, home, review=review, assignments=assignments)
    hook: dict[str, object] = {"type": "command", "command": command, "timeout": spec.hook_timeout}
    if spec.hook_name:
        hook = {"name": "kenning", **hook, "description": "Kenning archives and learns"}
    group = {"hooks": [hook]}
    for event in spec.hook_events:
        key = ["hooks", event]
        why = add_value(manifest, places.settings_file, settings, key, group, into_list=True)
        if why:
            report.notes.append(f"hook {event} not installed: {why}")
    for file, (stamp, data) in files.items():
        if json.dumps(data, sort_keys=True) != before[file]:
            write_object(manifest, file, data, expect=stamp)
    report.done.append(
        f"installed hooks {', '.join(spec.hook_events)} in {places.settings_file}"
        + ("" if review else " (background review off)")
    )
    if memory_md:
        render_memory(spec, home)
        if add_line(manifest, places.memory_md, import_line(spec, home)):
            report.done.append(f"added the hot-memory import to {places.memory_md}")
    exported = export_skills(home, manifest, places.skills_dir)
    report.done.append(f"skills: {exported.describe()} ({places.skills_dir})")
    report.notes.extend(exported.skipped)


def uninstall(spec: HostSpec, home: Home, places: Places) -> list[str]:
    """Remove what ``install`` added (and the skills exported since); notes on what was kept."""
    path = manifest_path(spec, home, places)
    manifest = Manifest.load(path)
    if manifest is None:
        raise HostFileError(
            f"Kenning is not installed in {spec.title} ({places.scope} scope): nothing to remove"
        )
    notes = remove_values(manifest)
    remove_lines(manifest)
    # Under the exports' lock: a skill change followed meanwhile would re-export
    # into a folder this is emptying, or save the manifest back after it is gone.
    with exports.locked(home.root):
        notes.extend(remove_exported(manifest, Path(manifest.skills_dir)).skipped)
        kept = manifest.remove_created()
        path.unlink(missing_ok=True)
    notes.extend(f"{name} holds files that are not Kenning's; left in place" for name in kept)
    if not list(path.parent.glob(f"{spec.name}-*.json")):
        memory_file(spec, home).unlink(missing_ok=True)
    return notes


def manifests(spec: HostSpec, home: Home) -> list[tuple[Path, Manifest]]:
    found = []
    for path in sorted((home.root / "hosts").glob(f"{spec.name}-*.json")):
        manifest = Manifest.load(path)
        if manifest is not None:
            found.append((path, manifest))
    return found


def refresh(spec: HostSpec, home: Home) -> list[str]:
    """Bring every installed scope's skills folder and the memory file in step."""
    installed = manifests(spec, home)
    if installed and any(m.lines for _, m in installed):
        render_memory(spec, home)
    # The library already follows each change as it is made; this catches up
    # with changes made while the export failed (a folder not writable then).
    return exports.follow(SkillLibrary.for_home(home), f"{spec.name}-*.json")


def render_memory(spec: HostSpec, home: Home) -> None:
    """The hot-memory block, as a Kenning session starts with it, for the memory-file import."""
    from kenning.fsutil import atomic_write

    text = home.snapshot().render().strip()
    header = (
        "<!-- Kenning's hot memory, kept in step by Kenning "
        f"(`kenning hosts uninstall {spec.name}` removes it). -->\n"
    )
    atomic_write(memory_file(spec, home), header + (text or "(Kenning's memory is empty.)") + "\n")


def status(spec: HostSpec, home: Home, places: Places) -> list[str]:
    """What is installed for ``places`` and whether the host still has it."""
    manifest = Manifest.load(manifest_path(spec, home, places))
    if manifest is None:
        return [f"not installed in {spec.title} ({places.scope} scope)"]
    lines = [f"installed in {spec.title} ({places.scope} scope)"]
    mcp = read_object(places.mcp_file).get("mcpServers")
    has_mcp = isinstance(mcp, dict) and NAME in mcp
    lines.append(f"  MCP server: {'registered' if has_mcp else 'missing'} ({places.mcp_file})")
    hooks = read_object(places.settings_file).get("hooks")
    present = [
        event
        for event in spec.hook_events
        if isinstance(hooks, dict) and "hook_entry.py" in str(hooks.get(event, ""))
    ]
    lines.append(
        f"  hooks: {', '.join(present) or 'missing'} ({places.settings_file})"
        + ("" if manifest.review else ", background review off")
    )
    lines.append(f"  skills exported: {', '.join(sorted(manifest.skills)) or 'none yet'}")
    lines.append(
        f"  hot memory import: {'in ' + str(places.memory_md) if manifest.lines else 'not added'}"
    )
    archived = [
        s
        for s in home.archive.sessions(limit=200, sources=["import"])
        if s.meta.get("host") == spec.name
    ]
    lines.append(f"  sessions archived from {spec.title}: {len(archived)}")
    return lines
