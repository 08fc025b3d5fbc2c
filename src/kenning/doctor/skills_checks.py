"""Checks of the skills folder: debris of interrupted writes, and skills that fail lint.

Lint is the real one (:mod:`kenning.skills.lint`), so doctor and ``kenning
skills lint`` always agree; doctor only summarises it and names the command
that shows the details.
"""

from __future__ import annotations

import json

from kenning.doctor.model import Check, ok
from kenning.fsutil import STALE_TEMP_AGE_S
from kenning.skills import lint as lint_mod
from kenning.skills.errors import SkillError
from kenning.skills.library import SkillLibrary


def check_skills(library: SkillLibrary, cmd: str) -> list[Check]:
    checks = []
    for path in (library.state.state_path, library.state.usage_path):
        problem = _json_problem(path.read_bytes()) if path.is_file() else None
        if problem is None:
            continue
        # Checked here, before lint: Kenning's own reader would back the file up
        # (a write), and doctor writes nothing without --fix.
        root = library.layout.root
        if path == library.state.usage_path:
            fix = f"remove it (`rm {path}`): it only counts uses, and starts again from zero"
            effect = "use counts are lost"
        else:
            fix = (
                f"restore it from history (`git -C {root} log -- skills/{path.name}`, then "
                f"`git -C {root} checkout REV -- skills/{path.name}`), or move it away "
                f"(`mv {path} {path}.broken`)"
            )
            effect = "every skill counts as the user's, so automation leaves them all alone"
        return [
            Check(
                "skills",
                "fail",
                f"{path} does not parse ({problem}); until it is rewritten {effect}",
                fix=fix,
            )
        ]
    debris = lint_mod.leftovers(library)
    if debris:
        checks.append(
            Check(
                "skills-leftovers",
                "warn",
                f"{len(debris)} leftover(s) of interrupted skill writes (not skills)",
                fix=f"`{cmd} doctor --fix` removes those over a minute old",
                details=tuple(f"{d.describe(library.dir)}; {d.fix}" for d in debris),
                fixable=any(d.age_s >= STALE_TEMP_AGE_S for d in debris),
            )
        )
    else:
        checks.append(ok("skills-leftovers", "no leftovers of interrupted skill writes"))
    try:
        report = lint_mod.lint(library)
    except (SkillError, OSError) as exc:
        message = exc.message if isinstance(exc, SkillError) else str(exc)
        checks.append(
            Check(
                "skills",
                "fail",
                f"the skills folder cannot be read: {message}",
                fix=f"fix {library.dir} as the message says, then `{cmd} skills lint`",
            )
        )
        return checks
    broken = sorted(n for n, found in report.items() if any(p.severity == "error" for p in found))
    warned = sorted(n for n, found in report.items() if found and n not in broken)
    details = tuple(
        f"{name}/{problem.path}: {problem.severity}: {problem.message}"
        for name in broken + warned
        for problem in report[name]
    )
    if broken:
        checks.append(
            Check(
                "skills",
                "fail",
                f"{len(broken)} of {len(report)} skill(s) break the rules: {', '.join(broken)}",
                fix=f"`{cmd} skills lint NAME` shows what to change; fix SKILL.md by hand "
                f"or with `{cmd} skills edit NAME`",
                details=details,
            )
        )
    elif warned:
        checks.append(
            Check(
                "skills",
                "warn",
                f"{len(report)} skill(s) valid; {len(warned)} with warnings: {', '.join(warned)}",
                fix=f"`{cmd} skills lint` lists them",
                details=details,
            )
        )
    else:
        checks.append(ok("skills", f"{len(report)} skill(s), all valid"))
    return checks


def _json_problem(raw: bytes) -> str | None:
    """What Kenning's skill-state reader would refuse in ``raw`` (None when it reads)."""
    try:
        data = json.loads(raw.decode("utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
            return "no 'skills' object"
    except (ValueError, UnicodeDecodeError) as exc:
        return str(exc)
    return None
