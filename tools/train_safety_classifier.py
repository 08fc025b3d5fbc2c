"""Train the learned layer of the threat screen (kenning.safety.learned) and write its weights.

    python tools/train_safety_classifier.py /work/data-cache/public.jsonl

Inputs (never the held-out split of the corpus: the script refuses to read it):
- PUBLIC: a JSONL of {"text", "label" (1 = injection), "source", "split" (train|calib|test)}
  built from public labelled data kept outside the repository (see
  src/kenning/safety/model/README.md for the sources, their licences and how to rebuild it);
- the dev split of tests/safety/corpus/corpus.jsonl;
- this repository's own documentation paragraphs (README.md, prompts, bundled skills) as
  benign text about memory, tools and safety;
- the ordinary notes of tests/safety/test_patterns.py (CLEAN), for calibration only.
Each input is split by a stable hash: 80 % train, 20 % calibration. The model is logistic
regression over hashed character 3-5-grams, class-balanced, L2-regularised, fitted by full-
batch Adam. The block threshold is above the highest score of
the calibration benign texts; the review threshold allows 5 %.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from kenning.safety import learned  # noqa: E402

CORPUS = ROOT / "tests" / "safety" / "corpus" / "corpus.jsonl"
DOCS = ["README.md", "src/kenning/prompts/*.md", "src/kenning/skills/bundled/*/SKILL.md"]
BLOCK_FP = 0.0  # the classifier never refuses a calibration benign text
REVIEW_FP = 0.05
MARGIN = 0.03


def _fold(text: str) -> str:
    return "calib" if int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % 5 == 0 else "train"


def load(public: Path) -> list[tuple[str, int, str, str]]:
    rows: list[tuple[str, int, str, str]] = []
    for line in public.read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        r = json.loads(line)
        rows.append((r["text"], int(r["label"]), r["split"], r["source"]))
    for line in CORPUS.read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        r = json.loads(line)
        if r["split"] != "dev":
            continue  # the held-out split is never read here
        rows.append((r["text"], int(r["label"] == "malicious"), _fold(r["text"]), "corpus-dev"))
    for pattern in DOCS:
        for path in ROOT.glob(pattern):
            for para in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
                para = para.strip()
                if 20 <= len(para) <= 1500 and not para.startswith("```"):
                    rows.append((para, 0, _fold(para), "kenning-docs"))
    spec = importlib.util.spec_from_file_location("clean", ROOT / "tests/safety/test_patterns.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows += [(text, 0, "calib", "test-clean") for text in module.CLEAN]
    return rows


def fit(feats: list[np.ndarray], y: np.ndarray, epochs: int = 300) -> tuple[np.ndarray, float]:
    size = 1 << learned.BUCKETS_LOG2
    lengths = np.array([len(f) for f in feats])
    flat = np.concatenate(feats)
    owner = np.repeat(np.arange(len(feats)), lengths)
    norm = 1.0 / np.sqrt(np.maximum(lengths, 1))
    pos = y.sum()
    cw = np.where(y == 1, len(y) / (2 * pos), len(y) / (2 * (len(y) - pos)))
    w = np.zeros(size)
    b = 0.0
    m_w, v_w, m_b, v_b = np.zeros(size), np.zeros(size), 0.0, 0.0
    lr, l2, beta1, beta2 = 0.05, 1e-4, 0.9, 0.999
    for t in range(1, epochs + 1):
        z = np.bincount(owner, weights=w[flat], minlength=len(feats)) * norm + b
        p = 1.0 / (1.0 + np.exp(-z))
        g = (p - y) * cw / len(y)
        grad_w = np.bincount(flat, weights=np.repeat(g * norm, lengths), minlength=size) + l2 * w
        grad_b = g.sum()
        m_w = beta1 * m_w + (1 - beta1) * grad_w
        v_w = beta2 * v_w + (1 - beta2) * grad_w**2
        m_b = beta1 * m_b + (1 - beta1) * grad_b
        v_b = beta2 * v_b + (1 - beta2) * grad_b**2
        w -= lr * (m_w / (1 - beta1**t)) / (np.sqrt(v_w / (1 - beta2**t)) + 1e-8)
        b -= lr * (m_b / (1 - beta1**t)) / (np.sqrt(v_b / (1 - beta2**t)) + 1e-8)
    return w, b


def main() -> int:
    public = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/work/data-cache/public.jsonl")
    rows = load(public)
    train = [r for r in rows if r[2] == "train"]
    calib = [r for r in rows if r[2] == "calib"]
    test = [r for r in rows if r[2] == "test"]
    feats = [learned.features(r[0]) for r in train]
    y = np.array([r[1] for r in train], dtype=float)
    w, b = fit(feats, y)
    # Scored as shipped: float16 weights.
    model = learned.Model(w.astype(np.float16).astype(np.float32), float(b), 1.0, 1.0)

    def scores(part: list[tuple[str, int, str, str]], label: int) -> np.ndarray:
        return np.array([learned.score(model, r[0]) for r in part if r[1] == label])

    benign, malicious = scores(calib, 0), scores(calib, 1)
    # Notes are stored and rendered together: two benign notes joined must pass too.
    rng = np.random.default_rng(14)
    plain = [r[0] for r in calib if r[1] == 0]
    pairs = [plain[i] + "\n" + plain[j] for i, j in rng.integers(0, len(plain), (3000, 2))]
    joined = np.array([learned.score(model, text) for text in pairs])
    # A margin over the highest benign score: a note joined to another scores a little higher.
    highest = max(float(np.quantile(benign, 1 - BLOCK_FP, method="higher")), float(joined.max()))
    block = min(0.99, highest + MARGIN)
    review = float(np.quantile(benign, 1 - REVIEW_FP, method="higher")) + 1e-6
    print(f"train {len(train)} (pos {int(y.sum())}), calib {len(calib)}, test {len(test)}")
    print(f"block {block:.4f}: calib recall {np.mean(malicious >= block):.3f}, "
          f"FP {np.mean(benign >= block):.4f}")
    print(f"review {review:.4f}: calib recall {np.mean(malicious >= review):.3f}, "
          f"FP {np.mean(benign >= review):.4f}")
    if test:
        tb, tm = scores(test, 0), scores(test, 1)
        print(f"public test: recall {np.mean(tm >= block):.3f} at block, FP {np.mean(tb >= block):.4f}")
    learned.MODEL_PATH.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        learned.MODEL_PATH,
        weights=w.astype(np.float16),
        bias=np.float32(b),
        block=np.float32(block),
        review=np.float32(review),
    )
    print(f"wrote {learned.MODEL_PATH} ({learned.MODEL_PATH.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
