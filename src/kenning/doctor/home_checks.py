"""Checks of the home itself: it exists, its history works, its files have the right shape.

Each check is read-only. Where Kenning has a loader for a file (config,
hot memory), the check calls it and reports its error, so doctor and the
rest of Kenning never disagree about what is broken; a few ``lstat`` checks
of its own run first, so a link or a folder is named as such rather than as
whatever error reading it produces.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kenning import clock, gitlocks
from kenning import config as config_mod
from kenning.doctor.model import Check, ok
from kenning.fsutil import STALE_TEMP_AGE_S, age_text, is_temp_name
from kenning.history import History, HistoryError
from kenning.locks import holder_of, is_held
from kenning.memory.store import MemoryStore, Target
from kenning.paths import HomeLayout

# Hot memory enters every system prompt; a file this large is not hot memory
# any more but something that landed there by mistake.
MAX_MEMORY_FILE_BYTES = 1_000_000
# Where Kenning keeps the files it writes atomically (the skills folder has its own check).
_TEMP_DIRS = ("", "memories", "memory")


def check_home(root: Path, cmd: str) -> Check:
    try:
        st = os.lstat(root)
    except FileNotFoundError:
        return Check(
            "home",
            "fail",
            f"there is no Kenning home at {root} (nothing was created)",
            fix=f"create it with `{cmd} home init`",
        )
    if stat.S_ISLNK(st.st_mode) and root.is_dir():
        return ok("home", f"{root} (a link to {os.path.realpath(root)})")
    if not stat.S_ISDIR(st.st_mode):
        return Check(
            "home",
            "fail",
            f"{root} exists but is not a folder",
            fix=f"move it away (`mv {root} {root}.moved`), then run `{cmd} home init`",
        )
    return ok("home", str(root))


def check_config(
    layout: HomeLayout, environ: Mapping[str, str], overrides: Mapping[str, Mapping[str, Any]]
) -> tuple[Check, config_mod.Config | None]:
    """The config as Kenning loads it: the file, then KENNING_* variables, then --set."""
    path = layout.config_file
    try:
        cfg = config_mod.load(path, environ=environ, cli=overrides)
    except (ValueError, OSError) as exc:  # ConfigError, non-UTF-8 text, a folder
        detail = str(exc) if isinstance(exc, config_mod.ConfigError) else f"{path}: {exc}"
        return (
            Check(
                "config",
                "fail",
                f"the settings cannot be used: {detail}",
                fix=f"edit {path} (or the KENNING_* variable / --set named above); "
                "`kenning config show` prints the result once it loads",
            ),
            None,
        )
    changed = sorted(key for key, source in cfg.sources.items() if source != "default")
    where = "config.toml" if path.exists() else "no config.toml, defaults"
    summary = f"settings load ({where}; {len(changed)} value(s) set)"
    return ok("config", summary, *(f"{key} from {cfg.sources[key]}" for key in changed)), cfg


def check_history(root: Path, enabled: bool, cmd: str) -> list[Check]:
    """git is there and the repository answers; hand edits; writes history missed."""
    if not enabled:
        return [ok("git", "history is off ([history] enabled = false): writes are not committed")]
    if shutil.which("git") is None:
        return [
            Check(
                "git",
                "fail",
                "git is not installed, so no write is recorded in history",
                fix=f"install git, or set `enabled = false` under [history] in {root}/config.toml",
            )
        ]
    if not (root / ".git").is_dir():
        return [
            Check(
                "git",
                "warn",
                "the home is not a git repository yet",
                fix=f"`{cmd} home init` creates it (so does the first write)",
            )
        ]
    history = History(root)
    broken = history.broken()
    if broken is not None:
        return [
            Check(
                "git",
                "fail",
                f"the home's git repository does not answer: {broken.splitlines()[0]}",
                fix=f"look with `git -C {root} status`; if it cannot be repaired, move it away "
                f"(`mv {root}/.git {root}/.git.broken`) and run `{cmd} home init` to start a "
                "new history",
            )
        ]
    checks = [ok("git", f"history is recorded in {root}/.git")]
    try:
        dirty = history.uncommitted()
    except HistoryError as exc:
        dirty = [f"(git status failed: {exc})"]
    if dirty:
        checks.append(
            ok(
                "hand-edits",
                f"{len(dirty)} uncommitted change(s) made outside Kenning; each is committed "
                "on its own before Kenning next writes that file",
                *dirty,
            )
        )
    else:
        checks.append(ok("hand-edits", "no uncommitted changes"))
    missed = history.missed()
    if missed:
        checks.append(
            Check(
                "missed-writes",
                "warn",
                f"{len(missed)} write(s) are saved but not yet in history",
                fix=f"fix what the other checks report, then `{cmd} --fix` commits them "
                "(or the next write to the same files does), naming each",
                details=tuple(missed),
            )
        )
    return checks


def check_git_locks(root: Path, cmd: str) -> Check:
    if not (root / ".git").is_dir():
        return ok("git-locks", "no repository, no git locks")
    locks = gitlocks.inspect(root)
    if not locks:
        return ok("git-locks", "no git lock files")
    stale = [lock for lock in locks if lock.stale]
    held = [lock for lock in locks if not lock.stale]
    details = tuple(lock.describe(root) for lock in locks)
    if stale:
        extra = "; others may still be in use" if held else ""
        return Check(
            "git-locks",
            "fail",
            f"{len(stale)} stale git lock file(s) block history{extra}",
            fix=f"`{cmd} doctor --fix` removes the stale ones (Kenning's next write also does)",
            details=details,
            fixable=True,
        )
    paths = " ".join(str(lock.path) for lock in held)
    return Check(
        "git-locks",
        "warn",
        f"{len(held)} git lock file(s) in use by a running or just-started git",
        fix=f"let that git finish; if none is running in {root}, run `{cmd} doctor` again in "
        f"a minute, or remove them: `rm {paths}`",
        details=details,
    )


def check_memory_files(layout: HomeLayout, store: MemoryStore, cmd: str) -> list[Check]:
    checks = []
    for target in Target:
        path = store.path(target)
        name = f"memory:{target.filename}"
        shape = _shape_problem(path, target, cmd)
        if shape is not None:
            checks.append(Check(name, "fail", shape[0], fix=shape[1]))
            continue
        try:
            state = store.read(target)
        except Exception as exc:  # whatever the real loader refuses is a finding, not a crash
            checks.append(
                Check(
                    name,
                    "fail",
                    f"{path} cannot be read as memory entries: {exc}",
                    fix=f"fix it by hand (entries separated by a line holding only §), or go "
                    f"back to a good version: `{cmd} memory log{_user(target)}`, then "
                    f"`{cmd} memory revert REV`",
                )
            )
            continue
        if not path.exists():
            checks.append(ok(name, f"{path} (not written yet)"))
        elif state.used > state.budget:
            key = "memory_budget" if target is Target.MEMORY else "user_budget"
            checks.append(
                Check(
                    name,
                    "warn",
                    f"{target.filename} is over its budget: {state.usage_line()}",
                    fix=f"consolidate entries (`{cmd} memory show{_user(target)}`, then "
                    f"replace/remove), or raise `{key}` under [memory] in config.toml",
                )
            )
        else:
            checks.append(ok(name, f"{len(state.entries)} entries, {state.usage_line()}"))
    return checks


def _user(target: Target) -> str:
    return " --user" if target is Target.USER else ""


def _shape_problem(path: Path, target: Target, cmd: str) -> tuple[str, str] | None:
    """(what is wrong, how to fix it) when ``path`` is not a small regular UTF-8 text file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return (
            f"{path} is a symbolic link (to {os.readlink(path)}); Kenning does not write "
            "through links",
            f"replace it with a regular file holding its text: `cp {path} {path}.real && "
            f"mv {path}.real {path}`",
        )
    if stat.S_ISDIR(st.st_mode):
        return (
            f"{path} is a folder, not a file",
            f"move it away (`mv {path} {path}.moved`); Kenning then starts the file empty",
        )
    if not stat.S_ISREG(st.st_mode):
        return (f"{path} is not a regular file", f"remove it (`rm {path}`)")
    if st.st_size > MAX_MEMORY_FILE_BYTES:
        return (
            f"{path} is {st.st_size:,} bytes; hot memory enters every prompt and is meant "
            "to be a few KB",
            f"move it away (`mv {path} {path}.moved`) and add back only what matters "
            f"(`{cmd} memory add{_user(target)} ...`)",
        )
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return (
            f"{path} cannot be read: {exc.strerror or exc}",
            f"check its permissions: `ls -l {path}`",
        )
    if b"\x00" in raw:
        return (
            f"{path} holds binary data, not text",
            f"go back to a good version: `{cmd} memory log{_user(target)}`, then "
            f"`{cmd} memory revert REV` (or move it away)",
        )
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (
            f"{path} is not UTF-8 text (byte {exc.start})",
            f"re-save it as UTF-8, or go back to a good version: `{cmd} memory log"
            f"{_user(target)}`, then `{cmd} memory revert REV`",
        )
    return None


