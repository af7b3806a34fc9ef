#!/usr/bin/env python3
"""conformal-sets side by side with MAPIE (and crepes, and a numpy port of the
official RAPS code): identical prediction sets, then speed.

One command. Part 1 checks that the sets are IDENTICAL on the same probability
matrices; part 2 runs the criterion benchmark ``benches/conformal_sets.rs``
(``cargo bench --bench conformal_sets``), reads its medians from
``target/criterion/<group>/<id>/new/estimates.json`` and times the peers on the
very same arrays; it prints Markdown tables (the ones in docs/perf.md).

Our sets come from the crate's example ``predict_csv`` (``cargo run --release
-p conformal-sets --example predict_csv -- ...``), which reads probability
matrices and labels from files, calibrates, and writes one set per line. The
benchmark's arrays (the crate's synthetic ``Dirichlet(0.1·1_K)`` classifier,
``seeded(7)``) are written by ``predict_csv synth`` and loaded here, so the
identity check and the timing both run on exactly what criterion measures.

Which MAPIE setting is which of ours (MAPIE 1.x, ``SplitConformalClassifier(
estimator, confidence_level=1-α, conformity_score=..., prefit=True)``):

- ``"lac"`` = ``Lac`` with the FiniteSample rule (q̂ = the ⌈(n+1)(1−α)⌉-th
  smallest score: MAPIE's ``np.quantile(s, ⌈(n+1)(1−α)⌉/n, method="lower")``).
  MAPIE includes y when ``1 − π_y − q̂ ≤ 1e-8`` (its EPSILON), we when
  ``1 − π_y ≤ q̂``.
- ``"top_k"`` = ``TopKRank`` with FiniteSample (MAPIE scores the 0-based rank
  and keeps ranks 0..=q̂, we score the 1-based rank and keep the top ⌊q̂⌋).
- ``"aps"`` with ``include_last_label="randomized"`` = randomised APS with
  ``allow_empty`` (MAPIE's randomised sets can be empty): MAPIE's calibration
  score is always randomised, ``C_o − u·π_y``, i.e. ours
  ``C_{o−1} + U·π_y`` with ``U = 1 − u``, and its prediction keeps the last
  label when ``u ≥ (C_L − q̂)/π_L``, which is ours for the same ``U = 1 − u``.
  The script replays MAPIE's ``u`` (``RandomState(random_state).uniform``,
  drawn afresh for calibration and for prediction) into the example
  (``--u-cal``/``--u-test``). ``include_last_label=True/False`` are
  deterministic set rules on top of a randomised q̂: no counterpart here.
- ``"raps"``: no counterpart. MAPIE holds out part of the calibration data to
  tune ``k_reg``/``λ`` (no way to fix them) and calibrates on the rest, and
  its randomised V has a different denominator (see ``RAPS_NOTE``). The RAPS
  of the paper is checked against a numpy port of the official ``giq``/``gcq``
  instead (same ``U``, both quantile rules), and MAPIE's RAPS machinery is
  also run with the tuning switched off (a subclass pinning ``k_reg``/``λ``)
  to locate the remaining difference.
- crepes ``ConformalClassifier`` on ``hinge`` scores with
  ``smoothing=False`` = ``Lac`` with FiniteSample whenever ``(n+1)(1−α)`` is
  not an integer (crepes keeps ``p ≥ α``, so at an integer it keeps one more
  rank). crepes computes p-values in a Python loop over every (row, label)
  pair against every calibration score, so it is only run on the small cases.

Timing: ours is criterion's median of calibrate(n rows) + predict(n rows); the
peers' is the median of ``--repeats`` runs of ``conformalize`` +
``predict_set`` (after one warm-up), with BLAS pinned to one thread. MAPIE
gets the probabilities from a prefit wrapper whose ``predict_proba`` returns
rows of the precomputed matrix by index (``X`` is the row index); that gather
is part of MAPIE's time and its cost is printed.

Setup (once, from the repository root; Python 3.11):

    python3 -m venv target/compare-venv
    target/compare-venv/bin/pip install numpy scipy threadpoolctl mapie crepes

Run (from the repository root):

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE target/compare-venv/bin/python scripts/compare/conformal_sets.py

(OPENBLAS_CORETYPE/L2_SIZE force an OpenBLAS kernel that slows a current numpy;
see scripts/compare/mlcore.py.) Both sides run with glibc's malloc told to
reuse freed memory (``MALLOC_MMAP_THRESHOLD_``/``MALLOC_TRIM_THRESHOLD_``, as
in mlcore.py; ``--no-malloc-tuning`` keeps the defaults).

Options: ``--skip-bench`` (reuse target/criterion), ``--skip-identity``,
``--skip-timing``, ``--cpu RUNS`` (time by CPU clock instead of criterion's
wall clock: ours from ``predict_csv --cpu-runs RUNS``, the thread's CPU time
of each calibrate + predict; the peers' ``time.process_time()`` of each call;
medians of RUNS per side, the figures docs/perf.md records under load),
``--repeats N`` (peer calls per case, default 3), ``--runs N``
(repeat benchmark + peers N times and report medians and the range of the
ratio: on a shared 2-core VM one run's ratio moves by tens of percent;
docs/perf.md uses ``--runs 3``).
Exit status 1 if an asserted identity fails.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from fractions import Fraction
from pathlib import Path

from _common import ROOT, blas_report, criterion_median_ns, fmt_ms, load_average, machine_report, target_dir  # noqa: E402,F401  (pins BLAS threads first)

import numpy as np  # noqa: E402  (after the thread pinning above)

ALPHA = 0.1
LAMBDA, K_REG = 0.5, 5  # the benchmark's RAPS (the trial's Few-NERD/ObjectNet settings)
BENCH_SIZES = ((1_000, 1_000), (10_000, 100), (10_000, 1_000))
MAPIE_SEED = 0
EXAMPLE = ["cargo", "run", "--release", "-q", "-p", "conformal-sets", "--example", "predict_csv", "--"]

RAPS_NOTE = (
    "MAPIE's RAPS is not the paper's. (1) Tuning split: it always holds out a stratified "
    "share of the calibration rows to pick k_reg (the ⌈(n+1)(1−α)⌉-th smallest 0-based "
    "true-label rank, +1) and λ (smallest mean set size over {0.001, 0.01, 0.1, 0.2, 0.5}) and "
    "computes q̂ on the remaining rows only; k_reg and λ cannot be set, and the share is 10% "
    "whatever size_raps says (MAPIE 1.6.0's set_external_attributes overwrites size_raps with "
    "None, and StratifiedShuffleSplit(test_size=None) means 0.1). (2) Randomisation: it keeps "
    "the last label L of the deterministic set when u ≥ (C_L + λ(L−k_reg)⁺ − q̂)/D with "
    "D = π_L − λ(L−k_reg)⁺ + λ·[L > k_reg], i.e. D = π_L − λ(L−k_reg−1) once L > k_reg; the "
    "official gcq (and this crate, U = 1 − u) divide by π_L, so the two agree only for "
    "L ≤ k_reg + 1 (with λ = 0.5 and L ≥ k_reg + 2, D < 0 and MAPIE never drops the label)."
)


# ------------------------------------------------------------------ helpers



def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run_cargo(cmd: list[str]) -> subprocess.CompletedProcess:
    """Runs cargo from the repository root (it waits for a held build lock by itself)."""
    return subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)




def finite_rank(n: int, alpha: float) -> int:
    """⌈(n+1)(1−α)⌉ in exact arithmetic (α read as the decimal it was written as)."""
    return math.ceil((n + 1) * (1 - Fraction(repr(alpha))))


def write_text(path: Path, a: np.ndarray, integer: bool = False) -> None:
    """Plain text, one row per line; floats with 17 significant digits (exact round trip)."""
    np.savetxt(path, a, fmt="%d" if integer else "%.17g")


def sets_of(mask: np.ndarray) -> list[tuple[int, ...]]:
    """Boolean (n, K) membership → sorted label tuples."""
    return [tuple(int(j) for j in np.flatnonzero(row)) for row in mask]




# --------------------------------------------------------------- data sets


class Case:
    """Calibration and test probabilities (+ labels) on disk, for the example, and in memory."""

    def __init__(self, name: str, pc: np.ndarray, yc: np.ndarray, pt: np.ndarray, yt: np.ndarray, files: dict):
        self.name, self.pc, self.yc, self.pt, self.yt, self.files = name, pc, yc, pt, yt, files

    @property
    def shape(self) -> str:
        return f"{len(self.pc)}/{len(self.pt)}/{self.pc.shape[1]}"


def text_case(name: str, pc, yc, pt, yt, workdir: Path) -> Case:
    """A case written as plain text (calibration as whitespace, test as CSV)."""
    d = workdir / name
    d.mkdir(parents=True, exist_ok=True)
    files = {"cal_probs": d / "cal_probs.txt", "cal_labels": d / "cal_labels.txt", "test_probs": d / "test_probs.csv"}
    write_text(files["cal_probs"], pc)
    write_text(files["cal_labels"], yc, integer=True)
    np.savetxt(files["test_probs"], pt, fmt="%.17g", delimiter=",")
    return Case(name, pc, yc, pt, yt, files)


def spec_cross_check(workdir: Path) -> Case:
    """The spec's concrete cross-check: K=4, 20 calibration + 5 test rows."""
    rng = np.random.default_rng(0)
    p = rng.dirichlet(0.7 * np.ones(4), 25)
    y = np.array([rng.choice(4, p=row) for row in p])
    p = np.round(p, 4)
    p /= p.sum(axis=1, keepdims=True)
    return text_case("spec_K4", p[:20], y[:20], p[20:], y[20:], workdir)


