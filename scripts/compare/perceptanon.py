#!/usr/bin/env python3
"""perceptanon side by side with scipy and scikit-image: agreement, then speed.

Part 1 (agreement) prints the peers' values on the inputs the Rust tests
rebuild from the same 31-bit LCG (``perceptanon_reference.py``; the numbers
are pasted into ``crates/perceptanon/tests/peer_values.rs``, which asserts
them: Pearson, Spearman, Kendall τ-b/τ-c and PSNR to 1e-12, SSIM — both
presets and scikit-image's default — Gaussian blur and biharmonic inpainting
to 1e-9), then runs that test file.

Part 2 (speed) runs the criterion benchmark ``benches/perceptanon.rs``
(single-threaded) and times, on the same inputs:
- ``scipy.stats.kendalltau`` (τ-b) at n = 10⁴, 10⁵, 10⁶ (x continuous, y
  on a 1..=10 grid);
- ``skimage.metrics.structural_similarity(gaussian_weights=True, sigma=1.5,
  use_sample_covariance=False, data_range=1)`` on grey images of side 256,
  512, 1024 (an LCG field against the same field with its centre quarter
  zeroed).

The ratio printed is peer time / ours (> 1: ours is faster). Goals (issue
29): τ-b at 10⁵ ≥ 5×, SSIM ≥ 3×.

``--cpu RUNS`` (speed only, by CPU clock: what docs/perf.md records): ours
from the example ``perceptanon_cpu`` (the thread's CPU clock, median of RUNS
calls after a warm-up), the peers by ``time.process_time()``, median of RUNS
calls after a warm-up, in the same script run; it also checks that both
sides computed the same τ-b (1e-12) and SSIM (1e-9).

Run: ``python scripts/compare/perceptanon.py`` in a venv with scipy and
scikit-image (recorded with target/venv-anon: scipy 1.17.1,
scikit-image 0.26.0).
"""

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402  (pins BLAS threads, malloc tuning)

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import skimage  # noqa: E402
from scipy import stats  # noqa: E402
from skimage.metrics import structural_similarity  # noqa: E402


def lcg(seed, n):
    """The 31-bit LCG of the Rust side, vectorised by jumping (a^k, c_k)."""
    a, c, m = 1103515245, 12345, 1 << 31
    out = np.empty(n, dtype=np.int64)
    s = seed
    # Plain loop in chunks: exact integer arithmetic.
    for i in range(n):
        s = (a * s + c) % m
        out[i] = s
    return out / float(m)


def pairs(n):
    u = lcg(1, 2 * n)
    x = u[:n]
    y = np.floor(10.0 * (0.6 * x + 0.4 * u[n:])) + 1.0
    return x, y


def images(side):
    a = lcg(2, side * side).reshape(side, side)
    b = a.copy()
    b[side // 4:3 * side // 4, side // 4:3 * side // 4] = 0.0
    return a, b


def best_of(f, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times) * 1e9


def cpu_median_ms(f, runs):
    f()
    ts = []
    for _ in range(runs):
        t = time.process_time()
        f()
        ts.append((time.process_time() - t) * 1e3)
    return statistics.median(ts), f()


def cpu_timing(runs):
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "perceptanon", "--example", "perceptanon_cpu"],
                   cwd=_common.ROOT, check=True)
    out = subprocess.run(["cargo", "run", "--release", "-q", "-p", "perceptanon", "--example", "perceptanon_cpu", "--",
                          str(runs)], cwd=_common.ROOT, check=True, capture_output=True, text=True).stdout
    ours = {}
    for line in out.strip().splitlines():
        f = line.split()
        kv = dict(t.split("=") for t in f[1:])
        ours[(f[0], kv.get("n") or kv.get("side"))] = (float(kv["median_ms"]), float(kv.get("tau_b") or kv.get("ssim")))
    print(f"### CPU time (ms), median of {runs} runs per side\n")
    print("| workload | ours | peer | peer / ours | \\|ours − peer\\| |\n|---|---:|---:|---:|---:|")
    for n in (10_000, 100_000, 1_000_000):
        x, y = pairs(n)
        peer, res = cpu_median_ms(lambda: stats.kendalltau(x, y), runs)
        ms, val = ours[("kendall", str(n))]
        diff = abs(val - res.statistic)
        assert diff <= 1e-12, (n, val, res.statistic)
        print(f"| τ-b, n = {n} (scipy `kendalltau`) | {ms:.3f} | {peer:.3f} | **{peer / ms:.2f}×** | {diff:.1e} |")
    for side in (256, 512, 1024):
        a, b = images(side)
        f = lambda: structural_similarity(a, b, gaussian_weights=True, sigma=1.5,  # noqa: E731
                                          use_sample_covariance=False, data_range=1.0)
        peer, res = cpu_median_ms(f, runs)
        ms, val = ours[("ssim", str(side))]
        diff = abs(val - res)
        assert diff <= 1e-9, (side, val, res)
        print(f"| SSIM, {side}² (scikit-image) | {ms:.3f} | {peer:.3f} | **{peer / ms:.2f}×** | {diff:.1e} |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--cpu":
        for line in _common.machine_report("perceptanon.py --cpu"):
            print(line)
        print(f"scipy {scipy.__version__}, scikit-image {skimage.__version__}, numpy {np.__version__}")
        cpu_timing(int(sys.argv[2]))
        return
    for line in _common.machine_report("perceptanon.py"):
        print(line)
    print(f"scipy {scipy.__version__}, scikit-image {skimage.__version__}, numpy {np.__version__}")
    print("\n## agreement")
    ref = Path(__file__).resolve().parent / "perceptanon_reference.py"
    subprocess.run([sys.executable, str(ref)], check=True)
    subprocess.run(["cargo", "test", "--release", "-p", "perceptanon", "--test", "peer_values"], cwd=_common.ROOT, check=True)

    print("\n## speed")
    exe = _common.build_bench("perceptanon")
    _common.run_bench(exe, None, env={"RAYON_NUM_THREADS": "1"})
    print("| workload | ours (ms) | peer (ms) | peer / ours |\n|---|---|---|---|")
    for n in (10_000, 100_000, 1_000_000):
        x, y = pairs(n)
        peer = best_of(lambda: stats.kendalltau(x, y), 3 if n < 1_000_000 else 1)
        ours = _common.criterion_median_ns("perceptanon_kendall_tau_b", str(n))
        ratio = peer / ours if ours else float("nan")
        print(f"| τ-b, n = {n} | {_common.fmt_ms(ours)} | {_common.fmt_ms(peer)} | {ratio:.2f} |")
    for side in (256, 512, 1024):
        a, b = images(side)
        f = lambda: structural_similarity(a, b, gaussian_weights=True, sigma=1.5,  # noqa: E731
                                          use_sample_covariance=False, data_range=1.0)
        peer = best_of(f, 5 if side < 1024 else 3)
        ours = _common.criterion_median_ns("perceptanon_ssim", str(side))
        ratio = peer / ours if ours else float("nan")
        print(f"| SSIM, {side}² | {_common.fmt_ms(ours)} | {_common.fmt_ms(peer)} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
