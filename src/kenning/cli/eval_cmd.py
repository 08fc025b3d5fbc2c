"""``kenning eval``: does the learning help? The survey's verification scenarios.

Exit codes: 0 the report was printed (whatever the checks say, like ``kenning
bench``), 1 the model cannot be used, 2 a usage mistake, and with ``--strict``
``EXIT_CHECKS_FAILED`` (3) when any check of any run failed or a scenario did
not complete, so a CI script can gate on it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kenning.cli.context import CliState, echo_json, pass_state

EXIT_CHECKS_FAILED = 3


@click.command("eval")
@click.argument("scenarios", nargs=-1, metavar="[SCENARIO]...")
@click.option(
    "--model",
    "-m",
    "spec",
    metavar="MODEL",
    help="`reference` (the scripted reference agent, no network) or any model string "
    "(openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5, ollama:qwen3, …).",
)
@click.option(
    "--repeats",
    "-n",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Runs per scenario, seeds S, S+1, ….",
)
@click.option("--seed", "-s", type=int, default=0, show_default=True, help="The first seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@click.option(
    "--compare",
    nargs=2,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="A.json B.json",
    help="Show two saved --json reports side by side instead of running.",
)
@click.option(
    "--strict",
    is_flag=True,
    help=f"Exit {EXIT_CHECKS_FAILED} when any check fails (for CI); without it, exit 0.",
)
@pass_state
def eval_command(
    state: CliState,
    scenarios: tuple[str, ...],
    spec: str | None,
    repeats: int,
    seed: int,
    as_json: bool,
    compare: tuple[Path, Path] | None,
    strict: bool,
) -> None:
    """Run the verification scenarios in scratch homes (never yours) and report them.

    SCENARIO is a name or number: fact-update (1), procedural (2), compaction (3),
    recovery (4), correction (5); none = all. Each prints its metrics, the checks
    that failed, requests, tokens and wall time, with the model, Kenning's version
    and the seeds. Scenarios 3-5 measure Kenning largely by themselves; 1-2
    measure the model too.

    Exit 0 once the report is printed, whatever it says; with --strict, exit 3
    when any check failed (the failed checks are listed on stderr).
    """
    from kenning.evals import harness, report
    from kenning.evals.scenarios import UnknownScenario, agent_for, pick

    if compare is not None:
        if strict:
            raise click.UsageError("--strict goes with a run of the scenarios, not --compare.")
        try:
            a, b = (report.load(p) for p in compare)
        except report.ReportError as exc:
            raise click.BadParameter(str(exc), param_hint="--compare") from exc
        click.echo(report.compare(a, b, (str(compare[0]), str(compare[1]))))
        return
    if not spec:
        raise click.UsageError(
            "say which model: --model reference (scripted) or e.g. --model ollama:qwen3"
        )
    try:
        chosen = pick(scenarios)
    except UnknownScenario as exc:
        raise click.BadParameter(str(exc), param_hint="SCENARIO") from exc
    from kenning.models.errors import ModelNotConfigured

    try:
        # Only [model] settings are read from your home (base URL, key variable, timeouts).
        agent = agent_for(spec, lambda: state.home().config.model)
    except (ModelNotConfigured, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    with (
        harness.agent_closing(agent),
        click.progressbar(length=len(chosen) * repeats, label="scenarios", file=sys.stderr) as bar,
    ):
        result = harness.run(
            chosen, agent, repeats=repeats, seed=seed, progress=lambda _key: bar.update(1)
        )
    if as_json:
        echo_json(result)
    else:
        click.echo(report.table(result))
    failed = report.failures(result)
    if strict and failed:
        click.echo(f"kenning eval: {len(failed)} check(s) failed: {', '.join(failed)}", err=True)
        sys.exit(EXIT_CHECKS_FAILED)