def dirichlet_case(name: str, n: int, k: int, conc: float, seed: int, workdir: Path) -> Case:
    """A numpy-drawn calibrated classifier (π ~ Dirichlet(c·1_K), y ~ π), as text."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(conc * np.ones(k), 2 * n)
    y = (rng.random(2 * n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1).clip(max=k - 1)
    return text_case(name, p[:n], y[:n], p[n:], y[n:], workdir)


def bench_case(n: int, k: int, workdir: Path) -> Case:
    """The benchmark's own arrays, written by `predict_csv synth` (seeded(7))."""
    d = workdir / f"bench_n{n}_K{k}"
    # Always rewritten (a second or two), so the arrays follow the crate's generator.
    run_cargo([*EXAMPLE, "synth", "--n", str(n), "--classes", str(k), "--seed", "7", "--out-dir", str(d)])
    files = {"cal_probs": d / "cal_probs.npy", "cal_labels": d / "cal_labels.txt", "test_probs": d / "test_probs.npy"}
    pc, pt = np.load(files["cal_probs"]), np.load(files["test_probs"])
    yc = np.loadtxt(files["cal_labels"], dtype=np.int64)
    yt = np.loadtxt(d / "test_labels.txt", dtype=np.int64)
    return Case(f"bench n{n} K{k}", pc, yc, pt, yt, files)