def check_leftovers(root: Path, cmd: str) -> list[Check]:
    """Temp files of interrupted writes outside the skills folder; locks held right now."""
    temps = find_temps(root)
    checks = []
    if temps:
        old = [(p, a) for p, a in temps if a >= STALE_TEMP_AGE_S]
        details = tuple(f"{p.relative_to(root)} ({age_text(a)} old)" for p, a in temps)
        checks.append(
            Check(
                "temp-files",
                "warn",
                f"{len(temps)} temp file(s) left by interrupted writes",
                fix=f"`{cmd} doctor --fix` removes those over a minute old ({len(old)} now)",
                details=details,
                fixable=bool(old),
            )
        )
    else:
        checks.append(ok("temp-files", "no temp files of interrupted writes"))
    busy = [p for p in _lock_files(root) if is_held(p)]
    if busy:
        checks.append(
            ok(
                "kenning-locks",
                f"{len(busy)} Kenning lock(s) held right now: a write is in progress",
                *(_held_by(p, root) for p in busy),
            )
        )
    return checks


def find_temps(root: Path) -> list[tuple[Path, float]]:
    """(path, age in seconds) of Kenning temp files in the home, the skills folder aside."""
    now = clock.system_timestamp()  # compared with file mtimes, which are system time
    found = []
    for sub in _TEMP_DIRS:
        folder = root / sub if sub else root
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            for entry in entries:
                if is_temp_name(entry.name) and entry.is_file(follow_symlinks=False):
                    mtime = entry.stat(follow_symlinks=False).st_mtime
                    found.append((Path(entry.path), max(0.0, now - mtime)))
    return sorted(found)


