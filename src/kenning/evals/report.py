"""The eval report as text, and two reports side by side (``--compare``).

The JSON report (``harness.run``) is the source of truth; these only format it.
Numbers of several repeats are shown as the mean of the runs; booleans as how
many runs were true (``2/3``); texts from the first run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MEASURES = {
    "kenning": "measures Kenning itself (largely, even with a scripted agent)",
    "kenning+model": "measures the model too (its judgement to save, replace, search)",
}


class ReportError(ValueError):
    """A file given to ``--compare`` that is not an eval report; the text says which and why."""


def load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReportError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise ReportError(
            f"{path} is not JSON ({exc}); write one with `kenning eval --json`"
        ) from exc
    if not isinstance(data, dict) or not isinstance(data.get("scenarios"), list):
        raise ReportError(f"{path} is not a `kenning eval --json` report (no scenarios list)")
    return data


def failures(report: dict[str, Any]) -> list[str]:
    """``scenario/check`` (``@seed`` with several repeats) for every failed check of every run."""
    out: list[str] = []
    for row in report.get("scenarios", []):
        runs = row.get("runs") or []
        for run in runs:
            at = f"@{run.get('seed')}" if len(runs) > 1 else ""
            out += [f"{row.get('scenario')}/{name}{at}" for name in run.get("failed", [])]
    return out


def summary(row: dict[str, Any]) -> dict[str, str]:
    """One value per metric over the row's runs, plus the cost columns."""
    runs: list[dict[str, Any]] = row.get("runs") or []
    out: dict[str, str] = {}
    if not runs:
        return out
    for key in runs[0].get("metrics", {}):
        values = [r["metrics"].get(key) for r in runs]
        out[key] = _combine(values)
    n = len(runs)
    out["checks passed"] = f"{row.get('passed', 0)}/{n} runs"
    out["requests"] = _combine([r["requests"] for r in runs])
    tokens_in = _combine([r["input_tokens"] for r in runs])
    out["tokens in/out"] = f"{tokens_in}/{_combine([r['output_tokens'] for r in runs])}"
    out["wall s"] = _combine([r["seconds"] for r in runs])
    return out


def _combine(values: list[Any]) -> str:
    if all(isinstance(v, bool) for v in values):
        true = sum(1 for v in values if v)
        return ("yes" if true else "no") if len(values) == 1 else f"{true}/{len(values)}"
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        mean = sum(values) / len(values)
        return f"{mean:,.0f}" if mean >= 100 else f"{mean:.3g}"
    first = values[0]
    text = json.dumps(first, ensure_ascii=False) if not isinstance(first, str) else first
    return text if len(text) <= 70 else text[:67] + "…"


def table(report: dict[str, Any]) -> str:
    lines = [
        f"kenning eval · Kenning {report.get('kenning_version')} · model {report.get('model')}"
        + (" (scripted reference agent)" if report.get("scripted_agent") else "")
        + f" · seeds {', '.join(str(s) for s in report.get('seeds', []))}"
        + f" · {report.get('seconds', 0):.1f} s",
    ]
    if report.get("scripted_agent"):
        lines.append(
            "Tokens are the scripted server's estimate (request bytes / 4); "
            "a real model reports its own."
        )
    lines.append(
        "Scenarios 3-5 measure Kenning itself, largely even with a scripted agent; "
        "1-2 measure the model too."
    )
    for row in report["scenarios"]:
        seeds = ", ".join(str(r["seed"]) for r in row.get("runs", []))
        lines.append("")
        lines.append(
            f"{row['number']}. {row['title']} [{row['scenario']}] — "
            f"{MEASURES.get(row['measures'], row['measures'])}; seeds {seeds}"
        )
        for key, value in summary(row).items():
            lines.append(f"   {key:<34} {value}")
        failed = sorted({name for r in row.get("runs", []) for name in r.get("failed", [])})
        if failed:
            expects = {
                c["name"]: c["expect"] for r in row.get("runs", []) for c in r.get("checks", [])
            }
            for name in failed:
                lines.append(f"   FAILED {name}: expected {expects.get(name, '')}")
        for note in dict.fromkeys(n for r in row.get("runs", []) for n in r.get("notes", [])):
            lines.append(f"   note: {note}")
        for todo in row.get("todo", []):
            lines.append(f"   not measured yet: {todo}")
    return "\n".join(lines)


def compare(a: dict[str, Any], b: dict[str, Any], names: tuple[str, str] = ("A", "B")) -> str:
    """Both reports' metrics per scenario, side by side; ``*`` marks a difference."""
    left, right = names
    lines = [
        f"A = {left}: model {a.get('model')} · Kenning {a.get('kenning_version')} · "
        f"seeds {a.get('seeds')}",
        f"B = {right}: model {b.get('model')} · Kenning {b.get('kenning_version')} · "
        f"seeds {b.get('seeds')}",
    ]
    rows_b = {row["scenario"]: row for row in b["scenarios"]}
    seen: set[str] = set()
    for row in a["scenarios"]:
        key = row["scenario"]
        seen.add(key)
        lines.append("")
        lines.append(f"{row['number']}. {row['title']} [{key}]")
        other = rows_b.get(key)
        if other is None:
            lines.append("   only in A")
            continue
        sa, sb = summary(row), summary(other)
        width = max([12, *(len(v) for v in sa.values())])
        lines.append(f"   {'':<34} {'A':<{width}}  B")
        for metric in dict.fromkeys([*sa, *sb]):
            va, vb = sa.get(metric, "–"), sb.get(metric, "–")
            mark = "*" if va != vb and metric not in ("wall s",) else " "
            lines.append(f" {mark} {metric:<34} {va:<{width}}  {vb}")
    for key, row in rows_b.items():
        if key not in seen:
            lines.append("")
            lines.append(f"{row['number']}. {row['title']} [{key}]\n   only in B")
    return "\n".join(lines)
