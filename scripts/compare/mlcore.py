#!/usr/bin/env python3
"""mlcore's dense linear algebra (faer) side by side with numpy (OpenBLAS/LAPACK).

One command: builds and runs the criterion benchmark ``benches/mlcore.rs``
(``cargo bench --bench mlcore``: built once, then its binary is run as cargo
would run it), reads its median times from
``target/criterion/<group>/<n>/new/estimates.json``, times numpy on the same
workloads, and prints a Markdown table ``op | n | ours (ms) | numpy (ms) |
ours/numpy`` (the table in docs/perf.md).

Workloads (as in the benchmark; numpy draws its own matrices of the same
distribution, the values are not the same but the work is):

- ``cholesky``: ``np.linalg.cholesky`` of the SPD matrix ``A = B Bᵀ/n + I``,
  ``B`` standard normal, vs ``mlcore::linalg::cholesky``;
- ``svd``: ``np.linalg.svd(X, full_matrices=False)`` of a standard-normal
  ``X`` (singular vectors included), vs ``mlcore::linalg::svd`` (thin);
- ``eigh``: ``np.linalg.eigh(A)`` (eigenvectors included), vs
  ``mlcore::linalg::eigh``;

each at n = 100, 400, 1000. Both sides run on ONE thread: faer is sequential
unless mlcore's ``parallel`` feature is on, and this script pins BLAS to one
thread (``OPENBLAS_NUM_THREADS=1`` etc. before numpy is imported, and
threadpoolctl's ``threadpool_limits(1)``). numpy's time is the median of
repeated calls timed with ``time.perf_counter``; ours is criterion's median.

Setup (once, from the repository root; Python 3.11):

    python3 -m venv target/compare-venv
    target/compare-venv/bin/pip install numpy threadpoolctl

Run (from the repository root):

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE target/compare-venv/bin/python scripts/compare/mlcore.py

On some machines here OPENBLAS_CORETYPE (and OPENBLAS_L2_SIZE) are set in the
environment, because older OpenBLAS builds compute wrong results or crash
without them. They force a kernel that slows a current numpy, so the command
above unsets both for that command alone (change neither elsewhere). The
script prints the kernel OpenBLAS then runs (threadpoolctl's ``internal_api``
and ``architecture``) and warns if either variable is still set.

Memory: on these VMs a page fault costs several µs, and glibc's malloc hands
every array above its (dynamic) mmap threshold out as fresh pages, so a call
that allocates its n = 1000 output anew pays ~2000 faults, ~10 ms, more than
half of a Cholesky. Whether it does depends on what ran before in the same
process (numpy's Cholesky took 27 ms before any large LAPACK call and 14 ms
after one). So that both sides measure the arithmetic and not the page-fault
state of the allocator, the script runs both (itself, re-executed, and the
benchmark) with ``MALLOC_MMAP_THRESHOLD_=33554432`` (32 MiB, glibc's maximum)
and ``MALLOC_TRIM_THRESHOLD_=4294967296``, so freed memory is reused.
``--no-malloc-tuning`` measures with glibc's defaults instead.

Options: ``FILTER`` (a criterion filter such as ``svd`` or ``eigh/1000``,
passed to ``cargo bench`` and applied to the numpy side), ``--skip-bench``
(reuse the criterion output already in target/criterion), ``--min-time``
(seconds of numpy timing per case), ``--runs N`` (repeat benchmark + numpy
N times; each side's time is then the best of its N per-run medians, the ratio
is of those, and the range of the per-run ratios is printed too: the two sides
run a minute apart, and on a shared 2-core VM other jobs and the host slow one
side or the other by up to 2x, so a single run's ratio is noisy; docs/perf.md
uses ``--runs 5``), ``--no-malloc-tuning`` (see above).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path

from _common import ROOT, blas_report, build_bench, criterion_median_ns, fmt_ms, load_average, machine_report, run_bench, target_dir  # noqa: E402,F401  (pins BLAS threads first)

OPS = ("cholesky", "svd", "eigh")
SIZES = (100, 400, 1000)
SEED = 42



def numpy_inputs(op: str, n: int):
    """The same workload as the benchmark: SPD B Bᵀ/n + I, or a Gaussian matrix."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    b = rng.standard_normal((n, n))
    if op == "svd":
        return b
    return b @ b.T / n + np.eye(n)


def numpy_call(op: str):
    """The numpy routine measured for `op`."""
    import numpy as np

    return {
        "cholesky": np.linalg.cholesky,
        "svd": lambda a: np.linalg.svd(a, full_matrices=False),
        "eigh": np.linalg.eigh,
    }[op]


def time_numpy_ns(op: str, n: int, min_time: float, min_repeats: int = 10) -> float:
    """Median time of one numpy call (ns): warm up ~0.5 s, then at least
    `min_repeats` calls and at least `min_time` seconds."""
    a = numpy_inputs(op, n)
    f = numpy_call(op)
    start = time.perf_counter()
    f(a)
    while time.perf_counter() - start < 0.5:
        f(a)
    times = []
    start = time.perf_counter()
    while len(times) < min_repeats or (time.perf_counter() - start < min_time and len(times) < 10_000):
        t0 = time.perf_counter()
        f(a)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e9



