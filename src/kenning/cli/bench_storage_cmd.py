"""``kenning bench scale`` and ``bench concurrency``: the archive's size and sharing,
on SQLite and, with ``--storage``, on PostgreSQL beside it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from kenning.cli.bench_options import (
    StagedProgress,
    emit,
    json_option,
    postgres_url,
    storage_option,
)
from kenning.cli.context import echo_json


@click.command("scale")
@click.option("--messages", "-n", default=10_000, show_default=True, help="Archive size.")
@click.option("--queries", default=200, show_default=True, help="Queries timed per system.")
@click.option(
    "--embedding-speed/--no-embedding-speed",
    default=True,
    show_default=True,
    help="Also time the real local embedder on a small sample.",
)
@click.option(
    "--approximate-above",
    type=click.IntRange(min=0),
    default=None,
    help="Override search.approximate_above (vectors; 0 = always exact) [default: 250000].",
)
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep the archives (SQLite's in DIR, PostgreSQL's in the schema DIR/postgres-schema "
    "names) instead of throwing them away; run again with the same DIR and -n to time "
    "only the searches on them.",
    metavar="DIR",
)
@storage_option
@json_option
def bench_scale(
    messages: int,
    queries: int,
    embedding_speed: bool,
    approximate_above: int | None,
    keep: Path | None,
    storage_url: str | None,
    as_json: bool,
) -> None:
    """Ingest rate, database size and search latency on a synthetic archive of N messages.

    Raw FTS5 (the floor), keyword and hybrid search are timed on the same
    index in the same run. Vectors are synthetic, shaped like e5 embeddings;
    the real embedder's speed is reported on its own. Dense retrieval is
    compared exact vs approximate (time and recall); above
    search.approximate_above vectors hybrid search also runs exact, side by side.
    With --storage the same archive is built and timed on PostgreSQL too.
    """
    from kenning.bench import scale
    from kenning.storage import StorageError

    if messages < 100:
        raise click.BadParameter("must be at least 100", param_hint="--messages")
    url = postgres_url(storage_url)
    runs = 2 if url else 1
    progress = StagedProgress(
        {
            name: (name, size * runs)
            for name, size in (("ingest", messages), ("vectors", messages), ("search", queries))
        }
    )
    try:
        report = scale.run(
            messages,
            queries=queries,
            progress=progress,
            approximate_above=approximate_above,
            storage_url=url,
            keep=keep,
        )
    except StorageError as exc:
        raise click.ClickException(str(exc)) from exc
    progress.finish()
    if embedding_speed:
        report["embedding"] = scale.embedding_speed()
    if as_json:
        echo_json(report)
        return
    for line in scale_lines(report):
        click.echo(line)


def scale_lines(report: dict[str, Any]) -> list[str]:
    """``bench scale``'s report for people: SQLite, and PostgreSQL beside it if run."""
    pg = report.get("postgres")
    lines = []
    for name, row in (("sqlite", report), ("postgres", pg)):
        if row is None:
            continue
        if row.get("reused"):
            lines.append(
                f"{name:<9}messages {row['messages']:,} · built by an earlier run (--keep): "
                f"searches only · db {row['db_mb']} MB"
            )
            continue
        lines.append(
            f"{name:<9}messages {row['messages']:,} · ingest {row['ingest_msgs_per_s']:,}/s "
            f"(append {row['append_msgs_per_s']:,}/s, "
            f"full-text {row['fts_index_msgs_per_s']:,}/s) · "
            f"vectors {row['vectors_per_s']:,}/s · db {row['db_mb']} MB"
        )
    header = f"{'search':<14}{'p50 ms':>9}{'p95 ms':>9}{'× raw FTS5':>12}"
    if pg is not None:
        header += f"{'pg p50':>9}{'pg p95':>9}"
    lines.append(header)
    raw = report["raw_fts5"]
    for name in ("raw_fts5", "lexical", "hybrid", "hybrid_exact"):
        row = report.get(name)
        if row is None:
            continue
        ratio = row["p50_ms"] / raw["p50_ms"] if raw["p50_ms"] else float("nan")
        line = f"{name:<14}{row['p50_ms']:>9.2f}{row['p95_ms']:>9.2f}{ratio:>11.1f}×"
        if pg is not None and name in pg:
            line += f"{pg[name]['p50_ms']:>9.2f}{pg[name]['p95_ms']:>9.2f}"
        lines.append(line)
    above = report["approximate_above"]
    if "hybrid_top10_shared_with_exact" in report:
        lines.append(
            f"hybrid is approximate (over {above:,} vectors): its top 10 shares "
            f"{report['hybrid_top10_shared_with_exact']:.2%} with hybrid_exact"
        )
    else:
        lines.append(f"hybrid is exact (approximate above {above:,} vectors)")
    if pg is not None and "hybrid_top10_shared_with_exact" in pg:
        lines.append(
            f"postgres hybrid is approximate too: its top 10 shares "
            f"{pg['hybrid_top10_shared_with_exact']:.2%} with hybrid_exact"
        )
    if pg is not None and "dense_index" in pg:
        hnsw = pg["dense_index"]
        lines.append(
            f"postgres dense alone, HNSW (search.vector_index): p50 "
            f"{hnsw['index']['p50_ms']:.2f} ms · recall of "
            f"exact top 10 {hnsw['recall_at_10']:.3f}, top 200 {hnsw['recall_at_200']:.3f}"
        )
    dense = report["dense"]
    lines.append(
        f"dense alone: exact p50 {dense['exact']['p50_ms']:.2f} ms · prefilter "
        f"p50 {dense['approximate']['p50_ms']:.2f} ms ({dense['candidates']:,} candidates, "
        f"built in {dense['build_s']} s) · recall of exact top 10 "
        f"{dense['recall_at_10']:.3f}, top 200 {dense['recall_at_200']:.3f}"
    )
    if "embedding" in report:
        emb = report["embedding"]
        lines.append(f"embedding {emb['model']}: {emb['per_s']} passages/s ({emb['texts']} texts)")
    if pg is not None:
        lines.append(f"postgres: {pg['server']}")
    return lines


