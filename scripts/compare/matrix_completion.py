#!/usr/bin/env python3
"""matrix-completion side by side: soft-impute against fancyimpute (same
objective, same completed entries), then speed of one training step against a
vectorised numpy/scipy reference of the same maths, Surprise's SVD epoch, and
fancyimpute's soft-impute.

One command (from the repository root):

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE target/compare-venv/bin/python scripts/compare/matrix_completion.py

Part 1 (agreement). A 40×30 rank-3 matrix, 50 % of the entries observed with
noise 0.1, λ = 1 (the spec's peer test). The problem is written in MovieLens
``u.data`` format and completed by our ``soft_impute`` (through the example
``matrix_completion_soft_impute``, which also trains the L = 2 deep
factorisation with λ_d = λ/(2N) and prints N·J), by fancyimpute 0.7
``SoftImpute(shrinkage_value=λ, init_fill_method="zero")`` and by a 15-line
numpy soft-impute. fancyimpute returns the observed entries unchanged, so its
missing entries are compared (pitfall in the spec); the objective
½‖P_Ω(Y − Z)‖² + λ‖Z‖_* is compared between our Z and numpy's Z.

Part 2 (speed, ``--step-only`` runs just this part). CPU time of one step
(objective + closed-form gradient on the N observed entries, width 32), both
sides single-threaded, in one run: ours from the example
``matrix_completion_step_time`` (the thread's CPU time, the inputs of
``benches/matrix_completion.rs``), numpy's from ``time.process_time``; the
sides alternate five times and each figure is the median. The reference: the same objective and gradient in
numpy, vectorised (row gathers, ``einsum``) with the sparse products
``G·A_Lᵀ`` and ``Gᵀ·P`` as ``scipy.sparse`` CSR products (the fast way to
write it in Python); it is checked against central finite differences first.
A second reference computes the same step with a dense m×n mask, as the
spec's NumPy reference run did (checked equal to the sparse one).
Surprise ``SVD(n_factors=100, n_epochs=20)`` (SGD, a different model: the
accuracy anchor of the spec) is timed per epoch at MovieLens-100k shape.
fancyimpute and the numpy soft-impute run 20 iterations on the benchmark's
300×300 problem shape. BLAS is pinned to one thread on the Python side; ours
is single-threaded.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402  (pins BLAS threads before numpy loads)

import numpy as np  # noqa: E402

SIZES = [(236, 421, 5_000), (472, 841, 20_000), (943, 1682, 80_000)]
WIDTH = 32


# ---------------------------------------------------------------- soft-impute
def fancyimpute_soft_impute():
    """fancyimpute 0.7's SoftImpute. It calls scikit-learn's ``check_array(...,
    force_all_finite=False)``, a keyword scikit-learn 1.8 removed (renamed
    ``ensure_all_finite``); the shared venv is not downgraded, the keyword is
    translated here instead."""
    import fancyimpute.soft_impute as soft_impute_module
    import fancyimpute.solver as solver
    from fancyimpute import SoftImpute

    original = solver.check_array

    def check_array(x, force_all_finite=True, **kw):
        try:
            return original(x, ensure_all_finite=force_all_finite, **kw)
        except TypeError:
            return original(x, force_all_finite=force_all_finite, **kw)

    solver.check_array = check_array
    soft_impute_module.check_array = check_array
    return SoftImpute


def numpy_soft_impute(y, mask, lam, max_iters=10_000, tol=1e-18):
    z = np.zeros_like(y)
    s_kept = np.zeros(0)
    for _ in range(max_iters):
        x = np.where(mask, y, z)
        u, s, vt = np.linalg.svd(x, full_matrices=False)
        s_kept = np.maximum(s - lam, 0.0)
        z_new = (u * s_kept) @ vt
        diff = np.sum((z_new - z) ** 2)
        old = np.sum(z**2)
        z = z_new
        if old > 0 and diff / old < tol:
            break
    return z


def objective(y, mask, z, lam):
    return 0.5 * np.sum(((y - z) * mask) ** 2) + lam * np.linalg.svd(z, compute_uv=False).sum()


def part1(skip_build: bool) -> list[str]:
    rng = np.random.default_rng(3)
    m, n, r, lam = 40, 30, 3, 1.0
    g = rng.standard_normal((m, r)) @ rng.standard_normal((r, n))
    mask = rng.random((m, n)) < 0.5
    mask[m - 1, 0] = mask[0, n - 1] = True  # the file format infers the shape from the largest ids
    y = g + 0.1 * rng.standard_normal((m, n))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "u.data"
        out = Path(d) / "z.txt"
        with path.open("w") as f:
            for i, j in zip(*np.nonzero(mask)):
                f.write(f"{i + 1}\t{j + 1}\t{float(y[i, j])!r}\t0\n")
        cmd = ["cargo", "run", "--release", "--quiet", "--example", "matrix_completion_soft_impute", "--", str(path), str(lam), str(out)]
        print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, cwd=_common.ROOT, stdout=subprocess.PIPE, text=True, check=True)
        z_ours = np.loadtxt(out)
    print(proc.stdout, file=sys.stderr)
    SoftImpute = fancyimpute_soft_impute()

    x_nan = np.where(mask, y, np.nan)
    z_fancy = SoftImpute(
        shrinkage_value=lam, convergence_threshold=1e-12, max_iters=10_000, init_fill_method="zero", verbose=False
    ).fit_transform(x_nan)
    z_np = numpy_soft_impute(y, mask, lam)
    miss = ~mask
    rel = lambda a, b: np.max(np.abs(a - b)) / np.max(np.abs(b))  # noqa: E731
    obj_ours, obj_np = objective(y, mask, z_ours, lam), objective(y, mask, z_np, lam)
    deep = [ln for ln in proc.stdout.splitlines() if ln.startswith("deep") or ln.startswith("relative")]
    return [
        f"missing entries, ours vs fancyimpute: max relative difference {rel(z_ours[miss], z_fancy[miss]):.2e}",
        f"missing entries, ours vs numpy soft-impute: max relative difference {rel(z_ours[miss], z_np[miss]):.2e}",
        f"objective ½‖P_Ω(Y−Z)‖² + λ‖Z‖_*: ours {obj_ours:.10f}, numpy {obj_np:.10f}, relative {abs(obj_ours - obj_np) / obj_np:.2e}",
        *deep,
    ]


# ----------------------------------------------------------- deep MF, numpy
def make_step(rows, cols, vals, m, n):
    import scipy.sparse as sp

    nobs = len(vals)

    def step(factors, lam):
        """Objective (1/2N)Σr² + λΣ‖A‖² and its gradient (identity link, offset 0)."""
        L = len(factors)
        p = factors[0]
        for a in factors[1:-1]:
            p = p @ a
        bt = factors[-1].T
        z = np.einsum("ij,ij->i", p[rows], bt[cols])
        r = z - vals
        g = r / nobs
        gm = sp.csr_matrix((g, (rows, cols)), shape=(m, n))
        s = gm @ bt  # m×k
        t = gm.T @ p  # n×k
        k = bt.shape[1]
        suffix = [np.eye(k)] * (L - 1)
        for i in range(L - 3, -1, -1):
            suffix[i] = factors[i + 1] @ suffix[i + 1]
        grads = [s @ suffix[0].T]
        prefix = factors[0]
        for i in range(1, L - 1):
            grads.append((prefix.T @ s) @ suffix[i].T)
            prefix = prefix @ factors[i]
        grads.append(t.T)
        pen = sum(np.sum(a * a) for a in factors)
        grads = [gr + 2 * lam * a for gr, a in zip(grads, factors)]
        return 0.5 * np.sum(r * r) / nobs + lam * pen, grads

    return step


def make_dense_step(rows, cols, vals, m, n):
    """The same objective and gradient with a dense m×n mask (how the spec's
    NumPy reference run computed it: 35–150 s per training run)."""
    mask = np.zeros((m, n))
    mask[rows, cols] = 1.0
    y = np.zeros((m, n))
    y[rows, cols] = vals
    nobs = len(vals)

    def step(factors, lam):
        L = len(factors)
        z = factors[0]
        for a in factors[1:]:
            z = z @ a
        r = mask * (z - y)
        g = r / nobs
        grads = []
        for i in range(L):
            gi = g
            if i + 1 < L:
                rp = factors[i + 1]
                for a in factors[i + 2 :]:
                    rp = rp @ a
                gi = gi @ rp.T
            if i > 0:
                lp = factors[0]
                for a in factors[1:i]:
                    lp = lp @ a
                gi = lp.T @ gi
            grads.append(gi + 2 * lam * factors[i])
        pen = sum(np.sum(a * a) for a in factors)
        return 0.5 * np.sum(r * r) / nobs + lam * pen, grads

    return step


def random_problem(m, n, nobs, seed):
    rng = np.random.default_rng(seed)
    cells = rng.choice(m * n, size=nobs, replace=False)
    cells.sort()
    rows, cols = cells // n, cells % n
    vals = 3.0 + rng.standard_normal(nobs)
    return rows, cols, vals


def random_factors(m, n, depth, k, rng):
    shapes = [(m, k)] + [(k, k)] * (depth - 2) + [(k, n)]
    sigma = 0.1 ** (1 / depth) * k ** (-(depth - 1) / (2 * depth))
    return [sigma * rng.standard_normal(s) for s in shapes]


def check_numpy_gradient():
    m, n = 7, 6
    rows, cols, vals = random_problem(m, n, 20, 0)
    step = make_step(rows, cols, vals, m, n)
    rng = np.random.default_rng(1)
    for depth in (2, 3, 4):
        f = random_factors(m, n, depth, 3, rng)
        f = [a * 5 for a in f]
        _, g = step(f, 0.07)
        h = 1e-6
        for li, a in enumerate(f):
            for idx in np.ndindex(a.shape):
                fp = [b.copy() for b in f]
                fm = [b.copy() for b in f]
                fp[li][idx] += h
                fm[li][idx] -= h
                fd = (step(fp, 0.07)[0] - step(fm, 0.07)[0]) / (2 * h)
                assert abs(fd - g[li][idx]) < 1e-6 * (1 + abs(fd)), (depth, li, idx, fd, g[li][idx])


def timeit(fn, repeats):
    fn()
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def step_time_exe() -> str:
    """Builds the example that reports our step's CPU time; returns its path."""
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--example", "matrix_completion_step_time"],
        check=True,
        cwd=_common.ROOT,
    )
    return str(_common.target_dir() / "release" / "examples" / "matrix_completion_step_time")


