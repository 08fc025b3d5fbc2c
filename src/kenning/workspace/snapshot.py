"""The parent's view of a workspace snapshot: which variables exist, without loading them.

The kernel writes the snapshot (``kernel_main.snapshot``: a JSON header line,
then the pickled blobs); the parent only ever reads the header, so telling the
model what its variables are costs one line of I/O and never unpickles
anything in Kenning's own process.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from kenning.workspace.kernel import Variable

SNAPSHOT = "snapshot"  # kernel_main.SNAPSHOT: the kernel imports nothing of ours
LISTED = 60  # variables named in a notice; the rest are counted


def read_header(state_dir: Path) -> tuple[list[Variable], dict[str, str]]:
    """The variables a snapshot holds and the names it skipped (why); empty if none."""
    try:
        with open(state_dir / SNAPSHOT, "rb") as handle:
            header = json.loads(handle.readline())
    except (OSError, ValueError):
        return [], {}
    if not isinstance(header, dict):
        return [], {}
    found = [
        Variable(str(name), str(info.get("type")), int(info.get("bytes") or 0))
        for name, info in (header.get("vars") or {}).items()
        if isinstance(info, dict)
    ]
    found += [Variable(str(n), f"module {m}", 0) for n, m in (header.get("modules") or {}).items()]
    skipped = {str(k): str(v) for k, v in (header.get("skipped") or {}).items()}
    return found, skipped


def size_text(n: int) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def describe(variables: Sequence[Variable], skipped: Mapping[str, str] | None = None) -> str:
    """One line per variable (name: type, size), and what the last snapshot could not save."""
    if not variables and not skipped:
        return ""
    lines = [f"- {v.name}: {v.type}, {size_text(v.bytes)}" for v in variables[:LISTED]]
    if len(variables) > LISTED:
        lines.append(f"- … and {len(variables) - LISTED} more (list them with dir() in a cell)")
    text = "\n".join(lines) or "- (none)"
    if skipped:
        names = ", ".join(f"{name} ({why})" for name, why in list(skipped.items())[:20])
        text += f"\nNot in the snapshot (lost if the kernel restarts): {names}"
    return text
