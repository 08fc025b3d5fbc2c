"""``kenning doctor``: check a home and say, for every problem, exactly what fixes it.

:func:`diagnose` runs every check and writes nothing: not the home (a home
that does not exist stays so), not a lock file, not SQLite's ``-wal``. It
loads no embedding model. :func:`repair` does what ``--fix`` promises, each
repair under the lock its writers take, with the same safety rules the
writers use: a git lock only when no running git can own it
(:mod:`kenning.gitlocks`), temp files and skill debris only once they are a
minute old.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kenning import gitlocks
from kenning.config import Config
from kenning.doctor.archive_checks import check_archive, journal_mode, switch_to_wal
from kenning.doctor.home_checks import (
    check_config,
    check_git_locks,
    check_history,
    check_home,
    check_leftovers,
    check_memory_files,
    check_memory_provider,
    find_temps,
)
from kenning.doctor.model import Check, Report, Status
from kenning.doctor.runtime_checks import (
    check_daemon,
    check_embedding_model,
    check_mcp_registration,
    check_mcp_servers,
    check_model,
)
from kenning.doctor.skills_checks import check_skills
from kenning.doctor.sync_checks import check_sync
from kenning.fsutil import STALE_TEMP_AGE_S, age_text, held
from kenning.history import History
from kenning.locks import exclusive_lock
from kenning.memory.store import MemoryStore
from kenning.paths import HomeLayout
from kenning.skills import leftovers
from kenning.skills.library import SkillLibrary
from kenning.skills.transaction import LOCK_FILE
from kenning.storage import StorageError

__all__ = ["Check", "Report", "Status", "diagnose", "repair"]


def diagnose(
    root: Path,
    *,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    cmd: str = "kenning",
) -> Report:
    """Every check of the home at ``root``; ``cmd`` starts the commands in the fixes."""
    report = Report(root)
    home = check_home(root, cmd)
    report.checks.append(home)
    if home.status == "fail":
        return report  # nothing below it to look at
    layout = HomeLayout(root)
    config_check, loaded = check_config(
        layout, os.environ if environ is None else environ, overrides or {}
    )
    cfg = loaded or Config()  # the defaults, to check the rest all the same
    report.checks.append(config_check)
    report.checks += check_history(root, cfg.history.enabled, cmd)
    report.checks.append(check_git_locks(root, cmd))
    off = History(root, enabled=False)  # the loaders below must not commit anything
    report.checks += check_memory_files(layout, MemoryStore(layout, cfg.memory, off), cmd)
    report.checks += check_memory_provider(cfg.memory)
    report.checks += check_skills(SkillLibrary(layout, cfg.skills, off), cmd)
    report.checks += check_archive(layout.state_db, cfg, cmd)
    report.checks += check_leftovers(root, cmd)
    report.checks += check_sync(root, cmd)
    env = os.environ if environ is None else environ
    report.checks.append(check_model(cfg, env, cmd))
    report.checks.append(check_embedding_model(cfg, env))
    report.checks.append(check_mcp_registration(Path(env.get("HOME") or Path.home()), cmd))
    report.checks.append(check_mcp_servers(layout.config_file))
    report.checks.append(check_daemon(root, cmd))
    return report


def repair(root: Path) -> list[str]:
    """What ``--fix`` repairs; returns one line per thing done."""
    done: list[str] = []
    if not root.is_dir():
        return done
    if (root / ".git").is_dir() and gitlocks.lock_files(root):
        # Under the home lock no git of Kenning's runs; gitlocks rules out the others.
        with exclusive_lock(root / ".git-kenning.lock"):
            for lock in gitlocks.remove_stale(root):
                done.append(
                    f"removed {lock.path.relative_to(root)} (a stale git lock, "
                    f"{age_text(lock.age_s)} old, no git running in the home)"
                )
    if (root / ".git").is_dir():
        history = History(root)
        missed = len(history.missed())
        if missed and (commit := history.catch_up()):
            done.append(f"recorded {missed} write(s) history had missed (commit {commit})")
    skills_dir = HomeLayout(root).skills_dir
    if skills_dir.is_dir():
        for item in leftovers.sweep(skills_dir, skills_dir / LOCK_FILE):
            rel = item.path.relative_to(root)
            done.append(f"removed {rel} (left by an interrupted skill write)")
    for path, age in find_temps(root):
        if age < STALE_TEMP_AGE_S:
            continue
        target = _target_of(path)
        with contextlib.suppress(OSError), held(target):  # its writers' lock; clears its temps
            done.append(f"removed {path.relative_to(root)} (temp file of {target.name})")
    db = HomeLayout(root).state_db
    with contextlib.suppress(StorageError, OSError):
        if db.is_file() and journal_mode(db) != "wal":
            switched = switch_to_wal(db)
            if switched:
                done.append(switched)
    return done


def _target_of(temp: Path) -> Path:
    """The file a temp was written for: ``.MEMORY.md.x1y2z3.tmp`` -> ``MEMORY.md``."""
    stem = temp.name[1 : -len(".tmp")]
    return temp.with_name(stem.rsplit(".", 1)[0])
