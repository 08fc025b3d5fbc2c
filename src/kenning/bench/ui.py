"""``kenning bench ui``: each page's server time, p50 and p95, on a home with a big archive.

The home is ``bench mcp``'s (``build_home``: N synthetic archived messages,
hot memory, two months of journal, everything indexed), plus what the pages
show beside it: a history of memory writes, searches in the recall log and
skill uses. Each page is requested through the whole application
(``kenning.ui.app.build_app``: the checks, the routes, the templates) in
process, and its time is the one the server reports in ``Server-Timing`` —
the server's work, without a browser or a network. Search pages are asked
distinct queries, so no cache flatters them.

The dreaming candidates are computed by a background thread (dreaming's dry
run) and their fragment answers at once: it is timed while that run goes
(``computing``) and once it is done (``ready``), and the run itself is
reported apart, as long as it took beside those requests.

Beside them, in the same run on the same home: ``kenning search``'s own work
(``SearchEngine.search`` with the command's arguments) over the same number
of other distinct queries, so the search page compares with the command.
"""

from __future__ import annotations

import random
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.testclient import TestClient

from kenning.bench import scale
from kenning.bench.mcp import FACTS, build_home
from kenning.bench.stats import p50_p95
from kenning.home import Home
from kenning.memory.store import Target
from kenning.skills.library import SkillLibrary
from kenning.storage.query import SCOPES
from kenning.ui.app import Ui, build_app
from kenning.ui.security import Guard

PORT = 8765
WARMUP = 2
TARGET_P95_MS = 300.0
BACKGROUND_TIMEOUT_S = 3600.0
Progress = Callable[[str, int], None]


def _ms(samples: Sequence[float]) -> dict[str, float]:
    p50, p95 = p50_p95(samples)
    return {"p50_ms": round(p50, 2), "p95_ms": round(p95, 2)}


def _server_ms(answer: Any) -> float:
    timing = answer.headers.get("server-timing", "")
    found = re.search(r"dur=([\d.]+)", timing)
    if answer.status_code != 200 or not found:
        raise RuntimeError(f"{answer.url} answered {answer.status_code}: {answer.text[:300]}")
    return float(found.group(1))


def _furnish(root: Path, embedder: str, rng: random.Random) -> None:
    """What the pages show besides the archive: memory history, recalls, skill use."""
    home = Home.open(root, overrides={"embedding": {"provider": embedder}})
    try:
        for n, fact in enumerate(FACTS):
            home.memory.replace(Target.MEMORY, fact, f"{fact} (checked {n})")
        for query in scale._queries(rng, 20):
            home.search.search(query)
        library = SkillLibrary.for_home(home)
        for info in library.list_skills()[:3]:
            library.view(info.name)
    finally:
        home.close()


def pages(home: Home, queries: list[str]) -> dict[str, list[str]]:
    """Each page's name and the paths to ask for it (one per timed request)."""
    session = home.archive.sessions(limit=1)[0].id
    skill = SkillLibrary.for_home(home).list_skills()[0].name
    rev = home.history.log(["memories"], limit=1)[0].rev
    first = home.search.search(queries[0]).hits
    hit = first[0] if first else None
    explain = "/search"
    if hit is not None:
        explain += "/explain?" + urlencode({"q": queries[0], "hit_kind": hit.kind, "id": hit.id})
    n = len(queries)
    return {
        "dashboard": ["/"] * n,
        "memory": ["/memory"] * n,
        "history": ["/history"] * n,
        "change": [f"/history/{rev}"] * n,
        "sessions": ["/sessions"] * n,
        "sessions filtered": ["/sessions?source=cli&since=2000-01-01"] * n,
        "session": [f"/sessions/{session}"] * n,
        "search": ["/search?" + urlencode({"q": q}) for q in queries],
        "explain": [explain] * n,
        "skills": ["/skills"] * n,
        "skill": [f"/skills/{skill}"] * n,
        "journal": ["/journal"] * n,
        "dreams": ["/dreams"] * n,
    }


