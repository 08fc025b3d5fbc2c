"""The README's "Plugins" example, installed for real, does what its console block shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import kenning

README = Path(__file__).resolve().parents[2] / "README.md"
SRC = Path(kenning.__file__).resolve().parents[1]


def _section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Plugins")
    return text[start : text.index("\n## ", start + 1)]


def test_the_readme_plugin_installs_and_runs(tmp_path: Path) -> None:
    section = _section()
    [toml] = re.findall(r"```toml\n(.*?)```", section, re.S)
    [module] = re.findall(r"```python\n(.*?)```", section, re.S)
    [console] = re.findall(r"```console\n(.*?)```", section, re.S)
    package = tmp_path / "kenning-hello"
    package.mkdir()
    (package / "pyproject.toml").write_text(toml, encoding="utf-8")
    (package / "kenning_hello.py").write_text(module, encoding="utf-8")
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(site), str(package)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), str(site)])}
    # Each "$ kenning ..." line of the console block, and the lines it shows after it.
    for command, shown in re.findall(r"^\$ kenning (.*)\n((?:[^$].*\n)*)", console, re.M):
        args = [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', command)]
        if args[0] == "run":
            args[1:1] = ["--cwd", str(tmp_path)]
        done = subprocess.run(
            [sys.executable, "-m", "kenning", *args],
            env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stdout == shown, command
    hello = subprocess.run(
        [sys.executable, "-m", "kenning", "hello"], env=env, capture_output=True, text=True
    )
    assert hello.stdout == "hello from a plugin\n"
