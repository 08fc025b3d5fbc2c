"""Changing another tool's files so that every change can be taken back exactly.

Invariants:

* Every file Kenning writes in a host's folders is written atomically
  (``fsutil.atomic_write``): the host never reads half a settings file.
* A JSON file is read, changed at the keys Kenning owns, and written back with
  everything else as it was. A file that is not a JSON object is never
  overwritten: ``HostFileError`` says which file and what to do.
* The ``Manifest`` lists what Kenning added — each value at its key path, each
  line, each file and folder it created — so ``uninstall`` removes exactly
  that: a value only while it is still the one Kenning wrote, a container
  (``hooks``, ``mcpServers``) only if Kenning created it and it is empty, a
  file or folder only if Kenning created it and nothing else is in it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from kenning.fsutil import ChangedUnderfootError, FileStamp, atomic_write

JsonObject = dict[str, Any]
Expect = FileStamp | Literal["any"] | None  # as fsutil.atomic_write takes it


class HostFileError(RuntimeError):
    """A host's file cannot be changed safely; the message names it and says what to do."""


@dataclass
class Manifest:
    """What one ``kenning hosts install`` added to a host, to be removed by ``uninstall``."""

    host: str
    scope: str
    project: str | None = None
    review: bool = True
    created: list[str] = field(default_factory=list)  # files and folders, in creation order
    values: list[JsonObject] = field(default_factory=list)  # {"file", "path", "value"}
    containers: list[JsonObject] = field(default_factory=list)  # {"file", "path"} created
    lines: list[JsonObject] = field(default_factory=list)  # {"file", "line"}
    skills: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> {file: sha256}
    skills_dir: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def load(cls, path: Path) -> Manifest | None:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise HostFileError(
                f"{path} (Kenning's record of what it installed) cannot be read: {exc}"
            ) from exc
        known = {k: v for k, v in raw.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def save(self, path: Path) -> None:
        atomic_write(path, self.to_json())

    # -- creating --------------------------------------------------------------

    def note_created(self, path: Path) -> None:
        if str(path) not in self.created:
            self.created.append(str(path))

    def make_parents(self, path: Path) -> None:
        """Create ``path``'s missing folders, each recorded as Kenning's."""
        missing = []
        for parent in path.parents:
            if parent.exists():
                break
            missing.append(parent)
        for folder in reversed(missing):
            folder.mkdir()
            self.note_created(folder)

    def write_file(self, path: Path, data: str | bytes, *, expect: Expect = "any") -> None:
        """Write ``path`` atomically; a file that was not there is recorded as Kenning's.

        ``expect`` is the file's stamp when it was read: if the host rewrote it
        since (Claude Code saves ``~/.claude.json`` often), nothing is written.
        """
        self.make_parents(path)
        created = not path.exists()
        try:
            atomic_write(path, data, expect=expect)
        except ChangedUnderfootError as exc:
            raise HostFileError(
                f"{path} changed while Kenning was changing it (is Claude Code saving it?); "
                "nothing was changed, run the command again"
            ) from exc
        if created:
            self.note_created(path)

    def remove_created(self) -> list[str]:
        """Delete the files and folders Kenning created, newest first, if they hold
        nothing else; returns what was left because something else is in it."""
        kept = []
        for name in reversed(self.created):
            path = Path(name)
            if not path.exists() and not path.is_symlink():
                continue  # already gone (a retired skill's folder)
            try:
                if path.is_dir() and not path.is_symlink():
                    path.rmdir()
                elif path.exists() or path.is_symlink():
                    path.unlink()
            except OSError:
                kept.append(name)
        self.created = []
        return kept


# -- JSON files ---------------------------------------------------------------------


def read_object(path: Path) -> JsonObject:
    """The JSON object in ``path`` ({} when the file is missing or empty)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise HostFileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise HostFileError(
            f"{path} is not valid JSON ({exc}); fix it (or move it aside) and run the "
            "command again. Nothing was changed."
        ) from exc
    if not isinstance(value, dict):
        raise HostFileError(f"{path} holds JSON but not an object; nothing was changed")
    return value


def write_object(
    manifest: Manifest, path: Path, data: JsonObject, *, expect: Expect = "any"
) -> None:
    manifest.write_file(path, dump_like(path, data), expect=expect)


def dump_like(path: Path, data: JsonObject) -> str:
    """``data`` as JSON laid out like ``path`` is now (its indent, its final newline), so
    taking Kenning's keys back out gives the user's bytes back, not just their values."""
    try:
        old = path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        old = ""
    indent: int | None = 2
    for raw in old.splitlines()[1:]:
        stripped = raw.lstrip(" \t")
        if stripped and len(stripped) < len(raw):
            indent = len(raw) - len(stripped)
            break
    if old.strip() and "\n" not in old.strip():
        indent = None  # written on one line: kept on one line
    end = "\n" if not old or old.endswith("\n") else ""
    return json.dumps(data, indent=indent, ensure_ascii=False) + end


def add_value(
    manifest: Manifest,
    file: Path,
    data: JsonObject,
    path: list[str],
    value: Any,
    *,
    into_list: bool = False,
) -> str | None:
    """Put ``value`` at ``path`` in ``data`` (``into_list``: appended to the list there,
    made if missing), recording what was added.

    Returns why nothing was added (another value already at the key), or None.
    """
    node: JsonObject = data
    for depth, key in enumerate(path[:-1]):
        child = node.get(key)
        if child is None:
            child = node[key] = {}
            manifest.containers.append({"file": str(file), "path": path[: depth + 1]})
        if not isinstance(child, dict):
            return f"{file}: {'.'.join(path[: depth + 1])} is not an object"
        node = child
    leaf = path[-1]
    if into_list:
        items = node.get(leaf)
        if items is None:
            items = node[leaf] = []
            manifest.containers.append({"file": str(file), "path": path})
        if not isinstance(items, list):
            return f"{file}: {'.'.join(path)} is not a list"
        if value not in items:
            items.append(value)
            manifest.values.append({"file": str(file), "path": path, "value": value, "list": True})
        return None
    if leaf not in node:
        manifest.values.append({"file": str(file), "path": path, "value": value, "list": False})
        node[leaf] = value
        return None
    if node[leaf] == value:
        return None  # already there, as someone wrote it: not Kenning's to remove
    return f"{file}: {'.'.join(path)} is already set (to something else); left as it is"


def remove_values(manifest: Manifest) -> list[str]:
    """Take every recorded value out of its file (only while still the value written);
    then the containers Kenning created that are now empty. Returns notes on what
    was left because someone changed it."""
    notes: list[str] = []
    by_file: dict[str, JsonObject] = {}
    for entry in manifest.values:
        name = str(entry["file"])
        data = by_file.setdefault(name, read_object(Path(name)))
        parent = _walk(data, list(entry["path"][:-1]))
        leaf = entry["path"][-1]
        if parent is None or leaf not in parent:
            continue
        if entry.get("list") and isinstance(parent[leaf], list):
            if entry["value"] in parent[leaf]:
                parent[leaf].remove(entry["value"])
        elif parent[leaf] == entry["value"]:
            del parent[leaf]
        else:
            notes.append(f"{name}: {'.'.join(entry['path'])} was changed since; left as it is")
    for entry in sorted(manifest.containers, key=lambda e: -len(e["path"])):
        name = str(entry["file"])
        data = by_file.setdefault(name, read_object(Path(name)))
        keys = list(entry["path"])
        parent = _walk(data, keys[:-1])
        if parent is not None and parent.get(keys[-1]) in ({}, []):
            del parent[keys[-1]]
    for name, data in by_file.items():
        file = Path(name)
        if not data and name in manifest.created:
            continue  # Kenning's own file, now empty: remove_created deletes it
        if file.exists():
            atomic_write(file, dump_like(file, data))
    manifest.values, manifest.containers = [], []
    return notes


def _walk(data: JsonObject, path: list[str]) -> JsonObject | None:
    node: Any = data
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


# -- text lines ---------------------------------------------------------------------


def add_line(manifest: Manifest, file: Path, line: str) -> bool:
    """Append ``line`` to ``file`` unless it is there already; True when added."""
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    if line in text.splitlines():
        return False
    joined = text if not text or text.endswith("\n") else text + "\n"
    manifest.write_file(file, f"{joined}{line}\n")
    manifest.lines.append({"file": str(file), "line": line, "had_newline": text.endswith("\n")})
    return True


def remove_lines(manifest: Manifest) -> None:
    for entry in manifest.lines:
        path = Path(str(entry["file"]))
        with contextlib.suppress(FileNotFoundError):
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines(keepends=True)
            wanted = str(entry["line"])
            kept = [raw for raw in lines if raw.rstrip("\r\n") != wanted]
            out = "".join(kept)
            if kept and not entry.get("had_newline") and str(path) not in manifest.created:
                out = out.removesuffix("\n")  # the user's last line had no newline: as before
            if not out and str(path) in manifest.created:
                continue  # Kenning's own file, now empty: remove_created deletes it
            atomic_write(path, out)
    manifest.lines = []


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