def _candidates(client: TestClient, requests: int, report: Progress) -> dict[str, Any]:
    """The candidates fragment while the background dry run goes and once it is done,
    and that run's own duration (as the worker measured it, beside these requests)."""
    began = time.monotonic()
    computing: list[float] = []
    for _ in range(requests):  # the first ask always finds it computing: nothing ran yet
        answer = client.get("/dreams/candidates")
        if "computing…" not in answer.text:
            break  # done already (a small archive)
        computing.append(_server_ms(answer))
    while True:
        answer = client.get("/dreams/candidates")
        took = re.search(r'data-took-s="([\d.]+)"', answer.text)
        if took:
            break
        if time.monotonic() - began > BACKGROUND_TIMEOUT_S:
            raise RuntimeError(f"the dry run took over {BACKGROUND_TIMEOUT_S:.0f} s")
        time.sleep(0.1)
    ready = [_server_ms(client.get("/dreams/candidates")) for _ in range(requests)]
    report("pages", 1)
    once = float(took.group(1)) * 1000
    return {
        "dream candidates, computing": _ms(computing),
        "dream candidates, ready": _ms(ready),
        "dream dry run, background": {"p50_ms": round(once, 2), "p95_ms": round(once, 2)},
    }


def _measure(
    root: Path, embedder: str, requests: int, rng: random.Random, report: Progress
) -> dict[str, Any]:
    home = Home.open(root, overrides={"embedding": {"provider": embedder}})
    guard = Guard("127.0.0.1", PORT)
    ui = Ui(home, guard)
    client = TestClient(build_app(ui), base_url=f"http://127.0.0.1:{PORT}")
    client.cookies.set(guard.cookie, guard.token)
    out: dict[str, Any] = {}
    try:
        page_queries = scale._queries(rng, requests + WARMUP)
        for name, paths in pages(home, page_queries).items():
            for path in paths[:WARMUP]:
                _server_ms(client.get(path))
            samples = [_server_ms(client.get(path)) for path in paths[WARMUP:]]
            out[name] = _ms(samples)
            report("pages", 1)
        # The candidates: the first ask starts dreaming's dry run in the background
        # (every recent statement weighed against the others: seconds on a big
        # archive), and the fragment answers at once meanwhile.
        out.update(_candidates(client, requests, report))
        cli_samples = []
        for query in scale._queries(rng, requests + WARMUP)[WARMUP:]:
            began = time.perf_counter()
            home.search.search(query, kinds=SCOPES["all"], limit=10)  # `kenning search`'s call
            cli_samples.append((time.perf_counter() - began) * 1000)
        out["kenning search"] = _ms(cli_samples)
        report("pages", 1)
    finally:
        client.close()
        ui.close()
        home.close()
    return out


def run(
    n_messages: int,
    *,
    requests: int = 30,
    embedder: str = "none",
    seed: int = 7,
    progress: Progress | None = None,
) -> dict[str, Any]:
    report = progress or (lambda stage, n: None)
    rng = random.Random(seed + 2)
    results: dict[str, Any] = {
        "messages": n_messages,
        "requests": requests,
        "embedder": embedder,
        "target_p95_ms": TARGET_P95_MS,
    }
    with tempfile.TemporaryDirectory(prefix="kenning-bench-ui-") as tmp:
        root = Path(tmp) / "home"
        began = time.perf_counter()
        build_home(root, n_messages, seed=seed)
        _furnish(root, embedder, rng)
        results["build_s"] = round(time.perf_counter() - began, 1)
        report("build", 1)
        results["pages"] = _measure(root, embedder, requests, rng, report)
        shutil.rmtree(root, ignore_errors=True)
    return results


def table(report: dict[str, Any]) -> list[str]:
    lines = [
        f"kenning ui · {report['messages']:,} archived messages · embedder {report['embedder']} "
        f"· {report['requests']} requests per page · server time (Server-Timing)",
        f"{'page':<28}{'p50 ms':>9}{'p95 ms':>9}",
    ]
    for name, times in report["pages"].items():
        if name == "dream dry run, background":
            over = "  (no request waits for it; one run, beside the requests above)"
        else:
            over = "  over target" if times["p95_ms"] > report["target_p95_ms"] else ""
        lines.append(f"{name:<28}{times['p50_ms']:>9.1f}{times['p95_ms']:>9.1f}{over}")
    lines.append(
        f"target: p95 ≤ {report['target_p95_ms']:.0f} ms; `kenning search` is the engine "
        "call alone, beside the search page"
    )
    return lines