# ------------------------------------------------------------------- ours


def ours(case: Case, score: str, *, rule: str = "finite", alpha: float = ALPHA, flags=(), u=None):
    """(q̂, sets) from the crate's example; `u` = (U_cal, U_test) to replay."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sets.txt"
        cmd = [*EXAMPLE, "--cal-probs", str(case.files["cal_probs"]), "--cal-labels", str(case.files["cal_labels"])]
        cmd += ["--test-probs", str(case.files["test_probs"]), "--score", score, "--alpha", repr(alpha)]
        cmd += ["--rule", rule, "--out", str(out), *flags]
        if u is not None:
            for name, values in zip(("--u-cal", "--u-test"), u):
                path = Path(tmp) / f"{name[2:]}.txt"
                write_text(path, values)
                cmd += [name, str(path)]
        proc = run_cargo(cmd)
        q_hat = float(proc.stderr.split("q_hat=")[1].split()[0])
        sets = [tuple(int(v) for v in line.split()) for line in out.read_text().split("\n")[:-1]]
    return q_hat, sets


# ------------------------------------------------------------------ MAPIE


def precomputed(proba: np.ndarray):
    """A fitted sklearn classifier whose predict_proba returns rows of `proba` by index (X[:, 0])."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Precomputed(ClassifierMixin, BaseEstimator):
        def __init__(self, proba=None):
            self.proba = proba

        def fit(self, X, y=None):
            return self

        def predict_proba(self, X):
            return self.proba[np.asarray(X)[:, 0].astype(np.intp)]

        def predict(self, X):
            return self.predict_proba(X).argmax(axis=1)

    est = Precomputed(proba)
    est.classes_ = np.arange(proba.shape[1])
    est.n_features_in_ = 1
    return est


@contextlib.contextmanager
def mapie_epsilon(value: float | None):
    """Temporarily replaces MAPIE's absolute tolerance EPSILON (1e-8) in its set modules."""
    if value is None:
        yield
        return
    import importlib

    names = ["aps", "lac", "naive", "raps", "topk", "utils"]
    mods = [importlib.import_module(f"mapie.conformity_scores.sets.{m}") for m in names]
    saved = [(m, m.EPSILON) for m in mods if hasattr(m, "EPSILON")]
    try:
        for m, _ in saved:
            m.EPSILON = np.float64(value)
        yield
    finally:
        for m, v in saved:
            m.EPSILON = v


def pinned_raps(k_reg: int, lam: float, official_v: bool = False):
    """MAPIE's RAPS score with its tuning switched off: no held-out split, fixed k_reg and λ;
    `official_v` also replaces its tie-break V by the official one (denominator π_L)."""
    from mapie.conformity_scores.sets.aps import APSConformityScore
    from mapie.conformity_scores.sets.raps import RAPSConformityScore
    from mapie.utils import _compute_classification_quantile

    class PinnedRAPS(RAPSConformityScore):
        def split_data(self, X, y, y_enc, sample_weight=None, groups=None):
            self.n_samples_ = len(y_enc)
            return X, y, y_enc, sample_weight, groups

        def get_conformity_scores(self, y, y_pred, y_enc=None, **kwargs):
            kwargs.pop("predict_params", None)
            return APSConformityScore.get_conformity_scores(self, y, y_pred, y_enc=y_enc, **kwargs)

        def get_conformity_score_quantiles(self, conformity_scores, alpha_np, cv, agg_scores="mean", **kwargs):
            self.k_star = np.full(len(alpha_np), k_reg)
            self.lambda_star = lam
            reg = self._regularize_conformity_score(self.k_star, lam, conformity_scores, self.cutoff)
            return _compute_classification_quantile(reg, alpha_np)

        if official_v:
            _compute_v_parameter = APSConformityScore._compute_v_parameter

    return PinnedRAPS()


def mapie_run(case: Case, score, *, alpha: float = ALPHA, include_last_label=True, random_state=MAPIE_SEED, epsilon=None):
    """MAPIE conformalize + predict_set on the case; returns (q̂, membership mask, score object)."""
    from mapie.classification import SplitConformalClassifier

    n = len(case.pc)
    proba = np.vstack([case.pc, case.pt])
    x = np.arange(len(proba))[:, None]
    with mapie_epsilon(epsilon), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        clf = SplitConformalClassifier(
            precomputed(proba), confidence_level=1 - alpha, conformity_score=score, prefit=True, random_state=random_state
        )
        clf.conformalize(x[:n], case.yc)
        _, sets = clf.predict_set(x[n:], conformity_score_params={"include_last_label": include_last_label})
    cs = clf._mapie_classifier.conformity_score_function_
    return float(np.ravel(cs.quantiles_)[0]), sets[:, :, 0], cs


def mapie_u(n_cal: int, n_test: int, random_state=MAPIE_SEED):
    """MAPIE's uniforms (fresh RandomState per call) as our U = 1 − u."""
    u_cal = np.random.RandomState(random_state).uniform(size=n_cal)
    u_test = np.random.RandomState(random_state).uniform(size=n_test)
    return 1.0 - u_cal, 1.0 - u_test


