"""``kenning skills …``: list, read, change, check and curate the skills library.

Changes made here are made by the user: they are recorded as the user's in
the home's history and mark agent-made skills as person-edited, which keeps
automation off them from then on.

Exit codes, for scripts: 0 done (including "nothing to change"), 1 other
error (not found, already exists, disk), 2 usage error, 3 invalid (the change
or a linted skill breaks a rule), 4 blocked by the safety scan, 5 no match or
ambiguous match, 6 stale proposal.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from kenning import clock
from kenning.cli.context import CliState, echo_json, pass_state
from kenning.fsutil import atomic_write
from kenning.skills import lint as lint_mod
from kenning.skills.catalog import SkillInfo
from kenning.skills.curator import Curator
from kenning.skills.errors import ErrorKind, SkillError
from kenning.skills.files import read_snapshot
from kenning.skills.index import build_index
from kenning.skills.library import ChangeResult, SkillLibrary
from kenning.skills.model import SKILL_FILE, body_template, compose_skill_md, split_front_matter
from kenning.skills.scan import scan_text
from kenning.skills.validate import is_text

EXIT_CODES = {
    ErrorKind.INVALID: 3,
    ErrorKind.BLOCKED: 4,
    ErrorKind.NO_MATCH: 5,
    ErrorKind.AMBIGUOUS: 5,
    ErrorKind.STALE: 6,
}


def _library(state: CliState) -> SkillLibrary:
    return SkillLibrary.for_home(state.home())


def _refuse(exc: SkillError) -> NoReturn:
    click.secho(f"refused: {exc.message}", fg="red", err=True)
    if exc.next_step:
        click.echo(exc.next_step, err=True)
    sys.exit(EXIT_CODES.get(exc.kind, 1))


def _report(result: ChangeResult) -> None:
    if not result.changed:
        click.echo(f"{result.name}: nothing to change ({'; '.join(result.effects)})")
        return
    for effect in result.effects:
        click.echo(f"{result.name}: {effect}")
    if result.commit:
        click.echo(f"recorded as commit {result.commit}")


reason_option = click.option(
    "--reason", default="", help="Why, in one line; kept in the home's history."
)


@click.group()
def skills() -> None:
    """Skills: saved procedures for recurring tasks, under <home>/skills/.

    Each skill is a folder with SKILL.md (front matter + steps) and optional
    references/, templates/, scripts/ and assets/. Every change is checked,
    scanned and recorded in the home's git history.
    """


def _when(stamp: str) -> str:
    return stamp[:10] if stamp else "-"


def _info_json(info: SkillInfo) -> dict[str, Any]:
    return {
        "name": info.name,
        "description": info.description,
        "tags": list(info.tags),
        "status": info.status,
        "created_by": info.record.created_by,
        "pinned": info.record.pinned,
        "user_modified": info.record.user_modified,
        "where": info.where,
        "uses": info.usage.count,
        "last_used": info.usage.last_used or None,
        "path": str(info.path),
        "error": info.error,
    }


@skills.command("list")
@click.option("--all", "show_all", is_flag=True, help="Also list archived and deleted skills.")
@click.option("--json", "as_json", is_flag=True, help="Print the skills as JSON.")
@pass_state
def list_cmd(state: CliState, show_all: bool, as_json: bool) -> None:
    """List skills with status, author, use count and description."""
    infos = _library(state).list_skills(archived=show_all, deleted=show_all)
    if as_json:
        echo_json([_info_json(info) for info in infos])
        return
    if not infos:
        click.echo("No skills yet. Create one with `kenning skills create NAME --description D`.")
        return
    width = max(len(info.name) for info in infos)
    click.echo(
        f"{'NAME':<{width}}  {'STATUS':<8}  {'BY':<7}  {'USES':>4}  {'LAST USED':<10}  DESCRIPTION"
    )
    for info in infos:
        status = info.status + ("*" if info.record.pinned else "")
        text = info.description if info.meta else f"[unreadable: {info.error}]"
        text = text if len(text) <= 70 else text[:69] + "…"
        click.echo(
            f"{info.name:<{width}}  {status:<8}  {info.record.created_by:<7}  "
            f"{info.usage.count:>4}  {_when(info.usage.last_used):<10}  {text}"
        )
    if any(info.record.pinned for info in infos):
        click.echo("* pinned: automation and the curator leave it alone")


@skills.command("show")
@click.argument("name")
@click.argument("file", required=False)
@pass_state
def show(state: CliState, name: str, file: str | None) -> None:
    """Print SKILL.md of NAME, or its support FILE (e.g. scripts/check.sh)."""
    try:
        info = _library(state).info(name)
        files = read_snapshot(info.path)
    except SkillError as exc:
        _refuse(exc)
    rel = file or SKILL_FILE
    data = files.get(rel)
    if data is None:
        support = ", ".join(sorted(f for f in files if f != SKILL_FILE)) or "none"
        raise click.ClickException(f"{name} has no file {rel} (support files: {support})")
    if info.status == "deleted":
        click.secho(
            f"note: {name} is deleted; `kenning skills restore {name}`", fg="yellow", err=True
        )
    if not is_text(data):
        click.echo(f"({rel}: binary, {len(data):,} bytes)")
        return
    text = data.decode("utf-8")
    findings = scan_text(text)
    if findings:
        reasons = "; ".join(dict.fromkeys(f.reason for f in findings))
        click.secho(f"warning: this file {reasons}", fg="red", err=True)
    click.echo(text, nl=not text.endswith("\n"))
    others = sorted(f for f in files if f != SKILL_FILE)
    if rel == SKILL_FILE and others:
        click.echo(f"\n(support files: {', '.join(others)})", err=True)


@skills.command("create")
@click.argument("name")
@click.option("--description", "-d", required=True, help="What it is for and when to use it.")
@click.option(
    "--body-file",
    type=click.File("r", encoding="utf-8"),
    help="The body (Markdown, no front matter); '-' reads stdin. Default: a skeleton.",
)
@click.option("--tag", "tags", multiple=True, help="A topic to group it under (repeatable).")
@reason_option
@pass_state
def create(
    state: CliState,
    name: str,
    description: str,
    body_file: Any,
    tags: tuple[str, ...],
    reason: str,
) -> None:
    """Create skill NAME with a description and a body (a skeleton unless --body-file)."""
    body = body_file.read() if body_file is not None else body_template(name)
    if body.lstrip().startswith("---"):
        try:
            split_front_matter(body.lstrip())
        except SkillError:
            pass
        else:
            raise click.UsageError(
                "--body-file holds front matter; give only the body (name and description "
                "come from the options)"
            )
    text = compose_skill_md(name, description, body, tags=list(tags))
    try:
        _report(_library(state).create(name, text, reason=reason or "kenning skills create"))
    except SkillError as exc:
        _refuse(exc)


@skills.command("edit")
@click.argument("name")
@reason_option
@pass_state
def edit(state: CliState, name: str, reason: str) -> None:
    """Open SKILL.md of NAME in $EDITOR; the saved text is checked before it is kept."""
    library = _library(state)
    try:
        current = library.locate(name)
    except SkillError as exc:
        _refuse(exc)
    if not current.exists:
        _refuse(SkillError(ErrorKind.NOT_FOUND, f"There is no skill named '{name}'.", ""))
    old = current.files.get(SKILL_FILE, b"").decode("utf-8", errors="replace")
    new = click.edit(old, extension=".md", require_save=True)
    if new is None or new == old:
        click.echo("No changes; nothing was written.")
        return
    try:
        _report(library.edit(name, new, reason=reason or "kenning skills edit"))
    except SkillError as exc:
        saved = _keep_rejected(state, name, new)
        click.echo(f"Your text was kept at {saved}.", err=True)
        _refuse(exc)


def _keep_rejected(state: CliState, name: str, text: str) -> Path:
    stamp = clock.local().strftime("%Y%m%d-%H%M%S")
    path = state.home().layout.backups_dir / "skills" / f"{name}.rejected-{stamp}.md"
    atomic_write(path, text)
    return path


@skills.command("patch")
@click.argument("name")
@click.argument("old")
@click.argument("new")
@click.option("--file", "file", help="Patch this support file instead of SKILL.md.")
@click.option("--all", "replace_all", is_flag=True, help="Replace every occurrence of OLD.")
@reason_option
@pass_state
def patch(
    state: CliState,
    name: str,
    old: str,
    new: str,
    file: str | None,
    replace_all: bool,
    reason: str,
) -> None:
    """Replace the text OLD (which must occur once, unless --all) with NEW in skill NAME."""
    try:
        result = _library(state).patch(
            name,
            old,
            new,
            file=file,
            replace_all=replace_all,
            reason=reason or "kenning skills patch",
        )
    except SkillError as exc:
        _refuse(exc)
    _report(result)


@skills.command("delete")
@click.argument("name")
@reason_option
@pass_state
def delete(state: CliState, name: str, reason: str) -> None:
    """Move skill NAME to skills/.archive/ (recoverable with `restore`)."""
    try:
        _report(_library(state).delete(name, reason=reason or "kenning skills delete"))
    except SkillError as exc:
        _refuse(exc)


@skills.command("restore")
@click.argument("name")
@reason_option
@pass_state
def restore(state: CliState, name: str, reason: str) -> None:
    """Bring back deleted skill NAME, or make a stale or archived one active again."""
    try:
        _report(_library(state).restore(name, reason=reason or "kenning skills restore"))
    except SkillError as exc:
        _refuse(exc)


@skills.command("pin")
@click.argument("name")
@reason_option
@pass_state
def pin(state: CliState, name: str, reason: str) -> None:
    """Pin skill NAME: automated writers and the curator will not change it."""
    try:
        _report(_library(state).pin(name, reason=reason))
    except SkillError as exc:
        _refuse(exc)


@skills.command("unpin")
@click.argument("name")
@reason_option
@pass_state
def unpin(state: CliState, name: str, reason: str) -> None:
    """Unpin skill NAME (agent-made skills become manageable by automation again)."""
    try:
        _report(_library(state).unpin(name, reason=reason))
    except SkillError as exc:
        _refuse(exc)


@skills.command("lint")
@click.argument("name", required=False)
@pass_state
def lint(state: CliState, name: str | None) -> None:
    """Check every skill (or NAME) against the rules; exit 3 if any breaks one.

    Leftovers of interrupted writes are reported as warnings with the fix;
    they are not skills and do not change the exit code.
    """
    library = _library(state)
    try:
        report = lint_mod.lint(library, name)
    except SkillError as exc:
        _refuse(exc)
    debris = lint_mod.leftovers(library, name)
    for item in debris:
        click.secho(f"warning: {item.describe(library.dir)}; {item.fix}", fg="yellow")
    errors = 0
    for skill, problems in report.items():
        if not problems:
            continue
        for problem in problems:
            errors += problem.severity == "error"
            colour = "red" if problem.severity == "error" else "yellow"
            click.secho(f"{skill}/{problem.path}: {problem.severity}: {problem.message}", fg=colour)
    clean = sum(1 for problems in report.values() if not problems)
    tail = f", {len(debris)} leftover(s) of interrupted writes" if debris else ""
    click.echo(f"{len(report)} skill(s) checked: {clean} clean, {errors} error(s){tail}.")
    if errors:
        sys.exit(3)


@skills.command("scan")
@click.argument("name", required=False)
@pass_state
def scan(state: CliState, name: str | None) -> None:
    """Run the threat scan over every file of every skill (or NAME); exit 4 on findings."""
    try:
        report = lint_mod.scan_all(_library(state), name)
    except SkillError as exc:
        _refuse(exc)
    flagged = 0
    for skill, found in report.items():
        for file_findings in found:
            flagged += 1
            for finding in file_findings.findings:
                click.secho(
                    f"{skill}/{file_findings.path}: {finding.reason} [{finding.pattern_id}] "
                    f"— {finding.excerpt}",
                    fg="red",
                )
    click.echo(f"{len(report)} skill(s) scanned: {flagged} file(s) flagged.")
    if flagged:
        sys.exit(4)


@skills.command("curate")
@click.option("--dry-run", is_flag=True, help="Report what would change; change nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_state
def curate(state: CliState, dry_run: bool, as_json: bool) -> None:
    """Mark agent-made skills unused for 30 days stale, for 90 days archived. Never deletes."""
    report = Curator(_library(state)).run(dry_run=dry_run)
    if as_json:
        echo_json(
            {
                "dry_run": report.dry_run,
                "commit": report.commit,
                "considered": report.considered,
                "protected": report.protected,
                "transitions": [t.__dict__ for t in report.transitions],
            }
        )
        return
    verb = "would become" if dry_run else "became"
    for t in report.transitions:
        click.echo(f"{t.name}: {verb} {t.after} (was {t.before}) — {t.reason}")
    click.echo(
        f"{len(report.transitions)} change(s); {report.considered} agent-made skill(s) "
        f"considered; {report.protected} left alone (pinned, user-written, bundled or "
        "edited by a person)."
    )
    if report.commit:
        click.echo(f"recorded as commit {report.commit}")


@skills.command("proposals")
@click.option("--all", "show_all", is_flag=True, help="Also list accepted and rejected ones.")
@click.option("--json", "as_json", is_flag=True, help="Print the proposals as JSON.")
@pass_state
def proposals(state: CliState, show_all: bool, as_json: bool) -> None:
    """List changes the background review proposed (skills.mode = "propose")."""
    rows = _library(state).proposal_states(decided=show_all)
    if as_json:
        echo_json([p.to_dict() | {"stale": stale} for p, stale in rows])
        return
    if not rows:
        click.echo("No proposals waiting.")
        return
    for proposal, stale in rows:
        status = "stale" if stale else proposal.status
        click.echo(
            f"{proposal.id:>4}  {status:<8}  {proposal.created_at[:16]}  "
            f"{proposal.change.describe()}"
        )
        detail = _change_detail(proposal.change.to_dict())
        if detail:
            click.echo(f"      {detail}")
        if proposal.reason:
            click.echo(f"      why: {proposal.reason}")
    click.echo(
        "Apply one with `kenning skills accept ID`, drop it with `kenning skills reject ID`."
    )


def _change_detail(change: dict[str, Any]) -> str:
    def cut(text: str) -> str:
        flat = " ".join(text.split())
        return flat if len(flat) <= 60 else flat[:59] + "…"

    if "old" in change:
        return f"{cut(change['old'])!r} → {cut(change.get('new', ''))!r}"
    if "content" in change:
        return f"content: {cut(change['content'])!r}"
    return ""


@skills.command("accept")
@click.argument("proposal_id", metavar="ID")
@reason_option
@pass_state
def accept(state: CliState, proposal_id: str, reason: str) -> None:
    """Apply proposal ID, if its skill has not changed since it was proposed."""
    try:
        _report(_library(state).accept(proposal_id, reason=reason))
    except SkillError as exc:
        _refuse(exc)


@skills.command("reject")
@click.argument("proposal_id", metavar="ID")
@reason_option
@pass_state
def reject(state: CliState, proposal_id: str, reason: str) -> None:
    """Drop proposal ID (kept in history, never applied)."""
    try:
        _report(_library(state).reject(proposal_id, reason=reason))
    except SkillError as exc:
        _refuse(exc)


@skills.command("path")
@pass_state
def path_cmd(state: CliState) -> None:
    """Print the folder holding the skills."""
    click.echo(str(state.home().layout.skills_dir))


@skills.command("index")
@click.option("--task", default="", help="The session's task text, used to pick skills.")
@click.option("--budget", type=click.IntRange(min=0), help="Token budget (default: config).")
@click.option("--json", "as_json", is_flag=True, help="Print text, token estimate and names.")
@pass_state
def index_cmd(state: CliState, task: str, budget: int | None, as_json: bool) -> None:
    """Print the exact skills block a new session's system prompt would get."""
    built = build_index(_library(state), task=task, budget_tokens=budget)
    if as_json:
        echo_json(
            {
                "text": built.text,
                "tokens": built.tokens,
                "budget": built.budget,
                "shown": list(built.shown),
                "total": built.total,
                "omitted": built.omitted,
            }
        )
        return
    click.echo(built.text, nl=False)
    click.echo(
        f"({built.tokens} of {built.budget} tokens; {len(built.shown)} of {built.total} "
        "skills shown)",
        err=True,
    )
