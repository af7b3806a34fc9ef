#!/usr/bin/env python3
"""Side by side: the Fenrir negative log-likelihood of `diffusion-tempering`
against probdiffeq 0.9.2 (JAX, float64, CPU, one thread), plus an independent
jitted JAX implementation of the same equations.

Problem (all sides): Lotka–Volterra (α, β, γ, δ) = (1.5, 1, 3, 1), x₀ = y₀ = 1,
both states observed with σ² = 0.1 at every point of a dt = 0.01 grid
(probdiffeq's `loss_lml_timeseries` observes the whole state), IWP(3) prior with
diffusion κ², EK1 linearisation at the predicted mean, exact (Taylor-mode)
initialisation (P₀ = 0), no calibration, Fenrir backward pass. The data come
from the crate example `nll_values` (printed as JSON), so every side sees the
same y.

probdiffeq settings that match the crate: `state_space_model_dense()`,
`prior_wiener_integrated(tcoeffs, output_scale=√κ²·1)` with `tcoeffs` from
`jetexpand_ode_unroll(num=3)` (exact Taylor coefficients, `is_exact=True`),
`constraint_ode_ts1(ode)` with `jacobian_materialize()` (exact Jacobian; the
default `jacobian_monte_carlo_rev` is a stochastic estimate), the
non-calibrating `solver(...)` with `strategy_smoother_fixedinterval()`,
`solve_fixed_grid`, and `loss_lml_timeseries(average_pdfs=False)` (the sum of
the log-pdfs, i.e. the log marginal likelihood; the default averages them).
NLL = −loss.

Reported: relative agreement of the NLL on [0, 2] at θ_true and 1.1·θ_true for
κ² ∈ {1e-2, 1, 1e2} (the spec's) and {1e6, 1e12, 1e20} (where κ² matters on
[0, 2]); and the time of value + gradient (4 parameters) at 2001
grid points: Rust (forward-mode duals, one thread, median of 15) vs
jax.jit(jax.value_and_grad) of the probdiffeq NLL and of the reference JAX NLL
(reverse mode, one XLA thread, median of 15).

Run: target/compare-venv/bin/python scripts/compare/diffusion_tempering.py
(once: target/compare-venv/bin/pip install jax probdiffeq==0.9.2)
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
        [
            "cargo",
            "run",
            "--release",
            "--quiet",
            "-p",
            "diffusion-tempering",
            "--example",
            "nll_values",
            "--",
            str(t1),
        ],
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


def make_probdiffeq_nll(times: np.ndarray, y: np.ndarray):
    from probdiffeq import ivpsolve
    from probdiffeq import probdiffeq as pdq

    ssm = pdq.state_space_model_dense()
    ts = jnp.asarray(times)
    ys = jnp.asarray(y)
    std = jnp.sqrt(SIGMA2) * jnp.ones_like(ys)
    loss = pdq.loss_lml_timeseries(average_pdfs=False)
    strategy = pdq.strategy_smoother_fixedinterval()

    def nll(p, kappa2):
        def vf(u, *, t):
            del t
            return lv(u, p)

        ode = pdq.ode(vf, jacobian=pdq.jacobian_materialize())
        tcoeffs, _ = pdq.jetexpand_ode_unroll(num=Q)(ode, [jnp.array([1.0, 1.0])], t=ts[0])
        prior = ssm.prior_wiener_integrated(tcoeffs, output_scale=jnp.sqrt(kappa2) * jnp.ones(D))
        solver = pdq.solver(strategy=strategy, constraint=ssm.constraint_ode_ts1(ode))
        sol = ivpsolve.solve_fixed_grid(solver=solver)(prior, grid=ts)
        return -loss(ys, posterior=sol.solution_full, std=std)

    return nll


def median_time(fn, *args, reps: int = 15) -> float:
    jax.block_until_ready(fn(*args))
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        jax.block_until_ready(fn(*args))
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def main() -> None:
    import probdiffeq

    small = rust_values(2.0)
    times, values = np.array(small["times"]), np.array(small["values"])
    ref = jax.jit(make_nll(times, values))
    pdq_nll = jax.jit(make_probdiffeq_nll(times, values))
    worst_pdq = worst_ref = 0.0
    print("| κ² | θ | NLL (Rust) | NLL (probdiffeq) | rel. diff | NLL (JAX reference) | rel. diff |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for row in small["rows"]:
        p = jnp.asarray(TRUE if row["theta"] == "true" else 1.1 * TRUE)
        vp = float(pdq_nll(p, row["kappa2"]))
        vr = float(ref(p, row["kappa2"]))
        rp = abs(vp - row["nll"]) / abs(row["nll"])
        rr = abs(vr - row["nll"]) / abs(row["nll"])
        worst_pdq, worst_ref = max(worst_pdq, rp), max(worst_ref, rr)
        print(
            f"| {row['kappa2']:.0e} | {row['theta']} | {row['nll']:.10g} | {vp:.10g} | {rp:.1e} | {vr:.10g} | {rr:.1e} |"
        )
    print(f"\nworst relative difference: probdiffeq {worst_pdq:.2e}, JAX reference {worst_ref:.2e} (target ≤ 1e-6)")

    big = rust_values(20.0)
    times, values = np.array(big["times"]), np.array(big["values"])
    p = jnp.asarray(1.1 * TRUE)
    vg_pdq = jax.jit(jax.value_and_grad(make_probdiffeq_nll(times, values)))
    vg_ref = jax.jit(jax.value_and_grad(make_nll(times, values)))
    (v1, g1), (v2, g2) = vg_pdq(p, 1.0), vg_ref(p, 1.0)
    gdiff = float(jnp.max(jnp.abs(g1 - g2)) / jnp.max(jnp.abs(g2)))
    grust = jnp.asarray(big["grad_2001"])
    gdiff_rust = float(jnp.max(jnp.abs(grust - g1)) / jnp.max(jnp.abs(g1)))
    print(f"\n2001 points, κ² = 1: NLL probdiffeq {float(v1):.10g}, reference {float(v2):.10g}; "
          f"gradient max rel. difference {gdiff:.1e}; Rust NLL {big['nll_2001']:.10g}, "
          f"Rust vs probdiffeq gradient max rel. difference {gdiff_rust:.1e}")
    tp = median_time(vg_pdq, p, 1.0)
    tr = median_time(vg_ref, p, 1.0)
    rt = big["rust_value_grad_2001_s"]
    print(
        f"value + gradient, 2001 points, 4 parameters: Rust {rt * 1e3:.1f} ms, probdiffeq jit {tp * 1e3:.1f} ms, "
        f"JAX reference jit {tr * 1e3:.1f} ms; ratio Rust/probdiffeq = {rt / tp:.2f}, Rust/reference = {rt / tr:.2f} "
        f"(load {_common.load_average()})"
    )
    print(f"jax {jax.__version__}, probdiffeq {probdiffeq.__version__}")


if __name__ == "__main__":
    main()
