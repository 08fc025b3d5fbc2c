"""Documentation paragraphs as benign text for the threat screen: to train on, and to measure on.

    python tools/safety_docs_corpus.py --split heldout --out /tmp/docs_heldout.jsonl
    kenning bench safety --corpus /tmp/docs_heldout.jsonl --channel memory

Real documentation mentions everything a rule or a classifier looks for -- passwords,
tokens, ``curl``, ssh, base64, "ignore", "system", priorities -- in prose no attacker wrote,
so it is the hard negative a memory screen meets most (skills are documentation; so are the
notes an agent keeps about a tool). Sources, all already on a machine that runs Kenning:

- ``stdlib``: the docstrings of the running Python's standard library (PSF licence);
- ``site``: the docstrings of the packages installed beside Kenning (their own licences);
- ``debian``: the README and ``*.md``/``*.txt`` files under ``/usr/share/doc``.

A paragraph is a blank-line-separated block of 80-2,000 characters with at least 8 words of
three letters or more. Each module or package is one group; a group is ``dev`` or ``heldout``
by a hash of its name (so a module's paragraphs never straddle the split), and at most
``PER_GROUP`` paragraphs are taken from it (a seeded sample: big modules do not dominate).
The trainer (``tools/train_safety_classifier.py``) reads only the ``stdlib`` source's dev
groups; everything else -- the stdlib's held-out groups, every installed package, Debian's
documentation -- it never sees, so those measure the screen on documentation it was not
trained on. Kenning's own package is left out (its README is trained on as it is).
"""

from __future__ import annotations

import argparse
import ast
import gzip
import random
import re
import sys
import sysconfig
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from corpus_rows import Row, row, write

PER_GROUP = 40
SOURCES = ("stdlib", "site", "debian")
DOC_CHARS = 8_000  # kenning.safety.learned.MAX_CHARS: what the layer reads of a text
DOC_MIN = 500  # shorter files are paragraphs already
_OPEN = re.compile(r"Apache License|MIT License|Permission is hereby granted|BSD", re.I)
_SKIP_DIRS = {
    "kenning",
    "idlelib",
    "lib2to3",
    "pydoc_data",
    "ensurepip",
    "site-packages",
    "__pycache__",
}
_WORDS = re.compile(r"[A-Za-z]{3,}")


def split_of(group: str) -> str:
    """``dev`` or ``heldout``, by a stable hash of the group's name."""
    return "dev" if zlib.crc32(group.encode("utf-8")) % 2 == 0 else "heldout"


def paragraphs(text: str) -> Iterator[str]:
    for block in re.split(r"\n\s*\n", text):
        para = "\n".join(line.rstrip() for line in block.strip("\n").splitlines()).strip()
        if 80 <= len(para) <= 2000 and len(_WORDS.findall(para)) >= 8:
            yield para


def _skipped(folder: str) -> bool:
    return folder in _SKIP_DIRS or folder.startswith("test") or folder.endswith(".dist-info")


def _docstrings(path: Path) -> Iterator[str]:
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError, OSError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node)
            if doc:
                yield doc


def _module_files(source: str, split: str) -> Iterator[tuple[str, Path]]:
    """(group, path) of each module of the Python ``source`` (``stdlib``, ``site``) whose
    group is in ``split``; the others are not parsed at all (most of the time goes to that)."""
    root = Path(sysconfig.get_paths()["stdlib" if source == "stdlib" else "purelib"])
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        top = parts[0].removesuffix(".py")
        if any(_skipped(p) for p in (top, *parts[:-1])) or (source == "site" and top[:1] == "_"):
            continue
        group = f"{source}:{top}"
        if split in ("all", split_of(group)):
            yield group, path


def _python_groups(source: str, split: str) -> dict[str, set[str]]:
    groups: dict[str, set[str]] = {}
    for group, path in _module_files(source, split):
        bucket = groups.setdefault(group, set())
        for doc in _docstrings(path):
            bucket.update(paragraphs(doc))
    return groups


