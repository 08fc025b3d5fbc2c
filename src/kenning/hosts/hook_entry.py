"""The command a host's hook runs: hand the event to a background worker and return.

Run as a script (``python …/kenning/hosts/hook_entry.py HOST [options]``),
never as ``-m kenning``: importing the ``kenning`` package costs about a
second, and a hook runs on every turn of the host, which waits for it. This
file imports only the standard library, reads the hook's JSON from stdin,
and starts ``kenning hosts sync HOST`` detached (its own session, no pipes
to the host), then exits 0 whatever happens: a hook must never fail the host.

Each event starts one worker. Workers of one host session take turns under a
lock and each reads everything the transcript holds when its turn comes, so
none is lost and none is archived twice; a worker that finds nothing new
exits at once. (A hook fires once per turn, so this is one process a turn.)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_name(session_id: str) -> str:
    """The host's session id as a file name (ids are UUIDs; anything else is tamed)."""
    return _SAFE.sub("_", session_id)[:120] or "_"


def home_root() -> Path:
    override = os.environ.get("KENNING_HOME")
    root = Path(override).expanduser() if override else Path.home() / ".kenning"
    profile = os.environ.get("KENNING_PROFILE")
    return root / "profiles" / profile if profile and profile != "default" else root


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: hook_entry.py HOST [sync options…]", file=sys.stderr)
        return 0
    host, options = argv[0], argv[1:]
    try:
        raw = sys.stdin.read()
        event = json.loads(raw)
        session_id = str(event["session_id"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0  # not a hook event we can use; never fail the host
    if not session_id:
        return 0
    home = home_root()
    try:
        log = home / "cache" / "hosts" / host / "sync.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        package_parent = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        # The worker imports the kenning this file belongs to, even from a source checkout.
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (package_parent, env.get("PYTHONPATH", "")) if p
        )
        with open(log, "ab") as errors:
            subprocess.Popen(
                [sys.executable, "-m", "kenning", *_globals(options), "hosts", "sync", host,
                 *_locals(options), "--event", raw],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=errors,
                env=env,
                start_new_session=True,
                close_fds=True,
            )  # fmt: skip
    except OSError as exc:
        print(f"kenning hook: could not start the archive worker: {exc}", file=sys.stderr)
    if host == "gemini-cli":
        print("{}")  # Gemini CLI parses a hook's stdout as JSON: an empty answer, no decision
    return 0


def _globals(options: list[str]) -> list[str]:
    """The options after ``--``: kenning's own (``--profile``, ``--set``)."""
    return options[options.index("--") + 1 :] if "--" in options else []


def _locals(options: list[str]) -> list[str]:
    """The options before ``--``: the sync command's (``--no-review``)."""
    return options[: options.index("--")] if "--" in options else options


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
