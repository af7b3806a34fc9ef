#!/usr/bin/env python3
"""Reference values for mlcore::stats' inference functions, from SciPy.

Prints Rust tables (with the SciPy / statsmodels call behind every number in
a comment) that are pasted into ``crates/mlcore/tests/hypothesis_scipy.rs``:

- Wilson intervals: statsmodels ``proportion_confint(k, n, 1 - c, method="wilson")``
  and SciPy ``binomtest(k, n).proportion_ci(c, method="wilson")``;
- Clopper–Pearson intervals: SciPy ``binomtest(k, n).proportion_ci(c, method="exact")``
  (found by ``brentq`` with its default ``xtol=2e-12``, so good to about 2e-12
  absolute) and ``special.betaincinv`` (Boost, accurate to a few ulps);
- binomial test p-values: ``binomtest(k, n, p, alternative).pvalue``;
- Fisher's exact test p-values: ``fisher_exact(table, alternative).pvalue``;
- Wilcoxon signed-rank: ``wilcoxon(x, y, alternative=..., method="exact")`` on
  tie-free samples of n = 5, 10, 20, 25, ``method="asymptotic"`` (with
  ``correction=True``) at n = 40, and SciPy's default (an exact sign-flip
  permutation test for n <= 13 with ties or zeros) on a sample with ties and
  zeros; W+ printed from ``_wilcoxon_statistic`` semantics (sum of the ranks
  of the positive differences);
- Student-t intervals: ``t.interval(c, n - 1, loc=mean, scale=sem)``.

Setup and run (from the repository root):

    python3 -m venv target/venv-stats
    target/venv-stats/bin/pip install scipy numpy statsmodels
    target/venv-stats/bin/python scripts/compare/stats_reference.py
"""

from __future__ import annotations

import numpy as np
import scipy
import statsmodels
from scipy import special, stats
from statsmodels.stats.proportion import proportion_confint

ALT = {"two-sided": "TwoSided", "less": "Less", "greater": "Greater"}


def f(x: float) -> str:
    """A float as a Rust literal that round-trips."""
    s = repr(float(x))
    return s if ("." in s or "e" in s or "inf" in s or "nan" in s) else s + ".0"


def header() -> None:
    print(f"// scipy {scipy.__version__}, statsmodels {statsmodels.__version__}, numpy {np.__version__}")


def wilson_and_cp() -> None:
    cases = [
        (0, 10, 0.95),
        (10, 10, 0.95),
        (1, 10, 0.95),
        (7, 20, 0.95),
        (3, 15, 0.9),
        (50, 100, 0.99),
        (0, 1, 0.5),
        (1, 1, 0.8),
        (17, 1000, 0.95),
        (999, 1000, 0.95),
        (0, 1000, 0.99),
        (1, 100000, 0.95),
        (123456, 1000000, 0.999),
    ]
    print("/// (k, n, c, statsmodels lo, statsmodels hi, scipy lo, scipy hi)")
    print("const WILSON: &[(u64, u64, f64, f64, f64, f64, f64)] = &[")
    for k, n, c in cases:
        slo, shi = proportion_confint(k, n, alpha=1 - c, method="wilson")
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=c, method="wilson")
        print(f"    // proportion_confint({k}, {n}, alpha=1 - {c}, method=\"wilson\"); "
              f"binomtest({k}, {n}).proportion_ci({c}, method=\"wilson\")")
        print(f"    ({k}, {n}, {f(c)}, {f(slo)}, {f(shi)}, {f(ci.low)}, {f(ci.high)}),")
    print("];")
    print("/// (k, n, c, scipy lo, scipy hi, betaincinv lo, betaincinv hi)")
    print("const CLOPPER_PEARSON: &[(u64, u64, f64, f64, f64, f64, f64)] = &[")
    for k, n, c in cases:
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=c, method="exact")
        a = (1 - c) / 2
        blo = 0.0 if k == 0 else special.betaincinv(k, n - k + 1, a)
        bhi = 1.0 if k == n else special.betaincinv(k + 1, n - k, 1 - a)
        print(f"    // binomtest({k}, {n}).proportion_ci({c}, method=\"exact\"); "
              f"betaincinv({k}, {n - k + 1}, (1 - {c})/2), betaincinv({k + 1}, {n - k}, 1 - (1 - {c})/2)")
        print(f"    ({k}, {n}, {f(c)}, {f(ci.low)}, {f(ci.high)}, {f(blo)}, {f(bhi)}),")
    print("];")


