"""Build the public training file the learned layer's trainer reads (its ``PUBLIC`` path).

    pip install pyarrow                     # to read deepset's parquet files
    git clone https://github.com/yunwei37/satml-llmail-injection
    git clone https://github.com/Giskard-AI/prompt-injections
    git clone https://github.com/sinanw/llm-security-prompt-injection
    python tools/safety_public_data.py --jailbreak-llms satml-llmail-injection \\
        --giskard prompt-injections --deepset llm-security-prompt-injection

One JSON object a line — ``text``, ``label`` (1 = attack), ``source`` (``owner/name:file``),
``split`` — written to ``--out`` (the trainer's default path). The sources and their licences
are listed in src/kenning/safety/model/README.md; none of their text enters this repository,
only the weights trained on it. What is taken:

- jailbreak_llms (Shen et al., CCS 2024; MIT), ``jailbreak_prompts_2023_12_25.csv`` as copied
  into satml-llmail-injection's ``data/jailbreak_human_set2/``: the distinct prompts whose
  ``jailbreak`` column is True, split ``train``;
- Giskard's ``prompt_injections.csv`` (MIT): every prompt, split ``train``;
- deepset/prompt-injections (Apache-2.0) as the parquet copy in llm-security-prompt-injection's
  ``data/raw/``: its own train and test splits with their labels (the trainer reads only the
  train split's benign rows, never the test split).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train_safety_classifier import BENIGN_PROMPTS, JAILBREAK_SOURCES, PUBLIC

Row = dict[str, object]


def jailbreak_llms(repo: Path) -> Iterator[Row]:
    path = repo / "data" / "jailbreak_human_set2" / "jailbreak_prompts_2023_12_25.csv"
    seen: set[str] = set()
    for row in _csv(path):
        text = row["prompt"]
        if row["jailbreak"].strip().lower() == "true" and text not in seen:
            seen.add(text)
            yield _row(text, 1, f"{JAILBREAK_SOURCES[0]}:{path.name}", "train")


def giskard(repo: Path) -> Iterator[Row]:
    path = repo / "prompt_injections.csv"
    for row in _csv(path):
        yield _row(row["prompt"], 1, f"{JAILBREAK_SOURCES[1]}:{path.name}", "train")


def deepset(repo: Path) -> Iterator[Row]:
    import pyarrow.parquet as pq  # only this builder needs it

    for path in sorted((repo / "data" / "raw").glob("*.parquet")):
        split = path.name.split("-", 1)[0]  # train-00000-of-00001-….parquet
        for row in pq.read_table(path).to_pylist():
            yield _row(row["text"], int(row["label"]), f"{BENIGN_PROMPTS}:{path.name}", split)


def _csv(path: Path) -> Iterator[dict[str, str]]:
    if not path.is_file():
        raise SystemExit(f"{path} not found: is the repository cloned there?")
    csv.field_size_limit(sys.maxsize)  # some jailbreak prompts exceed csv's 128 KB default
    with path.open(encoding="utf-8", newline="") as handle:
        yield from csv.DictReader(handle)


def _row(text: str, label: int, source: str, split: str) -> Row:
    return {"text": text, "label": label, "source": source, "split": split}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    for flag, clone in (
        ("--jailbreak-llms", "yunwei37/satml-llmail-injection"),
        ("--giskard", "Giskard-AI/prompt-injections"),
        ("--deepset", "sinanw/llm-security-prompt-injection"),
    ):
        parser.add_argument(flag, type=Path, required=True, help=f"a clone of {clone}")
    parser.add_argument("--out", type=Path, default=PUBLIC, help=f"default {PUBLIC}")
    args = parser.parse_args()
    rows = [*jailbreak_llms(args.jailbreak_llms), *giskard(args.giskard), *deepset(args.deepset)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    tmp.replace(args.out)
    counts = Counter(f"{r['source']} {r['split']} label={r['label']}" for r in rows)
    for key, n in sorted(counts.items()):
        print(f"{n:>6}  {key}")
    print(f"wrote {len(rows):,} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
