"""Files with a chosen age, for tests of code that compares mtimes with now.

``touch(path)`` is a file written just now and ``touch(path, age_s=600)`` one
written ten minutes ago, both by the process's own clock. A plain
``Path.touch()`` gets the kernel's time instead, which is the same thing on a
real machine but not under a clock faker such as libfaketime (it moves the
process's clock, not the filesystem's), where a "fresh" lock would look a
year old.
"""

from __future__ import annotations

import os
from pathlib import Path

from kenning import clock


def touch(path: Path, *, age_s: float = 0.0) -> Path:
    """Create ``path`` if missing and set its times to ``age_s`` seconds ago."""
    if not path.exists():
        path.touch()
    when = clock.system_timestamp() - age_s
    os.utime(path, (when, when), follow_symlinks=False)
    return path