def binomial() -> None:
    cases = [
        (7, 20, 0.5),
        (3, 10, 0.5),
        (3, 15, 0.1),
        (0, 10, 0.3),
        (10, 10, 0.3),
        (13, 30, 0.25),
        (5, 100, 0.001),
        (99, 100, 0.999),
        (100, 100, 0.999),
        (1, 50, 1e-4),
        (0, 50, 1e-4),
        (49, 50, 0.9999),
        (500, 1000, 0.45),
        (6, 12, 0.5),
        (2, 7, 1.0 / 3.0),
        (0, 5, 0.0),
        (1, 5, 0.0),
        (5, 5, 1.0),
        (4, 5, 1.0),
        (271, 100000, 0.002),
    ]
    print("/// (k, n, p, alternative, scipy p-value)")
    print("const BINOMIAL: &[(u64, u64, f64, Alternative, f64)] = &[")
    for k, n, p in cases:
        for alt in ("two-sided", "less", "greater"):
            pv = stats.binomtest(k, n, p, alternative=alt).pvalue
            print(f"    // binomtest({k}, {n}, {p!r}, alternative=\"{alt}\").pvalue")
            print(f"    ({k}, {n}, {f(p)}, Alternative::{ALT[alt]}, {f(pv)}),")
    print("];")


def fisher() -> None:
    tables = [
        [[8, 2], [1, 5]],
        [[0, 5], [5, 0]],
        [[3, 0], [0, 3]],
        [[10, 0], [3, 7]],
        [[1, 9], [11, 3]],
        [[20, 15], [10, 25]],
        [[0, 0], [5, 5]],
        [[0, 3], [0, 4]],
        [[100, 200], [150, 120]],
        [[2, 7], [8, 2]],
        [[5, 5], [5, 5]],
        [[3, 1], [1, 3]],
        [[0, 10], [1, 9]],
        [[1, 0], [0, 0]],
        [[1000, 20], [980, 45]],
    ]
    print("/// (table, alternative, scipy p-value)")
    print("const FISHER: &[([[u64; 2]; 2], Alternative, f64)] = &[")
    for t in tables:
        for alt in ("two-sided", "less", "greater"):
            pv = stats.fisher_exact(t, alternative=alt).pvalue
            print(f"    // fisher_exact({t}, alternative=\"{alt}\").pvalue")
            print(f"    ({t}, Alternative::{ALT[alt]}, {f(pv)}),")
    print("];")


def w_plus(x: np.ndarray, y: np.ndarray) -> float:
    d = x - y
    d = d[d != 0]
    r = stats.rankdata(np.abs(d))
    return float(r[d > 0].sum())


