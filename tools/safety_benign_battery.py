"""Collect the benign battery: the texts Kenning's own tests write, which the screen must pass.

    python tools/safety_benign_battery.py    # runs the test directories below, ~4 minutes

Runs the memory, skill, MCP, context and learning tests with this file as a pytest plugin,
records every text the learned layer is asked about in a test that passed, and keeps those no
rule refuses: ordinary entries, skill descriptions, scripts and notes that those tests write
expecting success. At most ``PER_TEST`` distinct texts a test (a test that generates 3,000
templated skills would otherwise be the battery). Written to tests/safety/battery/benign.jsonl;
``tests/safety/test_learned.py`` checks the shipped heads refuse none of them, and the trainer
reads them as benign text (a head that refused the project's own skill descriptions was caught
here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "safety" / "battery" / "benign.jsonl"
DIRS = ("tests/memory", "tests/skills", "tests/mcp", "tests/context", "tests/learning")
PER_TEST = 20
_ENV = "KENNING_BATTERY_RAW"

_seen: list[str] = []
_current = {"id": ""}


def _install() -> None:
    from kenning.safety import learned

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        def inner(*args: Any, **kwargs: Any) -> Any:
            _seen.append(args[-1])  # the text is the last argument of verdict and score
            return fn(*args, **kwargs)

        return inner

    learned.verdict = wrap(learned.verdict)  # type: ignore[assignment]
    learned.score = wrap(learned.score)  # type: ignore[assignment]


if os.environ.get(_ENV):  # imported by pytest as a plugin
    import pytest

    _install()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item: Any, nextitem: Any) -> Generator[None, None, None]:
        _current["id"] = item.nodeid
        _seen.clear()
        yield

    def pytest_runtest_logreport(report: Any) -> None:
        if report.when == "call" and report.passed:
            with open(os.environ[_ENV], "a", encoding="utf-8") as f:
                for text in dict.fromkeys(_seen):
                    f.write(json.dumps({"test": _current["id"], "text": text}) + "\n")


def main() -> int:
    raw = OUT.with_suffix(".raw")
    raw.unlink(missing_ok=True)
    env = {
        **os.environ,
        _ENV: str(raw),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "tools")]),
    }
    cmd = [sys.executable, "-m", "pytest", *DIRS, "-q", "-p", "no:cacheprovider"]
    subprocess.run([*cmd, "-p", "safety_benign_battery"], cwd=ROOT, env=env, check=False)
    sys.path.insert(0, str(ROOT / "src"))
    from kenning.safety import screen

    per_test: dict[str, int] = {}
    kept: dict[str, str] = {}
    for line in raw.read_text(encoding="utf-8").split("\n"):
        if not line:
            continue
        row = json.loads(line)
        text, test = row["text"], row["test"]
        if text in kept or per_test.get(test, 0) >= PER_TEST or not text.strip():
            continue
        if any(f.layer != "learned" for f in screen.screen_text(text, "memory")):
            continue  # an attack the test expects refused, or a rule's concern
        kept[text] = test
        per_test[test] = per_test.get(test, 0) + 1
    raw.unlink()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        "".join(json.dumps({"text": t, "test": k}, ensure_ascii=False) + "\n" for t, k in kept.items()),
        encoding="utf-8",
    )
    print(f"wrote {OUT}: {len(kept)} texts from {len(per_test)} tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
