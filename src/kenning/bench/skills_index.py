"""The skills index at 30, 300 and 3,000 skills: its token size and the time to build it.

Skills are generated into a temporary home (files written directly and never
committed: the benchmark measures the index, not git). They are shaped like
an agent's library: class-level names from a developer vocabulary
(``debug-postgres-replication-17``), one- or two-sentence descriptions of
100-240 characters, one or two tags from a dozen topics, and use counts on
about a third of them. Every size is measured in the same run against the
baseline Hermes pays — every skill listed as ``name: description``.

``build_ms_cold`` is a fresh library (every front matter read and parsed, as
at the start of a CLI session); ``build_ms_warm`` is the next build with the
same library (front matter cached per file stamp, as in a long-running agent).
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kenning.config import Config, HistoryConfig
from kenning.home import Home
from kenning.skills.index import build_index, estimate_tokens
from kenning.skills.library import SkillLibrary
from kenning.skills.model import compose_skill_md

SIZES: tuple[int, ...] = (30, 300, 3000)
TASK = "The nightly postgres backup job fails with a timeout; find out why and fix it"
NOW = datetime(2026, 6, 1, tzinfo=UTC)

_VERBS = (
    "debug deploy migrate test profile refactor configure backup restore monitor release "
    "upgrade rotate audit benchmark package document scaffold review secure tune index"
).split()
_OBJECTS = (
    "postgres-replication django-app react-component terraform-module nginx-proxy redis-cache "
    "ci-pipeline docker-image s3-bucket kubernetes-cluster celery-worker graphql-schema "
    "python-package rust-crate go-service kafka-topic elasticsearch-index cron-job tls-cert "
    "oauth-client webhook-endpoint feature-flag api-gateway mobile-build data-pipeline "
    "spark-job airflow-dag grafana-dashboard sentry-alerts pytest-suite"
).split()
_TOPICS = (
    "databases deploy testing security frontend infra python observability data release "
    "docs performance"
).split()
_WHEN = (
    "Use when {o} changes fail in staging and the logs do not say why.",
    "Use before touching {o} in production, or after an incident involving it.",
    "Use when a new {o} must be set up the way the team expects.",
    "Use when {o} is slow, flaky or out of date and the usual fix did not work.",
    "Use when the user asks to check, tidy or document {o}.",
)
_WHAT = (
    "Step-by-step way to {v} {o} safely, with the checks that catch the usual mistakes.",
    "How to {v} {o} without downtime: order of operations, rollback and verification.",
    "Checklist to {v} {o}, covering the settings people forget and how to confirm each.",
    "Proven method to {v} {o} on this project, including the commands and their pitfalls.",
)


def generate(skills_dir: Path, count: int, *, seed: int = 7) -> dict[str, dict[str, Any]]:
    """Write ``count`` valid skills under ``skills_dir``; returns usage records by name."""
    rng = random.Random(seed)
    usage: dict[str, dict[str, Any]] = {}
    for i in range(count):
        verb, obj = rng.choice(_VERBS), rng.choice(_OBJECTS)
        name = f"{verb}-{obj}-{i}"
        readable = obj.replace("-", " ")
        description = rng.choice(_WHAT).format(v=verb, o=readable)
        if rng.random() < 0.7:
            description += " " + rng.choice(_WHEN).format(o=readable)
        tags = rng.sample(_TOPICS, rng.choice((1, 1, 2)))
        body = f"# {verb} {readable}\n\n## Steps\n1. Look at {readable}.\n2. Then {verb} it.\n"
        folder = skills_dir / name
        folder.mkdir(parents=True)
        text = compose_skill_md(name, description, body, tags=tags)
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        if rng.random() < 0.33:
            days = rng.randint(0, 60)
            usage[name] = {
                "count": rng.randint(1, 40),
                "last_used": (NOW - timedelta(days=days)).isoformat(timespec="seconds"),
            }
    (skills_dir / ".usage.json").write_text(
        json.dumps({"format": 1, "skills": usage}), encoding="utf-8"
    )
    return usage


def _library(root: Path) -> SkillLibrary:
    home = Home(root, Config(history=HistoryConfig(enabled=False)))
    return SkillLibrary.for_home(home, bundled_dir=None, clock=lambda: NOW)


def measure(count: int, *, repeats: int = 3, task: str = TASK) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="kenning-bench-skills-") as tmp:
        root = Path(tmp)
        generate(root / "skills", count)
        cold: list[float] = []
        warm: list[float] = []
        for _ in range(repeats):
            library = _library(root)  # a fresh library: no cached front matter
            start = time.perf_counter()
            built = build_index(library, task=task)
            cold.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            again = build_index(library, task=task)
            warm.append((time.perf_counter() - start) * 1000)
            assert again.text == built.text, "the index must be byte-stable"
        everything = "".join(f"- {i.name}: {i.description}\n" for i in _library(root).list_skills())
    return {
        "skills": count,
        "budget": built.budget,
        "tokens": built.tokens,
        "shown": len(built.shown),
        "omitted": built.omitted,
        "build_ms_cold": round(statistics.median(cold), 1),
        "build_ms_warm": round(statistics.median(warm), 1),
        "list_all_tokens": estimate_tokens(everything),
    }


def run(sizes: Sequence[int] = SIZES, *, repeats: int = 3) -> list[dict[str, Any]]:
    return [measure(n, repeats=repeats) for n in sizes]
