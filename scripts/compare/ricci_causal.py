#!/usr/bin/env python3
"""ricci-causal side by side with GraphRicciCurvature (GRC): identical
curvature and flow weights, then speed on one core.

One command. Graphs are generated here with networkx (fixed seeds) and
exchanged as edge-list files (``u v [w]`` per line) under
``target/ricci_causal_compare/``; ours runs through the crate's example
``curvature_csv`` (``cargo run --release -p ricci-causal --example
curvature_csv -- IN OUT --repeats R``), which reads the file, computes the
Ollivier–Ricci curvature of every edge (α = 0.5, GRC's defaults: measure
∝ e^{-w²}, exact W1), writes one value per edge and prints the CPU times of
R runs (``CLOCK_PROCESS_CPUTIME_ID``), serial (``parallel: false``), shortest
paths included. GRC runs
``OllivierRicci(G, alpha=0.5, method="OTD", proc=1).compute_ricci_curvature()``
on the same graph (APSP by networkit, one OpenMP thread; ``ot.emd2`` per edge
in GRC's ``multiprocessing`` pool of one worker process); its time is the
median CPU time of R calls on a fresh copy of the graph: this process's CPU
time plus that of its reaped children (the pool worker), so the figures
are CPU seconds on both sides and other jobs on a loaded machine do not
count.

Part 1 (agreement): max |κ_ours − κ_GRC| over all edges of each graph
(unweighted and weighted), and the Ricci-flow weights after 3 iterations
(karate: GRC's own test; a weighted G(200, 800)). Tolerance 1e-6.
Part 2 (speed): medians on G(n, 4n) for n = 250, 500, 1000 and on
G(2500, 10⁴), ratio GRC / ours, and the growth exponent (log-log slope of
time against m) of each side.
Part 3 (speed, weighted): the same sizes with lengths U(0.5, 2) (GRC's
measure ∝ e^{-w²} is then not uniform and distances need Dijkstra): exact
ORC, and one Ricci-flow iteration (``compute_ricci_flow(iterations=1)``,
its initial curvature included, against ours ``--flow 1``), with the
agreement of κ and of the flowed weights.

Setup (once, from the repository root; any venv works, e.g. under your
target directory):

    python3 -m venv target/compare-venv
    target/compare-venv/bin/pip install graphriccicurvature==0.6.1 networkx pot threadpoolctl

Run (from the repository root):

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE target/compare-venv/bin/python scripts/compare/ricci_causal.py

Options: ``--no-build`` (use the example already built), ``--repeats N`` (runs per side and graph, default 5), ``--runs N``
(repeat the timing N times and keep each side's best median; default 1),
``--only unweighted|weighted`` (one speed section).
Exit status 1 if an agreement check fails.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402  (pins BLAS threads, tunes malloc, re-executes once)

import networkx as nx  # noqa: E402

OUT = _common.target_dir() / "ricci_causal_compare"
EXAMPLE = _common.target_dir() / "release" / "examples" / "curvature_csv"


def build() -> None:
    subprocess.run(
        ["cargo", "build", "--release", "-p", "ricci-causal", "--example", "curvature_csv"],
        cwd=_common.ROOT,
        check=True,
    )


def write(G: nx.Graph, name: str, weighted: bool) -> Path:
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.txt"
    with path.open("w") as f:
        for u, v, d in G.edges(data=True):
            f.write(f"{u} {v} {d['weight']!r}\n" if weighted else f"{u} {v}\n")
    return path


def ours(path: Path, repeats: int, flow: int | None = None) -> tuple[dict, dict]:
    out = path.with_suffix(".ours")
    cmd = [str(EXAMPLE), str(path), str(out), "--repeats", str(repeats)]
    if flow is not None:
        cmd += ["--flow", str(flow)]
    res = subprocess.run(cmd, check=True, capture_output=True, text=True)
    timing = json.loads(res.stdout.strip().splitlines()[-1])
    values = {}
    for line in out.read_text().splitlines():
        u, v, k = line.split()
        values[(int(u), int(v))] = float(k)
    return timing, values


def cpu_seconds() -> float:
    """CPU time of this process (all threads: networkit's APSP) plus its
    reaped children (GRC's ``multiprocessing`` pool worker, joined when the
    pool closes), so a loaded machine's other jobs do not count."""
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ch.ru_utime + ch.ru_stime


def grc_curvature(G: nx.Graph, repeats: int) -> tuple[float, dict]:
    from GraphRicciCurvature.OllivierRicci import OllivierRicci

    times, orc = [], None
    for _ in range(repeats):
        H = G.copy()
        t = cpu_seconds()
        orc = OllivierRicci(H, alpha=0.5, method="OTD", proc=1, verbose="ERROR")
        orc.compute_ricci_curvature()
        times.append(cpu_seconds() - t)
    times.sort()
    return times[len(times) // 2], {(u, v): d["ricciCurvature"] for u, v, d in orc.G.edges(data=True)}


def grc_flow_time(G: nx.Graph, iterations: int, repeats: int) -> tuple[float, dict]:
    """Median CPU time of ``compute_ricci_flow(iterations)`` (initial curvature
    included, as ours) on fresh copies, and the final weights."""
    from GraphRicciCurvature.OllivierRicci import OllivierRicci

    times, H = [], None
    for _ in range(repeats):
        orc = OllivierRicci(G.copy(), alpha=0.5, method="OTD", proc=1, verbose="ERROR")
        t = cpu_seconds()
        H = orc.compute_ricci_flow(iterations=iterations)
        times.append(cpu_seconds() - t)
    times.sort()
    return times[len(times) // 2], {(u, v): d["weight"] for u, v, d in H.edges(data=True)}


def grc_flow(G: nx.Graph, iterations: int) -> dict:
    from GraphRicciCurvature.OllivierRicci import OllivierRicci

    orc = OllivierRicci(G.copy(), alpha=0.5, method="OTD", proc=1, verbose="ERROR")
    H = orc.compute_ricci_flow(iterations=iterations)
    return {(u, v): d["weight"] for u, v, d in H.edges(data=True)}


def max_diff(a: dict, b: dict) -> float:
    def get(d, u, v):
        return d[(u, v)] if (u, v) in d else d[(v, u)]

    assert len(a) == len(b), (len(a), len(b))
    return max(abs(get(b, u, v) - k) for (u, v), k in a.items())


def weighted(G: nx.Graph, seed: int) -> nx.Graph:
    rnd = random.Random(seed)
    for u, v in G.edges():
        G[u][v]["weight"] = rnd.uniform(0.5, 2.0)
    return G


def slope(xs: list[float], ys: list[float]) -> float:
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def weighted_speed(args) -> bool:
    """Weighted G(n, 4n), lengths U(0.5, 2): exact ORC (OTD) and one
    Ricci-flow iteration (initial curvature included on both sides)."""
    ok = True
    sizes = [(250, 1000, 21), (500, 2000, 22), (1000, 4000, 23), (2500, 10_000, 24)]
    rows = []
    for n, m, seed in sizes:
        G = weighted(nx.gnm_random_graph(n, m, seed=seed), seed + 100)
        path = write(G, f"wgnm_{n}_{m}", True)
        best = [math.inf, math.inf, math.inf, math.inf, 0.0, 0.0]
        for _ in range(args.runs):
            t_ours, ov = ours(path, args.repeats)
            t_grc, gv = grc_curvature(G, args.repeats)
            f_ours, ofw = ours(path, args.repeats, flow=1)
            f_grc, gfw = grc_flow_time(G, 1, args.repeats)
            d_k, d_w = max_diff(ov, gv), max_diff(ofw, gfw)
            best = [
                min(best[0], t_ours["median_s"]),
                min(best[1], t_grc),
                min(best[2], f_ours["median_s"]),
                min(best[3], f_grc),
                max(best[4], d_k),
                max(best[5], d_w),
            ]
        ok &= best[4] <= 1e-6 and best[5] <= 1e-6
        rows.append((n, m, *best))
    print("\n## Speed on weighted G(n, 4n), lengths U(0.5, 2), one core (median of", args.repeats, "runs; best of", args.runs, "run(s))\n")
    print("| graph | ORC ours (ms) | ORC GRC (ms) | GRC / ours | flow 1 it. ours (ms) | flow 1 it. GRC (ms) | GRC / ours | max |Δκ| | max |Δw| |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, m, to, tg, fo, fg, dk, dw in rows:
        print(
            f"| G({n}, {m}) | {to * 1e3:.1f} | {tg * 1e3:.0f} | {tg / to:.1f}× | {fo * 1e3:.1f} | {fg * 1e3:.0f} | "
            f"{fg / fo:.1f}× | {dk:.1e} | {dw:.1e} |"
        )
    xs = [math.log(r[1]) for r in rows]
    for side, k in (("ORC ours", 2), ("ORC GRC", 3), ("flow ours", 4), ("flow GRC", 5)):
        print(f"growth exponent {side} (time ∝ m^k, m = 1000…10⁴): k = {slope(xs, [math.log(r[k]) for r in rows]):.2f}")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--no-malloc-tuning", action="store_true")
    ap.add_argument("--no-build", action="store_true", help="use the example already built in the target dir")
    ap.add_argument(
        "--only",
        choices=["all", "unweighted", "weighted"],
        default="all",
        help="which speed sections to run (agreement always runs)",
    )
    args = ap.parse_args()
    if not args.no_build:
        build()
    for line in _common.machine_report("ricci_causal.py"):
        print(f"- {line}")
    import GraphRicciCurvature
    import ot

    print(f"- GraphRicciCurvature {GraphRicciCurvature.__version__}, POT {ot.__version__}, networkx {nx.__version__}")

    karate = nx.karate_club_graph()
    for u, v in karate.edges():
        del karate[u][v]["weight"]  # recent networkx adds weights; GRC's test clears them

    ok = True
    print("\n## Agreement (α = 0.5, OTD)\n")
    print("| graph | edges | max abs diff | ≤ 1e-6 |")
    print("|---|---:|---:|---|")
    cases = [
        ("karate", karate, False),
        ("gnm_500_2000", nx.gnm_random_graph(500, 2000, seed=1), False),
        ("weighted_gnm_200_800", weighted(nx.gnm_random_graph(200, 800, seed=2), 3), True),
        ("barbell_4_0", nx.barbell_graph(4, 0), False),
    ]
    for name, G, w in cases:
        path = write(G, name, w)
        _, ov = ours(path, 1)
        _, gv = grc_curvature(G, 1)
        d = max_diff(ov, gv)
        ok &= d <= 1e-6
        print(f"| {name} curvature | {G.number_of_edges()} | {d:.2e} | {d <= 1e-6} |")
    for name, G, w in [cases[0], cases[2], cases[3]]:
        path = write(G, name, w)
        _, ov = ours(path, 1, flow=3)
        gv = grc_flow(G, 3)
        d = max_diff(ov, gv)
        ok &= d <= 1e-6
        print(f"| {name} flow weights, 3 iterations | {G.number_of_edges()} | {d:.2e} | {d <= 1e-6} |")

    if args.only in ("all", "unweighted"):
        print("\n## Speed, one core (median of", args.repeats, "runs; best of", args.runs, "run(s))\n")
        sizes = [(250, 1000, 11), (500, 2000, 1), (1000, 4000, 12), (2500, 10_000, 13)]
        best: dict[tuple[int, int], list[float]] = {}
        for _ in range(args.runs):
            for n, m, seed in sizes:
                G = nx.gnm_random_graph(n, m, seed=seed)
                path = write(G, f"gnm_{n}_{m}", False)
                t_ours, ov = ours(path, args.repeats)
                t_grc, gv = grc_curvature(G, args.repeats)
                d = max_diff(ov, gv)
                ok &= d <= 1e-6
                prev = best.get((n, m), [math.inf, math.inf, 0.0])
                best[(n, m)] = [min(prev[0], t_ours["median_s"]), min(prev[1], t_grc), max(prev[2], d)]
        print("| graph | ours (ms) | GRC (ms) | GRC / ours | max abs diff |")
        print("|---|---:|---:|---:|---:|")
        for (n, m), (to, tg, d) in best.items():
            print(f"| G({n}, {m}) | {to * 1e3:.1f} | {tg * 1e3:.0f} | {tg / to:.1f}× | {d:.1e} |")
        xs = [math.log(m) for (_, m) in list(best)[:3]]
        for side, k in (("ours", 0), ("GRC", 1)):
            ys = [math.log(best[key][k]) for key in list(best)[:3]]
            mx, my = sum(xs) / 3, sum(ys) / 3
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
            print(f"\ngrowth exponent {side} (time ∝ m^k over m = 1000, 2000, 4000): k = {slope:.2f}", end="")
        print()
    if args.only in ("all", "weighted"):
        ok &= weighted_speed(args)
    print("\nall agreement checks passed" if ok else "\nAGREEMENT FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
