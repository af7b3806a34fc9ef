#!/usr/bin/env python3
"""ssm-universality side by side with NumPy.

Part 1 (agreement, the spec's test case): λ_j = 0.95·e^{2πij/32}, L = 32:
``np.linalg.cond(np.vander(λ, 32, increasing=True))`` must equal 0.95⁻³¹ =
4.9042007119795725 (the crate's test ``numpy_known_value_roots_r095_l32``
asserts 1e-9 relative), and ``np.linalg.lstsq`` recovers v ~ N(0, 1)³² from
x = Vv to ≤ 1e-12 (the crate's ``lstsq_recovery_like_numpy``).

Part 2 (speed): the criterion benchmark ``benches/ssm_universality.rs`` against

- ``states``: the diagonal scan x_k = λ ⊙ x_{k−1} + b̃ v_k, N = 256,
  L ∈ {1024, 4096, 16384}, as a Python loop over k of NumPy vector operations
  (the plain NumPy port), writing all L states into an L × N complex array;
- ``cond2``: ``np.linalg.cond`` of the L × L Vandermonde matrix, L ∈ {32, 64, 128}.

lrnnx 1.0.0.post1 (the spec's second peer) ships only as a source
distribution that builds torch/CUDA extensions; it does not pip-install on
these machines, so it is not compared.

Run: ``python scripts/compare/ssm_universality.py`` (numpy in any venv, e.g.
``target/venv-ssm``); it builds and runs the benchmark with RAYON_NUM_THREADS=1.
"""

from __future__ import annotations

import _common  # noqa: F401  (pins BLAS threads, malloc tuning)

import sys
import time

import numpy as np

from _common import blas_report, build_bench, criterion_median_ns, machine_report, run_bench


def agreement() -> list[str]:
    lam = 0.95 * np.exp(2j * np.pi * np.arange(32) / 32)
    v_mat = np.vander(lam, 32, increasing=True)
    c = np.linalg.cond(v_mat)
    rng = np.random.default_rng(0)
    v = rng.standard_normal(32)
    x = v_mat @ v
    vh = np.linalg.lstsq(v_mat, x, rcond=None)[0]
    err = np.linalg.norm(vh - v) / np.linalg.norm(v)
    return [
        f"np.linalg.cond(vander(0.95·e^(2πij/32), 32)) = {c!r} (0.95^-31 = {0.95 ** -31!r}, rel. diff {c / 0.95 ** -31 - 1:.1e})",
        f"np.linalg.lstsq recovery, relative error {err:.2e} (spec: ≤ 1e-12)",
    ]


def time_ns(f, min_time: float = 1.0, min_repeats: int = 3) -> float:
    times = []
    start = time.perf_counter()
    while len(times) < min_repeats or time.perf_counter() - start < min_time:
        t0 = time.perf_counter_ns()
        f()
        times.append(time.perf_counter_ns() - t0)
    return float(np.median(times))


def scan_numpy(lam: np.ndarray, b: np.ndarray, v: np.ndarray) -> np.ndarray:
    out = np.empty((v.shape[0], lam.shape[0]), dtype=np.complex128)
    x = np.zeros(lam.shape[0], dtype=np.complex128)
    for k in range(v.shape[0]):
        x = lam * x + b * v[k]
        out[k] = x
    return out


def ring(n: int, rng) -> np.ndarray:
    u1, u2 = rng.random(n), rng.random(n)
    mod2 = u1 * (0.999**2 - 0.9**2) + 0.9**2
    return np.sqrt(mod2) * np.exp(1j * 2 * np.pi * u2)


def main() -> int:
    lines = ["### Agreement", *agreement(), "", "### Machine", *machine_report("ssm_universality.py")]
    blas, limiter = blas_report()
    lines += blas
    exe = build_bench("ssm_universality")
    run_bench(exe, None, env={"RAYON_NUM_THREADS": "1"})
    rng = np.random.default_rng(1)
    lines += ["", "| workload | ours (ms) | NumPy (ms) | NumPy / ours |", "|---|---:|---:|---:|"]
    with limiter:
        lam = ring(256, rng)
        b = np.sqrt(1 - np.abs(lam) ** 2)
        for l in (1024, 4096, 16384):
            v = rng.standard_normal(l)
            ns_np = time_ns(lambda: scan_numpy(lam, b, v))
            ns_rs = criterion_median_ns("states", f"N256/L{l}")
            ratio = ns_np / ns_rs if ns_rs else float("nan")
            lines.append(f"| states N = 256, L = {l} | {ns_rs / 1e6:.3f} | {ns_np / 1e6:.2f} | {ratio:.1f}× |")
        for l in (32, 64, 128):
            lam = ring(l, rng)
            vm = np.vander(lam, l, increasing=True)
            ns_np = time_ns(lambda: np.linalg.cond(vm))
            ns_rs = criterion_median_ns("cond2", f"L{l}")
            ratio = ns_np / ns_rs if ns_rs else float("nan")
            lines.append(f"| κ₂ (vander + cond) L = {l} | {ns_rs / 1e6:.3f} | {ns_np / 1e6:.3f} | {ratio:.2f}× |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
