#!/usr/bin/env python3
"""cmdp-eluder side by side: V*_c against mdptoolbox-hiive, and the
per-episode cost of E-UC³RL vs the version-space agent as |P| grows.

No peer implements CMDP regret minimisation with offline oracles (the paper
has no code), so the side-by-side is in two parts:

1. **Exact values.** The example ``cmdp_eluder_export`` writes the spec's XOR
   instance (10 contexts) and three random layered CMDPs (4 contexts each) with
   the crate's V*_c(s0) (tabular-mdp finite-horizon DP). For every context this
   script builds the same finite-horizon MDP for ``hiive.mdptoolbox.mdp.
   FiniteHorizon(P, R, gamma=1, N=H)`` (one absorbing zero-reward sink after
   the last layer) and checks |V*_ours − V*_peer| ≤ 1e-12. It also times the
   peer on the XOR instance (10 FiniteHorizon solves) against the criterion
   median of ``cmdp_eluder_vstar/xor`` (same 10 solves in Rust).
2. **Scaling.** The criterion benchmark ``benches/cmdp_eluder.rs`` runs 256
   episodes of E-UC³RL and of the version-space agent on the |P|-scaled XOR
   instance, |P| ∈ {8, 64, 256}; the script prints per-episode times and the
   ratio VS / E-UC³RL (E-UC³RL: O(log T) oracle calls; VS: |F_t||P_t| plans
   per episode).

Run from the repository root:

    target/compare-venv/bin/python scripts/compare/cmdp_eluder.py [--no-bench]
"""

from __future__ import annotations

import _common  # noqa: F401  (thread pinning, malloc tuning)

import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import ROOT, criterion_median_ns, machine_report, build_bench, run_bench


def peer_arrays(inst: dict, ctx: dict) -> tuple[np.ndarray, np.ndarray]:
    """The context's finite-horizon MDP for mdptoolbox: A × (S+1) × (S+1)
    transitions with a zero-reward absorbing sink after the last layer."""
    s, a = inst["n_states"], inst["n_actions"]
    p = np.zeros((a, s + 1, s + 1))
    p[:, :s, :s] = np.array(ctx["P"])
    for ai in range(a):
        for si in range(s + 1):
            if p[ai, si].sum() == 0.0:  # last layer (and the sink) -> sink
                p[ai, si, s] = 1.0
    r = np.zeros((s + 1, a))
    r[:s] = np.array(ctx["R"])
    return p, r


def peer_solve(p: np.ndarray, r: np.ndarray, horizon: int) -> float:
    """V*(s0) by FiniteHorizon(P, R, gamma=1, N=H) (its convergence warning,
    irrelevant for a finite horizon, is silenced)."""
    from hiive.mdptoolbox.mdp import FiniteHorizon

    with contextlib.redirect_stdout(io.StringIO()):
        fh = FiniteHorizon(p, r, 1.0, horizon)
        fh.run()
    return float(fh.V[0, 0])


def peer_vstar(inst: dict, ctx: dict) -> float:
    p, r = peer_arrays(inst, ctx)
    return peer_solve(p, r, inst["horizon"])


def main() -> None:
    for line in machine_report("cmdp_eluder.py"):
        print(f"- {line}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "export.json"
        cmd = ["cargo", "run", "--release", "--example", "cmdp_eluder_export", "--", str(out)]
        print(f"$ {' '.join(cmd)}", file=sys.stderr, flush=True)
        subprocess.run(cmd, cwd=ROOT, check=True, stdout=sys.stderr)
        data = json.loads(out.read_text())
    print("\n### V*_c: cmdp-eluder (tabular-mdp DP) vs mdptoolbox-hiive FiniteHorizon\n")
    print("| instance | contexts | max abs diff |")
    print("|---|---|---|")
    worst = 0.0
    for inst in data["instances"]:
        diffs = [abs(c["vstar"] - peer_vstar(inst, c)) for c in inst["contexts"]]
        worst = max(worst, max(diffs))
        print(f"| {inst['name']} | {len(diffs)} | {max(diffs):.2e} |")
    ok = worst <= 1e-12
    print(f"\nagreement to 1e-12: {'yes' if ok else 'NO'} (worst {worst:.2e})")

    xor = data["instances"][0]
    arrays = [peer_arrays(xor, c) for c in xor["contexts"]]
    reps = []
    for _ in range(21):
        t0 = time.perf_counter()
        for p, r in arrays:
            peer_solve(p, r, xor["horizon"])
        reps.append(time.perf_counter() - t0)
    peer_ns = float(np.median(reps)) * 1e9

    if "--no-bench" not in sys.argv:
        exe = build_bench("cmdp_eluder")
        run_bench(exe, None)
    ours_ns = criterion_median_ns("cmdp_eluder_vstar", "xor")
    print("\n### V*_c for the 10 XOR contexts: time\n")
    print("| ours (criterion median) | mdptoolbox-hiive (median of 21) | ours / peer |")
    print("|---|---|---|")
    if ours_ns:
        print(f"| {ours_ns / 1e3:.1f} µs | {peer_ns / 1e3:.1f} µs | {ours_ns / peer_ns:.3f} |")
    print("\n### Per-episode time (256 episodes, XOR instance, |F| = 4)\n")
    print("| |P| | E-UC³RL µs/episode | version space µs/episode | VS / E-UC³RL |")
    print("|---|---|---|---|")
    for n_p in (8, 64, 256):
        e = criterion_median_ns("cmdp_eluder_run256", f"euc3rl/{n_p}")
        v = criterion_median_ns("cmdp_eluder_run256", f"version_space/{n_p}")
        if e is None or v is None:
            print(f"| {n_p} | — | — | — |")
            continue
        print(f"| {n_p} | {e / 256 / 1e3:.2f} | {v / 256 / 1e3:.2f} | {v / e:.2f} |")
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
