#!/usr/bin/env python3
"""fair-memory side by side with a straightforward numpy Q-learning script
(a port of the official tabular ``ql.py`` logic, written here; no public
library implements FairQCM).

One command:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE target/compare-venv/bin/python scripts/compare/fair_memory.py

Part 1 — sample efficiency. Deterministic Donut (N = 3, T = 12, p = 1),
official α = 0.1, γ = 0.99, per-(s, m) ε from 1 (×0.95 per exploration while
> 0.2), greedy ties to the lowest action, tabular counterfactual window
(offset 0, width 2, real memory skipped, NSW with λ = 1e-4 in the
counterfactual reward: the official code's bugs fixed as in the crate). The
greedy policy is rolled out every 25 episodes (deterministic, so the rollout
is its exact value) and compared with the round-robin optimum; "episodes to
optimal" = first checkpoint from which it stays optimal. Median over seeds,
with and without counterfactuals; ours from
``cargo run --release --example fair_memory_donut -- --seeds K``.

Part 2 — speed. Time per training episode on the stochastic Donut (p = 0.8,
N = 3, T = 12), with and without counterfactuals: ours from the criterion
benchmark ``benches/fair_memory.rs`` (groups episode_no_cf / episode_window_cf,
id T12), the numpy script timed on the same setting.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402  (re-execs with malloc tuning; thread pinning)

import numpy as np  # noqa: E402

LAMBDA = 1e-4


class Donut:
    """State s = presence mask + 2^N·drops; memory = counts, compact code."""

    def __init__(self, n: int, horizon: int, p: float, rng: np.random.Generator):
        self.n, self.T, self.p, self.rng = n, horizon, p, rng
        self.radix = horizon + 1
        self.n_states = (1 << n) * (horizon + 1)
        self.n_mem = self.radix**n
        self.strides = np.array([self.radix**i for i in range(n)])

    def mask(self) -> int:
        if self.p >= 1.0:
            return (1 << self.n) - 1
        bits = self.rng.random(self.n) < self.p
        return int(sum(1 << i for i in range(self.n) if bits[i]))

    def encode(self, m) -> int:
        return int(np.dot(m, self.strides))

    @staticmethod
    def nsw(m) -> float:
        return float(np.sum(np.log(np.asarray(m, dtype=float) + 1.0 + LAMBDA)))


def train(env: Donut, episodes: int, cf: bool, eval_every: int = 0, optimum: float | None = None):
    q = np.zeros((env.n_states * env.n_mem, env.n))
    eps = np.ones(env.n_states * env.n_mem)
    rng = env.rng
    first = None
    for e in range(1, episodes + 1):
        s = env.mask()
        m = np.zeros(env.n, dtype=np.int64)
        for _ in range(env.T):
            row = s * env.n_mem + env.encode(m)
            if rng.random() < eps[row]:
                if eps[row] > 0.2:
                    eps[row] *= 0.95
                a = int(rng.integers(env.n))
            else:
                a = int(np.argmax(q[row]))
            mask, d = s & ((1 << env.n) - 1), s >> env.n
            present = (mask >> a) & 1 == 1
            d2 = d if present else d + 1
            s2 = env.mask() + (d2 << env.n)
            m2 = m.copy()
            if present:
                m2[a] += 1
            r = env.nsw(m2) if present else 0.0
            end = int(m2.sum()) + d2 >= env.T
            y = r if end else r + 0.99 * q[s2 * env.n_mem + env.encode(m2)].max()
            q[row, a] += 0.1 * (y - q[row, a])
            if cf:
                upd = []
                for delta in np.ndindex(*([2] * env.n)):
                    mt = np.minimum(m + np.array(delta), env.T)
                    if np.array_equal(mt, m) or int(mt.sum()) + d >= env.T:
                        continue
                    mt2 = mt.copy()
                    if present:
                        mt2[a] += 1
                    rt = env.nsw(mt2) if present else 0.0
                    endt = int(mt2.sum()) + d2 >= env.T
                    yt = rt if endt else rt + 0.99 * q[s2 * env.n_mem + env.encode(mt2)].max()
                    upd.append((s * env.n_mem + env.encode(mt), yt))
                for r_, y_ in upd:
                    q[r_, a] += 0.1 * (y_ - q[r_, a])
            s, m = s2, m2
            if end:
                break
        if eval_every and e % eval_every == 0:
            ok = greedy_return(env, q) >= optimum - 1e-9
            first = (first or e) if ok else None
    return first


def greedy_return(env: Donut, q) -> float:
    """Discounted return of the greedy policy on the deterministic Donut."""
    s, m, ret, disc = (1 << env.n) - 1, np.zeros(env.n, dtype=np.int64), 0.0, 1.0
    for _ in range(env.T):
        a = int(np.argmax(q[s * env.n_mem + env.encode(m)]))
        m[a] += 1
        ret += disc * env.nsw(m)
        disc *= 0.99
    return ret


def round_robin(n: int, horizon: int) -> float:
    m, ret, disc = np.zeros(n), 0.0, 1.0
    for t in range(horizon):
        m[t % n] += 1
        ret += disc * Donut.nsw(m)
        disc *= 0.99
    return ret


def main() -> None:
    seeds, episodes = 10, 6000
    lines = ["## fair-memory", ""] + [f"- {x}" for x in _common.machine_report("fair_memory.py")]
    blas, limiter = _common.blas_report()
    lines += [f"- {x}" for x in blas]
    with limiter:
        # Part 1: numpy episodes to optimal.
        opt = round_robin(3, 12)
        med = {}
        for cf in (True, False):
            hits = []
            for seed in range(seeds):
                env = Donut(3, 12, 1.0, np.random.default_rng(seed))
                f = train(env, episodes, cf, eval_every=25, optimum=opt)
                hits.append(f if f is not None else 10**9)
            hits.sort()
            med[cf] = hits[seeds // 2]
            print(f"numpy cf={cf}: episodes to optimal per seed {hits}", file=sys.stderr)
        # Ours.
        cmd = ["cargo", "run", "--release", "--example", "fair_memory_donut", "--", "--seeds", str(seeds)]
        print("$ " + " ".join(cmd), file=sys.stderr, flush=True)
        out = subprocess.run(cmd, cwd=_common.ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
        print(out, file=sys.stderr)
        ours = {}
        for line in out.splitlines():
            mm = re.match(r"(FairQCM window w=2|Full, no CF)\s*: median episodes to optimal (>?\s*\d+)", line)
            if mm:
                ours["window" if mm.group(1).startswith("FairQCM") else "none"] = mm.group(2)
        # Part 2: time per episode, p = 0.8.
        exe = _common.build_bench("fair_memory")
        _common.run_bench(exe, "T12")
        rust = {
            cf: _common.criterion_median_ns("episode_window_cf" if cf else "episode_no_cf", "T12") for cf in (True, False)
        }
        py = {}
        for cf in (True, False):
            env = Donut(3, 12, 0.8, np.random.default_rng(7))
            n_ep = 300 if cf else 1000
            t0 = time.perf_counter()
            train(env, n_ep, cf)
            py[cf] = (time.perf_counter() - t0) / n_ep * 1e9
    fmt = lambda x: "never" if x >= 10**9 else str(x)  # noqa: E731
    lines += [
        "",
        "Episodes until the greedy policy is (and stays) optimal, deterministic Donut N = 3, T = 12, "
        f"median over {seeds} seeds, {episodes} episodes max:",
        "",
        "| implementation | FairQCM (window) | Full memory, no CF | ratio none / window |",
        "|---|---|---|---|",
        f"| numpy script | {fmt(med[True])} | {fmt(med[False])} | {med[False] / med[True]:.1f} |",
    ]
    if "window" in ours and "none" in ours and ours["none"].strip().isdigit():
        lines.append(
            f"| fair-memory | {ours['window']} | {ours['none']} | {int(ours['none']) / int(ours['window']):.1f} |"
        )
    else:
        lines.append(f"| fair-memory | {ours.get('window', '?')} | {ours.get('none', '?')} | — |")
    lines += [
        "",
        "Time per training episode, stochastic Donut N = 3, T = 12, p = 0.8 (µs):",
        "",
        "| | ours (criterion median) | numpy script | numpy / ours |",
        "|---|---|---|---|",
    ]
    for cf, name in ((False, "no counterfactuals"), (True, "window counterfactuals")):
        r = rust[cf]
        lines.append(
            f"| {name} | {r / 1e3:.2f} | {py[cf] / 1e3:.1f} | {py[cf] / r:.0f}× |"
            if r
            else f"| {name} | — | {py[cf] / 1e3:.1f} | — |"
        )
    print("\n".join(lines))


if __name__ == "__main__":
    main()
