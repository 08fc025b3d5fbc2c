"""Memory proposals: entries held for the user instead of written.

Background review and dreaming save what they learn. When what they would save came from a
tool result or a web page and looks borderline (:mod:`kenning.safety.provenance`), it is not
written: it waits in ``memories/proposals.jsonl`` until the user accepts it (``kenning memory
accept ID``: written through the memory store, so screened again and budgeted) or rejects it
(``kenning memory reject ID``). The file is one JSON object a line, rewritten atomically
under its lock, and committed like every other write.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from typing import Literal

from kenning import clock
from kenning.fsutil import atomic_write, held
from kenning.history import History
from kenning.memory.store import MemoryStore, Target, WriteResult
from kenning.paths import HomeLayout

Status = Literal["pending", "accepted", "rejected"]


class ProposalError(ValueError):
    """No such proposal, or it was decided already; the message says what to do."""


@dataclass(frozen=True)
class Proposal:
    id: str
    target: str  # "memory" | "user"
    content: str
    source: str  # "review of <session>", "dream"
    provenance: str  # "tool" | "web" | "agent"
    why: str  # why it was held
    created: str  # ISO time
    status: Status = "pending"
    decided: str = ""


class ProposalQueue:
    def __init__(self, layout: HomeLayout, history: History, store: MemoryStore) -> None:
        self.path = layout.memories_dir / "proposals.jsonl"
        self.history = history
        self.store = store

    def all(self) -> list[Proposal]:
        if not self.path.exists():
            return []
        out = []
        for line in self.path.read_text(encoding="utf-8").split("\n"):
            if not line.strip():
                continue
            try:
                out.append(Proposal(**json.loads(line)))
            except (TypeError, ValueError):
                continue  # a hand-damaged line is skipped, never fatal
        return out

    def pending(self) -> list[Proposal]:
        return [p for p in self.all() if p.status == "pending"]

    def hold(
        self, target: Target, content: str, *, source: str, provenance: str, why: str
    ) -> Proposal:
        """Queue ``content`` for the user (the same pending content is queued once)."""
        digest = hashlib.sha256(f"{target.value}\n{content}".encode()).hexdigest()[:8]
        proposal = Proposal(
            f"p-{digest}",
            target.value,
            content,
            source,
            provenance,
            why,
            clock.now().isoformat(timespec="seconds"),
        )
        with held(self.path):
            current = self.all()
            if any(p.id == proposal.id and p.status == "pending" for p in current):
                return proposal
            self._save([*[p for p in current if p.id != proposal.id], proposal])
        self.history.record([self.path], f"memory: proposal {proposal.id} held — {why}")
        return proposal

    def accept(self, proposal_id: str) -> WriteResult:
        """Write the proposal into memory (screened and budgeted again), then mark it."""
        proposal = self._pending(proposal_id)
        result = self.store.add(
            Target(proposal.target), proposal.content, reason=f"accepted proposal {proposal.id}"
        )
        self._decide(proposal_id, "accepted")
        return result

    def reject(self, proposal_id: str) -> Proposal:
        self._pending(proposal_id)
        return self._decide(proposal_id, "rejected")

    def _pending(self, proposal_id: str) -> Proposal:
        for p in self.all():
            if p.id == proposal_id:
                if p.status != "pending":
                    raise ProposalError(f"Proposal {proposal_id} was {p.status} already.")
                return p
        raise ProposalError(
            f"No proposal {proposal_id!r}. List them with `kenning memory proposals`."
        )

    def _decide(self, proposal_id: str, status: Status) -> Proposal:
        with held(self.path):
            current = self.all()
            decided = [
                replace(p, status=status, decided=clock.now().isoformat(timespec="seconds"))
                if p.id == proposal_id
                else p
                for p in current
            ]
            self._save(decided)
        self.history.record([self.path], f"memory: proposal {proposal_id} {status}")
        return next(p for p in decided if p.id == proposal_id)

    def _save(self, proposals: list[Proposal]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(json.dumps(asdict(p), ensure_ascii=False) + "\n" for p in proposals)
        atomic_write(self.path, body)