# ------------------------------------------------- numpy port of the official code


def sort_sum(scores):
    """The official `sort_sum` (raps/utils.py)."""
    idx = scores.argsort(axis=1)[:, ::-1]
    ordered = np.sort(scores, axis=1)[:, ::-1]
    return idx, ordered, np.cumsum(ordered, axis=1)


def official_raps(pc, yc, pt, u_cal, u_test, *, alpha=ALPHA, lam=LAMBDA, kreg=K_REG, rule="higher", allow_zero_sets=False):
    """The official giq/gcq (layer6ai-labs/hitl-conformal-prediction, raps/conformal.py),
    vectorised over rows, randomised, with the U's given. Returns (q̂, membership mask)."""
    n, k = pc.shape
    penalties = np.zeros(k)
    penalties[kreg:] += lam
    pen_cum = np.cumsum(penalties)
    # giq (calibration always uses randomized=True, allow_zero_sets=True)
    idx, ordered, cumsum = sort_sum(pc)
    rows = np.arange(n)
    pos = np.argmax(idx == yc[:, None], axis=1)
    above = np.where(pos > 0, cumsum[rows, np.maximum(pos - 1, 0)], 0.0)
    e = u_cal * ordered[rows, pos] + above + pen_cum[pos]
    if rule == "higher":
        tau = np.quantile(e, 1 - alpha, method="higher")
    else:
        tau = np.partition(e, finite_rank(n, alpha) - 1)[finite_rank(n, alpha) - 1]
    # gcq
    idx, ordered, cumsum = sort_sum(pt)
    rows = np.arange(len(pt))
    size = np.minimum(((cumsum + pen_cum) <= tau).sum(axis=1) + 1, k)
    last = size - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (tau - (cumsum[rows, last] - ordered[rows, last]) - pen_cum[last]) / ordered[rows, last]
    size = size - (u_test >= v).astype(int)
    if tau == 1.0:
        size[:] = k
    if not allow_zero_sets:
        size[size == 0] = 1
    member_sorted = np.arange(k)[None, :] < size[:, None]
    mask = np.zeros_like(member_sorted)
    np.put_along_axis(mask, idx, member_sorted, axis=1)
    return float(tau), mask


def numpy_lac(pc, yc, pt, alpha=ALPHA):
    """Plain vectorised LAC with the finite-sample order statistic."""
    s = 1.0 - pc[np.arange(len(pc)), yc]
    r = finite_rank(len(s), alpha)
    q = np.partition(s, r - 1)[r - 1]
    return float(q), (1.0 - pt) <= q


# ------------------------------------------------------------ identity checks


class Report:
    def __init__(self):
        self.rows: list[tuple] = []
        self.notes: list[str] = []
        self.failed: list[str] = []

    def add(self, check, case, ours_q, peer, peer_q, same, total, verdict, asserted=True):
        ok = same == total
        if asserted and not ok:
            self.failed.append(f"{check} on {case.name}: {total - same} of {total} sets differ")
        q = "—" if ours_q is None else f"{ours_q:.10g}"
        pq = "—" if peer_q is None else f"{peer_q:.10g}"
        self.rows.append((check, case.name, case.shape, peer, q, pq, f"{same}/{total}", verdict))
        log(f"  {check:<34} {case.name:<16} {peer:<34} {same}/{total}  {verdict}")

    def note(self, text: str):
        self.notes.append(text)
        log("  note: " + text)


def agree(a, b) -> int:
    return sum(x == y for x, y in zip(a, b))


def check_spec(case: Case, rep: Report) -> None:
    """The spec's concrete cross-check: LAC q̂ = 0.7821, rank 17, sets [[0,2],[3],[1],[0,1],[1,2,3]]."""
    want = [(0, 2), (3,), (1,), (0, 1), (1, 2, 3)]
    want_y = [0, 0, 3, 1, 1, 2, 2, 2, 3, 2, 2, 2, 0, 3, 1, 3, 1, 3, 0, 3]
    if list(case.yc) != want_y:
        rep.failed.append(f"spec recipe: y_cal = {list(case.yc)}, expected {want_y}")
    assert finite_rank(20, 0.2) == 17
    q, s = ours(case, "lac", alpha=0.2)
    ok = abs(q - 0.7821) < 1e-12
    rep.add("LAC vs spec (q̂ 0.7821)", case, q, "spec values", 0.7821, agree(s, want) if ok else 0, 5, "identical")
    mq, mm, _ = mapie_run(case, "lac", alpha=0.2)
    rep.add("LAC vs MAPIE lac", case, q, "MAPIE lac", mq, agree(s, sets_of(mm)), 5, "identical")
    rep.add("MAPIE lac vs spec", case, mq, "spec values", 0.7821, agree(sets_of(mm), want), 5, "identical")
    crepes = crepes_sets(case, 0.2)
    if crepes is not None:
        rep.add("LAC vs crepes hinge", case, q, "crepes (smoothing=False)", None, agree(s, crepes), 5, "identical")
    # MAPIE's default APS (include_last_label=True) — no counterpart; recorded.
    _, am, _ = mapie_run(case, "aps", alpha=0.2)
    rep.note(
        f"spec cross-check: MAPIE aps with its default include_last_label=True (random_state={MAPIE_SEED}) "
        f"gives {[list(t) for t in sets_of(am)]}; its q̂ comes from randomised scores (C_o − u·π_y), "
        "so this set depends on MAPIE's u draws; it is not a rule of this crate."
    )


