#!/usr/bin/env python3
"""coreset side by side with a numpy reference (and cvxpy at p = 1): the same
Lewis weights and regression solutions, then speed.

No package computes ℓp Lewis weights or multiple-ℓp-regression coresets, so
the peer is a numpy transcription of the same equations (the spec's
"~60-line NumPy script"), run with OpenBLAS pinned to one thread:

- Lewis weights: the damped geometric iteration ``log w ← (1−η) log w +
  η log g(w)``, ``g(w)ᵢ = (aᵢᵀ(AᵀW^{1−2/p}A)⁻¹aᵢ)^{p/2}``, η = min(1, 4/(p+2)),
  started at ``w = d/n``, stopped when ``max |log(g/w)| ≤ 1e-10``: one Gram
  matrix (``dsyrk``/``dgemm``), one Cholesky and one triangular solve per
  iteration, exactly the work of ours.
- Multiple ℓp regression: IRLS with weights ``(r² + δ²)^{(p−2)/2}``, all m
  columns at once (``einsum`` Gram matrices, batched ``np.linalg.solve``), no
  line search; the majorise–minimise step for p < 2. Stops when the relative
  decrease of the smoothed objective is ≤ 1e-9, like ours.
- cvxpy ``Minimize(sum(power(abs(A@x − b), p)))`` per column (HiGHS LP at
  p = 1, Clarabel otherwise), if installed: the certified optimum. Plain IRLS
  (the numpy reference) is not a descent method for p > 2 and stalls above
  the optimum there; the crate adds an exact line search (see
  ``coreset::regression``), which the cvxpy column shows.

Part 1 (agreement) writes random matrices to CSV, runs the crate example
``csv_io`` (``cargo run --release -p coreset --example csv_io``) and compares:
Lewis weights to 1e-8 for p ∈ {1, 1.5, 3, 6} (and the spec's 5×2 known
values), the regression cost to 1e-7 relative, and at p = 1 the cost against
cvxpy's LP.

Part 2 (speed) runs the criterion benchmark ``benches/coreset.rs`` with
``RAYON_NUM_THREADS=1`` and times numpy on the same shapes and distributions
(the inputs are not bit-identical: each side draws its own Gaussian matrix of
that shape; the iteration counts, printed, are what makes the times
comparable):

- Lewis weights, d = 20, p ∈ {1, 3}, n = 2·10⁴, 6.3·10⁴, 2·10⁵ (growth must be
  linear in n).
- Multiple regression n = 10⁵, d = 10, m = 50, p = 1.5: ours full solve, ours
  coreset-then-solve (k_A = k_B = 1000), numpy full IRLS.

Setup (once, from the repository root):

    python3 -m venv target/compare-venv
    target/compare-venv/bin/pip install numpy scipy threadpoolctl cvxpy

Run: ``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE target/compare-venv/bin/python scripts/compare/coreset.py``
(``--skip-bench`` reuses target/criterion; ``--quick`` skips n = 2·10⁵).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402  (pins BLAS threads first)
    ROOT,
    blas_report,
    build_bench,
    criterion_median_ns,
    fmt_ms,
    load_average,
    machine_report,
    run_bench,
    target_dir,
)

import numpy as np  # noqa: E402
from scipy.linalg import cho_factor, solve_triangular  # noqa: E402

LEWIS_SIZES = (20_000, 63_246, 200_000)
KNOWN = {
    1.0: [0.2683842, 0.2200461, 0.3146628, 0.5367684, 0.6601384],
    2.0: [11 / 65, 6 / 65, 15 / 65, 44 / 65, 54 / 65],
    3.0: [0.0989404, 0.0339176, 0.1598429, 0.7915233, 0.9157758],
    6.0: [0.0149266, 0.0013519, 0.0429183, 0.9553003, 0.9855029],
}


def lewis_numpy(a: np.ndarray, p: float, tol: float = 1e-10, max_iter: int = 1000):
    """Damped Lewis iteration in numpy. Returns (w, iterations)."""
    n, d = a.shape
    eta = min(1.0, 4.0 / (p + 2.0))
    logw = np.full(n, np.log(d / n))
    for it in range(max_iter + 1):
        v = np.exp((1.0 - 2.0 / p) * logw)
        g = a.T @ (a * v[:, None])
        c, low = cho_factor(g, lower=True)
        y = solve_triangular(c, a.T, lower=True)
        logg = 0.5 * p * np.log(np.einsum("ij,ij->j", y, y))
        if np.max(np.abs(logw - logg)) <= tol:
            return np.exp(logw), it
        logw = (1.0 - eta) * logw + eta * logg
    raise RuntimeError("numpy Lewis iteration did not converge")


def irls_numpy(a: np.ndarray, b: np.ndarray, p: float, tol: float = 1e-9, smoothing: float = 1e-8, max_iter: int = 200):
    """IRLS for all columns at once (no line search). Returns (X, cost, iterations)."""
    x = np.linalg.lstsq(a, b, rcond=None)[0]
    r = a @ x - b
    delta2 = (smoothing * np.abs(r).max(axis=0)) ** 2
    phi = np.sum((r * r + delta2) ** (p / 2), axis=0)
    active = np.ones(b.shape[1], dtype=bool)
    for it in range(1, max_iter + 1):
        c = (r * r + delta2) ** (p / 2 - 1)
        grams = np.einsum("ni,nj,nm->mij", a, a, c[:, active])
        rhs = np.einsum("ni,nm->mi", a, c[:, active] * b[:, active])
        x[:, active] = np.linalg.solve(grams, rhs[..., None])[..., 0].T
        r = a @ x - b
        new_phi = np.sum((r * r + delta2) ** (p / 2), axis=0)
        dec = (phi - new_phi) / phi
        phi = new_phi
        active &= dec > tol
        if not active.any():
            return x, float(np.sum(np.abs(r) ** p)), it
    return x, float(np.sum(np.abs(r) ** p)), max_iter


def cvxpy_note(a: np.ndarray, b: np.ndarray, p: float, ours: float) -> str:
    """cvxpy's optimum of Σⱼ ‖A xⱼ − bⱼ‖ₚᵖ (HiGHS LP at p = 1, Clarabel's power cones otherwise)."""
    try:
        import cvxpy as cp
    except ImportError:
        return "; cvxpy not installed"
    import warnings

    total = 0.0
    for j in range(b.shape[1]):
        xv = cp.Variable(a.shape[1])
        r = a @ xv - b[:, j]
        obj = cp.sum(cp.abs(r)) if p == 1.0 else cp.sum(cp.power(cp.abs(r), p))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cp.Problem(cp.Minimize(obj)).solve(solver=cp.HIGHS if p == 1.0 else cp.CLARABEL)
        total += float(np.sum(np.abs(a @ xv.value - b[:, j]) ** p))
    solver = "HiGHS LP" if p == 1.0 else "Clarabel"
    return f"; cvxpy ({solver}) {total:.10g}, ours/cvxpy − 1 = {ours / total - 1:.1e}"


_CSV_IO: list[str] = []


def csv_io(*args: str) -> str:
    """Runs the crate example ``csv_io`` (built once, then called directly)."""
    if not _CSV_IO:
        build = ["cargo", "build", "-q", "--release", "-p", "coreset", "--example", "csv_io"]
        subprocess.run(build, cwd=ROOT, check=True)
        _CSV_IO.append(str(target_dir() / "release" / "examples" / "csv_io"))
    return subprocess.run([_CSV_IO[0], *args], cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout


def agreement() -> list[str]:
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        a5 = np.array([[1, 0], [0, 1], [1, 1], [2, 0], [0, 3]], dtype=float)
        np.savetxt(tmp / "a5.csv", a5, delimiter=",", fmt="%.17e")
        for p, known in KNOWN.items():
            csv_io("lewis", str(tmp / "a5.csv"), str(p), str(tmp / "w.csv"))
            ours = np.loadtxt(tmp / "w.csv")
            ref, _ = lewis_numpy(a5, p)
            lines.append(
                f"| 5×2 known values | {p:g} | {np.abs(ours - ref).max():.1e} | {np.abs(ours - np.array(known)).max():.1e} (spec, 7 digits) |"
            )
        rng = np.random.default_rng(5)
        for p in (1.0, 1.5, 3.0, 6.0):
            a = rng.standard_t(2, size=(2000, 6))
            np.savetxt(tmp / "a.csv", a, delimiter=",", fmt="%.17e")
            out = csv_io("lewis", str(tmp / "a.csv"), str(p), str(tmp / "w.csv"))
            ours = np.loadtxt(tmp / "w.csv")
            ref, it = lewis_numpy(a, p)
            ours_it = int(out.split()[1])
            lines.append(
                f"| t₂ 2000×6 | {p:g} | {np.abs(ours - ref).max():.1e} | iterations ours {ours_it}, numpy {it} |"
            )
        # Regression: cost agreement, and cvxpy at p = 1.
        a = rng.standard_normal((1000, 5))
        b = a @ rng.standard_normal((5, 4)) + rng.standard_t(3, size=(1000, 4))
        np.savetxt(tmp / "a.csv", a, delimiter=",", fmt="%.17e")
        np.savetxt(tmp / "b.csv", b, delimiter=",", fmt="%.17e")
        for p in (1.0, 1.5, 3.0):
            out = csv_io("solve", str(tmp / "a.csv"), str(tmp / "b.csv"), str(p), str(tmp / "x.csv"))
            ours = float(out.split()[1])
            _, ref, _ = irls_numpy(a, b, p, max_iter=2000)
            note = cvxpy_note(a, b, p, ours)
            lines.append(
                f"| regression 1000×5, m = 4 | {p:g} | cost ours/numpy − 1 = {ours / ref - 1:.1e} | ours {ours:.10g}, numpy IRLS {ref:.10g}{note} |"
            )
    return lines


def time_ns(f, min_time: float = 2.0, min_repeats: int = 3) -> float:
    f()
    times = []
    start = time.perf_counter()
    while len(times) < min_repeats or time.perf_counter() - start < min_time:
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1e9


def regression_data_numpy():
    rng = np.random.default_rng(2)
    n, d, m = 100_000, 10, 50
    a = rng.standard_normal((n, d))
    b = a @ rng.standard_normal((d, m)) + rng.standard_t(3, size=(n, m))
    for k in range(20):
        i = (k * 4999 + 7) % n
        b[i] += 100.0 if k % 2 == 0 else -100.0
    return a, b


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-bench", action="store_true", help="reuse target/criterion output")
    parser.add_argument("--quick", action="store_true", help="skip n = 2·10⁵ on the numpy side")
    parser.add_argument("--no-malloc-tuning", action="store_true", help="keep glibc's malloc defaults")
    parser.add_argument("--agreement-only", action="store_true", help="part 1 only")
    args = parser.parse_args()
    if args.agreement_only:
        print("\n".join(agreement()))
        return 0

    info = machine_report("coreset.py")
    blas_lines, limiter = blas_report()
    with limiter:
        print("part 1: agreement", file=sys.stderr, flush=True)
        agree = agreement()
        if not args.skip_bench:
            run_bench(build_bench("coreset"), None, env={"RAYON_NUM_THREADS": "1"})
        print(f"  load average {load_average()}", file=sys.stderr)
        lewis_rows = []
        for p in (1.0, 3.0):
            for n in LEWIS_SIZES:
                if args.quick and n > 100_000:
                    continue
                a = np.random.default_rng(1).standard_normal((n, 20))
                _, it = lewis_numpy(a, p)
                peer = time_ns(lambda: lewis_numpy(a, p))
                ours = criterion_median_ns("lewis_weights", f"p{p:g}/n{n}")
                lewis_rows.append((p, n, ours, peer, it))
                print(f"  lewis p={p} n={n}: ours {fmt_ms(ours)} ms, numpy {fmt_ms(peer)} ms ({it} it)", file=sys.stderr)
        a, b = regression_data_numpy()
        t0 = time.perf_counter()
        _, cost, it = irls_numpy(a, b, 1.5)
        peer_full = (time.perf_counter() - t0) * 1e9
        ours_full = criterion_median_ns("multiple_regression", "full")
        ours_core = criterion_median_ns("multiple_regression", "coreset")

    info.append(f"load average at the end {load_average()}")
    print()
    for line in info + blas_lines:
        print(f"- {line}")
    print()
    print("Agreement (max |Δw| for Lewis weights):")
    print()
    print("| case | p | ours vs numpy | note |")
    print("|---|---:|---:|---|")
    print("\n".join(agree))
    print()
    print("| Lewis weights, d = 20 | p | n | ours (ms) | numpy (ms) | ours/numpy | iterations (numpy) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for p, n, ours, peer, it in lewis_rows:
        ratio = "—" if ours is None else f"{ours / peer:.2f}"
        print(f"| | {p:g} | {n} | {fmt_ms(ours)} | {fmt_ms(peer)} | {ratio} | {it} |")
    print()
    print("Growth with n (×10 from the first to the last size predicts ×10 for linear time):")
    for p in (1.0, 3.0):
        rows = [r for r in lewis_rows if r[0] == p]
        if len(rows) >= 2 and rows[0][2] and rows[-1][2]:
            print(
                f"- p = {p:g}: n {rows[0][1]}→{rows[-1][1]} (×{rows[-1][1] / rows[0][1]:.1f}): "
                f"ours ×{rows[-1][2] / rows[0][2]:.1f}, numpy ×{rows[-1][3] / rows[0][3]:.1f}"
            )
    print()
    print("| multiple regression n = 10⁵, d = 10, m = 50, p = 1.5 | time (ms) | vs ours coreset |")
    print("|---|---:|---:|")
    core = ours_core or float("nan")
    print(f"| ours: strong coreset (k_A = k_B = 1000) + solve | {fmt_ms(ours_core)} | 1 |")
    print(f"| ours: full IRLS | {fmt_ms(ours_full)} | {(ours_full or float('nan')) / core:.1f}× |")
    print(f"| numpy: full IRLS ({it} iterations, cost {cost:.6g}) | {fmt_ms(peer_full)} | {peer_full / core:.1f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
