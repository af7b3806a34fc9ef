//! A line search for convex one-dimensional functions (crate-private).

/// Minimiser `t ≥ 0` of a convex `φ`, given its non-decreasing derivative
/// `φ'`: brackets the root of `φ'` by doubling from `t = 1`, then the
/// Illinois variant of regula falsi to a relative width of 1e-6. Returns 0
/// when `φ'(0) ≥ 0` (no descent) or is not finite.
pub(crate) fn convex_argmin(dphi: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut flo) = (0.0, dphi(0.0));
    if flo >= 0.0 || !flo.is_finite() {
        return 0.0;
    }
    let (mut hi, mut fhi) = (1.0, dphi(1.0));
    let mut grow = 0;
    while fhi < 0.0 && grow < 60 {
        lo = hi;
        flo = fhi;
        hi *= 2.0;
        fhi = dphi(hi);
        grow += 1;
    }
    if fhi < 0.0 {
        return hi;
    }
    let mut side = 0;
    for _ in 0..60 {
        let t = (lo * fhi - hi * flo) / (fhi - flo);
        let t = if t > lo && t < hi { t } else { 0.5 * (lo + hi) };
        let ft = dphi(t);
        if ft == 0.0 {
            return t;
        }
        if ft < 0.0 {
            lo = t;
            flo = ft;
            if side == -1 {
                fhi *= 0.5;
            }
            side = -1;
        } else {
            hi = t;
            fhi = ft;
            if side == 1 {
                flo *= 0.5;
            }
            side = 1;
        }
        if hi - lo <= 1e-6 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// Minimiser `t ≥ 0` of a convex, twice-differentiable `φ`, from `t0 > 0`:
/// `d12(t)` returns `(φ'(t), φ''(t))`. Newton steps while they stay inside
/// the bracket `[lo, hi]` known from the sign of `φ'`; otherwise an Illinois
/// (modified regula falsi) step on `φ'`, or growth by 4× while no upper end
/// is known, and whenever the last Newton step did not halve `|φ'|`. Newton
/// converges quadratically for `p > 1` (a handful of evaluations replace the
/// dozens of a derivative-free search); near `p = 1` the curvature sits in
/// narrow kinks, Newton stalls or overshoots, and the Illinois steps take
/// over. Returns 0 when `φ'(0) ≥ 0` or is not finite.
pub(crate) fn convex_argmin_newton(d12: impl Fn(f64) -> (f64, f64), t0: f64) -> f64 {
    let (g0, _) = d12(0.0);
    if g0.is_nan() || g0 >= 0.0 {
        return 0.0;
    }
    let (mut lo, mut glo) = (0.0f64, g0);
    let (mut hi, mut ghi) = (f64::INFINITY, f64::NAN);
    let mut side = 0;
    let mut t = t0;
    let mut prev_abs_g = f64::INFINITY;
    for _ in 0..100 {
        let (g, h) = d12(t);
        if !g.is_finite() {
            hi = t;
            ghi = f64::MAX;
            t = 0.5 * (lo + hi);
            continue;
        }
        if g == 0.0 {
            return t;
        }
        if g < 0.0 {
            lo = t;
            glo = g;
            if side == -1 && ghi.is_finite() {
                ghi *= 0.5;
            }
            side = -1;
        } else {
            hi = t;
            ghi = g;
            if side == 1 {
                glo *= 0.5;
            }
            side = 1;
        }
        // Newton only while it makes progress (|φ'| at least halves).
        let newton_ok = g.abs() <= 0.5 * prev_abs_g;
        prev_abs_g = g.abs();
        let newton = t - g / h;
        let use_newton =
            newton_ok && h > 0.0 && newton > lo && newton < hi && newton <= 4.0 * t.max(t0);
        let next = if use_newton {
            newton
        } else if hi.is_finite() {
            let secant = (lo * ghi - hi * glo) / (ghi - glo);
            if secant > lo && secant < hi {
                secant
            } else {
                0.5 * (lo + hi)
            }
        } else {
            4.0 * t
        };
        // A tiny Newton step means convergence; a tiny secant step need not
        // (regula falsi creeps along one end), so only the bracket counts there.
        if (use_newton && (next - t).abs() <= 1e-10 * next)
            || (hi.is_finite() && hi - lo <= 1e-10 * hi)
        {
            return next;
        }
        t = next;
    }
    lo
}
