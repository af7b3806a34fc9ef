"""Reference values of nncore::metrics from scikit-learn 1.9.1 and NumPy.

Prints the values that crates/nncore/tests/metrics_reference.rs pins (to
1e-12). The inputs are defined the same way on both sides: case A by decimal
literals, cases B-D by integer formulas whose floating-point values are exact
or correctly rounded in both languages.

    python3 -m venv target/venv-torch && target/venv-torch/bin/pip install scikit-learn==1.9.1 numpy
    target/venv-torch/bin/python scripts/compare/nncore_metrics_reference.py

scikit-learn has log_loss, brier_score_loss, roc_auc_score,
average_precision_score and roc_curve; it has no ECE or AURC, so those are
computed here in NumPy, following Guo et al. (2017) (bins (lo, hi] with
numpy.linspace edges) and Geifman et al. (2019) (risk-coverage curve, ties
taken in expectation over a random order).
"""

import numpy as np
import sklearn
from sklearn.metrics import (
    average_precision_score,
    brier_score_loss,
    log_loss,
    roc_auc_score,
    roc_curve,
)

PROBS_A = np.array(
    [
        [0.7, 0.2, 0.1],
        [0.1, 0.6, 0.3],
        [0.2, 0.2, 0.6],
        [0.5, 0.5, 0.0],
        [0.34, 0.33, 0.33],
        [0.0, 1.0, 0.0],
        [0.6, 0.3, 0.1],
        [0.25, 0.15, 0.6],
        [0.4, 0.4, 0.2],
        [0.9, 0.05, 0.05],
    ]
)
LABELS_A = np.array([0, 2, 2, 2, 1, 1, 0, 1, 1, 0])


def case_c():
    """n = 300, K = 4: integer weights w_ik = (7i + 13k + i*k) mod 11 + 1, p = w / sum(w); labels (5i + 3) mod 4 (integer sums are exact)."""
    i = np.arange(300)[:, None]
    k = np.arange(4)[None, :]
    w = ((7 * i + 13 * k + i * k) % 11 + 1).astype(float)
    return w / w.sum(axis=1, keepdims=True), (5 * np.arange(300) + 3) % 4


def case_b():
    """Ranking with many ties: positive when (i² + 3) mod 7 < 3, s_i = ((37 i) mod 101 mod 20 + 10·positive) / 30."""
    i = np.arange(120)
    positive = ((i * i + 3) % 7) < 3
    return ((37 * i) % 101 % 20 + 10 * positive) / 30.0, positive


def ece(probs, labels, bins):
    conf = probs.max(axis=1)
    pred = probs.argmax(axis=1)
    acc = (pred == labels).astype(float)
    edges = np.linspace(0.0, 1.0, bins + 1)
    total, table = 0.0, []
    for b, (lo, hi) in enumerate(zip(edges[:-1], edges[1:])):
        inside = (conf > lo) & (conf <= hi)
        if b == 0:
            inside |= conf == lo
        m = inside.sum()
        table.append(int(m))
        if m > 0:
            total += m / len(conf) * abs(acc[inside].mean() - conf[inside].mean())
    return total, table


def aurc(conf, correct):
    err = (~correct).astype(float)
    n = len(conf)
    order = np.argsort(-conf, kind="stable")
    c, e = conf[order], err[order]
    uniq, start, size = np.unique(-c, return_index=True, return_counts=True)
    expected = np.empty(n)
    before = 0.0
    for s, m in zip(start, size):
        rate = e[s : s + m].sum() / m
        expected[s : s + m] = before + rate * np.arange(1, m + 1)
        before += e[s : s + m].sum()
    value = np.mean(expected / np.arange(1, n + 1))
    n_err = int(err.sum())
    k = np.arange(1, n + 1)
    optimal = np.mean(np.maximum(0, k - (n - n_err)) / k)
    return value, optimal


def fpr95(scores, positive):
    fpr, tpr, _ = roc_curve(positive, scores, drop_intermediate=False)
    return fpr[np.argmax(tpr >= 0.95)]


def show(name, value):
    print(f"const {name}: f64 = {float(value)!r};")


print(f"// scikit-learn {sklearn.__version__}, NumPy {np.__version__}")
for tag, (probs, labels) in {"A": (PROBS_A, LABELS_A), "C": case_c()}.items():
    k = probs.shape[1]
    correct = probs.argmax(axis=1) == labels
    show(f"ACC_{tag}", correct.mean())
    show(f"NLL_{tag}", log_loss(labels, probs, labels=list(range(k))))
    show(f"BRIER_{tag}", brier_score_loss(labels, probs, labels=list(range(k)), scale_by_half=False))
    e15, table = ece(probs, labels, 15)
    show(f"ECE15_{tag}", e15)
    print(f"// ECE15_{tag} bin counts: {table}")
    show(f"ECE1_{tag}", ece(probs, labels, 1)[0])
    show(f"ECE4_{tag}", ece(probs, labels, 4)[0])
    a, opt = aurc(probs.max(axis=1), correct)
    show(f"AURC_{tag}", a)
    show(f"AURC_OPT_{tag}", opt)
    # misclassification detection: score 1 - max p, positives = errors
    score = 1.0 - probs.max(axis=1)
    show(f"AUROC_MIS_{tag}", roc_auc_score(~correct, score))
    show(f"AUPR_MIS_{tag}", average_precision_score(~correct, score))

scores, positive = case_b()
show("AUROC_B", roc_auc_score(positive, scores))
show("AUPR_B", average_precision_score(positive, scores))
show("FPR95_B", fpr95(scores, positive))
a, opt = aurc(scores, positive)
show("AURC_B", a)
show("AURC_OPT_B", opt)
show("AUPR_ALL_POSITIVE", average_precision_score(np.ones(5, bool), np.array([0.1, 0.2, 0.2, 0.5, 0.9])))
with np.errstate(all="ignore"):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = roc_auc_score(np.zeros(5, bool), np.arange(5.0))
print(f"// roc_auc_score with one class: {one} (UndefinedMetricWarning); nncore: Error::Undefined")
