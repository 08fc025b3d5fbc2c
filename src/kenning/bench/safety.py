"""``kenning bench safety``: the threat screen on a labelled corpus, through the real writers.

Every corpus text is handed to each channel that writes what a prompt will later read — the
``kenning memory add`` CLI, the agent's memory tool, the MCP ``memory`` tool, skill create and
patch, the journal, and a rule file (AGENTS.md) at load — in a temporary home (history off,
budgets out of the way), once with the frozen baseline scanner (:mod:`kenning.safety.legacy`)
installed through :func:`kenning.safety.threats.engine` and once with the current screen. A
text counts as blocked on a channel when that writer refuses it as unsafe (the memory error
kind ``blocked``, the skills error kind ``blocked``, a journal refusal, a neutralised rule
paragraph); any other refusal is counted apart, as an error of the run.

A rule file is the user's own instructions, so the ``rules`` scope leaves injection phrases and
secrets alone by design: on that channel only the payload categories of :data:`RULES_CATEGORIES`
are expected to be blocked; benign texts must pass everywhere. Scan latency is timed apart, on
entries of about 2 KB built from the corpus, calling the scan directly.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import click
from click.testing import CliRunner

from kenning.bench.corpus import json_objects
from kenning.bench.stats import p50_p95
from kenning.home import Home
from kenning.journal import JournalBlockedError, JournalError
from kenning.mcp import KenningService, Peer
from kenning.memory.tool import MemoryTool
from kenning.prompt.rules import load_rules
from kenning.safety import legacy, threats
from kenning.skills.errors import ErrorKind as SkillErrorKind
from kenning.skills.errors import SkillError
from kenning.skills.library import SkillLibrary
from kenning.skills.model import compose_skill_md

CHANNELS: Final = (
    "memory_cli",
    "memory_tool",
    "mcp_memory",
    "skills_create",
    "skills_patch",
    "journal",
    "rules",
)
ENGINES: Final[dict[str, threats.Engine]] = {"baseline": legacy.scan, "screen": threats.current}
SPLITS: Final = ("dev", "heldout")
# What a rule file is screened for (see the module docstring): hidden payloads, not phrasing.
RULES_CATEGORIES: Final = frozenset({"exfiltration", "persistence", "reverse_shell", "git_exfil"})
LATENCY_BYTES: Final = 2048

_SETTINGS: Final[dict[str, dict[str, Any]]] = {
    "history": {"enabled": False},
    "memory": {"memory_budget": 1_000_000, "user_budget": 1_000_000},
    "embedding": {"provider": "none"},
}
_PEER: Final = Peer(client="kenning-bench", version="1")
_PLACEHOLDER: Final = "Do the first thing."


class CorpusError(ValueError):
    """The corpus file is missing or malformed; the message says where and what to do."""


@dataclass(frozen=True)
class Item:
    id: str
    text: str
    label: str  # "malicious" | "benign"
    category: str
    language: str
    split: str  # "dev" | "heldout"
    source: str = "handwritten"  # who wrote it: the screen's team, or an external round

    @property
    def malicious(self) -> bool:
        return self.label == "malicious"


def applies(item: Item, channel: str) -> bool:
    """Whether ``channel`` is expected to refuse ``item`` (benign items apply everywhere)."""
    return not item.malicious or channel != "rules" or item.category in RULES_CATEGORIES


def default_corpus() -> Path:
    """The corpus kept with the tests, when running from a source checkout."""
    return Path(__file__).resolve().parents[3] / "tests" / "safety" / "corpus" / "corpus.jsonl"


def load_corpus(path: Path) -> list[Item]:
    if not path.is_file():
        raise CorpusError(f"No corpus at {path}. Pass --corpus PATH to a corpus.jsonl file.")
    items = []
    for where, row in json_objects(path, CorpusError):
        try:
            item = Item(
                id=str(row["id"]),
                text=str(row["text"]),
                label=str(row["label"]),
                category=str(row["category"]),
                language=str(row["language"]),
                split=str(row["split"]),
                source=str(row.get("source", "handwritten")),
            )
        except KeyError as exc:
            raise CorpusError(
                f"{where} is not a corpus row ({exc}). Each line must be a JSON object "
                "with id, text, label, category, language and split."
            ) from None
        if item.label not in ("malicious", "benign") or item.split not in SPLITS:
            raise CorpusError(f"{where}: label must be malicious|benign and split dev|heldout.")
        items.append(item)
    if not items:
        raise CorpusError(f"{path} holds no rows.")
    return items


@dataclass(frozen=True)
class Outcome:
    blocked: bool
    error: str = ""  # a refusal for another reason than safety


class Channels:
    """The writers of one temporary home, each behind ``write(channel, n, text)``.

    ``cli`` is Kenning's command line, handed in by ``kenning bench`` (which is part of
    it), so the benchmarks never import the CLI they are run from."""

    def __init__(self, root: Path, cli: click.Command) -> None:
        self.root = root
        self.command = cli
        self.home = Home.open(root / "home", overrides=_SETTINGS)
        self.skills = SkillLibrary.for_home(self.home)
        self.tool = MemoryTool(self.home.memory, reason="bench")
        self.service = KenningService(Home.open(root / "home", overrides=_SETTINGS))
        self.cli = CliRunner()
        self.rules_dir = root / "project"
        self.rules_dir.mkdir()
        (self.rules_dir / ".git").mkdir()  # a project root, so its AGENTS.md loads

    def close(self) -> None:
        self.service.close()

    def write(self, channel: str, n: int, text: str) -> Outcome:
        return getattr(self, f"_{channel}")(n, text)  # type: ignore[no-any-return]

    def _memory_cli(self, n: int, text: str) -> Outcome:
        args = [
            "--set",
            "history.enabled=false",
            "--set",
            "memory.memory_budget=1000000",
            "--set",
            "embedding.provider=none",
            "memory",
            "add",
            "--",
            text,
        ]
        done = self.cli.invoke(self.command, args, env={"KENNING_HOME": str(self.root / "home")})
        if done.exit_code == 4:
            return Outcome(True)
        return Outcome(False, "" if done.exit_code == 0 else f"exit {done.exit_code}")

    def _memory_tool(self, n: int, text: str) -> Outcome:
        self.tool.begin_turn()
        return _tool_outcome(self.tool({"action": "add", "target": "memory", "content": text}))

    def _mcp_memory(self, n: int, text: str) -> Outcome:
        args = {"action": "add", "target": "user", "content": text}
        return _tool_outcome(self.service.call("memory", args, _PEER).result)

    def _skills_create(self, n: int, text: str) -> Outcome:
        return self._skill(
            lambda: self.skills.create(f"bench-c{n}", _skill_md(f"bench-c{n}", text))
        )

    def _skills_patch(self, n: int, text: str) -> Outcome:
        name = f"bench-p{n}"
        outcome = self._skill(lambda: self.skills.create(name, _skill_md(name, _PLACEHOLDER)))
        if outcome.blocked or outcome.error:
            return Outcome(False, f"setup: {outcome.error or 'placeholder blocked'}")
        return self._skill(lambda: self.skills.patch(name, _PLACEHOLDER, text))

    def _journal(self, n: int, text: str) -> Outcome:
        try:
            self.home.journal.append(text, source="bench")
        except JournalBlockedError:
            return Outcome(True)
        except JournalError as exc:
            return Outcome(False, str(exc)[:80])
        return Outcome(False)

    def _rules(self, n: int, text: str) -> Outcome:
        (self.rules_dir / "AGENTS.md").write_text(text + "\n", encoding="utf-8")
        rules = load_rules(self.home.layout, self.rules_dir, max_file_chars=1_000_000)
        return Outcome(sum(r.blocked_paragraphs for r in rules) > 0)

    @staticmethod
    def _skill(write: Callable[[], object]) -> Outcome:
        try:
            write()
        except SkillError as exc:
            blocked = exc.kind is SkillErrorKind.BLOCKED
            return Outcome(blocked, "" if blocked else f"{exc.kind.value}: {exc.message[:80]}")
        return Outcome(False)


def _skill_md(name: str, text: str) -> str:
    return compose_skill_md(
        name, "Benchmark skill. Use when measuring the screen.", f"## Steps\n{text}\n"
    )


def _tool_outcome(result: Mapping[str, Any]) -> Outcome:
    if result.get("success"):
        return Outcome(False)
    if result.get("error") == "blocked":
        return Outcome(True)
    return Outcome(False, f"{result.get('error')}: {str(result.get('message'))[:80]}")


@contextmanager
def _channels(cli: click.Command) -> Iterator[Channels]:
    with tempfile.TemporaryDirectory(prefix="kenning-bench-safety-") as tmp:
        channels = Channels(Path(tmp), cli)
        try:
            yield channels
        finally:
            channels.close()


Decisions = dict[tuple[str, str, str], Outcome]  # (engine, channel, item id) -> outcome


def run_channels(
    items: Sequence[Item],
    *,
    cli: click.Command,
    engines: Sequence[str] = tuple(ENGINES),
    channels: Sequence[str] = CHANNELS,
    progress: Callable[[int], None] | None = None,
) -> Decisions:
    """Every item through every channel, once per engine, each engine in a fresh home;
    ``cli`` is the command line the ``memory_cli`` channel drives."""
    decisions: Decisions = {}
    old_cwd = os.getcwd()
    for name in engines:
        with threats.engine(ENGINES[name]), _channels(cli) as writers:
            for n, item in enumerate(items):
                for channel in channels:
                    decisions[(name, channel, item.id)] = writers.write(channel, n, item.text)
                if progress is not None:
                    progress(1)
    os.chdir(old_cwd)
    return decisions


def latency_samples(items: Sequence[Item], count: int = 200) -> list[str]:
    """``count`` entries of about 2 KB, each a run of consecutive corpus texts, starting every
    7th text: across the whole corpus, so about half are attacks and half ordinary notes, in
    every language and encoding it holds."""
    texts = [item.text for item in items]
    samples = []
    for start in range(count):
        parts: list[str] = []
        i = start * 7
        while sum(len(p.encode()) + 1 for p in parts) < LATENCY_BYTES:
            parts.append(texts[i % len(texts)])
            i += 1
        samples.append("\n".join(parts).encode()[:LATENCY_BYTES].decode(errors="ignore"))
    return samples


def latency(
    samples: Sequence[str], *, engines: Sequence[str] = tuple(ENGINES), rounds: int = 3
) -> dict[str, dict[str, float]]:
    """p50 / p95 milliseconds of one memory-scope scan per engine, over every scan of
    ``rounds`` rounds through the samples, the engines taking turns on each sample (so a
    change in the machine's load falls on both alike).

    An untimed round first: a long-running process has compiled its patterns and filled its
    lazy tables (character folding, caches) long before; the first scan of each new kind of
    text is that process starting, not a scan."""
    timings: dict[str, list[float]] = {name: [] for name in engines}
    for text in samples:
        for name in engines:
            ENGINES[name](text, "memory")
    for _ in range(rounds):
        for text in samples:
            for name in engines:
                start = time.perf_counter()
                ENGINES[name](text, "memory")
                timings[name].append((time.perf_counter() - start) * 1000)
    out = {}
    for name, values in timings.items():
        p50, p95 = p50_p95(values)
        out[name] = {"p50_ms": round(p50, 3), "p95_ms": round(p95, 3)}
    return out