def crepes_sets(case: Case, alpha: float):
    try:
        from crepes import ConformalClassifier
        from crepes.extras import hinge
    except ImportError:
        return None
    cc = ConformalClassifier().fit(hinge(case.pc, np.arange(case.pc.shape[1]), case.yc))
    return sets_of(cc.predict_set(hinge(case.pt), confidence=1 - alpha, smoothing=False).astype(bool))


def to_mask(sets, k: int) -> np.ndarray:
    mask = np.zeros((len(sets), k), dtype=bool)
    for i, t in enumerate(sets):
        mask[i, list(t)] = True
    return mask


def versus_mapie(rep: Report, check: str, case: Case, q: float, s, peer: str, run, q_shift: int = 0) -> None:
    """Ours vs MAPIE as shipped; where they differ, MAPIE again with its EPSILON = 0 (asserted identical)."""
    mq, mm, _ = run(None)
    n_test = len(case.pt)
    same = agree(s, sets_of(mm))
    shown_q = None if mq is None else mq + q_shift
    if same == n_test:
        rep.add(check, case, q, peer, shown_q, same, n_test, "identical")
        return
    ours_mask = to_mask(s, case.pt.shape[1])
    extra, missing = int((mm & ~ours_mask).sum()), int((ours_mask & ~mm).sum())
    rep.add(check, case, q, peer, shown_q, same, n_test,
            f"MAPIE has {extra} labels more, {missing} fewer: its 1e-8 tolerance (next row)", asserted=False)
    _, mm0, _ = run(0.0)
    rep.add(check, case, q, peer + ", EPSILON=0", None, agree(s, sets_of(mm0)), n_test, "identical")


def check_case(case: Case, rep: Report, small: bool) -> None:
    n_test = len(case.pt)
    # LAC vs MAPIE lac (and crepes on small cases)
    q, s = ours(case, "lac")
    versus_mapie(rep, "LAC, FiniteSample", case, q, s, "MAPIE lac", lambda eps: mapie_run(case, "lac", epsilon=eps))
    if small:
        cr = crepes_sets(case, ALPHA)
        if cr is not None:
            rep.add("LAC, FiniteSample", case, q, "crepes (smoothing=False)", None, agree(s, cr), n_test, "identical")

    # top-k rank score vs MAPIE top_k (MAPIE's q̂ is the 0-based rank: shown +1)
    q, s = ours(case, "topk-rank")
    versus_mapie(rep, "top-k rank, FiniteSample", case, q, s, "MAPIE top_k (q̂ + 1)",
                 lambda eps: mapie_run(case, "top_k", epsilon=eps), q_shift=1)

    # randomised APS vs MAPIE aps 'randomized', with MAPIE's u replayed
    q, s = ours(case, "aps", flags=["--randomized", "--allow-empty"], u=mapie_u(len(case.pc), n_test))
    versus_mapie(rep, "APS rand., allow-empty, U=1−u", case, q, s, "MAPIE aps 'randomized'",
                 lambda eps: mapie_run(case, "aps", include_last_label="randomized", epsilon=eps))

    # RAPS (paper, λ=0.5, k_reg=5, randomised, no empty sets) vs numpy port of the official code
    rng = np.random.default_rng(11)
    uc, ut = rng.random(len(case.pc)), rng.random(n_test)
    for rule in ("higher", "finite"):
        q, s = ours(case, "raps", rule=rule, flags=["--randomized", "--lambda", repr(LAMBDA), "--k-reg", str(K_REG)], u=(uc, ut))
        tq, tm = official_raps(case.pc, case.yc, case.pt, uc, ut, rule=rule)
        label = "official giq/gcq (numpy)" + (" + finite rule" if rule == "finite" else "")
        rep.add(f"RAPS λ={LAMBDA} k={K_REG}, {'NumpyHigher' if rule == 'higher' else 'FiniteSample'}", case, q,
                label, tq, agree(s, sets_of(tm)), n_test, "identical")

    # MAPIE's RAPS machinery with its tuning off: differs by its V; identical with the official V
    u = mapie_u(len(case.pc), n_test)
    flags = ["--randomized", "--allow-empty", "--lambda", repr(LAMBDA), "--k-reg", str(K_REG)]
    q, s = ours(case, "raps", flags=flags, u=u)
    mq, mm, _ = mapie_run(case, pinned_raps(K_REG, LAMBDA), include_last_label="randomized", epsilon=0.0)
    same = agree(s, sets_of(mm))
    rep.add("RAPS rand., allow-empty, U=1−u", case, q, "MAPIE raps, tuning off, EPSILON=0", mq, same, n_test,
            "identical" if same == n_test else "differs: MAPIE's V (next row)", asserted=False)
    mq, mm, _ = mapie_run(case, pinned_raps(K_REG, LAMBDA, official_v=True), include_last_label="randomized", epsilon=0.0)
    rep.add("RAPS rand., allow-empty, U=1−u", case, q, "same, V over π_L (official)", mq, agree(s, sets_of(mm)),
            n_test, "identical")

    # MAPIE raps as shipped: record what it does (its stratified tuning split
    # raises when a class has a single calibration row)
    try:
        mq, mm, cs = mapie_run(case, "raps", include_last_label="randomized")
    except ValueError as e:
        rep.note(f"{case.name}: MAPIE raps as shipped raises: {str(e).split('. ')[0]}.")
        return
    rep.note(
        f"{case.name}: MAPIE raps as shipped held out {len(cs.X_raps)} of {len(case.pc)} calibration rows, "
        f"chose k_reg={int(np.ravel(cs.k_star)[0])}, λ={float(np.ravel(cs.lambda_star)[0])}, q̂={mq:.6g}, "
        f"mean size {mm.sum(axis=1).mean():.2f} (ours, λ={LAMBDA}, k_reg={K_REG}, randomised, "
        f"empty sets allowed: {np.mean([len(t) for t in s]):.2f})."
    )


