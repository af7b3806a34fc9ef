#!/usr/bin/env python3
"""fair-lottery side by side with numpy (successive sampling, what the
official code uses), cps-sampling (conditional Poisson) and samplics (PPS
systematic, Rao–Sampford): the marginals agree, then speed.

Part 1 (agreement), on the spec's case c = [0.9, 0.8, 0.5, 0.3, 0.2, 0.1],
k = 3 (and numpy also on c = [3, 2, 1], k = 2). Our numbers come from the
crate's example ``marginals_json`` (``cargo run --release -p fair-lottery
--example marginals_json -- K DRAWS SEED c...``), which prints the ideal π,
the exact successive marginals, the calibrated CPS design's exact marginals
and π_ij, and the empirical frequencies of DRAWS draws of every sampler.

- numpy ``Generator.choice(n, k, replace=False, p=c/Σc)`` (= the official
  code): its frequencies must match our *exact successive marginals* (5σ),
  and both differ from the ideal π (that is the paper's bug, reported).
- cps-sampling ``ConditionalPoisson(pi, k)``: ``diag(joint_inclusion())``
  vs our exact CPS marginals, its full π_ij vs ours, and its draws'
  frequencies vs π (5σ).
- samplics ``SampleSelection(PPS Systematic / PPS Rao-Sampford, wr=False)``:
  its π (``probs``) vs ours (1e-12), and its draws' frequencies vs π (5σ).

Part 2 (time): ours is criterion's median (``cargo bench --bench
fair_lottery``; groups systematic, pipage, successive, cps_draw, cps_setup,
sampford, inclusion_probs at n = 10⁴, 10⁵, 10⁶ with k = n/10, claims
``1 − U``). Peers: median of ``--repeats`` calls on claims of the same law
(numpy's own RNG: same distribution, not the same numbers; timing only).
cps-sampling's design holds an N × k matrix (``q_from_w``): at n = 10⁶,
k = 10⁵ that is 10¹¹ doubles (800 GB), so it is timed at n = 10⁴ and
2·10⁴ only and the 10⁶ line says why it is missing. samplics' PPS
systematic loops over n × k in Python, so it is timed at n = 10⁴ only; its
Rao–Sampford (multinomial rejective, acceptance ≈ e^(−k²/2n)) does not
finish at k = 10³ and is not timed.

Run (from the repository root; once:
``target/compare-venv/bin/pip install numpy threadpoolctl cps-sampling==0.1.0 samplics==0.6.1``):

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE target/compare-venv/bin/python scripts/compare/fair_lottery.py

Options: ``--skip-bench`` (reuse target/criterion), ``--skip-agreement``,
``--skip-timing``, ``--repeats N`` (default 5), ``--draws N`` (default 1e5),
``--bench-filter NAME`` (run only the criterion groups matching NAME),
``--cpu RUNS`` (only successive sampling vs numpy, by CPU clock: medians of
RUNS runs per side, the figures docs/perf.md records under load).
Exit status 1 if an asserted agreement fails.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import warnings

from _common import ROOT, blas_report, criterion_median_ns, fmt_ms, machine_report  # noqa: E402  (pins BLAS threads first)

import numpy as np  # noqa: E402

warnings.filterwarnings("ignore")

SPEC_C = [0.9, 0.8, 0.5, 0.3, 0.2, 0.1]
SIZES = (10_000, 100_000, 1_000_000)
EXAMPLE = ["cargo", "run", "--release", "-q", "-p", "fair-lottery", "--example", "marginals_json", "--"]
FAILED: list[str] = []


def check(ok: bool, what: str) -> str:
    if not ok:
        FAILED.append(what)
    return "ok" if ok else "FAIL"


def ours(k: int, draws: int, seed: int, claims: list[float]) -> dict:
    out = subprocess.run(
        EXAMPLE + [str(k), str(draws), str(seed)] + [repr(c) for c in claims],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {key: (np.array(v) if v is not None else None) for key, v in json.loads(out).items()}


def z_max(freq: np.ndarray, p: np.ndarray, draws: int) -> float:
    sd = np.sqrt(np.maximum(p * (1 - p), 1e-300) / draws)
    return float(np.max(np.abs(freq - p) / sd))


def numpy_successive_freq(c, k, draws, seed):
    rng = np.random.default_rng(seed)
    p = np.asarray(c) / np.sum(c)
    hits = np.zeros(len(c))
    for _ in range(draws):
        hits[rng.choice(len(c), k, replace=False, p=p)] += 1
    return hits / draws


def agreement(draws: int) -> list[str]:
    lines = ["### Agreement (c = [0.9, 0.8, 0.5, 0.3, 0.2, 0.1], k = 3)", ""]
    o = ours(3, draws, 11, SPEC_C)
    pi = o["ideal"]
    lines.append(f"ideal π (ours) = {np.round(pi, 4).tolist()}")
    lines.append("")
    lines.append("| comparison | value | bound | |")
    lines.append("|---|---:|---|---|")

    # numpy successive = official code
    f_np = numpy_successive_freq(SPEC_C, 3, draws, 5)
    z = z_max(f_np, o["successive_exact"], draws)
    lines.append(f"| numpy choice(replace=False) freq vs our exact successive marginals, max z | {z:.2f} | ≤ 5 | {check(z <= 5, 'numpy vs successive')} |")
    z2 = float(np.max(np.abs(f_np - o["freq_successive"]) / np.sqrt(2 * o["successive_exact"] * (1 - o["successive_exact"]) / draws)))
    lines.append(f"| numpy freq vs our successive draws (two-sample), max z | {z2:.2f} | ≤ 5 | {check(z2 <= 5, 'numpy vs our successive draws')} |")
    dev = float(np.max(np.abs(o["successive_exact"] - pi)))
    lines.append(f"| max \\|π_successive − π_ideal\\| (the official sampler's deviation) | {dev:.4f} | reported | |")
    f321 = numpy_successive_freq([3, 2, 1], 2, draws, 6)
    o321 = ours(2, 1000, 12, [3.0, 2.0, 1.0])
    z3 = z_max(f321, o321["successive_exact"], draws)
    lines.append(f"| [3,2,1], k = 2: numpy freq {np.round(f321, 3).tolist()} vs exact {np.round(o321['successive_exact'], 4).tolist()}, max z | {z3:.2f} | ≤ 5 | {check(z3 <= 5, 'numpy 321')} |")

    # cps-sampling
    try:
        from cps_sampling import ConditionalPoisson

        cps = ConditionalPoisson(pi, 3)
        joint = cps.joint_inclusion()
        dpi = float(np.max(np.abs(np.diag(joint) - pi)))
        lines.append(f"| cps-sampling as shipped: diag(joint_inclusion()) vs target π | {dpi:.2e} | reported (its calibration stops at an L1 change < 0.01) | |")
        d = float(np.max(np.abs(np.diag(joint) - o["cps_design"])))
        lines.append(f"| cps-sampling as shipped vs our exact CPS marginals | {d:.2e} | reported | |")
        # Same design, calibrated to convergence: then the spec's 1e-9 agreement applies.
        from cps_sampling.calibration import calibrate
        from cps_sampling.joint import joint_inclusion

        p_tight = calibrate(pi, eps=1e-15, max_iter=100_000, max_iter_no_change=100_000)
        jt = joint_inclusion(p_tight, 3)
        d = float(np.max(np.abs(np.diag(jt) - o["cps_design"])))
        lines.append(f"| cps-sampling calibrated to convergence: diag(π_ij) vs our exact CPS marginals | {d:.2e} | ≤ 1e-9 (spec) | {check(d <= 1e-9, 'cps diag')} |")
        dj = float(np.max(np.abs(jt - o["cps_joint"])))
        lines.append(f"| cps-sampling calibrated to convergence: π_ij vs ours, max abs | {dj:.2e} | ≤ 1e-9 | {check(dj <= 1e-9, 'cps joint')} |")
        dw = float(np.max(np.abs(p_tight - o["cps_working"])))
        lines.append(f"| working probabilities p, cps-sampling (converged) vs ours | {dw:.2e} | reported (p is unique only up to w → c·w; both normalise differently) | |")
        hits = np.zeros(6)
        for s in range(draws):
            hits[cps.sample(s)] += 1
        z = z_max(hits / draws, pi, draws)
        lines.append(f"| cps-sampling draws vs π, max z | {z:.2f} | reported (its calibration stops at an L1 change < 0.01) | |")
        z = z_max(o["freq_cps"], pi, draws)
        lines.append(f"| our CPS draws vs π, max z | {z:.2f} | ≤ 5 | {check(z <= 5, 'our cps draws')} |")
    except ImportError:
        lines.append("| cps-sampling | not installed | | |")

    # samplics
    try:
        from samplics.sampling import SampleSelection
        from samplics.utils.types import SelectMethod

        ids = np.arange(6)
        sdraws = max(draws // 10, 1000)
        for name, method, shuffle in (
            ("PPS systematic (fixed order)", SelectMethod.pps_sys, False),
            ("PPS systematic, shuffle=True", SelectMethod.pps_sys, True),
            ("PPS Rao-Sampford", SelectMethod.pps_rs, False),
        ):
            np.random.seed(7)
            hits = np.zeros(6)
            probs = None
            for _ in range(sdraws):
                sel = SampleSelection(method=method, wr=False)
                if method == SelectMethod.pps_sys:
                    df = sel.select(ids, samp_size=3, mos=np.array(SPEC_C), shuffle=shuffle, to_dataframe=True)
                    units = df["_samp_unit"].to_numpy()
                    hits[units[df["_sample"].to_numpy().astype(bool)]] += 1
                    probs = np.empty(6)
                    probs[units] = df["_probs"].to_numpy()
                else:
                    mask, _, probs = sel.select(ids, samp_size=3, mos=np.array(SPEC_C))
                    hits += np.asarray(mask).astype(float)
            dp = float(np.max(np.abs(np.asarray(probs) - pi)))
            lines.append(f"| samplics {name}: its π vs ours | {dp:.1e} | ≤ 1e-12 | {check(dp <= 1e-12, 'samplics probs ' + name)} |")
            z = z_max(hits / sdraws, pi, sdraws)
            f = np.round(hits / sdraws, 3).tolist()
            if method == SelectMethod.pps_sys and not shuffle:
                lines.append(f"| samplics {name}: {sdraws} draws vs π, max z | {z:.2f} | ≤ 5 | {check(z <= 5, 'samplics draws ' + name)} |")
            elif method == SelectMethod.pps_sys:
                lines.append(f"| samplics {name}: {sdraws} draws {f} vs π, max z | {z:.2f} | reported: shuffle permutes the units but not their sizes | |")
            else:
                lines.append(f"| samplics {name}: {sdraws} draws {f} vs π, max z | {z:.2f} | reported: its second stage excludes the first unit, which is not Sampford's design | |")
        for ours_name in ("systematic", "pipage", "sampford"):
            z = z_max(o["freq_" + ours_name], pi, draws)
            lines.append(f"| our {ours_name} draws vs π, max z | {z:.2f} | ≤ 5 | {check(z <= 5, 'our ' + ours_name)} |")
    except ImportError:
        lines.append("| samplics | not installed | | |")
    return lines


def median_time(fn, repeats: int) -> float:
    fn()
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e9


def capped_pi(c: np.ndarray, k: int) -> np.ndarray:
    """Broome-fair π = min(1, κc) by iterative capping (for the peers' input)."""
    order = np.argsort(-c)
    cs = c[order]
    suffix = np.cumsum(cs[::-1])[::-1]
    m = 0
    while m < k and cs[m] * (k - m) / suffix[m] > 1:
        m += 1
    pi = np.empty_like(c)
    pi[order] = np.concatenate([np.ones(m), cs[m:] * (k - m) / suffix[m]])
    return np.minimum(pi, 1.0)


def timing(repeats: int) -> list[str]:
    lines = ["### Time (k = n/10)", ""]
    peers: dict[tuple[str, int], float | None] = {}
    rng = np.random.default_rng(7)
    for n in SIZES:
        k = n // 10
        c = 1.0 - rng.random(n)
        p = c / c.sum()
        g = np.random.default_rng(1)
        peers[("numpy", n)] = median_time(lambda: g.choice(n, k, replace=False, p=p), repeats)
        pi = capped_pi(c, k)
        try:
            from samplics.sampling import SampleSelection
            from samplics.utils.types import SelectMethod

            ids = np.arange(n)

            def sys_draw():
                SampleSelection(method=SelectMethod.pps_sys, wr=False).select(ids, samp_size=k, mos=c, shuffle=True)

            if n == SIZES[0]:
                # Its PPS systematic loops over n × k in Python: 10⁷ steps at
                # n = 10⁴, 10¹¹ at 10⁶ (not run).
                t0 = time.perf_counter()
                sys_draw()
                peers[("samplics_sys", n)] = (time.perf_counter() - t0) * 1e9
        except ImportError:
            pass
        try:
            from cps_sampling import ConditionalPoisson

            if n <= 20_000:
                t0 = time.perf_counter()
                cps = ConditionalPoisson(pi, k)
                peers[("cps_setup", n)] = (time.perf_counter() - t0) * 1e9
                s = iter(range(10**9))
                peers[("cps_draw", n)] = median_time(lambda: cps.sample(next(s)), repeats)
        except ImportError:
            pass
    # cps-sampling at n = 2e4 too (k = 2e3), for its growth.
    try:
        from cps_sampling import ConditionalPoisson

        n2 = 20_000
        c2 = 1.0 - rng.random(n2)
        t0 = time.perf_counter()
        ConditionalPoisson(capped_pi(c2, n2 // 10), n2 // 10)
        peers[("cps_setup", n2)] = (time.perf_counter() - t0) * 1e9
    except ImportError:
        pass

    def ours_ns(group: str, n: int) -> float | None:
        return criterion_median_ns(group, f"n{n}_k{n // 10}")

    def ratio(a, b):
        return f"{a / b:.3g}" if a and b else "—"

    lines.append("| n | ours successive | numpy choice(p, replace=False) | ours/numpy | ours systematic | ours pipage | samplics PPS sys | systematic/samplics | pipage/samplics | ours CPS draw | cps-sampling draw | ours/cps | ours CPS set-up | cps-sampling set-up | ours/cps | ours Sampford |")
    lines.append("|---:|" + "---:|" * 15)
    for n in SIZES:
        su, npy = ours_ns("successive", n), peers.get(("numpy", n))
        sy, pp, ss = ours_ns("systematic", n), ours_ns("pipage", n), peers.get(("samplics_sys", n))
        cd, pcd = ours_ns("cps_draw", n), peers.get(("cps_draw", n))
        cs, pcs = ours_ns("cps_setup", n), peers.get(("cps_setup", n))
        sf = ours_ns("sampford", n)
        pcs_txt = fmt_ms(pcs) if pcs else ("needs N×k = 10¹¹ doubles (800 GB)" if n == 1_000_000 else "not run (N×k matrix)")
        lines.append(
            f"| {n} | {fmt_ms(su)} | {fmt_ms(npy)} | {ratio(su, npy)} | {fmt_ms(sy)} | {fmt_ms(pp)} | {fmt_ms(ss)} | {ratio(sy, ss)} | {ratio(pp, ss)} "
            f"| {fmt_ms(cd)} | {fmt_ms(pcd)} | {ratio(cd, pcd)} | {fmt_ms(cs)} | {pcs_txt} | {ratio(cs, pcs)} | {fmt_ms(sf)} |"
        )
    if ("cps_setup", 20_000) in peers:
        lines.append("")
        lines.append(f"cps-sampling set-up at n = 20000, k = 2000: {fmt_ms(peers[('cps_setup', 20_000)])} ms (growth ×{peers[('cps_setup', 20_000)] / peers[('cps_setup', 10_000)]:.1f} for ×2 n and ×2 k).")
    lines.append("")
    lines.append("Successive set-up (validation and the key threshold, once per claim vector; numpy's `choice` redoes its set-up every call): "
                 + ", ".join(f"n = {n}: {fmt_ms(ours_ns('successive_setup', n))} ms, (set-up + one draw)/numpy = "
                             f"{ratio((ours_ns('successive_setup', n) or 0) + (ours_ns('successive', n) or 0), peers.get(('numpy', n)))}" for n in SIZES) + ".")
    lines.append("")
    lines.append("Times in ms. inclusion_probs (ours, claims → π): " + ", ".join(f"n = {n}: {fmt_ms(ours_ns('inclusion_probs', n))}" for n in SIZES) + ".")
    return lines


def cpu_timing(runs: int) -> list[str]:
    """CPU time (ms) of successive sampling, medians of `runs` runs per side:
    ours from the example ``successive_cpu`` (the thread's CPU clock around
    ``Successive::new``, around one draw, and around one
    ``Successive::sample_once``: validation, threshold and draw in one call),
    numpy's ``choice(replace=False, p)`` by ``time.process_time()`` (its
    set-up is part of every call, like ``sample_once``'s)."""
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "fair-lottery", "--example", "successive_cpu"],
                   cwd=ROOT, check=True)
    lines = [f"### Successive sampling, CPU time (ms), k = n/10, median of {runs} runs per side", "",
             "| n | ours: draw | ours: set-up | ours: sample_once | numpy choice | numpy/ours draw | numpy/(ours set-up + draw) | numpy/ours sample_once |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    rng = np.random.default_rng(7)
    for n in SIZES:
        k = n // 10
        out = subprocess.run(["cargo", "run", "--release", "-q", "-p", "fair-lottery", "--example", "successive_cpu", "--",
                              str(n), str(k), str(runs)], cwd=ROOT, check=True, capture_output=True, text=True).stdout
        last = out.strip().splitlines()[-1]
        setup = float(last.split("setup_median_ms=")[1].split()[0])
        draw = float(last.split("draw_median_ms=")[1].split()[0])
        once = float(last.split("once_median_ms=")[1].split()[0])
        c = 1.0 - rng.random(n)
        p = c / c.sum()
        g = np.random.default_rng(1)
        g.choice(n, k, replace=False, p=p)
        ts = []
        for _ in range(runs):
            t0 = time.process_time()
            g.choice(n, k, replace=False, p=p)
            ts.append((time.process_time() - t0) * 1e3)
        npy = statistics.median(ts)
        print(f"n={n}: ours {out.strip()} | numpy runs {[round(t, 2) for t in ts]}", file=sys.stderr)
        lines.append(f"| {n} | {draw:.3f} | {setup:.3f} | {once:.3f} | {npy:.3f} | {npy / draw:.1f}× | {npy / (setup + draw):.2f}× | **{npy / once:.1f}×** |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-bench", action="store_true")
    ap.add_argument("--skip-agreement", action="store_true")
    ap.add_argument("--skip-timing", action="store_true")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cpu", type=int, default=0, metavar="RUNS",
                    help="only time successive sampling by CPU clock (medians of RUNS runs per side)")
    ap.add_argument("--draws", type=int, default=100_000)
    ap.add_argument("--no-malloc-tuning", action="store_true")
    ap.add_argument("--bench-filter", default=None, help="criterion filter, e.g. successive (other groups keep their last results)")
    args = ap.parse_args()
    blas_lines, limiter = blas_report()
    with limiter:
        out = ["## fair-lottery", ""] + machine_report("fair_lottery.py") + blas_lines + [""]
        if args.cpu:
            out += cpu_timing(args.cpu)
        elif not args.skip_agreement:
            out += agreement(args.draws) + [""]
        if not args.skip_timing and not args.cpu:
            if not args.skip_bench:
                extra = ["--", args.bench_filter] if args.bench_filter else []
                subprocess.run(["cargo", "bench", "--bench", "fair_lottery", *extra], cwd=ROOT, check=True)
            out += timing(args.repeats)
    print("\n".join(out))
    if FAILED:
        print("\nFAILED: " + "; ".join(FAILED), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
