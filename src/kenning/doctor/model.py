"""What a health check of the home reports: one line each, and for every problem the fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One finding. ``fix`` is the exact command or action; empty only when all is well."""

    name: str
    status: Status
    summary: str
    fix: str = ""
    details: tuple[str, ...] = ()
    fixable: bool = False  # `kenning doctor --fix` repairs it

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "summary": self.summary,
            "fix": self.fix,
            "details": list(self.details),
            "fixable": self.fixable,
        }


def ok(name: str, summary: str, *details: str) -> Check:
    return Check(name, "ok", summary, details=details)


@dataclass
class Report:
    root: Path
    checks: list[Check] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)  # what --fix did

    @property
    def failed(self) -> bool:
        return any(check.status == "fail" for check in self.checks)

    def count(self, status: Status) -> int:
        return sum(1 for check in self.checks if check.status == status)

    def to_dict(self) -> dict[str, Any]:
        return {
            "home": str(self.root),
            "ok": not self.failed,
            "counts": {status: self.count(status) for status in ("ok", "warn", "fail")},
            "checks": [check.to_dict() for check in self.checks],
            "fixed": list(self.fixed),
        }
