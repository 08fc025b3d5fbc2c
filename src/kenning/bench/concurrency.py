"""Many processes on one archive: throughput, search under write load, nothing lost.

For each backend and each process count N, a fresh archive (a ``state.db``
in a scratch folder, or a scratch schema on the PostgreSQL server, dropped
afterwards) is shared by N real subprocesses (``python -m
kenning.bench.concurrency``). Each writes its sessions a message at a time,
each append its own transaction as a live agent's are, and every few
appends runs a keyword search through the engine (which first brings the
full-text index up to date, so searches also index the others' writes).
They start together (each says it is ready, then all are told to go).

Each worker reports the id, session, position and text of every message the
storage acknowledged. Afterwards the archive is read back and compared
exactly: a message acknowledged but absent is lost, a text stored more than
once (every text carries a unique tag) is duplicated, a stored message no
worker acknowledged is unexpected; all must be 0, and every message must be
in the text index. Throughput is acknowledged messages per second of wall
time from "go" to the last worker's end.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kenning.bench.scale import _queries, _text
from kenning.bench.stats import p50_p95
from kenning.storage import Storage, StorageError, admin, open_storage

URL_ENV = "KENNING_BENCH_STORAGE_URL"  # the server URL reaches workers here, not in argv
START_TIMEOUT_S = 120


def _open(path: Path, url: str | None, schema: str | None) -> Storage:
    return open_storage(path, url=url, schema=schema) if url else open_storage(path)


def worker(
    path: Path, schema: str | None, number: int, sessions: int, messages: int, search_every: int
) -> dict[str, Any]:
    """One process's share: its sessions written and searched; what it saw, as plain values."""
    from kenning.archive.store import Archive, Message
    from kenning.search.engine import SearchEngine

    url = os.environ.get(URL_ENV) or None
    archive = Archive(path, storage=_open(path, url, schema))
    engine = SearchEngine(archive, None, record_recalls=False)
    rng = random.Random(1000 + number)
    queries = _queries(rng, 50)
    print("ready", flush=True)
    sys.stdin.readline()  # go
    written: list[tuple[int, str, int, str]] = []
    search_ms: list[float] = []
    errors: list[str] = []
    start = time.perf_counter()
    for s in range(sessions):
        try:
            sid = archive.start_session("cli", title=f"worker {number} session {s}")
        except StorageError as exc:
            errors.append(f"start_session: {exc}")
            continue
        for m in range(messages):
            tag = f"[w{number}s{s}m{m}]"
            text = f"{tag} {_text(rng)}"
            try:
                message = Message("user", text) if m % 2 == 0 else Message("assistant", text)
                stored = archive.append(sid, message)
            except StorageError as exc:  # not acknowledged: not counted as written
                errors.append(f"append: {exc}")
                continue
            assert stored.id is not None and stored.seq is not None
            written.append((stored.id, sid, stored.seq, stored.content))
            if len(written) % search_every == 0:
                t0 = time.perf_counter()
                try:
                    engine.search(queries[len(written) % len(queries)])
                    search_ms.append((time.perf_counter() - t0) * 1000)
                except StorageError as exc:
                    errors.append(f"search: {exc}")
    elapsed = time.perf_counter() - start
    engine.close()
    archive.close()
    return {"written": written, "search_ms": search_ms, "errors": errors, "elapsed_s": elapsed}


def _spawn(path: Path, url: str | None, schema: str | None, number: int, args: list[str]) -> Any:
    env = dict(os.environ)
    env.pop(URL_ENV, None)
    if url:
        env[URL_ENV] = url
    command = [sys.executable, "-m", "kenning.bench.concurrency", str(path), schema or "",
               str(number), *args]  # fmt: skip
    return subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
    )


def _verify(storage: Storage, written: list[tuple[int, str, int, str]]) -> dict[str, int]:
    """Acknowledged messages against the archive read back: exact ids, places and texts."""
    storage.index.sync()
    stored = {m.id: (m.session_id, m.seq, m.content) for m in storage.sessions.all_messages()}
    acked = {row[0]: (row[1], row[2], row[3]) for row in written}
    texts = Counter(content for _, _, content in stored.values())
    return {
        "acknowledged": len(written),
        "stored": len(stored),
        "lost": sum(1 for i, row in acked.items() if stored.get(i) != row),
        "duplicated": sum(n - 1 for n in texts.values() if n > 1) + len(written) - len(acked),
        "unexpected": len(stored.keys() - acked.keys()),
        "not_indexed": len(stored) - storage.index.doc_count(),
    }


