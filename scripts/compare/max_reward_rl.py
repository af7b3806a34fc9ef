#!/usr/bin/env python3
"""max-reward-rl side by side with mdptoolbox-hiive: identical values, then speed.

No library implements max-reward RL, but this crate reduces the max-reward
problem on augmented states (s, y) to a standard discounted MDP
(``MaxRewardMdp::export_standard_mdp``), so any MDP solver cross-checks it.
The example ``max_reward_rl_export`` writes the reduced MDPs and our exact
values (layered solver, tol 1e-12); this script builds mdptoolbox's inputs
from them (one scipy CSR matrix P[a] per action, R[s, a] = Σ p·r), solves
them with ``mdptoolbox.mdp.ValueIteration`` and checks that the values agree
to 1e-8 (part 1). Cases: the stochastic trap (γ = 0.9, v*(s0, 0) = 0.700),
a 6×6 slippery DSP grid (γ = 0.95) and the benchmark's n×n slippery DSP grids
(n = 8, 11, 15; β = 0.9, waypoints every 5 steps, slip 0.2, γ = 0.93; n = 15
has 25 650 augmented states).

Part 2 times value iteration on the benchmark grids. Ours is criterion's
median from ``benches/max_reward_rl.rs`` (``cargo bench --bench
max_reward_rl``) for three solvers: plain value iteration on (s, y)
(``max_reward_vi``), the exact layered solver (``max_reward_solve``) and the
generic ``tabular_mdp::value_iteration`` on the exported MDP (``export_vi``,
the same MDP and algorithm as mdptoolbox's). All stop at ‖v − v*‖∞ ≤ 1e-10
(sup-norm change ≤ 1e-10·(1−γ)/γ); mdptoolbox stops when the span of the
change is below epsilon·(1−γ)/γ, which equals the sup-norm change here (the
iterates increase from 0 and the absorbing state stays at 0), with
epsilon = 1e-10. mdptoolbox's time is the median of ``--repeats`` calls of
``ValueIteration(P, R, γ, epsilon, skip_check=True).run()`` (construction
included; ``run`` alone is printed too), numpy/scipy pinned to one thread.

Setup (once, from the repository root):

    python3 -m venv target/compare-venv
    target/compare-venv/bin/pip install numpy scipy threadpoolctl mdptoolbox-hiive

Run (from the repository root):

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE target/compare-venv/bin/python scripts/compare/max_reward_rl.py

Options: ``--skip-bench`` (reuse target/criterion), ``--skip-export`` (reuse
the exported files), ``--repeats N`` (mdptoolbox calls per case, default 5),
``--runs N`` (repeat benchmark + peer N times; best-of-N per side and the
range of the per-run ratios). Exit status 1 if values disagree.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

from _common import ROOT, blas_report, criterion_median_ns, fmt_ms, machine_report, target_dir  # noqa: E402  (pins BLAS threads first)

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

CASES = ["trap", "grid6", "dsp8", "dsp11", "dsp15"]
BENCH = {"dsp8": "n8", "dsp11": "n11", "dsp15": "n15"}
OURS = [("max_reward_solve", "layered solve"), ("max_reward_vi", "plain VI on (s, y)"), ("export_vi", "tabular_mdp VI on export")]
EPSILON = 1e-10
TOL = 1e-8


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(cmd: list[str]) -> None:
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True)


def load_case(d: Path, name: str):
    """(P list of CSR, R (S, A), gamma, our values, start index)."""
    with (d / f"{name}.mdp.txt").open() as f:
        n_states, n_actions, _ = (int(x) for x in f.readline().split())
        data = np.loadtxt(f, ndmin=2)
    s, a, nxt, p, r = data[:, 0].astype(np.int64), data[:, 1].astype(np.int64), data[:, 2].astype(np.int64), data[:, 3], data[:, 4]
    if np.any(data[:, 5] != 0):
        raise SystemExit(f"{name}: the export has terminal outcomes")
    P = []
    for act in range(n_actions):
        m = a == act
        # Duplicate (s, next) pairs are summed by the CSR conversion.
        P.append(sp.csr_matrix((p[m], (s[m], nxt[m])), shape=(n_states, n_states)))
    R = np.zeros((n_states, n_actions))
    np.add.at(R, (s, a), p * r)
    meta = (d / f"{name}.meta").read_text().split()
    gamma, start = float(meta[0]), int(meta[4])
    ours = np.loadtxt(d / f"{name}.values.txt")
    return P, R, gamma, ours, start, int(meta[3])


def solve_mdptoolbox(P, R, gamma, stock_bound: bool = False):
    """mdptoolbox ValueIteration: (V, iterations, construct + run seconds, run seconds).

    mdptoolbox's constructor computes an iteration bound (``_boundIter``) by
    slicing every column of every P[a], O(S·A·nnz) with CSR input and
    O(S²·A) with CSC (each column densified): minutes at 25 651 states. The
    default here skips that bound (a subclass sets ``max_iter`` to 10⁷), so
    the iteration stops on mdptoolbox's own epsilon rule alone, exactly like
    ours; ``stock_bound=True`` runs the stock constructor (timed separately).
    """
    from hiive.mdptoolbox.mdp import ValueIteration

    class NoBoundVI(ValueIteration):
        def _boundIter(self, epsilon):  # noqa: N802  (mdptoolbox's name)
            self.max_iter = 10_000_000

    cls = ValueIteration if stock_bound else NoBoundVI
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        vi = cls(P, R, gamma, epsilon=EPSILON, max_iter=10_000_000, skip_check=True)
        t1 = time.perf_counter()
        vi.run()
        t2 = time.perf_counter()
    return np.asarray(vi.V), vi.iter, t2 - t0, t2 - t1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skip-bench", action="store_true")
    ap.add_argument("--skip-export", action="store_true")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args()

    out = target_dir() / "max_reward_rl_export"
    if not args.skip_export:
        log("exporting (cargo run --release --example max_reward_rl_export) ...")
        run(["cargo", "run", "--release", "-q", "--example", "max_reward_rl_export", "--", str(out)])

    import hiive.mdptoolbox as mt  # noqa: F401
    from importlib.metadata import version

    print("## max-reward-rl vs mdptoolbox-hiive\n")
    for line in machine_report("max_reward_rl.py"):
        print(f"- {line}")
    blas_lines, limiter = blas_report()
    for line in blas_lines:
        print(f"- {line}")
    print(f"- mdptoolbox-hiive {version('mdptoolbox-hiive')}, scipy {version('scipy')}\n")

    cases = {name: load_case(out, name) for name in CASES}
    ok = True
    print("### Values (mdptoolbox ValueIteration on the exported MDP vs the crate's layered solver)\n")
    print("| case | exported states | |Y| | γ | v*(start, 0) ours | mdptoolbox | max |Δv| over all states | iterations (mdptoolbox) | agree ≤ 1e-8 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    with limiter:
        for name, (P, R, gamma, ours, start, n_y) in cases.items():
            v, iters, _, _ = solve_mdptoolbox(P, R, gamma)
            diff = float(np.max(np.abs(v - ours)))
            good = diff <= TOL
            ok &= good
            print(f"| {name} | {len(ours)} | {n_y} | {gamma} | {ours[start]:.10f} | {v[start]:.10f} | {diff:.1e} | {iters} | {'yes' if good else 'NO'} |")

        print("\nmdptoolbox's stock constructor (with its O(S·A·nnz) iteration bound, CSC input):\n")
        for name in ("dsp8", "dsp11"):
            P, R, gamma, ours, start, _ = cases[name]
            v, iters, t_all, t_run = solve_mdptoolbox([p.tocsc() for p in P], R, gamma, stock_bound=True)
            print(f"- {name} ({len(ours)} states): construction {t_all - t_run:.2f} s, run {t_run * 1e3:.1f} ms, "
                  f"{iters} iterations, max |Δv| {float(np.max(np.abs(v - ours))):.1e}")

        print("\n### Value-iteration time (tol 1e-10)\n")
        rows = {k: {"peer": [], "peer_run": [], **{g: [] for g, _ in OURS}} for k in BENCH}
        for r in range(args.runs):
            if not args.skip_bench:
                log(f"run {r + 1}/{args.runs}: cargo bench --bench max_reward_rl ...")
                run(["cargo", "bench", "--bench", "max_reward_rl"])
            for name, ident in BENCH.items():
                P, R, gamma, _, _, _ = cases[name]
                tot, only = [], []
                for _ in range(args.repeats):
                    _, _, t_all, t_run = solve_mdptoolbox(P, R, gamma)
                    tot.append(t_all * 1e9)
                    only.append(t_run * 1e9)
                rows[name]["peer"].append(statistics.median(tot))
                rows[name]["peer_run"].append(statistics.median(only))
                for g, _ in OURS:
                    rows[name][g].append(criterion_median_ns(g, ident))

    print("| grid | mdptoolbox (ms) | run() only (ms) | " + " | ".join(f"{label} (ms)" for _, label in OURS) + " | " + " | ".join(f"mdptoolbox / {label}" for _, label in OURS) + " |")
    print("|---|---:|---:|" + "---:|" * (2 * len(OURS)))
    for name in BENCH:
        row = rows[name]
        peer = min(row["peer"])
        cells = [name, fmt_ms(peer), fmt_ms(min(row["peer_run"]))]
        ours = {}
        for g, _ in OURS:
            vals = [x for x in row[g] if x is not None]
            ours[g] = min(vals) if vals else None
            cells.append(fmt_ms(ours[g]))
        for g, _ in OURS:
            if ours[g] is None:
                cells.append("—")
                continue
            ratios = [p / o for p, o in zip(row["peer"], row[g]) if o is not None]
            rng = f" ({min(ratios):.1f}–{max(ratios):.1f})" if len(ratios) > 1 else ""
            cells.append(f"{peer / ours[g]:.1f}{rng}")
        print("| " + " | ".join(cells) + " |")
    print(f"\nmdptoolbox: median of {args.repeats} calls per run; ours: criterion medians; best of {args.runs} run(s) per side, "
          "ratio range over runs in parentheses.")
    if not ok:
        print("\nVALUES DISAGREE", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
