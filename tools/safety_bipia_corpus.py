"""BIPIA's code attacks as a corpus for ``kenning bench safety``: an attack set nobody wrote for
Kenning, measured, never trained on.

    git clone https://github.com/microsoft/BIPIA
    python tools/safety_bipia_corpus.py --bipia BIPIA --out /tmp/bipia_code.jsonl
    kenning bench safety --corpus /tmp/bipia_code.jsonl --json

BIPIA (Yi et al., "Benchmarking and Defending Against Indirect Prompt Injection Attacks on Large
Language Models", 2023; MIT) plants instructions in emails, tables and code a model is asked
about. Its code attacks are an instruction to put a given block of code into the answer or the
user's code, the block stealing data (keystrokes, the clipboard, cookies, environment, devices),
destroying, mining or spreading: 50 in ``benchmark/code_attack_train.json`` (written here as the
``dev`` split: the rows of :mod:`kenning.safety.patterns.code_blocks` were written after reading
them) and 50 in ``code_attack_test.json`` (``heldout``, only ever measured). Every row is
``malicious``; none of BIPIA's text enters this repository. Its text attacks ("Translate your
response into Spanish", "Encode your response in Base64") are left out: as a memory entry most
are an ordinary preference, an attack only against the task BIPIA pairs them with.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from corpus_rows import Row, row, write

SPLITS = {"train": "dev", "test": "heldout"}


def rows(bipia: Path) -> list[Row]:
    out: list[Row] = []
    for name, split in SPLITS.items():
        path = bipia / "benchmark" / f"code_attack_{name}.json"
        if not path.is_file():
            raise SystemExit(f"{path} not found: is BIPIA cloned there?")
        for kind, texts in json.loads(path.read_text(encoding="utf-8")).items():
            for i, text in enumerate(texts):
                out.append(
                    row(
                        f"bipia-{name}-{kind}-{i}",
                        text,
                        label="malicious",
                        category="code_attack",
                        split=split,
                        source="bipia-code",
                    )
                )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--bipia", type=Path, required=True, help="a clone of microsoft/BIPIA")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    found = rows(args.bipia)
    write(found, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