def ours_cpu_ms(exe: str, m: int, n: int, nobs: int, depth: int, steps: int) -> float:
    """Our step's CPU time per step (ms), measured inside the example (one thread)."""
    out = subprocess.run(
        [exe, str(m), str(n), str(nobs), str(depth), str(WIDTH), str(steps)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    if out[1] != "cpu":
        print(f"warning: the example measured {out[1]} time, not CPU time", file=sys.stderr)
    return float(out[0])


def numpy_cpu_ms(fn, steps: int) -> float:
    """numpy's CPU time per call (ms), ``time.process_time`` (BLAS pinned to one thread)."""
    t = time.process_time()
    for _ in range(steps):
        fn()
    return (time.process_time() - t) / steps * 1e3


def part2(repeats: int) -> list[str]:
    """CPU time of one step, both sides single-threaded, in this one run: the
    two sides alternate, ``repeats`` times (default 5); each entry is the
    median of its side's repetitions, the ratio is of the medians, and the
    range is the min–max of the per-repetition ratios. CPU time, not wall
    time, because other jobs share this machine's cores (it still includes
    what their cache traffic costs us)."""
    check_numpy_gradient()
    exe = step_time_exe()
    lines = [
        f"CPU time per step (ms), median of {repeats} alternating repetitions; load average at the start {_common.load_average()}",
        "",
        "| model | m × n, N | ours (ms) | numpy/scipy sparse (ms) | sparse / ours | range | numpy dense mask (ms) | dense / ours |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for m, n, nobs in SIZES:
        rows, cols, vals = random_problem(m, n, nobs, 7)
        step = make_step(rows, cols, vals, m, n)
        dense = make_dense_step(rows, cols, vals, m, n)
        steps = max(20, 8_000_000 // nobs)
        for name, depth in (("L2", 2), ("L3", 3)):
            f = random_factors(m, n, depth, WIDTH, np.random.default_rng(1))
            o1, g1 = step(f, 1e-4)
            o2, g2 = dense(f, 1e-4)
            assert abs(o1 - o2) <= 1e-10 * abs(o1) and all(np.allclose(a, b, rtol=1e-8, atol=1e-14) for a, b in zip(g1, g2))
            ours, ref = [], []
            for _ in range(repeats):
                ours.append(ours_cpu_ms(exe, m, n, nobs, depth, steps))
                ref.append(numpy_cpu_ms(lambda: step(f, 1e-4), max(5, steps // 10)))
            t_dense = numpy_cpu_ms(lambda: dense(f, 1e-4), 3)
            o, r = float(np.median(ours)), float(np.median(ref))
            ratios = [b / a for a, b in zip(ours, ref)]
            lines.append(
                f"| {name} | {m}×{n}, {nobs} | {o:.3f} | {r:.2f} | {r / o:.1f} | {min(ratios):.1f}–{max(ratios):.1f} | "
                f"{t_dense:.1f} | {t_dense / o:.0f} |"
            )
    return lines


def part3() -> list[str]:
    out = []
    # Surprise SVD epoch at MovieLens-100k shape.
    try:
        import pandas as pd
        from surprise import SVD, Dataset, Reader

        m, n, nobs = SIZES[-1]
        rows, cols, vals = random_problem(m, n, nobs, 7)
        vals = np.clip(np.round(vals), 1, 5)
        df = pd.DataFrame({"u": rows, "i": cols, "r": vals})
        data = Dataset.load_from_df(df, Reader(rating_scale=(1, 5)))
        ts = data.build_full_trainset()
        t = time.perf_counter()
        SVD(n_factors=100, n_epochs=20, lr_all=0.005, reg_all=0.02, random_state=0).fit(ts)
        per_epoch = (time.perf_counter() - t) / 20 * 1e9
        ours = _common.criterion_median_ns("mc_step", f"L3/{m}x{n}_N{nobs}")
        ratio = f"{per_epoch / ours:.1f}" if ours else "—"
        out.append(
            f"Surprise SVD (k = 100, SGD) epoch at 943×1682, N = 80 000: {_common.fmt_ms(per_epoch)} ms; "
            f"ours L = 3 (k = 32, full-batch step) {_common.fmt_ms(ours)} ms; Surprise / ours = {ratio}"
        )
    except ImportError as e:
        out.append(f"Surprise not installed ({e}): skipped")
    # fancyimpute / numpy soft-impute, 20 iterations at 300×300, 20 % observed.
    rng = np.random.default_rng(7)
    g = rng.standard_normal((300, 5)) @ rng.standard_normal((5, 300)) / np.sqrt(5)
    mask = rng.random((300, 300)) < 0.2
    y = g + 0.1 * rng.standard_normal((300, 300))
    t_np = timeit(lambda: numpy_soft_impute(y, mask, 5.0, max_iters=20, tol=0.0), 3) * 1e9
    SoftImpute = fancyimpute_soft_impute()

    x_nan = np.where(mask, y, np.nan)
    t_fi = (
        timeit(
            lambda: SoftImpute(shrinkage_value=5.0, convergence_threshold=0.0, max_iters=20, verbose=False).fit_transform(x_nan),
            3,
        )
        * 1e9
    )
    ours = _common.criterion_median_ns("mc_soft_impute", "300x300_20iters")
    out.append(
        f"soft-impute, 300×300, 20 iterations: ours {_common.fmt_ms(ours)} ms, numpy {_common.fmt_ms(t_np)} ms, "
        f"fancyimpute {_common.fmt_ms(t_fi)} ms; numpy / ours = {t_np / ours:.2f}, fancyimpute / ours = {t_fi / ours:.2f}"
        if ours
        else "soft-impute: run the benchmark first"
    )
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-bench", action="store_true", help="reuse target/criterion")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-malloc-tuning", action="store_true")
    ap.add_argument("--step-only", action="store_true", help="only the CPU-time step comparison (part 2)")
    args = ap.parse_args()
    report = _common.machine_report("matrix_completion.py")
    blas, limiter = _common.blas_report()
    if args.step_only:
        with limiter:
            print("## one training step (objective + gradient), width 32, CPU time")
            for ln in part2(args.repeats):
                print(ln)
        print("\n" + "\n".join("- " + ln for ln in report + blas))
        return
    print("## agreement (40×30, rank 3, 50 % observed, λ = 1)")
    for ln in part1(args.skip_bench):
        print("- " + ln)
    if not args.skip_bench:
        exe = _common.build_bench("matrix_completion")
        _common.run_bench(exe, None)
    with limiter:
        print("\n## one training step (objective + gradient), width 32, CPU time")
        for ln in part2(args.repeats):
            print(ln)
        print()
        for ln in part3():
            print("- " + ln)
    print("\n" + "\n".join("- " + ln for ln in report + blas))


if __name__ == "__main__":
    main()
