"""The README section "Use Kenning from Python" runs as shown.

Its ``python`` blocks run in order in one namespace, in the test's own
``KENNING_HOME`` (tests/conftest.py); a block after the marker
``<!-- not run: … -->`` needs a real model and is only compiled. Then the
effects the examples claim are checked on the home itself.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from kenning import Home, Target

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## Use Kenning from Python"
NOT_RUN = "<!-- not run:"
BLOCK = re.compile(r"(<!-- not run:[^\n]*-->\n)?```python\n(.*?)```", re.S)


def section_blocks() -> list[tuple[bool, str]]:
    """(runs, code) for each python block of the section, in order."""
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    body = text[start : end if end != -1 else len(text)]
    return [(marker is None or not marker, code) for marker, code in BLOCK.findall(body)]


def test_the_section_has_runnable_examples_and_marks_the_rest() -> None:
    blocks = section_blocks()
    assert sum(runs for runs, _ in blocks) >= 4
    skipped = [code for runs, code in blocks if not runs]
    assert len(skipped) == README.read_text(encoding="utf-8").count(NOT_RUN) == 1
    assert 'Agent(model="openai:gpt-4.1-mini"' in skipped[0]


def test_the_examples_run_and_do_what_they_say(kenning_home: Path) -> None:
    namespace: dict[str, object] = {"__name__": "readme"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for number, (runs, code) in enumerate(section_blocks(), 1):
            compiled = compile(code, f"README.md block {number}", "exec")
            if runs:
                exec(compiled, namespace)
    printed = out.getvalue()
    assert "['Project uses pnpm']" in printed
    assert "The project uses pnpm. True" in printed
    assert "Use pnpm install." in printed and "[final]" in printed
    assert "blocked" in printed and "was closed" in printed
    # what the examples wrote is in the home, through the runtime the CLI uses
    with Home.open(kenning_home) as home:
        assert home.runtime.root == kenning_home
        assert home.memory.list() == ["Project uses pnpm"]
        assert home.memory.list(target=Target.USER) == ["Prefers metric units and 24-hour times"]
        assert [s.source for s in home.sessions.list()] == ["run", "run"]
        assert "Postgres 16" in (home.journal.read() or "")
        assert home.skills.read("release").text.startswith("---")
        # a poisoned entry was refused: nothing of it on disk or in history
        assert "Ignore all previous" not in (home.memory.read().entries[0])
        log = home.runtime.history.log(["memories"], limit=20)
        assert not any("Ignore" in c.message for c in log)


@pytest.fixture
def kenning_home(_hermetic_home: Path) -> Path:
    return _hermetic_home
