"""rule-following side by side: a plain-Python generator following the
official `datasets/addition/create.py` and `cot_gen.py` (GraphPKU/Case_or_Rule)
produces the same 100,489 addition records with fine-tuning scratchpads as the
crate (byte-identical JSON required, time ratio reported), and scikit-learn's
`KNeighborsClassifier(n_neighbors=1)` on the crate's random split of
[0, 40)^2 is compared prediction by prediction with the crate's 1-NN.

Run (after `cargo build --release --example rule_following_export`):

    python3 -m venv target/compare-venv-rf
    target/compare-venv-rf/bin/pip install numpy scikit-learn
    target/compare-venv-rf/bin/python scripts/compare/rule_following.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def scratchpad(a: int, b: int) -> str:
    """The official fine-tuning scratchpad (decimal), line count from the true sum."""
    a_digits, b_digits = list(str(a)), list(str(b))
    lines, answer, c = [], "", 0
    for _ in range(len(str(a + b)) + 1):
        lines.append(f"{''.join(a_digits)}+{''.join(b_digits)},{answer},C:{c}")
        if a_digits or b_digits:
            x = int(a_digits.pop()) if a_digits else 0
            y = int(b_digits.pop()) if b_digits else 0
            r = x + y + c
            answer = str(r % 10) + answer
            c = r // 10
        else:
            if c:
                answer = str(c) + answer
            c = 0
    return "\n".join(lines) + f"\n{a + b}"


def generate(n: int) -> str:
    samples = []
    for a in range(n):
        for b in range(n):
            samples.append(
                {"id": n * a + b, "question": f"{a}+{b}=", "a": a, "b": b,
                 "answers": [scratchpad(a, b)], "gt": str(a + b)}
            )
    return json.dumps(samples)


def main() -> None:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    exe = target / "release" / "examples" / "rule_following_export"
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([str(exe), tmp], check=True, capture_output=True, text=True)
        print(out.stdout.strip())
        meta = json.loads(Path(tmp, "meta.json").read_text())
        ours = Path(tmp, "generated.json").read_text()
    n = meta["n"]
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        text = generate(n)
        best = min(best, time.perf_counter() - t)
    print(f"records identical: {text == ours} ({meta['records']} records)")
    print(f"generation: python {best:.3f} s, rust {meta['generate_seconds_best_of_5']:.3f} s, "
          f"python/rust = {best / meta['generate_seconds_best_of_5']:.1f}x")
    try:
        import numpy as np
        from sklearn.neighbors import KNeighborsClassifier
    except ImportError:
        print("scikit-learn not installed: kNN comparison skipped")
        return
    k = meta["knn"]
    clf = KNeighborsClassifier(n_neighbors=1, algorithm="brute")
    clf.fit(np.array(k["train"]), np.array(k["train_labels"]))
    pred = clf.predict(np.array(k["test"]))
    same = sum(p == q for p, q in zip(pred, k["pred"]))
    dist, idx = clf.kneighbors(np.array(k["test"]), n_neighbors=2)
    tie = dist[:, 0] == dist[:, 1]
    unique = [i for i in range(len(pred)) if not tie[i]]
    same_unique = sum(pred[i] == k["pred"][i] for i in unique)
    # With ties, scikit-learn's pick depends on numpy's argpartition; the crate
    # takes the lowest training index. Check the crate's pick is one of the tied.
    d_all = ((np.array(k["test"])[:, None, :] - np.array(k["train"])[None, :, :]) ** 2).sum(-1)
    labels = np.array(k["train_labels"])
    valid = sum(k["pred"][i] in set(labels[d_all[i] == d_all[i].min()]) for i in range(len(pred)))
    print(f"kNN: {same}/{len(pred)} predictions identical; {same_unique}/{len(unique)} where the nearest "
          f"case is unique; {int(tie.sum())} ties, crate's pick among the tied nearest cases in {valid}/{len(pred)}")


if __name__ == "__main__":
    sys.exit(main())
