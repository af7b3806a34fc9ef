#!/usr/bin/env python3
"""Side by side: the Fenrir negative log-likelihood of `diffusion-tempering`
against an independent jitted JAX implementation (float64, CPU, one thread).

Problem (both sides): Lotka–Volterra (α, β, γ, δ) = (1.5, 1, 3, 1), x₀ = y₀ = 1,
both states observed with σ² = 0.1 at every point of a dt = 0.01 grid, IWP(3)
prior with diffusion κ², EK1 linearisation, exact (Taylor-mode) initialisation,
Fenrir backward pass. The data come from the Rust example
`diffusion_tempering_nll_values` (printed as JSON), so both sides see the same y.

Reported: relative agreement of the NLL on [0, 2] at θ_true and 1.1·θ_true for
κ² ∈ {1e-2, 1, 1e2}; and the time of value + gradient (4 parameters) at 2001
grid points: Rust (forward-mode duals, one thread, median of 15) vs
jax.jit(jax.value_and_grad) (reverse mode, one XLA thread, median of 15).

Peer choice: probdiffeq 0.9.2 (pip) installs here, but its API differs from the
names in the spec and it was not wired up in time; the JAX reference below
follows the same equations as probdiffeq's fixed-interval smoother + time-series
marginal likelihood (covariance form, Nordsieck preconditioning), written from
the paper, not from the Rust code (dense covariances instead of QR factors).

Run: target/compare-venv/bin/python scripts/compare/diffusion_tempering.py
"""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import _common  # noqa: E402,F401  (pins BLAS threads, malloc tuning)

import json  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from math import comb, factorial, sqrt  # noqa: E402

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platform_name", "cpu")
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

Q = 3
D = 2
ND = (Q + 1) * D
SIGMA2 = 0.1
TRUE = np.array([1.5, 1.0, 3.0, 1.0])