def wilcoxon() -> None:
    rng = np.random.default_rng(20240611)
    samples = {}
    for n, shift in ((5, 0.8), (10, 0.3), (20, 0.5), (25, -0.2), (40, 0.3)):
        x = np.round(rng.normal(size=n), 6)
        y = np.round(rng.normal(size=n) - shift, 6)
        d = np.abs(x - y)
        assert len(np.unique(d)) == n and np.all(d > 0), "tie-free samples wanted"
        samples[n] = (x, y)
    # Ties and a zero: |d| has tie groups (of 2, 2 and 5) and one zero difference.
    xt = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0])
    yt = np.array([0.0, 3.0, 3.0, 2.0, 5.5, 4.0, 9.0, 6.0, 9.5, 7.0, 12.5, 10.0])
    for n, (x, y) in samples.items():
        print(f"const WX{n}: [f64; {n}] = [{', '.join(f(v) for v in x)}];")
        print(f"const WY{n}: [f64; {n}] = [{', '.join(f(v) for v in y)}];")
    print(f"const WXT: [f64; {len(xt)}] = [{', '.join(f(v) for v in xt)}];")
    print(f"const WYT: [f64; {len(yt)}] = [{', '.join(f(v) for v in yt)}];")
    print("/// (n, alternative, W+, scipy p-value, exact)")
    print("const WILCOXON: &[(usize, Alternative, f64, f64, bool)] = &[")
    for n, (x, y) in samples.items():
        method = "exact" if n <= 25 else "asymptotic"
        for alt in ("two-sided", "less", "greater"):
            res = stats.wilcoxon(x, y, alternative=alt, method=method, correction=True)
            print(f"    // wilcoxon(WX{n}, WY{n}, alternative=\"{alt}\", method=\"{method}\", correction=True).pvalue")
            print(f"    ({n}, Alternative::{ALT[alt]}, {f(w_plus(x, y))}, {f(res.pvalue)}, {str(n <= 25).lower()}),")
    print("];")
    print("/// (alternative, W+, scipy p-value) for WXT, WYT")
    print("const WILCOXON_TIES: &[(Alternative, f64, f64)] = &[")
    for alt in ("two-sided", "less", "greater"):
        res = stats.wilcoxon(xt, yt, alternative=alt)
        print(f"    // wilcoxon(WXT, WYT, alternative=\"{alt}\").pvalue (auto: exact sign-flip permutation test)")
        print(f"    (Alternative::{ALT[alt]}, {f(w_plus(xt, yt))}, {f(res.pvalue)}),")
    print("];")


def quasi(n: int) -> np.ndarray:
    """x_i = frac(i · 0.7548776662466927) − 0.5, i = 0..n−1 (same expression in the Rust test)."""
    i = np.arange(n, dtype=np.float64)
    return np.fmod(i * 0.7548776662466927, 1.0) - 0.5


def t_intervals() -> None:
    rng = np.random.default_rng(7)
    sets = {
        "T5": np.array([1.2, 3.4, 2.2, 5.1, 4.4]),
        "T2": np.array([0.0, 1.0]),
        "T3": np.array([-2.5, 0.25, 1.75]),
        "T30": np.round(rng.normal(10.0, 3.0, size=30), 6),
    }
    for name, x in sets.items():
        print(f"const {name}: [f64; {len(x)}] = [{', '.join(f(v) for v in x)}];")
    cases = [("T5", 0.95), ("T5", 0.5), ("T2", 0.9), ("T3", 0.999999), ("T30", 0.99), ("T30", 0.8)]
    cases += [("quasi(10001)", 0.95), ("quasi(20001)", 0.95), ("quasi(20001)", 0.9999), ("quasi(200)", 0.95)]
    print("/// (data, c, mean, scipy lo, scipy hi)")
    print("const T_INTERVALS: &[(&str, f64, f64, f64, f64)] = &[")
    for name, c in cases:
        x = quasi(int(name[6:-1])) if name.startswith("quasi") else sets[name]
        m, se = np.mean(x), stats.sem(x)
        lo, hi = stats.t.interval(c, len(x) - 1, loc=m, scale=se)
        print(f"    // t.interval({c}, {len(x) - 1}, loc=mean({name}), scale=sem({name}))")
        print(f"    (\"{name}\", {f(c)}, {f(m)}, {f(lo)}, {f(hi)}),")
    print("];")


if __name__ == "__main__":
    header()
    wilson_and_cp()
    binomial()
    fisher()
    wilcoxon()
    t_intervals()
