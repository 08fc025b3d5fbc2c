"""``kenning bench compaction``: do identifiers and user rules survive repeated compaction?

A scripted session of ``turns`` turns (400 by default) runs through the real
agent loop and context engine on a small window, so it is compacted again and
again. Fifty exact identifiers (git hashes, UUIDs, paths, URLs, ticket keys,
long numbers, `quoted names`, versions and addresses) are seeded across its
length — thirty in user messages, twelve in the assistant's answers, eight as
tool-call arguments — and ten user rules (English and Chinese). Each turn the
model looks something up with a tool (a result of ~2,500 characters) and
answers.

The model is a script and the summariser is ``DeterministicSummariser``,
which skims: it leaves out every ``drop_every``-th identifier of a first draft
unless the retry names it, so the engine's guard does real work. The flush
turn uses the same stand-in.

After each compaction the benchmark checks every identifier and rule seeded
so far:
- in context: verbatim in what the next request sends (system prompt with
  the reloaded journal, summary, pinned ask, tail);
- reachable: in context, or found by one search of this session's archived
  messages (actually run, keyword mode). It also reports what the
  ``session_search`` tool finds as wired today, which leaves the current
  session out of query results.

Timing is the engine's own (``CompactionReport.engine_seconds``): flush tool
execution, planning, guard, persistence and prompt rebuild, without the time
inside the stand-in model.
"""

from __future__ import annotations

import asyncio
import random
import re
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kenning.agent.loop import AgentSession, AgentSettings
from kenning.archive.session_search import SessionSearch
from kenning.config import Config, ContextConfig, EmbeddingConfig, HistoryConfig
from kenning.context.engine import ContextEngine
from kenning.context.report import CompactionReport
from kenning.context.session import ContextSession
from kenning.home import Home
from kenning.models.types import ChatMessage, ModelSettings, ToolSpec
from kenning.search.engine import SearchEngine
from kenning.storage.query import SearchFilters
from kenning.testing.models import FunctionModel, Reply, tool_call
from kenning.testing.summariser import DeterministicSummariser
from kenning.tools.base import Tool
from kenning.tools.registry import ToolRegistry

RULES: tuple[tuple[str, str], ...] = (
    ("From now on, always write commit messages in the imperative mood.", "imperative mood"),
    ("Never push directly to main; open a pull request instead.", "open a pull request"),
    ("Always run the test suite with -x before you report success.", "with -x before"),
    ("以后所有的代码注释都用中文写。", "代码注释都用中文写"),
    ("Don't use the requests library; we standardised on httpx.", "standardised on httpx"),
    ("Make sure every new function has type hints.", "every new function has type hints"),
    ("Prefer British spelling in user-facing text.", "British spelling"),
    ("Never log customer e-mail addresses, even at debug level.", "customer e-mail addresses"),
    ("回复时请务必先给结论，再给细节。", "先给结论"),
    ("Avoid force-pushing shared branches under any circumstances.", "force-pushing shared"),
)
TASKS = (
    "check the status of the invoice export",
    "look into the flaky login test",
    "review the retry logic in the payment client",
    "summarise yesterday's deploy log",
    "find where the ledger totals are computed",
    "compare the two cache settings",
    "check the nightly backup report",
    "trace the slow query on the orders page",
)


@dataclass(frozen=True)
class Seed:
    text: str  # what must survive (an identifier, or a rule's key phrase)
    turn: int
    where: str  # user, assistant, argument, rule
    statement: str = ""  # a rule as the user says it


