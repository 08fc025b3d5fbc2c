"""The threat-screen corpus (tests/safety/corpus): well formed, big enough, up to date."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path
from types import ModuleType

CORPUS_DIR = Path(__file__).parent / "corpus"
FIELDS = {"id", "text", "label", "category", "language", "source", "split"}
LABELS = ("malicious", "benign")
SPLITS = ("dev", "heldout")


def _rows() -> list[dict[str, str]]:
    lines = (CORPUS_DIR / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("corpus_build", CORPUS_DIR / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rows_are_well_formed_and_unique() -> None:
    rows = _rows()
    assert all(set(row) == FIELDS for row in rows)
    assert all(row["label"] in ("malicious", "benign") for row in rows)
    assert all(row["split"] in ("dev", "heldout") for row in rows)
    assert all(row["text"].strip() for row in rows)
    assert len({row["id"] for row in rows}) == len(rows)
    assert len({row["text"] for row in rows}) == len(rows)


def test_size_languages_and_split() -> None:
    rows = _rows()
    labels = Counter(row["label"] for row in rows)
    assert labels["malicious"] >= 300 and labels["benign"] >= 300
    languages = Counter(row["language"] for row in rows)
    assert sum(1 for n in languages.values() if n >= 10) >= 8
    # Rounds written by the screen's own team are split 50/50 within every category; an
    # external round's split is its author's file, and both its files are full size.
    builder = _builder()
    own = [row for row in rows if row["source"] not in builder.EXTERNAL_SOURCES]
    groups = Counter((row["label"], row["category"], row["split"]) for row in own)
    for label, category, _ in groups:
        dev, held = groups[(label, category, "dev")], groups[(label, category, "heldout")]
        assert abs(dev - held) <= 1, (label, category, dev, held)
    external = Counter(
        (row["label"], row["split"]) for row in rows if row["source"] == "external-r3"
    )
    assert all(external[(label, split)] >= 100 for label in LABELS for split in SPLITS), external
    # Round 4 is one more author's file, held out whole.
    fourth = Counter((r["label"], r["split"]) for r in rows if r["source"] == "external-r4")
    assert fourth[("malicious", "heldout")] >= 150 and fourth[("benign", "heldout")] >= 150
    assert not fourth[("malicious", "dev")] and not fourth[("benign", "dev")]


def test_corpus_file_is_what_the_builder_writes() -> None:
    assert _builder().build() == _rows()