@click.command("concurrency")
@click.option(
    "--storage",
    "storages",
    metavar="sqlite|URL",
    multiple=True,
    default=("sqlite",),
    show_default=True,
    help="A backend to run on: sqlite, or a PostgreSQL URL (a scratch schema, dropped "
    "afterwards); repeat for both, side by side.",
)
@click.option(
    "--processes",
    default="2,8,16",
    show_default=True,
    help="Process counts to run, comma-separated.",
)
@click.option("--sessions", default=4, show_default=True, help="Sessions each process writes.")
@click.option("--messages", "-n", default=20, show_default=True, help="Messages per session.")
@click.option(
    "--search-every", default=5, show_default=True, help="A keyword search every N appends."
)
@json_option
def bench_concurrency(
    storages: tuple[str, ...],
    processes: str,
    sessions: int,
    messages: int,
    search_every: int,
    as_json: bool,
) -> None:
    """N processes writing sessions and searching one archive: throughput, search latency
    under write load, and every acknowledged message read back (lost, duplicated: 0)."""
    from kenning.bench import concurrency
    from kenning.storage import StorageError

    for backend in storages:
        if backend != "sqlite":
            postgres_url(backend)
    try:
        counts = [int(x) for x in processes.split(",") if x.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise click.BadParameter(
            f"{processes!r}: give process counts like 2,8,16", param_hint="--processes"
        )
    for value, hint in (
        (sessions, "--sessions"),
        (messages, "--messages"),
        (search_every, "--search-every"),
    ):
        if value < 1:
            raise click.BadParameter("must be at least 1", param_hint=hint)
    total = len(storages) * len(counts)
    try:
        with click.progressbar(length=total, label="runs", file=sys.stderr) as bar:
            report = concurrency.run(
                list(dict.fromkeys(storages)), counts, sessions=sessions, messages=messages,
                search_every=search_every, progress=bar.update,
            )  # fmt: skip
    except StorageError as exc:
        raise click.ClickException(str(exc)) from exc
    emit(report, concurrency.table, as_json)