def run_one(
    backend_url: str | None,
    processes: int,
    *,
    sessions: int,
    messages: int,
    search_every: int,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """N workers on one fresh archive of ``backend_url`` (None: SQLite); the measurements."""
    with tempfile.TemporaryDirectory(prefix="kenning-concurrency-", dir=workdir) as tmp:
        path = Path(tmp) / "state.db"
        schema = f"kenning_bench_{secrets.token_hex(4)}" if backend_url else None
        storage = _open(path, backend_url, schema)
        storage.index.pending()  # create (and migrate) it once, before the workers
        try:
            args = [str(sessions), str(messages), str(search_every)]
            procs = [_spawn(path, backend_url, schema, n, args) for n in range(processes)]
            results = _gather(procs)
            wall = results.pop()["wall_s"]
            written = [
                (int(i), str(s), int(q), str(c)) for r in results for i, s, q, c in r["written"]
            ]
            check = _verify(storage, written)
        finally:
            if backend_url:
                admin.drop_postgres_schema(storage)
            else:
                storage.close()
    searches = [ms for r in results for ms in r["search_ms"]]
    median, p95 = p50_p95(searches) if searches else (0.0, 0.0)
    errors = [e for r in results for e in r["errors"]]
    return {
        "processes": processes,
        "messages_per_s": round(check["acknowledged"] / wall) if wall else None,
        "searches_per_s": round(len(searches) / wall, 1) if wall else None,
        "search_p50_ms": round(median, 2),
        "search_p95_ms": round(p95, 2),
        "wall_s": round(wall, 2),
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
        **check,
    }


def _gather(procs: Sequence[Any]) -> list[dict[str, Any]]:
    """Wait for every worker to be ready, say go, collect their reports; last: the wall time."""
    try:
        for proc in procs:
            line = proc.stdout.readline()
            if line.strip() != "ready":
                raise StorageError(f"a benchmark worker failed to start: {line.strip()!r}")
        start = time.perf_counter()
        for proc in procs:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        outputs = [proc.communicate(timeout=3600)[0] for proc in procs]
        wall = time.perf_counter() - start
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    failed = [p.returncode for p in procs if p.returncode != 0]
    if failed:
        raise StorageError(f"{len(failed)} benchmark workers exited with an error {failed}")
    return [*[json.loads(out) for out in outputs], {"wall_s": wall}]


def run(
    backends: Sequence[str],
    processes: Sequence[int],
    *,
    sessions: int = 4,
    messages: int = 20,
    search_every: int = 5,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Every backend ("sqlite" or a PostgreSQL URL) at every process count, side by side."""
    report: dict[str, Any] = {
        "sessions_per_process": sessions,
        "messages_per_session": messages,
        "search_every": search_every,
        "backends": {},
    }
    for backend in backends:
        url = None if backend == "sqlite" else backend
        name = "sqlite" if url is None else "postgres"
        rows = []
        for n in processes:
            rows.append(
                run_one(url, n, sessions=sessions, messages=messages, search_every=search_every)
            )
            if progress is not None:
                progress(1)
        report["backends"][name] = rows
    return report


def table(report: dict[str, Any]) -> str:
    lines = [
        f"{report['sessions_per_process']} sessions × {report['messages_per_session']} "
        f"messages per process, a keyword search every {report['search_every']} appends",
        f"{'backend':<10}{'procs':>6}{'msg/s':>8}{'search/s':>10}{'p50 ms':>9}{'p95 ms':>9}"
        f"{'acked':>8}{'lost':>6}{'dup':>5}{'extra':>6}{'unindexed':>10}{'errors':>7}",
    ]
    for name, rows in report["backends"].items():
        for r in rows:
            lines.append(
                f"{name:<10}{r['processes']:>6}{r['messages_per_s']:>8,}{r['searches_per_s']:>10}"
                f"{r['search_p50_ms']:>9.1f}{r['search_p95_ms']:>9.1f}{r['acknowledged']:>8,}"
                f"{r['lost']:>6}{r['duplicated']:>5}{r['unexpected']:>6}{r['not_indexed']:>10}"
                f"{r['errors']:>7}"
            )
            if r["first_error"]:
                lines.append(f"  first error: {r['first_error']}")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    """The worker's entry point: ``path schema number sessions messages search_every``."""
    path, schema, number, sessions, messages, search_every = argv
    result = worker(
        Path(path), schema or None, int(number), int(sessions), int(messages), int(search_every)
    )
    sys.stdout.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
