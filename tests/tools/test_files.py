"""read_file, write_file, edit_file, list_files, search_files on real files."""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Callable
from pathlib import Path

from kenning.home import Home
from kenning.tools import ToolContext, ToolResult
from kenning.tools.file_search import MAX_ENTRIES, MAX_MATCHES, list_files, search_files
from kenning.tools.files import MAX_CHARS, edit_file, read_file, write_file

Call = Callable[..., ToolResult]


def test_read_file_numbers_lines_and_says_how_to_continue(workspace: Path, call: Call) -> None:
    (workspace / "notes.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    whole = call(read_file, path="notes.txt")
    assert whole.ok
    assert whole.text.splitlines()[0] == "     1\tline 1"
    assert whole.text.endswith("(End of file. Lines 1-10 of 10.)")
    part = call(read_file, path="notes.txt", offset=3, limit=2)
    assert part.text.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    assert "read_file(path='notes.txt', offset=5)" in part.text
    past = call(read_file, path="notes.txt", offset=50)
    assert not past.ok and "past the end" in past.text and "10 lines" in past.text


def test_read_file_cuts_long_lines_and_bounds_its_output(workspace: Path, call: Call) -> None:
    (workspace / "wide.txt").write_text("x" * 5_000 + "\nshort\n")
    text = call(read_file, path="wide.txt").text
    assert "[3,000 more characters on this line]" in text and "short" in text
    (workspace / "big.txt").write_text(("y" * 1_500 + "\n") * 200)
    big = call(read_file, path="big.txt")
    assert len(big.text) <= MAX_CHARS + 500
    assert "(output size limit)" in big.text and "offset=" in big.text


def test_read_file_refusals(workspace: Path, call: Call) -> None:
    (workspace / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00rest")
    (workspace / "config.yaml").write_text("a: 1\n")
    (workspace / "sub").mkdir()
    (workspace / ".env").write_text("TOKEN=hunter2\n")
    binary = call(read_file, path="image.png")
    assert not binary.ok and "a PNG image" in binary.text and "not text" in binary.text
    missing = call(read_file, path="config.yml")
    assert not missing.ok and "no such file" in missing.text and "config.yaml" in missing.text
    folder = call(read_file, path="sub")
    assert not folder.ok and "list_files(path='sub')" in folder.text
    secret = call(read_file, path=".env")
    assert not secret.ok and "credentials file" in secret.text and "hunter2" not in secret.text
    (workspace / "empty.txt").write_text("")
    assert "is empty" in call(read_file, path="empty.txt").text


def test_reads_outside_the_workspace_follow_the_read_scope(
    home: Home, workspace: Path, tmp_path: Path, call: Call
) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("hello\n")
    assert call(read_file, path=str(outside)).ok  # "anywhere" is the default
    strict = ToolContext(home, cwd=workspace, read_scope="workspace")
    refused = asyncio.run(read_file.run({"path": str(outside)}, strict))
    assert not refused.ok and "outside the workspace" in refused.text
    spilled = home.layout.spill_dir / "s" / "x.txt"
    spilled.parent.mkdir(parents=True)
    spilled.write_text("kept\n")
    assert asyncio.run(read_file.run({"path": str(spilled)}, strict)).ok


def test_write_file_creates_parents_and_keeps_the_mode(workspace: Path, call: Call) -> None:
    created = call(write_file, path="a/b/c.txt", content="one\ntwo\n")
    assert created.ok and created.text == "Created a/b/c.txt (2 lines, 8 characters)."
    assert (workspace / "a/b/c.txt").read_text() == "one\ntwo\n"
    script = workspace / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    replaced = call(write_file, path="run.sh", content="#!/bin/sh\necho hi\n")
    assert "Replaced the content of run.sh: now 2 lines" in replaced.text
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    leftovers = [p.name for p in workspace.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_write_file_refusals(home: Home, workspace: Path, tmp_path: Path, call: Call) -> None:
    outside = call(write_file, path=str(tmp_path / "out.txt"), content="x")
    assert not outside.ok and "outside the workspace" in outside.text
    assert not (tmp_path / "out.txt").exists()
    escape = call(write_file, path="../escape.txt", content="x")
    assert not escape.ok and "outside the workspace" in escape.text
    (workspace / "link").symlink_to(tmp_path)
    via_link = call(write_file, path="link/sneaky.txt", content="x")
    assert not via_link.ok and not (tmp_path / "sneaky.txt").exists()
    git = call(write_file, path=".git/hooks/pre-commit", content="x")
    assert not git.ok and ".git" in git.text
    memory = call(write_file, path=str(home.layout.memory_file), content="x")
    assert not memory.ok and "memory tool" in memory.text
    state = call(write_file, path=str(home.layout.state_db), content="x")
    assert not state.ok and "Kenning home" in state.text
    spill = call(write_file, path=str(home.layout.spill_dir / "note.txt"), content="x")
    assert spill.ok


def test_edit_file_replaces_one_unique_occurrence(workspace: Path, call: Call) -> None:
    source = workspace / "m.py"
    source.write_text("def a():\n    return 1\n\n\ndef b():\n    return 1\n")
    result = call(
        edit_file, path="m.py", old="def b():\n    return 1", new="def b():\n    return 2"
    )
    assert result.ok and "replaced 1 occurrence (first at line 5)" in result.text
    assert "     6\t    return 2" in result.text  # the edited lines are shown
    assert source.read_text().endswith("def b():\n    return 2\n")


def test_edit_file_on_several_matches_says_where(workspace: Path, call: Call) -> None:
    source = workspace / "m.py"
    original = "x = 1\ny = 2\nx = 1\n"
    source.write_text(original)
    result = call(edit_file, path="m.py", old="x = 1", new="x = 3")
    assert not result.ok
    assert "matches 2 places in m.py (lines 1, 3)" in result.text
    assert "replace_all=true" in result.text
    assert source.read_text() == original
    everything = call(edit_file, path="m.py", old="x = 1", new="x = 3", replace_all=True)
    assert everything.ok and "replaced 2 occurrences" in everything.text
    assert source.read_text() == "x = 3\ny = 2\nx = 3\n"


def test_edit_file_when_nothing_matches(workspace: Path, call: Call) -> None:
    source = workspace / "m.py"
    source.write_text("def a():\n\treturn 1\n\ndef compute_total(x):\n    pass\n")
    spaces = call(edit_file, path="m.py", old="def a():\n    return 1", new="x")
    assert not spaces.ok
    assert "differing only in whitespace or indentation starts at line 1" in spaces.text
    near = call(edit_file, path="m.py", old="def compute_totals(x):", new="x")
    assert not near.ok and "closest line is 4" in near.text
    assert "read_file(path='m.py')" in near.text
    missing = call(edit_file, path="nope.py", old="a", new="b")
    assert not missing.ok and "write_file" in missing.text
    same = call(edit_file, path="m.py", old="pass", new="pass")
    assert not same.ok and "the same" in same.text


def test_edit_file_keeps_crlf_line_endings(workspace: Path, call: Call) -> None:
    source = workspace / "w.txt"
    source.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    assert call(edit_file, path="w.txt", old="one\ntwo", new="1\n2").ok
    assert source.read_bytes() == b"1\r\n2\r\nthree\r\n"


def test_edit_file_refuses_binary(workspace: Path, call: Call) -> None:
    (workspace / "blob.bin").write_bytes(b"ab\x00cd")
    result = call(edit_file, path="blob.bin", old="ab", new="x")
    assert not result.ok and "not text" in result.text


def make_tree(root: Path) -> None:
    for rel in (
        "README.md",
        "src/app.py",
        "src/util/helpers.py",
        "src/util/data.json",
        ".git/config",
        "node_modules/pkg/index.js",
        "env/pyvenv.cfg",
        "env/lib/site.py",
        "__pycache__/app.cpython-311.pyc",
    ):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {rel}\nTODO: fix {rel}\n")


def test_list_files_skips_noise_and_filters(workspace: Path, call: Call) -> None:
    make_tree(workspace)
    listing = call(list_files).text
    lines = listing.splitlines()
    assert lines[0].startswith("4 files under .")
    assert lines[1:5] == ["README.md", "src/app.py", "src/util/data.json", "src/util/helpers.py"]
    assert "Skipped folders: .git, __pycache__, env, node_modules" in listing
    py = call(list_files, pattern="*.py").text
    assert "src/app.py" in py and "data.json" not in py and "README" not in py
    nested = call(list_files, path="src", pattern="util/**/*.py").text
    assert "util/helpers.py" in nested and "app.py" not in nested
    missing = call(list_files, path="nowhere")
    assert not missing.ok and "no such file" in missing.text


def test_list_files_is_bounded(workspace: Path, call: Call) -> None:
    for i in range(MAX_ENTRIES + 20):
        (workspace / f"f{i:04}.txt").write_text("")
    text = call(list_files).text
    assert text.startswith(f"{MAX_ENTRIES + 20} files")
    assert "… and 20 more not shown" in text


def test_search_files_reports_file_and_line(workspace: Path, call: Call) -> None:
    make_tree(workspace)
    (workspace / "pic.bin").write_bytes(b"TODO\x00binary")
    (workspace / ".env").write_text("TODO=secret\n")
    found = call(search_files, pattern=r"TODO: fix \w+").text
    assert "src/app.py:2: TODO: fix src/app.py" in found
    assert "README.md:2:" in found
    assert "node_modules" not in found.split("Skipped")[0] and "pic.bin" not in found
    assert "secret" not in found and "1 credentials file(s) were not searched" in found
    only_json = call(search_files, pattern="TODO", glob="*.json").text
    assert "src/util/data.json:2:" in only_json and "app.py" not in only_json
    one_file = call(search_files, pattern="fix", path="src/app.py").text
    assert one_file.startswith("1 match for /fix/ in src/app.py")
    none = call(search_files, pattern="absent-text").text
    assert none.startswith("No matches")
    bad = call(search_files, pattern="(unclosed")
    assert not bad.ok and "not a valid regular expression" in bad.text


def test_search_files_is_bounded_and_excerpts_long_lines(workspace: Path, call: Call) -> None:
    (workspace / "many.txt").write_text("hit\n" * (MAX_MATCHES + 50))
    text = call(search_files, pattern="hit").text
    assert f"Stopped at {MAX_MATCHES} matches" in text
    (workspace / "wide.json").write_text("a" * 5_000 + "NEEDLE" + "b" * 5_000)
    wide = call(search_files, pattern="NEEDLE", glob="*.json").text
    line = next(ln for ln in wide.splitlines() if ln.startswith("wide.json:1:"))
    assert "NEEDLE" in line and len(line) < 400
