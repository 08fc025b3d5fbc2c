"""How a hot-memory write's outcome is worded for a person: ``kenning memory`` and ``kenning ui``.

One wording for both, so a refusal in the browser reads exactly as it does in
the terminal. Each function returns lines; the caller chooses colour and stream.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from kenning.memory.store import ErrorKind, MemoryWriteError, Target, WriteResult, preview


def refusal_lines(exc: MemoryWriteError) -> list[str]:
    """``refused: …`` first, then the matches, the entries when they help, and the next step."""
    lines = [f"refused: {exc.message}"]
    lines += [f"  matches: {match}" for match in exc.matches]
    if exc.state is not None and exc.kind in (ErrorKind.OVER_BUDGET, ErrorKind.NO_MATCH):
        lines.append("current entries:")
        for number, entry in enumerate(exc.state.entries, 1):
            lines.append(f"  {number:>3}. [{len(entry):>4}] {' '.join(entry.split())[:90]}")
        lines.append(f"  usage: {exc.state.usage_line()}")
    lines.append(exc.next_step)
    return lines


@dataclass(frozen=True)
class ReportLines:
    """A write's report: what changed (``done``), warnings (``warnings``), then usage."""

    done: list[str]
    warnings: list[str]


def report_lines(result: WriteResult) -> ReportLines:
    if not result.changed:
        return ReportLines([f"Nothing to change: {'; '.join(result.skipped)}"], [])
    done = [f"{result.target.filename}: {change}" for change in result.changes]
    flag = " --user" if result.target is Target.USER else ""
    warnings: list[str] = []
    for entry in result.restated:
        warnings.append(f"warning: this may update an existing entry: {preview(entry)}")
        whole = shlex.quote(entry)  # the whole entry: a prefix may match the new one too
        warnings.append(f"  if it replaces it: kenning memory remove{flag} {whole}")
        warnings.append("  (if both are true, --keep-both skips this check)")
    suffix = f", commit {result.commit}" if result.commit else ""
    done.append(f"usage {result.state.usage_line()}{suffix}")
    return ReportLines(done, warnings)
