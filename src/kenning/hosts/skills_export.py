"""What Kenning learned, as skills a host reads natively: the host's side of ``skills.exports``.

The export itself (which skills, which copies may be rewritten or removed,
the ledger each host manifest holds) is ``kenning.skills.exports``, where the
skills library runs it after every change it records. These are the same
operations for a ``Home`` and one manifest, as ``install`` and ``uninstall``
use them.
"""

from __future__ import annotations

from pathlib import Path

from kenning.home import Home
from kenning.skills import exports
from kenning.skills.exports import ExportReport, Ledger
from kenning.skills.library import SkillLibrary

__all__ = ["ExportReport", "agent_skills", "export_skills", "remove_exported"]


def agent_skills(home: Home) -> dict[str, dict[str, bytes]]:
    """name -> {relative file: bytes} of every live skill Kenning's agent made."""
    return exports.agent_skills(SkillLibrary.for_home(home))


def export_skills(home: Home, manifest: Ledger, target: Path) -> ExportReport:
    """Bring ``target`` (the host's skills folder) in step with Kenning's agent-made skills."""
    return exports.export(agent_skills(home), manifest, target)


def remove_exported(manifest: Ledger, target: Path) -> ExportReport:
    """Uninstall: remove every copy Kenning wrote that is still as it wrote it."""
    return exports.remove_exported(manifest, target)
