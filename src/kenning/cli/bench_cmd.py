"""``kenning bench …``: measured performance, always beside a same-run baseline."""

from __future__ import annotations

import dataclasses
import sys

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