def check_quantile_edge(workdir: Path, rep: Report) -> None:
    """MAPIE's ⌈(n+1)(1−α)⌉ in floating point, with α = 1 − confidence_level, vs the exact rank."""
    found = None
    for n in range(10, 200):
        for a100 in range(5, 50):
            alpha = a100 / 100
            conf = 1 - alpha
            mapie_rank = int(np.ceil((n + 1) * (1 - (1 - conf))))
            if mapie_rank != finite_rank(n, alpha):
                found = (n, alpha, mapie_rank)
                break
        if found:
            break
    if not found:
        return
    n, alpha, mapie_rank = found
    case = dirichlet_case(f"edge_n{n}", n, 10, 0.5, 5, workdir)
    q, s = ours(case, "lac", alpha=alpha)
    mq, mm, _ = mapie_run(case, "lac", alpha=alpha)
    srt = np.sort(1.0 - case.pc[np.arange(n), case.yc])
    rep.add(f"LAC at α={alpha} (rank edge)", case, q, "MAPIE lac", mq, agree(s, sets_of(mm)), len(case.pt),
            f"MAPIE uses rank {mapie_rank}, exact ⌈(n+1)(1−α)⌉ = {finite_rank(n, alpha)}", asserted=False)
    assert q == srt[finite_rank(n, alpha) - 1] and mq == srt[mapie_rank - 1]
    rep.note(
        f"quantile edge: at n={n}, α={alpha} (confidence_level={1 - alpha!r}) (n+1)(1−α) is the integer "
        f"{finite_rank(n, alpha)} but evaluates in floating point to {(n + 1) * (1 - (1 - (1 - alpha)))!r}, so MAPIE's "
        f"ceil takes rank {mapie_rank}, one more than the finite-sample rule (this crate guards the ceil)."
    )


def identity(workdir: Path) -> Report:
    rep = Report()
    log("identity checks …")
    check_spec(spec_cross_check(workdir), rep)
    check_case(dirichlet_case("dirichlet K10", 2000, 10, 0.5, 1, workdir), rep, small=True)
    for n, k in ((10_000, 100), (10_000, 1_000)):
        check_case(bench_case(n, k, workdir), rep, small=False)
    check_quantile_edge(workdir, rep)
    return rep


# ------------------------------------------------------------------- timing



def time_ns(fn, repeats: int) -> float | str:
    """Median seconds·1e9 of `repeats` calls after a warm-up, or the peer's error message."""
    try:
        fn()  # warm-up
    except ValueError as e:
        return f"{type(e).__name__}: {str(e).split('. ')[0]}"
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e9


def mapie_timer(case: Case, score, include_last_label):
    from mapie.classification import SplitConformalClassifier

    n = len(case.pc)
    proba = np.vstack([case.pc, case.pt])
    x = np.arange(len(proba))[:, None]
    est = precomputed(proba)

    def call():
        clf = SplitConformalClassifier(est, confidence_level=1 - ALPHA, conformity_score=score, prefit=True, random_state=MAPIE_SEED)
        clf.conformalize(x[:n], case.yc)
        return clf.predict_set(x[n:], conformity_score_params={"include_last_label": include_last_label})

    return call


def timing(workdir: Path, repeats: int) -> list[dict]:
    rows = []
    for n, k in BENCH_SIZES:
        case = bench_case(n, k, workdir)
        ident = f"n{n}_K{k}"
        log(f"timing peers on {ident} …")
        rng = np.random.default_rng(3)
        uc, ut = rng.random(n), rng.random(n)
        gather = time_ns(lambda: case.pc[np.arange(n)], repeats) * 2
        lac = {
            "score": "lac", "n": n, "K": k, "ours": criterion_median_ns("lac", ident),
            "mapie": time_ns(mapie_timer(case, "lac", True), repeats),
            "numpy": time_ns(lambda: numpy_lac(case.pc, case.yc, case.pt), repeats),
            "gather": gather,
        }
        raps = {
            "score": "raps", "n": n, "K": k, "ours": criterion_median_ns("raps", ident),
            "mapie": time_ns(mapie_timer(case, "raps", "randomized"), repeats),
            "mapie_pinned": time_ns(mapie_timer(case, pinned_raps(K_REG, LAMBDA), "randomized"), repeats),
            "numpy": time_ns(lambda: official_raps(case.pc, case.yc, case.pt, uc, ut, rule="finite"), repeats),
            "gather": gather,
        }
        for r in (lac, raps):
            log(f"  {r['score']}/{ident}: ours {fmt_ms(r['ours'])} ms, MAPIE {fmt_peer(r['mapie'])} ms")
        rows += [lac, raps]
    return rows