def _debian_files(root: Path = Path("/usr/share/doc")) -> Iterator[tuple[str, str]]:
    """(group, text) of each README / ``*.md`` / ``*.txt`` under ``root``."""
    for path in sorted(root.glob("*/*")):
        name = path.name.lower().removesuffix(".gz")
        if not path.is_file() or not (name.startswith("readme") or name.endswith((".md", ".txt"))):
            continue
        try:
            raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
            yield f"debian:{path.parent.name}", raw.decode("utf-8")
        except (OSError, UnicodeDecodeError, EOFError, gzip.BadGzipFile):
            continue


def _debian_groups() -> dict[str, set[str]]:
    groups: dict[str, set[str]] = {}
    for group, text in _debian_files():
        groups.setdefault(group, set()).update(paragraphs(text))
    return groups


def open_licence(folder: Path, root: Path) -> bool:
    """Whether the nearest LICENSE file from ``folder`` up to ``root`` is an open licence
    (Apache, MIT, BSD); a folder with none, or a proprietary one, is left out."""
    for where in (folder, *folder.parents):
        found = sorted(where.glob("LICEN[CS]E*"))
        if found:
            head = found[0].read_text(encoding="utf-8", errors="replace")[:2000]
            return bool(_OPEN.search(head))
        if where == root:
            break
    return False


def _skill_files(roots: Sequence[Path]) -> Iterator[tuple[str, str]]:
    """(group, text) of every Markdown file of every openly licensed skill (a folder with a
    ``SKILL.md``) under ``roots``; a skill is one group."""
    for root in roots:
        for marker in sorted(root.rglob("SKILL.md")):
            folder = marker.parent
            if not open_licence(folder, root):
                continue
            for path in sorted(folder.rglob("*.md")):
                yield (
                    f"skills:{root.name}/{folder.name}",
                    path.read_text(encoding="utf-8", errors="replace"),
                )


def documents(sources: Iterable[str], split: str, skill_roots: Sequence[Path] = ()) -> list[Row]:
    """Whole documents of ``sources`` (``stdlib`` and ``site``: a module's docstrings joined;
    ``debian``: one file; ``skills``: one Markdown file of a skill) in ``split``, each cut to
    what the learned layer reads of a text (``DOC_CHARS``, at a line end): skills and pasted
    manuals are long, and a layer that saw only paragraphs took length for a jailbreak."""
    out: list[Row] = []
    for source in sources:
        if source in ("stdlib", "site"):
            files = (
                (group, "\n\n".join(_docstrings(path)))
                for group, path in _module_files(source, split)
            )
        else:
            files = _debian_files() if source == "debian" else _skill_files(skill_roots)
        for n, (group, text) in enumerate(files):
            where = split_of(group)
            if split not in ("all", where) or len(text) < DOC_MIN:
                continue
            cut = text[:DOC_CHARS]
            if len(text) > DOC_CHARS and "\n" in cut:
                cut = cut[: cut.rindex("\n")]
            out.append(
                row(
                    f"{group}@{n}",
                    cut,
                    label="benign",
                    category="document",
                    split=where,
                    source=group,
                )
            )
    return out


def groups(source: str, split: str = "all") -> dict[str, set[str]]:
    """Each group's paragraphs (Python sources: only the groups of ``split`` are read)."""
    if source in ("stdlib", "site"):
        return _python_groups(source, split)
    if source == "debian":
        return _debian_groups()
    raise ValueError(f"unknown source {source!r}; expected one of {', '.join(SOURCES)}")


def rows(sources: Iterable[str], split: str) -> list[Row]:
    """The sampled paragraphs of ``sources`` in ``split`` (``dev``, ``heldout`` or ``all``),
    as benign rows of the screen's corpus format."""
    out: list[Row] = []
    for source in sources:
        for group, found in sorted(groups(source, split).items()):
            where = split_of(group)
            if split not in ("all", where):
                continue
            sample = sorted(found)
            random.Random(group).shuffle(sample)
            for i, text in enumerate(sample[:PER_GROUP]):
                out.append(
                    row(
                        f"{group}#{i}",
                        text,
                        label="benign",
                        category="documentation",
                        split=where,
                        source=group,
                    )
                )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="heldout")
    parser.add_argument(
        "--source", action="append", choices=SOURCES, help="repeatable; default: all three"
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    found = rows(args.source or SOURCES, args.split)
    write(found, args.out)
    print("by source:", dict(Counter(r["source"].split(":", 1)[0] for r in found)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
