#!/usr/bin/env python3
"""lookahead-mlmc side by side with BoTorch on the spec's 1-D case.

The case: train_x = [-8, -3, 0, 2.5, 7], targets from the 1-D toy
f(x) = exp(-(x-2)^2) + exp(-(x-6)^2/10) + 1/(x^2+1), noise 1e-4, a FIXED
Matern-5/2 kernel (lengthscale 2, outputscale 1), constant mean 0.

1. Posterior mean/variance on 11 grid points, analytic EI (best_f = max y)
   and the fantasised posterior after adding (x = 1, y = 0.9): BoTorch
   ``SingleTaskGP(train_Yvar=...)`` (no input/outcome transforms),
   ``ExpectedImprovement`` and ``condition_on_observations`` against ours
   (``cargo run --release -p lookahead-mlmc --example peer_values``):
   max abs difference, target 1e-8.
2. The two-step 1+2-EI value at x = 1 with the inner batch fixed at
   X' = [1.5, 2.5] for every fantasy, N = M = 256: BoTorch
   ``qMultiStepLookahead(batch_sizes=[2], samplers=[IIDNormalSampler(N)],
   inner_mc_samples=[None, M], valfunc_cls=[ExpectedImprovement,
   qExpectedImprovement], valfunc_argfacs=[make_best_f, make_best_f])``
   evaluated at X = [1, 1.5, 2.5, 1.5, 2.5, ...] (1 + 2N points) over
   ``--seeds`` seeds, against ours (independent base samples): agreement
   within 4 combined MC standard errors.
3. Time of that value at equal N, M: BoTorch ``forward`` (torch, CPU,
   float64, one thread, median of ``--repeats`` after a warm-up; the
   acquisition object and its base samples are built once, as in an
   optimiser loop) against ours (``TwoStepSaa::value_with_inner``, median
   printed by the example). Ratio BoTorch / ours; goal >= 10.

If BoTorch cannot be imported, parts 1-2 fall back to a numpy reference of
the same formulas (and part 3 is skipped); the script says so.

    target/compare-venv/bin/pip install botorch     # pulls torch from PyPI
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE target/compare-venv/bin/python scripts/compare/lookahead_mlmc.py
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402  (pins threads, malloc tuning)

import numpy as np  # noqa: E402

TRAIN_X = [-8.0, -3.0, 0.0, 2.5, 7.0]
GRID = [-10.0 + 2.0 * i for i in range(11)]


def toy(x):
    return np.exp(-((x - 2.0) ** 2)) + np.exp(-((x - 6.0) ** 2) / 10.0) + 1.0 / (x * x + 1.0)


def ours(n: int, m: int, repeats: int) -> dict:
    cmd = ["cargo", "run", "--release", "-q", "-p", "lookahead-mlmc", "--example", "peer_values", "--",
           str(n), str(m), str(repeats)]
    print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, cwd=_common.ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def matern52(a, b, ls=2.0, s=1.0):
    r = np.abs(a[:, None] - b[None, :]) / ls
    r5 = math.sqrt(5.0) * r
    return s * (1.0 + r5 + r5 * r5 / 3.0) * np.exp(-r5)


def numpy_reference(x, y, noise, xs, best):
    k = matern52(x, x) + noise * np.eye(len(x))
    ks = matern52(x, xs)
    sol = np.linalg.solve(k, ks)
    mu = sol.T @ y
    var = 1.0 - np.sum(ks * sol, axis=0)
    from scipy.stats import norm

    sd = np.sqrt(np.maximum(var, 0))
    u = (mu - best) / np.where(sd > 0, sd, 1)
    ei = np.where(sd > 0, sd * (u * norm.cdf(u) + norm.pdf(u)), np.maximum(mu - best, 0))
    return mu, var, ei


def numpy_two_step(n, m, rng):
    x = np.array(TRAIN_X)
    y = toy(x)
    best = y.max()
    noise = 1e-4
    mu0, var0, ei0 = numpy_reference(x, y, noise, np.array([1.0]), best)
    vals = []
    for _ in range(n):
        yf = mu0[0] + math.sqrt(var0[0] + noise) * rng.standard_normal()
        x1 = np.append(x, 1.0)
        y1 = np.append(y, yf)
        xs = np.array([1.5, 2.5])
        k = matern52(x1, x1) + noise * np.eye(len(x1))
        ks = matern52(x1, xs)
        sol = np.linalg.solve(k, ks)
        mu = sol.T @ y1
        cov = matern52(xs, xs) - ks.T @ sol
        lch = np.linalg.cholesky(cov + 1e-12 * np.eye(2))
        f = mu[None, :] + rng.standard_normal((m, 2)) @ lch.T
        vals.append(np.maximum(f.max(axis=1) - max(best, yf), 0).mean())
    vals = np.array(vals)
    return ei0[0] + vals.mean(), vals.std(ddof=1) / math.sqrt(n)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--m", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--no-malloc-tuning", action="store_true")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", message=".*has known numerical issues.*")
    for line in _common.machine_report("lookahead_mlmc.py"):
        print(f"- {line}")
    r = ours(args.n, args.m, args.repeats)
    x = np.array(TRAIN_X)
    y = toy(x)
    best = float(y.max())
    try:
        import torch
        import botorch
        from botorch.acquisition import ExpectedImprovement, qExpectedImprovement
        from botorch.acquisition.multi_step_lookahead import qMultiStepLookahead, make_best_f
        from botorch.models import SingleTaskGP
        from botorch.sampling import IIDNormalSampler
        from gpytorch.kernels import MaternKernel, ScaleKernel
        have_botorch = True
    except Exception as e:  # pragma: no cover - depends on the environment
        print(f"- BoTorch not importable ({e!r}): numpy reference only")
        have_botorch = False

    if have_botorch:
        torch.set_num_threads(1)
        torch.set_default_dtype(torch.float64)
        print(f"- BoTorch {botorch.__version__}, torch {torch.__version__} (CPU, float64, 1 thread)")
        tx = torch.tensor(TRAIN_X).unsqueeze(-1)
        ty = torch.tensor(y).unsqueeze(-1)
        model = SingleTaskGP(tx, ty, train_Yvar=torch.full_like(ty, 1e-4),
                             covar_module=ScaleKernel(MaternKernel(nu=2.5)),
                             outcome_transform=None, input_transform=None)
        model.covar_module.base_kernel.lengthscale = 2.0
        model.covar_module.outputscale = 1.0
        model.mean_module.constant = 0.0
        model.eval()
        g = torch.tensor(GRID).unsqueeze(-1)
        with torch.no_grad():
            post = model.posterior(g)
            pm = post.mean.squeeze(-1).numpy()
            pv = post.variance.squeeze(-1).numpy()
            ei = ExpectedImprovement(model, best_f=best)(g.unsqueeze(-2)).numpy()
            fm = model.condition_on_observations(X=torch.tensor([[1.0]]), Y=torch.tensor([[0.9]]),
                                                 noise=torch.tensor([[1e-4]]))
            fpost = fm.posterior(g)
            fmu = fpost.mean.squeeze(-1).numpy()
            fvar = fpost.variance.squeeze(-1).numpy()
        peer = "BoTorch"
    else:
        pm, pv, ei = numpy_reference(x, y, 1e-4, np.array(GRID), best)
        x1 = np.append(x, 1.0)
        y1 = np.append(y, 0.9)
        fmu, fvar, _ = numpy_reference(x1, y1, 1e-4, np.array(GRID), best)
        peer = "numpy reference"

    diffs = {
        "posterior mean": np.max(np.abs(pm - np.array(r["mean"]))),
        "posterior variance": np.max(np.abs(pv - np.array(r["var"]))),
        "EI": np.max(np.abs(ei - np.array(r["ei"]))),
        "fantasised mean": np.max(np.abs(fmu - np.array(r["fant_mean"]))),
        "fantasised variance": np.max(np.abs(fvar - np.array(r["fant_var"]))),
    }
    print(f"\n| quantity (11 grid points) | max abs diff vs {peer} | target |\n|---|---|---|")
    for k, v in diffs.items():
        print(f"| {k} | {v:.2e} | ≤ 1e-8 {'✓' if v <= 1e-8 else '✗'} |")

    n, m = args.n, args.m
    if have_botorch:
        xq = torch.tensor([[1.0] + [1.5, 2.5] * n]).unsqueeze(-1)  # 1 x (1 + 2N) x 1
        vals = []
        for seed in range(args.seeds):
            acq = qMultiStepLookahead(
                model, batch_sizes=[2], num_fantasies=None,
                samplers=[IIDNormalSampler(sample_shape=torch.Size([n]), seed=seed)],
                valfunc_cls=[ExpectedImprovement, qExpectedImprovement],
                valfunc_argfacs=[make_best_f, make_best_f], inner_mc_samples=[None, m])
            with torch.no_grad():
                vals.append(float(acq(xq)))
        vals = np.array(vals)
        bo_mean, bo_se = vals.mean(), vals.std(ddof=1) / math.sqrt(len(vals))
        acq = qMultiStepLookahead(
            model, batch_sizes=[2], num_fantasies=None,
            samplers=[IIDNormalSampler(sample_shape=torch.Size([n]), seed=0)],
            valfunc_cls=[ExpectedImprovement, qExpectedImprovement],
            valfunc_argfacs=[make_best_f, make_best_f], inner_mc_samples=[None, m])
        with torch.no_grad():
            acq(xq)
            times = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                acq(xq)
                times.append(time.perf_counter() - t)
        t_bo = float(np.median(times))
    else:
        rng = np.random.default_rng(0)
        bo_mean, bo_se = numpy_two_step(n, m, rng)
        t_bo = None
    se = math.sqrt(r["two_step_se"] ** 2 + bo_se**2)
    z = abs(r["two_step"] - bo_mean) / se
    print(f"\n| two-step 1+2-EI at x = 1, X' = [1.5, 2.5], N = {n}, M = {m} | value | MC SE |\n|---|---|---|")
    print(f"| ours (one run) | {r['two_step']:.5f} | {r['two_step_se']:.5f} |")
    label = f"{peer} (mean of {args.seeds} seeds)" if have_botorch else peer
    print(f"| {label} | {bo_mean:.5f} | {bo_se:.5f} |")
    print(f"| difference / combined SE | {z:.2f} | target ≤ 4 {'✓' if z <= 4 else '✗'} |")
    if t_bo is not None:
        ours_s = r["seconds_median"]
        print(f"\n| two-step value, N = {n}, M = {m} | median time | ratio BoTorch / ours |\n|---|---|---|")
        print(f"| ours (`TwoStepSaa::value_with_inner`) | {ours_s * 1e3:.3f} ms | |")
        print(f"| BoTorch `qMultiStepLookahead.forward` | {t_bo * 1e3:.3f} ms | {t_bo / ours_s:.1f}× (goal ≥ 10×) |")


if __name__ == "__main__":
    main()
