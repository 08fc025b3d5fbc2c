"""Proposals: changes an automated writer made while ``skills.mode = "propose"``.

Instead of changing the skill, the change is stored as ``skills/.proposals/<id>.json``
(versioned with the home), bound to the content hash the skill had when the
change was proposed ("" for a skill that did not exist yet). A proposal is
*stale* as soon as the skill's current hash differs: the text it was written
against is gone, so applying it could undo someone's work. It is applied only
when a person accepts it (``kenning skills accept ID``), which re-checks the
hash, validates and scans again, and applies it as one recorded change.

Proposals are checked (guards, validation, scan) when they are made, so a
pending one is always applicable to the text it was bound to. At most
:data:`MAX_PENDING` wait at once, so an unattended review cannot pile them up.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kenning.fsutil import atomic_write
from kenning.skills.changes import Change
from kenning.skills.errors import ErrorKind, SkillError

Decision = Literal["pending", "accepted", "rejected"]
PROPOSALS_DIR = ".proposals"
MAX_PENDING = 50
_ID = re.compile(r"^[1-9][0-9]{0,8}$")


@dataclass(frozen=True)
class Proposal:
    id: str
    change: Change
    base_hash: str  # the skill's content hash when proposed; "" = it did not exist
    created_at: str
    session_id: str | None
    reason: str
    status: Decision = "pending"
    decided_at: str = ""

    def is_stale(self, current_hash: str) -> bool:
        return self.status == "pending" and current_hash != self.base_hash

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "change": self.change.to_dict(),
            "base_hash": self.base_hash,
            "created_at": self.created_at,
            "decided_at": self.decided_at,
            "session_id": self.session_id,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Proposal:
        status = raw.get("status", "pending")
        return cls(
            id=str(raw["id"]),
            change=Change.from_dict(raw["change"]),
            base_hash=str(raw.get("base_hash", "")),
            created_at=str(raw.get("created_at", "")),
            session_id=raw.get("session_id"),
            reason=str(raw.get("reason", "")),
            status=status if status in ("pending", "accepted", "rejected") else "pending",
            decided_at=str(raw.get("decided_at", "")),
        )


class ProposalStore:
    """The proposal files of one skills folder. Callers hold the library's lock to write."""

    def __init__(self, skills_dir: Path) -> None:
        self.dir = skills_dir / PROPOSALS_DIR

    def path(self, proposal_id: str) -> Path:
        return self.dir / f"{proposal_id}.json"

    def all(self) -> list[Proposal]:
        """Every readable proposal, oldest first (unreadable files are skipped)."""
        if not self.dir.is_dir():
            return []
        found = []
        for path in self.dir.glob("*.json"):
            if not _ID.match(path.stem):
                continue
            try:
                found.append(Proposal.from_dict(json.loads(path.read_text(encoding="utf-8"))))
            except (OSError, ValueError, KeyError, TypeError, SkillError):
                continue
        return sorted(found, key=lambda p: int(p.id))

    def get(self, proposal_id: str) -> Proposal:
        if not _ID.match(proposal_id):
            raise SkillError(
                ErrorKind.INVALID,
                f"{proposal_id!r} is not a proposal id.",
                "`kenning skills proposals` lists them.",
            )
        try:
            raw = json.loads(self.path(proposal_id).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise SkillError(
                ErrorKind.NOT_FOUND,
                f"There is no proposal {proposal_id}.",
                "`kenning skills proposals` lists them.",
            ) from None
        except ValueError as exc:
            raise SkillError(
                ErrorKind.INVALID, f"Proposal {proposal_id} does not parse: {exc}.", ""
            ) from None
        return Proposal.from_dict(raw)

    def next_id(self) -> str:
        numbers = [int(p.stem) for p in self.dir.glob("*.json") if _ID.match(p.stem)]
        return str(max(numbers, default=0) + 1)

    def pending_count(self) -> int:
        return sum(1 for p in self.all() if p.status == "pending")

    def save(self, proposal: Proposal) -> Path:
        path = self.path(proposal.id)
        text = json.dumps(proposal.to_dict(), indent=2, ensure_ascii=False, sort_keys=True)
        atomic_write(path, text + "\n")
        return path
