"""Health checks of the library as it is on disk: what `kenning skills lint` and `scan` report.

Writes through Kenning are checked when they happen; these checks catch what
arrived another way — a hand edit, a folder copied in, a file a link points
to. ``lint`` reports every validation problem (errors and warnings), links,
skills edited by hand since Kenning's last write, and ``related`` names that
do not exist, and (:func:`leftovers`) the debris of interrupted writes,
which is not a skill and not an error. ``scan`` runs the threat scan over
every text file. All are read-only.
"""

from __future__ import annotations

from kenning.skills import leftovers as leftovers_mod
from kenning.skills import scan, validate
from kenning.skills.errors import SkillError
from kenning.skills.files import read_snapshot, snapshot_hash
from kenning.skills.library import SkillLibrary
from kenning.skills.model import check_name
from kenning.skills.validate import Problem


def _names(library: SkillLibrary, name: str | None) -> list[str]:
    if name is not None:
        library.info(check_name(name))  # NOT_FOUND for an unknown name
        return [name]
    return [info.name for info in library.list_skills(archived=True)]


def lint(library: SkillLibrary, name: str | None = None) -> dict[str, list[Problem]]:
    """Problems per skill (an empty list = healthy), for ``name`` or every live skill."""
    live = {info.name for info in library.list_skills(archived=True)}
    out: dict[str, list[Problem]] = {}
    for skill in _names(library, name):
        info = library.info(skill)
        try:
            files = read_snapshot(info.path)
        except SkillError as exc:
            out[skill] = [Problem(".", exc.message)]
            continue
        found = validate.problems(skill, files)
        record = info.record
        if info.where == "home" and record.hash and record.hash != snapshot_hash(files):
            found.append(
                Problem(
                    ".",
                    "edited by hand since Kenning last wrote it (automation now leaves it alone)",
                    "warning",
                )
            )
        for other in info.meta.related if info.meta else ():
            if other not in live:
                found.append(
                    Problem(
                        "SKILL.md", f"'related' names {other!r}, which does not exist", "warning"
                    )
                )
        out[skill] = found
    return out


def leftovers(library: SkillLibrary, name: str | None = None) -> list[leftovers_mod.Leftover]:
    """Debris of interrupted writes in the library (under skill ``name`` only, if given)."""
    found = leftovers_mod.find(library.dir)
    if name is None:
        return found
    folder = library.dir / check_name(name)
    return [item for item in found if item.path == folder or folder in item.path.parents]


def scan_all(library: SkillLibrary, name: str | None = None) -> dict[str, list[scan.FileFindings]]:
    """Threat findings per skill, for ``name`` or every live skill."""
    out: dict[str, list[scan.FileFindings]] = {}
    for skill in _names(library, name):
        info = library.info(skill)
        try:
            files = read_snapshot(info.path)
        except SkillError:
            out[skill] = []  # lint reports links; there is nothing safe to read
            continue
        out[skill] = scan.scan_files(files)
    return out
