"""What ``/undo`` restores: each file as it was before the last turn first changed it.

A checkpoint is taken before each write (``Permissions.before_write``): the
file's bytes, or that it did not exist. Only the first write of a turn to a
path is kept, so undo returns to the state before the turn, however many
edits it made. Restoring writes atomically; a file the turn created is
removed. Shell commands are not covered: what a command changed cannot be
known, and the message says so.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from kenning.fsutil import atomic_write

MAX_BYTES = 20 * 1024 * 1024  # larger files are not kept (undo says it cannot restore them)


class Checkpoints:
    def __init__(self) -> None:
        self._turn: dict[Path, bytes | None] = {}
        self._too_large: set[Path] = set()
        self._last: dict[Path, bytes | None] = {}
        self._last_too_large: set[Path] = set()

    def begin_turn(self) -> None:
        """A new turn: the previous one's checkpoints become what /undo restores."""
        if self._turn or self._too_large:
            self._last, self._last_too_large = self._turn, self._too_large
        self._turn, self._too_large = {}, set()

    def record(self, path: Path) -> None:
        path = path.resolve()
        if path in self._turn or path in self._too_large:
            return
        try:
            if path.stat().st_size > MAX_BYTES:
                self._too_large.add(path)
                return
            self._turn[path] = path.read_bytes()
        except FileNotFoundError:
            self._turn[path] = None

    def undo(self) -> list[str]:
        """Restore the files of the last turn that changed any; one line per file."""
        self.begin_turn()  # a turn in progress counts as the last one
        done: list[str] = []
        for path, content in self._last.items():
            if content is None:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                done.append(f"removed {path} (the turn created it)")
            else:
                atomic_write(path, content)
                done.append(f"restored {path}")
        done += [
            f"cannot restore {p}: larger than {MAX_BYTES:,} bytes" for p in self._last_too_large
        ]
        self._last, self._last_too_large = {}, set()
        return done