def measure(args, cases, exe: str | None) -> list[tuple[str, int, float | None, float]]:
    """One run: the criterion benchmark (unless --skip-bench), then numpy."""
    if exe is not None:
        run_bench(exe, args.filter)
    print(f"  load average {load_average()}", file=sys.stderr)
    rows = []
    for op, n in cases:
        print(f"numpy {op}/{n} …", file=sys.stderr, flush=True)
        ours, peer = criterion_median_ns(op, str(n)), time_numpy_ns(op, n, args.min_time)
        ratio = f"{ours / peer:.2f}" if ours is not None else "—"
        print(f"  {op}/{n}: ours {fmt_ms(ours)} ms, numpy {fmt_ms(peer)} ms, ratio {ratio}", file=sys.stderr)
        rows.append((op, n, ours, peer))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("filter", nargs="?", help="criterion filter, e.g. 'svd' or 'eigh/1000'")
    parser.add_argument("--skip-bench", action="store_true", help="reuse target/criterion output")
    parser.add_argument("--min-time", type=float, default=2.0, help="seconds of numpy timing per case (default 2)")
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        help="repeat benchmark + numpy this many times; report each side's best per-run median (default 1)",
    )
    parser.add_argument(
        "--no-malloc-tuning",
        action="store_true",
        help="keep glibc's malloc defaults (see the module docstring)",
    )
    args = parser.parse_args()

    pattern = re.compile(args.filter) if args.filter else None
    cases = [(op, n) for op in OPS for n in SIZES if pattern is None or pattern.search(f"{op}/{n}")]

    exe = None if args.skip_bench else build_bench("mlcore")
    info = machine_report("mlcore.py")
    blas_lines, limiter = blas_report()
    runs = []
    with limiter:
        for r in range(max(args.runs, 1)):
            if args.runs > 1:
                print(f"--- run {r + 1}/{args.runs}", file=sys.stderr, flush=True)
            runs.append(measure(args, cases, exe))

    def best(values):
        values = [v for v in values if v is not None]
        return min(values) if values else None

    # Over several runs, each side's time is its best (smallest) per-run
    # median: other jobs and the VM only ever slow a run down, and the two
    # sides run at different moments. The ratio is of those best times.
    rows = []  # (op, n, ours, numpy, ratio, (min ratio, max ratio))
    for i, (op, n) in enumerate(cases):
        ours = [run[i][2] for run in runs]
        peer = [run[i][3] for run in runs]
        ratios = [o / p for o, p in zip(ours, peer) if o is not None]
        span = (min(ratios), max(ratios)) if ratios else None
        o_best, p_best = best(ours), best(peer)
        rows.append((op, n, o_best, p_best, None if o_best is None else o_best / p_best, span))

    info.append(f"load average at the end {load_average()}")
    try:
        if float(load_average()) > 1.5:
            info.append(
                "WARNING: other jobs ran meanwhile (load average above 1.5 on a run that keeps one core busy); "
                "the two sides ran at different times, so the ratios are unreliable: rerun on an idle machine"
            )
    except ValueError:
        pass
    print()
    for line in info + blas_lines:
        print(f"- {line}")
    if len(runs) > 1:
        print(
            f"- {len(runs)} runs; each time is the best of the {len(runs)} per-run medians, the ratio is of "
            "those; range = min–max of the per-run ratios"
        )
    print()
    many = len(runs) > 1
    print("| op | n | ours (ms) | numpy (ms) | ours/numpy |" + (" range |" if many else ""))
    print("|---|---:|---:|---:|---:|" + ("---:|" if many else ""))
    for op, n, ours, peer, ratio, span in rows:
        line = f"| {op} | {n} | {fmt_ms(ours)} | {fmt_ms(peer)} | {'—' if ratio is None else f'{ratio:.2f}'} |"
        if many:
            line += " — |" if span is None else f" {span[0]:.2f}–{span[1]:.2f} |"
        print(line)

    # Growth from one size to the next, against the n³ of all three algorithms.
    growth = []
    by_case = {(op, n): (ours, peer) for op, n, ours, peer, _, _ in rows}
    for op in OPS:
        for lo, hi in zip(SIZES, SIZES[1:]):
            if (op, lo) in by_case and (op, hi) in by_case:
                (o_lo, p_lo), (o_hi, p_hi) = by_case[(op, lo)], by_case[(op, hi)]
                ours_g = f"×{o_hi / o_lo:.1f}" if o_lo and o_hi else "—"
                growth.append(
                    f"- {op} n={lo}→{hi}: ours {ours_g}, numpy ×{p_hi / p_lo:.1f} "
                    f"(n³ predicts ×{(hi / lo) ** 3:.1f})"
                )
    if growth:
        print()
        print("Growth of time with n:")
        print("\n".join(growth))
    missing = [f"{op}/{n}" for op, n, ours, *_ in rows if ours is None]
    if missing:
        print(f"\nno criterion estimates for {', '.join(missing)} (run without --skip-bench)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