def cpu_median_ours(case: Case, score: str, runs: int) -> tuple[float, list[float]]:
    """Our CPU time (ms) of calibrate + predict (flat sets), as the benchmark, from
    ``predict_csv --cpu-runs``: the thread's CPU clock around each of `runs` runs."""
    flags = ["--randomized", "--lambda", repr(LAMBDA), "--k-reg", str(K_REG)] if score == "raps" else []
    cmd = [*EXAMPLE, "--cal-probs", str(case.files["cal_probs"]), "--cal-labels", str(case.files["cal_labels"])]
    cmd += ["--test-probs", str(case.files["test_probs"]), "--score", score, "--alpha", repr(ALPHA)]
    cmd += ["--out", os.devnull, "--cpu-runs", str(runs), *flags]
    err = run_cargo(cmd).stderr
    times = [float(t) for t in err.split("cpu_ms=")[1].split()[0].split(",")]
    return statistics.median(times), times


def cpu_median_peer(fn, runs: int) -> tuple[float, list[float]] | str:
    """The peer's CPU time (ms, ``time.process_time``; BLAS on one thread) of
    `runs` calls after a warm-up, or its error message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            fn()
            times = []
            for _ in range(runs):
                t0 = time.process_time()
                fn()
                times.append((time.process_time() - t0) * 1e3)
    except ValueError as e:
        return f"{type(e).__name__}: {str(e).split('. ')[0]}"
    return statistics.median(times), times


def cpu_timing(workdir: Path, runs: int) -> None:
    """CPU-time medians of `runs` runs per side, both sides in this process's
    run on the same arrays (wall time is not trustworthy on a loaded machine)."""
    print(f"### CPU time (ms): calibrate on n rows + predict n rows, α = {ALPHA}, median of {runs} runs per side")
    print()
    print("| score | n | K | ours | MAPIE | MAPIE/ours | MAPIE, k_reg/λ fixed | that/ours | numpy ref | numpy/ours |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, k in BENCH_SIZES:
        case = bench_case(n, k, workdir)
        rng = np.random.default_rng(3)
        uc, ut = rng.random(n), rng.random(n)
        for score in ("lac", "raps"):
            log(f"cpu timing {score} n{n} K{k} …")
            ours_ms, ours_all = cpu_median_ours(case, score, runs)
            if score == "lac":
                peers = [cpu_median_peer(mapie_timer(case, "lac", True), runs), "—",
                         cpu_median_peer(lambda: numpy_lac(case.pc, case.yc, case.pt), runs)]
            else:
                peers = [cpu_median_peer(mapie_timer(case, "raps", "randomized"), runs),
                         cpu_median_peer(mapie_timer(case, pinned_raps(K_REG, LAMBDA), "randomized"), runs),
                         cpu_median_peer(lambda: official_raps(case.pc, case.yc, case.pt, uc, ut, rule="finite"), runs)]
            cells = []
            for pr in peers:
                if isinstance(pr, tuple):
                    cells += [f"{pr[0]:.2f}", f"**{pr[0] / ours_ms:.1f}×**" if (n, k) == (10_000, 1_000) else f"{pr[0] / ours_ms:.1f}×"]
                    log(f"  peer runs {[round(t, 2) for t in pr[1]]}")
                else:
                    cells += ["fails¹" if pr != "—" else "—", "—"]
            log(f"  ours runs {[round(t, 2) for t in ours_all]}")
            print(f"| {score} | {n} | {k} | {ours_ms:.2f} | " + " | ".join(cells) + " |")
    print()
    print(f"- load average at the end {load_average()}")


def combine(runs: list[list[dict]]) -> list[dict]:
    """Per case: the median over runs of every time, and the range of the per-run ours/MAPIE ratio."""
    out = []
    for i, first in enumerate(runs[0]):
        row = {k: first[k] for k in ("score", "n", "K")}
        for key in ("ours", "mapie", "mapie_pinned", "numpy", "gather"):
            if key not in first:
                continue
            vals = [run[i][key] for run in runs]
            nums = [v for v in vals if isinstance(v, float)]
            row[key] = statistics.median(nums) if nums else next((v for v in vals if isinstance(v, str)), None)
        ratios = [
            run[i]["ours"] / run[i]["mapie"]
            for run in runs
            if isinstance(run[i]["ours"], float) and isinstance(run[i]["mapie"], float)
        ]
        row["range"] = (min(ratios), max(ratios)) if len(runs) > 1 and ratios else None
        out.append(row)
    return out


def ratio(a, b) -> str:
    if not isinstance(a, float) or not isinstance(b, float):
        return "—"
    return f"{a / b:.3f}" if a / b < 0.1 else f"{a / b:.2f}"


def fmt_peer(t) -> str:
    return "fails¹" if isinstance(t, str) else fmt_ms(t)


def print_timing(rows: list[dict]) -> None:
    many = any(r.get("range") for r in rows)
    print(
        "| score | n | K | ours (ms) | MAPIE (ms) | ours/MAPIE |" + (" range |" if many else "")
        + " MAPIE, k_reg/λ fixed (ms) | ours/that | numpy ref (ms) | ours/numpy |"
    )
    print("|---|---:|---:|---:|---:|---:|" + ("---:|" if many else "") + "---:|---:|---:|---:|")
    for r in sorted(rows, key=lambda r: (r["score"], r["K"], r["n"])):
        pinned = r.get("mapie_pinned")
        span = r.get("range")
        rng = (f" {span[0]:.2f}–{span[1]:.2f} |" if span else " — |") if many else ""
        print(
            f"| {r['score']} | {r['n']} | {r['K']} | {fmt_ms(r['ours'])} | {fmt_peer(r['mapie'])} | "
            f"{ratio(r['ours'], r['mapie'])} |{rng} {fmt_peer(pinned)} | {ratio(r['ours'], pinned)} | "
            f"{fmt_peer(r['numpy'])} | {ratio(r['ours'], r['numpy'])} |"
        )
    failures = sorted({f"{r['score']} n={r['n']} K={r['K']}: {t}" for r in rows for t in
                       (r["mapie"], r.get("mapie_pinned")) if isinstance(t, str)})
    if failures:
        print()
        print("¹ MAPIE raises: " + "; ".join(failures) + " (its RAPS tuning split is a "
              "StratifiedShuffleSplit, which needs two calibration rows of every class).")
    print()
    print("Growth of time: n = 1000 → 10000 at K = 1000 (×10 rows), and K = 100 → 1000 at n = 10000 (×10 labels):")
    by = {(r["score"], r["n"], r["K"]): r for r in rows}
    names = {"ours": "ours", "mapie": "MAPIE", "mapie_pinned": "MAPIE k_reg/λ fixed", "numpy": "numpy ref"}
    for score in ("lac", "raps"):
        a, b, c = by.get((score, 1000, 1000)), by.get((score, 10000, 1000)), by.get((score, 10000, 100))
        if a and b and c:
            parts = [
                f"{label} ×{ratio(b[key], a[key])} / ×{ratio(b[key], c[key])}"
                for key, label in names.items()
                if key in b
            ]
            print(f"- {score}: " + ", ".join(parts))
    g = by.get(("lac", 10000, 1000))
    if g:
        print(f"- MAPIE's two row gathers from the precomputed matrix (in its time) at n=10000, K=1000: {fmt_ms(g['gather'])} ms")


# --------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-bench", action="store_true", help="reuse target/criterion output")
    parser.add_argument("--skip-identity", action="store_true")
    parser.add_argument("--skip-timing", action="store_true")
    parser.add_argument("--repeats", type=int, default=3, help="peer runs per case after a warm-up (default 3)")
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        help="repeat benchmark + peers this many times; report medians and the ratio's range (default 1)",
    )
    parser.add_argument(
        "--cpu",
        type=int,
        default=0,
        metavar="RUNS",
        help="time by CPU clock instead (ours: predict_csv --cpu-runs; peers: time.process_time), "
        "median of RUNS runs per side; skips criterion",
    )
    parser.add_argument("--no-malloc-tuning", action="store_true", help="keep glibc's malloc defaults")
    args = parser.parse_args()

    import mapie

    workdir = target_dir() / "tmp" / "conformal-sets-compare"
    workdir.mkdir(parents=True, exist_ok=True)
    log("$ cargo build --release -p conformal-sets --example predict_csv")
    run_cargo(["cargo", "build", "--release", "-p", "conformal-sets", "--example", "predict_csv"])

    info = machine_report("conformal_sets.py")
    blas_lines, limiter = blas_report()
    versions = [f"MAPIE {mapie.__version__}"]
    with contextlib.suppress(ImportError):
        import crepes

        versions.append(f"crepes {getattr(crepes, '__version__', '?')}")
    rep, rows = None, None
    with limiter:
        if not args.skip_identity:
            rep = identity(workdir)
        if args.cpu:
            cpu_timing(workdir, args.cpu)
        elif not args.skip_timing:
            runs = []
            for r in range(max(args.runs, 1)):
                if args.runs > 1:
                    log(f"--- run {r + 1}/{args.runs}")
                if not args.skip_bench:
                    log("$ cargo bench --bench conformal_sets")
                    subprocess.run(["cargo", "bench", "--bench", "conformal_sets"], cwd=ROOT, check=True, stdout=sys.stderr)
                runs.append(timing(workdir, args.repeats))
            rows = combine(runs)

    print()
    for line in info + blas_lines + [", ".join(versions), f"load average at the end {load_average()}"]:
        print(f"- {line}")
    if rep is not None:
        print()
        print("### Identical sets")
        print()
        print("| ours | data | n_cal/n_test/K | peer | q̂ ours | q̂ peer | identical sets | verdict |")
        print("|---|---|---|---|---:|---:|---:|---|")
        for r in rep.rows:
            print("| " + " | ".join(str(c) for c in r) + " |")
        print()
        for note in rep.notes + [RAPS_NOTE]:
            print(f"- {note}")
    if rows is not None:
        print()
        what = f"median of {args.repeats} peer calls per case"
        if args.runs > 1:
            what += f"; {args.runs} runs of benchmark + peers, medians over runs, range = min–max of the per-run ours/MAPIE"
        print(f"### Time: calibrate on n rows + predict n rows, α = {ALPHA} ({what})")
        print()
        print_timing(rows)
        missing = [f"{r['score']}/n{r['n']}_K{r['K']}" for r in rows if r["ours"] is None]
        if missing:
            log(f"no criterion estimates for {', '.join(missing)} (run without --skip-bench)")
    if rep is not None and rep.failed:
        print()
        print("FAILED identity checks:")
        for f in rep.failed:
            print(f"- {f}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