def identifiers(rng: random.Random) -> list[str]:
    """Fifty exact identifiers of the kinds people paste into a session."""
    found: list[str] = []
    while len(found) < 10:
        sha = f"{rng.getrandbits(48):012x}"
        if any(c.isdigit() for c in sha) and any(c.isalpha() for c in sha):
            found.append(sha)
    found += [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(6)]
    found += [
        f"src/billing/ledger_v{rng.randint(2, 9)}.py",
        f"/etc/kenning/agent-{rng.randint(10, 99)}.toml",
        f"services/payments/retry_{rng.randint(100, 999)}.go",
        f"~/projects/orders/notes-{rng.randint(1, 99)}.md",
        f"deploy/k8s/api-{rng.randint(10, 99)}.yaml",
        f"/var/log/nightly/backup-{rng.randint(1000, 9999)}.log",
        f"docs/adr/{rng.randint(10, 99)}-cache-policy.md",
        f"tests/e2e/test_checkout_{rng.randint(10, 99)}.py",
    ]
    found += [
        f"https://ci.example.com/runs/{rng.randint(10_000, 99_999)}",
        f"https://docs.example.org/api/v{rng.randint(2, 5)}/refunds#limits",
        f"https://grafana.example.net/d/{rng.getrandbits(32):08x}/orders",
        f"https://github.com/acme/shop/pull/{rng.randint(1000, 9999)}",
        f"s3://acme-backups/nightly/{rng.randint(100, 999)}/dump.sql.gz",
        f"https://status.example.com/incidents/{rng.randint(100, 999)}",
    ]
    found += [f"{k}-{rng.randint(100, 9999)}" for k in ("PAY", "OPS", "INC", "SEC", "DATA", "WEB")]
    found += [str(rng.randint(10**6, 10**9)) for _ in range(6)]
    found += [f"reconcile_ledger_{rng.randint(10, 99)}", "OrderSyncWorker", "FEATURE_FAST_REFUNDS"]
    found += ["flushPendingRefunds"]
    found += [f"3.11.{rng.randint(1, 9)}", f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.7"]
    found += [f"v{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}", "2.8.14"]
    return found


def seeds(turns: int, rng: random.Random) -> list[Seed]:
    idents = identifiers(rng)
    # which identifiers appear as tool-call arguments, in answers, or from the user
    argument = set(idents[16:22]) | set(idents[24:26])
    assistant = set(idents[:4]) | set(idents[30:34]) | set(idents[40:44])
    planted: list[Seed] = []
    span = max(1, turns - 15)
    for i, ident in enumerate(idents):
        where = "argument" if ident in argument else "assistant" if ident in assistant else "user"
        planted.append(Seed(ident, 4 + round(i * span / len(idents)), where))
    for j, (statement, key) in enumerate(RULES):
        planted.append(Seed(key, 2 + round(j * span / len(RULES)), "rule", statement))
    return planted


def _user_text(turn: int, planted: list[Seed]) -> str:
    parts = [f"Turn {turn}: please {TASKS[turn % len(TASKS)]}."]
    for seed in planted:
        if seed.turn != turn:
            continue
        if seed.where == "user":
            quoted = f"`{seed.text}`" if re.fullmatch(r"[A-Za-z_]+", seed.text) else seed.text
            parts.append(f"The reference for this is {quoted}.")
        elif seed.where == "rule":
            parts.append(seed.statement)
    return " ".join(parts)


def _lookup_tool() -> Tool:
    def lookup(topic: str, path: str = "") -> str:
        """Look up a topic (and optionally a file or URL) in the team's notes and logs."""
        rng = random.Random(f"{topic}|{path}")
        lines = [f"Notes for {topic}" + (f" at {path}" if path else "") + ":"]
        for n in range(40):
            lines.append(
                f"{n:02d} {rng.choice(['ok', 'warn', 'info'])} step {rng.randint(1, 999)} took "
                f"{rng.randint(1, 900)} ms on worker {rng.randint(1, 30)}"
            )
        return "\n".join(lines)

    return Tool.from_function(lookup, read_only=True)


def _agent(planted: list[Seed], summariser: DeterministicSummariser) -> FunctionModel:
    by_turn: dict[int, list[Seed]] = {}
    for seed in planted:
        by_turn.setdefault(seed.turn, []).append(seed)

    def current_turn(messages: list[ChatMessage]) -> int:
        for message in reversed(messages):
            found = re.match(r"Turn (\d+):", message.content)
            if message.role == "user" and found:
                return int(found.group(1))
        return 0

    def respond(
        messages: list[ChatMessage], tools: list[ToolSpec], settings: ModelSettings | None
    ) -> Reply:
        if any(t.name == "journal_append" for t in tools):
            return summariser.flush(messages)
        turn = current_turn(messages)
        here = by_turn.get(turn, [])
        task = TASKS[turn % len(TASKS)]
        if messages[-1].role == "user":
            argument = next((s.text for s in here if s.where == "argument"), None)
            if argument:
                return tool_call("lookup", topic=task, path=argument)
            return tool_call("lookup", topic=task)
        answer = f"Checked: {task}. Nothing unusual in the notes."
        for seed in here:
            if seed.where == "assistant":
                answer += f" The notes point at {seed.text}."
        return answer

    return FunctionModel(respond, name="bench:scripted")


@dataclass
class _Probe:
    home: Home
    engine: ContextEngine
    session_id: str
    search: SearchEngine

    def found(self, query: str, needle: str) -> bool:
        result = self.search.search(
            query,
            kinds=("message",),
            limit=10,
            filters=SearchFilters(session_ids=(self.session_id,)),
        )
        return any(needle in (hit.content or "") for hit in result.hits)

    def found_by_tool(self, query: str, needle: str) -> bool:
        tool = SessionSearch(self.home.archive, lambda: self.search, self.session_id)
        result = tool({"query": query})
        return any(
            needle in str(m.get("content", ""))
            for s in result.get("sessions", [])
            for m in s.get("messages", [])
        )


def _visible(view: list[ChatMessage]) -> str:
    return "\n".join(m.content + "".join(c.arguments for c in m.tool_calls) for m in view)


def _measure(
    probe: _Probe, session: ContextSession, planted: list[Seed], turn: int
) -> dict[str, Any]:
    """How many of the seeds introduced by ``turn`` are in context, and reachable."""
    text = _visible(probe.engine.peek(session))
    row: dict[str, Any] = {"turn": turn}
    for kind, group in (
        ("identifiers", [s for s in planted if s.where != "rule"]),
        ("rules", [s for s in planted if s.where == "rule"]),
    ):
        seen = [s for s in group if s.turn <= turn]
        outside = [s for s in seen if s.text not in text]
        by_search = [s for s in outside if probe.found(s.text, s.text)]
        by_tool = [s for s in outside if probe.found_by_tool(s.text, s.text)]
        row[f"{kind}_seen"] = len(seen)
        row[f"{kind}_in_context"] = len(seen) - len(outside)
        row[f"{kind}_reachable"] = len(seen) - len(outside) + len(by_search)
        row[f"{kind}_reachable_via_tool"] = len(seen) - len(outside) + len(by_tool)
        row[f"{kind}_missing"] = [s.text for s in outside if s not in by_search]
    return row


def run(
    turns: int = 400,
    *,
    window: int = 12_000,
    drop_every: int = 7,
    max_identifiers: int = ContextConfig().max_identifiers,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Run the scripted session; the report has a row per compaction and the totals."""
    rng = random.Random(2026)
    planted = seeds(turns, rng)
    with tempfile.TemporaryDirectory(prefix="kenning-bench-compaction-") as tmp:
        root = Path(tmp)
        config = Config(
            embedding=EmbeddingConfig(provider="none"), history=HistoryConfig(enabled=False)
        )
        home = Home(root / "home", config)
        work = root / "work"
        work.mkdir()
        context = ContextConfig(reserve_tokens=window // 8, max_identifiers=max_identifiers)
        return asyncio.run(
            _session(home, work, planted, turns, window, drop_every, context, progress)
        )


async def _session(
    home: Home,
    work: Path,
    planted: list[Seed],
    turns: int,
    window: int,
    drop_every: int,
    context: ContextConfig,
    progress: Callable[[int], None] | None,
) -> dict[str, Any]:
    summariser = DeterministicSummariser(drop_every=drop_every)
    model = _agent(planted, summariser)
    model._context_window = window
    rows: list[dict[str, Any]] = []
    turn_now = [0]
    reports: list[CompactionReport] = []

    def record(session: ContextSession, report: CompactionReport) -> None:
        reports.append(report)
        if report.compacted:
            row = {
                "compaction": len(rows) + 1,
                "messages_compacted": report.messages_compacted,
                "tokens_before": report.tokens_before,
                "tokens_after": report.tokens_after,
                "guard": report.guard,
                "caught": len(report.caught),
                "engine_ms": round(report.engine_seconds * 1000, 2),
                **_measure(probe, session, planted, turn_now[0]),
            }
            rows.append(row)

    engine = ContextEngine(
        context,
        summariser=summariser,
        on_compaction=record,
    )
    session = AgentSession.start(
        home,
        model,
        ToolRegistry([_lookup_tool()]),
        cwd=work,
        settings=AgentSettings(stream=False, max_iterations=6),
    )
    engine.attach(session)
    probe = _Probe(
        home, engine, session.session_id, SearchEngine(home.archive, None, record_recalls=False)
    )
    for turn in range(1, turns + 1):
        turn_now[0] = turn
        await session.run(_user_text(turn, planted))
        if progress is not None:
            progress(1)
    final = _measure(probe, session, planted, turns)
    session.tools.close()
    last = rows[-1] if rows else final
    ids_total = sum(1 for s in planted if s.where != "rule")
    rules_total = len(RULES)

    def share(row: dict[str, Any], key: str, total_key: str) -> float:
        return round(row[key] / row[total_key], 4) if row[total_key] else 1.0

    return {
        "turns": turns,
        "window": window,
        "identifiers": ids_total,
        "rules": rules_total,
        "drop_every": drop_every,
        "max_identifiers": context.max_identifiers,
        "identifiers_in_context": share(last, "identifiers_in_context", "identifiers_seen"),
        "rules_in_context": share(last, "rules_in_context", "rules_seen"),
        "reachable": round(
            (last["identifiers_reachable"] + last["rules_reachable"])
            / max(1, last["identifiers_seen"] + last["rules_seen"]),
            4,
        ),
        "reachable_via_session_search_tool": round(
            (last["identifiers_reachable_via_tool"] + last["rules_reachable_via_tool"])
            / max(1, last["identifiers_seen"] + last["rules_seen"]),
            4,
        ),
        "compactions": rows,
        "failed_compactions": sum(1 for r in reports if r.error),
        "final": final,
        "engine_ms_median": _median([r["engine_ms"] for r in rows]),
        "engine_ms_max": max((r["engine_ms"] for r in rows), default=0.0),
        "summary_requests": sum(r.summary_requests for r in reports),
        "flushes": summariser.flushes,
    }


def _median(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else round((ordered[mid - 1] + ordered[mid]) / 2, 2)


def format_table(report: dict[str, Any]) -> list[str]:
    lines = [
        f"{report['turns']} turns, window {report['window']:,} tokens, "
        f"{report['identifiers']} identifiers and {report['rules']} rules seeded; the "
        f"summariser skips every {report['drop_every']}th identifier of a first draft",
        f"{'#':>4}{'turn':>6}{'msgs':>6}{'tokens before→after':>22}{'guard':>10}{'caught':>8}"
        f"{'ids in ctx':>12}{'rules in ctx':>14}{'reachable':>11}{'engine ms':>11}",
    ]

    def counts(row: dict[str, Any]) -> str:
        seen = row["identifiers_seen"] + row["rules_seen"]
        reach = row["identifiers_reachable"] + row["rules_reachable"]
        return (
            f"{row['identifiers_in_context']:>7}/{row['identifiers_seen']:<4}"
            f"{row['rules_in_context']:>9}/{row['rules_seen']:<4}"
            f"{reach:>7}/{seen:<3}"
        )

    for row in report["compactions"]:
        tokens = f"{row['tokens_before']:,} → {row['tokens_after']:,}"
        lines.append(
            f"{row['compaction']:>4}{row['turn']:>6}{row['messages_compacted']:>6}{tokens:>22}"
            f"{row['guard']:>10}{row['caught']:>8}{counts(row)}{row['engine_ms']:>11.1f}"
        )
    final = report["final"]
    lines.append(f"{'end':>4}{final['turn']:>6}{'':>6}{'':>22}{'':>10}{'':>8}{counts(final)}")
    lines.append(
        "After the last compaction: "
        f"identifiers in context {report['identifiers_in_context']:.0%}, "
        f"rules in context {report['rules_in_context']:.0%}, reachable {report['reachable']:.0%} "
        f"(by session_search as wired today: {report['reachable_via_session_search_tool']:.0%}). "
        f"Engine time per compaction: median {report['engine_ms_median']} ms, "
        f"max {report['engine_ms_max']} ms."
    )
    return lines
