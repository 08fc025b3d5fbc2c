"""Health of ``kenning sync`` in a home: an interrupted sync, a conflict waiting, the last sync.

Read from the files the sync keeps in ``.git/kenning-sync/`` only: no git runs, no
network, nothing is written. A home that never synced gets no line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kenning.doctor.model import Check, ok
from kenning.sync.engine import INTENT_FILE, STATE_FILE


def check_sync(root: Path, cmd: str) -> list[Check]:
    folder = root / ".git" / "kenning-sync"
    checks = []
    if (folder / INTENT_FILE).exists():
        checks.append(
            Check(
                "sync",
                "warn",
                "a sync was stopped while writing the merge; every file is whole, but the "
                "merge is not finished",
                f"run `{cmd} sync`: it finishes the interrupted merge first",
            )
        )
    state = _load(folder / STATE_FILE)
    if not state:
        return checks
    result, remote = state.get("result"), state.get("remote", "?")
    if result == "conflict":
        conflicts = [str(c) for c in state.get("conflicts", [])]
        checks.append(
            Check(
                "sync",
                "warn",
                f"the last sync with {remote} stopped on {len(conflicts)} file(s) that cannot "
                "be merged (nothing was changed here)",
                f"make the files agree on one machine, then `{cmd} sync`",
                details=tuple(conflicts),
            )
        )
    elif result == "failed":
        message = str(state.get("message", "")).splitlines()
        checks.append(
            Check(
                "sync",
                "warn",
                f"the last sync with {remote} failed: {message[0] if message else 'unknown'}",
                f"`{cmd} sync --status` shows it; fix the cause, then `{cmd} sync`",
            )
        )
    elif not checks:
        checks.append(ok("sync", f"last synced with {remote} at {state.get('last_sync', '?')}"))
    return checks


def _load(path: Path) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}