def _held_by(lock_file: Path, root: Path) -> str:
    holder = holder_of(lock_file)
    return f"{lock_file.relative_to(root)}" + (f" (pid {holder})" if holder else "")


def _lock_files(root: Path) -> list[Path]:
    candidates = [root / ".git-kenning.lock", root / "skills" / ".library.lock"]
    for sub in ("memories", "memory"):
        with contextlib.suppress(OSError):
            candidates += sorted((root / sub).glob(".*.lock"))
    return [p for p in candidates if p.is_file()]


def check_memory_provider(cfg: config_mod.MemoryConfig) -> list[Check]:
    """The configured memory provider can be built (names and options); none: no check.

    Building connects to nothing, so a team server that is down is not a
    failure here: every turn says so, and goes on without it.
    """
    if not cfg.provider.strip():
        return []
    from kenning.providers import ProviderError, from_config

    try:
        manager = from_config(cfg)
    except ProviderError as exc:
        return [
            Check(
                "memory provider",
                "fail",
                str(exc),
                fix="fix [memory] provider / [memory.provider_options] in config.toml",
            )
        ]
    if manager is None:  # "builtin": the built-in memory only
        return [ok("memory provider", "built-in memory only")]
    limit = f"recalls within {cfg.provider_timeout_s:g} s"
    return [ok("memory provider", f"{cfg.provider!r} beside the built-in memory ({limit})")]
