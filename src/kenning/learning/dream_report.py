"""DREAMS.md: what each dreaming run considered, promoted and rejected, and why — for people.

Newest run first; the file keeps the last :data:`KEEP_RUNS` runs (older ones
stay in the home's git history). It lives at the home's root, outside every
folder dreaming reads (only ``memory/YYYY-MM-DD.md`` journal files and
archived messages are sources), so it can never be learned back as memory.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kenning.fsutil import atomic_write

if TYPE_CHECKING:
    from kenning.learning.dream import DreamReport, Scored

KEEP_RUNS = 30
SHOWN = 10  # per list, in each section
HEADER = (
    "# Dreams\n\n"
    "Kenning's consolidation runs, newest first: what was considered, promoted into "
    "MEMORY.md and rejected, and why. Written by `kenning dream`; never read back as memory.\n"
)


def _line(s: Scored, *, why: bool) -> str:
    c = s.candidate
    queries = ", ".join(f'"{q}"' for q in sorted(c.queries)[:4]) or "none"
    sources = ", ".join(x.ref for x in c.sources[:4])
    text = _short(c.text)
    tail = f" — {s.verdict}" if why else ""
    return (
        f'- "{text}" (score {s.score:.2f}; recalled {len(c.recalls)}× by {queries}; '
        f"from {sources}){tail}"
    )


def _superseded(s: Scored) -> str:
    assert s.superseded_by is not None
    by = s.superseded_by
    return (
        f'- "{_short(s.candidate.text)}" (from {", ".join(x.ref for x in s.candidate.sources[:4])})'
        f' → "{_short(by.text)}" ({by.source.ref}, {by.source.day})'
    )


def _short(text: str) -> str:
    return text if len(text) <= 160 else text[:159] + "…"


def render_report(report: DreamReport) -> str:
    """One run as a Markdown section (starts with ``## ``)."""
    stamp = report.now.strftime("%Y-%m-%d %H:%M")
    out = [f"## {stamp} · {', '.join(report.phases)}{' (dry run)' if report.dry_run else ''}"]
    if "light" in report.phases:
        out += ["", "### Light sleep — recent candidates"]
        out.append(f"{len(report.light)} candidate(s) after merging near-duplicates.")
        out += [_line(s, why=False) for s in report.light[:SHOWN]]
    if "rem" in report.phases or "deep" in report.phases:
        out += ["", "### REM sleep — recurring themes"]
        if report.themes:
            out += [
                f"- {t.word}: {t.candidates} candidates over {t.days} days" for t in report.themes
            ]
        else:
            out.append("No theme came back on several days.")
    if "deep" in report.phases:
        out += ["", "### Deep sleep — promotion into MEMORY.md"]
        if report.aborted:
            out.append(f"Aborted: {report.aborted}")
        out.append(
            f"{len(report.considered)} considered, {len(report.promoted)} promoted; MEMORY.md "
            f"{report.memory_used[0]}/{report.memory_used[1]} chars after this run."
        )
        if report.promoted:
            out.append("Promoted:")
            out += [_line(s, why=False) for s in report.promoted]
        superseded = [s for s in report.considered if s.superseded_by is not None]
        if superseded:
            out.append(f"Superseded by a newer statement, so not promoted ({len(superseded)}):")
            out += [_superseded(s) for s in superseded]
        rejected = [
            s for s in report.considered if s.verdict != "promoted" and s.superseded_by is None
        ]
        if rejected:
            out.append(f"Not promoted ({len(rejected)}; the best {min(SHOWN, len(rejected))}):")
            out += [_line(s, why=True) for s in rejected[:SHOWN]]
    return "\n".join(out) + "\n"


def write_report(path: Path, section: str) -> None:
    """Put ``section`` first in DREAMS.md, keeping the newest KEEP_RUNS runs."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    runs = ["## " + part for part in old.split("\n## ")[1:]]
    kept = [section.rstrip() + "\n", *(r.rstrip() + "\n" for r in runs)][:KEEP_RUNS]
    atomic_write(path, HEADER + "\n" + "\n".join(kept))