def rust_values(t1: float) -> dict:
    out = subprocess.run(
        ["cargo", "run", "--release", "--quiet", "--example", "diffusion_tempering_nll_values", "--", str(t1)],
        cwd=_common.ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def lv(x, p):
    a, b, g, d = p[0], p[1], p[2], p[3]
    return jnp.array([a * x[0] - b * x[0] * x[1], -g * x[1] + d * x[0] * x[1]])


def constants(h: float):
    n = Q + 1
    abar = np.array([[comb(Q - i, Q - j) if j >= i else 0.0 for j in range(n)] for i in range(n)])
    qbar = np.array([[1.0 / (2 * Q + 1 - i - j) for j in range(n)] for i in range(n)])
    tdiag = np.array([sqrt(h) * h ** (Q - i) / factorial(Q - i) for i in range(n)])
    eye = np.eye(D)
    return jnp.asarray(np.kron(abar, eye)), jnp.asarray(np.kron(qbar, eye)), jnp.asarray(np.kron(tdiag, np.ones(D)))


def make_nll(times: np.ndarray, y: np.ndarray):
    h = float(times[1] - times[0])
    abar, qbar, tvec = constants(h)
    ts = jnp.asarray(times)
    ys = jnp.asarray(y)
    e0 = jnp.zeros((D, ND)).at[:, :D].set(jnp.eye(D))

    def nll(p, kappa2):
        f = lambda x: lv(x, p)  # noqa: E731
        x0 = jnp.array([1.0, 1.0])
        f1 = f(x0)
        f2fun = lambda x: jax.jvp(f, (x,), (f(x),))[1]  # noqa: E731
        f2 = f2fun(x0)
        f3 = jax.jvp(f2fun, (x0,), (f(x0),))[1]
        m0 = jnp.concatenate([x0, f1, f2, f3])
        p0 = jnp.zeros((ND, ND))

        def fwd(carry, t):
            m, pc = carry
            mt = m / tvec
            pt = pc / tvec[:, None] / tvec[None, :]
            mpt = abar @ mt
            ppt = abar @ pt @ abar.T + kappa2 * qbar
            ppt = 0.5 * (ppt + ppt.T)
            gt = jnp.linalg.solve(ppt, abar @ pt).T
            lt = pt - gt @ ppt @ gt.T
            g = tvec[:, None] * gt / tvec[None, :]
            lam = tvec[:, None] * lt * tvec[None, :]
            mp = tvec * mpt
            pp = tvec[:, None] * ppt * tvec[None, :]
            b = m - g @ mp
            x = mp[:D]
            fx = f(x)
            jac = jax.jacfwd(f)(x)
            hm = jnp.zeros((D, ND)).at[:, D : 2 * D].set(jnp.eye(D)).at[:, :D].add(-jac)
            z = mp[D : 2 * D] - fx
            s = hm @ pp @ hm.T
            k = jnp.linalg.solve(s, hm @ pp).T
            mn = mp - k @ z
            pn = pp - k @ s @ k.T
            pn = 0.5 * (pn + pn.T)
            return (mn, pn), (g, b, lam)

        (mN, pN), (gs, bs, lams) = jax.lax.scan(fwd, (m0, p0), ts[1:])

        def update(m, pc, yk):
            s = e0 @ pc @ e0.T + SIGMA2 * jnp.eye(D)
            e = yk - e0 @ m
            cs = jnp.linalg.cholesky(s)
            w = jax.scipy.linalg.solve_triangular(cs, e, lower=True)
            term = 0.5 * w @ w + jnp.sum(jnp.log(jnp.diag(cs))) + 0.5 * D * jnp.log(2 * jnp.pi)
            k = jnp.linalg.solve(s, e0 @ pc).T
            return m + k @ e, pc - k @ s @ k.T, term

        def bwd(carry, inp):
            m, pc, acc = carry
            g, b, lam, yk = inp
            m, pc, term = update(m, pc, yk)
            m = g @ m + b
            pc = g @ pc @ g.T + lam
            pc = 0.5 * (pc + pc.T)
            return (m, pc, acc + term), None

        (m, pc, acc), _ = jax.lax.scan(bwd, (mN, pN, 0.0), (gs, bs, lams, ys[1:]), reverse=True)
        _, _, term0 = update(m, pc, ys[0])
        return acc + term0

    return nll


def main() -> None:
    small = rust_values(2.0)
    nll = jax.jit(make_nll(np.array(small["times"]), np.array(small["values"])))
    worst = 0.0
    print("| κ² | θ | NLL (Rust) | NLL (JAX) | rel. diff |")
    print("|---|---|---|---|---|")
    for row in small["rows"]:
        p = TRUE if row["theta"] == "true" else 1.1 * TRUE
        v = float(nll(jnp.asarray(p), row["kappa2"]))
        rel = abs(v - row["nll"]) / abs(row["nll"])
        worst = max(worst, rel)
        print(f"| {row['kappa2']:.0e} | {row['theta']} | {row['nll']:.10g} | {v:.10g} | {rel:.1e} |")
    print(f"\nworst relative difference: {worst:.2e} (target ≤ 1e-6)")

    big = rust_values(20.0)
    vg = jax.jit(jax.value_and_grad(make_nll(np.array(big["times"]), np.array(big["values"]))))
    p = jnp.asarray(1.1 * TRUE)
    jax.block_until_ready(vg(p, 1.0))
    ts = []
    for _ in range(15):
        t = time.perf_counter()
        jax.block_until_ready(vg(p, 1.0))
        ts.append(time.perf_counter() - t)
    jt = float(np.median(ts))
    rt = big["rust_value_grad_2001_s"]
    print(f"\nvalue + gradient, 2001 points, 4 parameters: Rust {rt * 1e3:.2f} ms, JAX jit {jt * 1e3:.2f} ms,"
          f" ratio Rust/JAX = {rt / jt:.2f} (load {_common.load_average()})")
    print(f"jax {jax.__version__}")


if __name__ == "__main__":
    main()
