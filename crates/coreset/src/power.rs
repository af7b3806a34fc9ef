//! Fast real powers `x^a` for the exponents the solvers use (crate-private).

/// `x ↦ x^a` for `x ≥ 0`. When `4a` is a small integer (every exponent
/// `p/2`, `p/2 − 1`, `p − 1`, `p` for `p ∈ {1, 1.5, 2, 2.5, 3, 4, …}`), it is
/// computed as `(√√x)^{4a}` with square roots and multiplications, several
/// times faster than `powf` and accurate to a few ulps; otherwise `powf`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Power {
    a: f64,
    quarters: Option<i32>,
}

impl Power {
    pub(crate) fn new(a: f64) -> Power {
        let k = 4.0 * a;
        let quarters = (k == k.round() && k.abs() <= 32.0).then_some(k as i32);
        Power { a, quarters }
    }

    #[inline]
    pub(crate) fn apply(&self, x: f64) -> f64 {
        match self.quarters {
            Some(k) if k % 4 == 0 => ipow(x, k / 4),
            Some(k) if k % 2 == 0 => ipow(x.sqrt(), k / 2),
            Some(k) => ipow(x.sqrt().sqrt(), k),
            None => x.powf(self.a),
        }
    }
}

/// `x^k` by repeated squaring, inlined (`powi` with a run-time exponent is a
/// library call).
#[inline]
fn ipow(x: f64, k: i32) -> f64 {
    let mut e = k.unsigned_abs();
    let mut base = x;
    let mut acc = 1.0;
    while e > 0 {
        if e & 1 == 1 {
            acc *= base;
        }
        base *= base;
        e >>= 1;
    }
    if k < 0 { 1.0 / acc } else { acc }
}

/// `ln Σᵢ wᵢ |vᵢ|ᵖ` without overflow or underflow of the terms: with
/// `M = maxᵢ |vᵢ|` and `W = maxᵢ wᵢ`, `ln M·p + ln W + ln Σᵢ (wᵢ/W)(|vᵢ|/M)ᵖ`,
/// where the last sum lies in `[W'/W, n]` (`W'` the weight at the largest
/// term). Inputs must be finite with `w ≥ 0`; `−∞` for an all-zero sum.
pub(crate) fn ln_weighted_power_sum<I>(items: I, p: f64) -> f64
where
    I: Iterator<Item = (f64, f64)> + Clone,
{
    let (m, w) = items.clone().fold((0.0f64, 0.0f64), |(m, w), (wi, v)| {
        (if wi > 0.0 { m.max(v.abs()) } else { m }, w.max(wi))
    });
    if m == 0.0 || w == 0.0 {
        return f64::NEG_INFINITY;
    }
    let pw = Power::new(p);
    let inner: f64 = items.map(|(wi, v)| (wi / w) * pw.apply(v.abs() / m)).sum();
    p * m.ln() + w.ln() + inner.ln()
}

/// `Σᵢ wᵢ |vᵢ|ᵖ`: the direct sum when it is finite, otherwise (a term
/// overflowed, possibly one a small weight would have brought back) the
/// scaled sum [`ln_weighted_power_sum`], exponentiated; `Err(ln)` when the
/// value itself exceeds `f64::MAX`.
pub(crate) fn weighted_power_sum<I>(items: I, p: f64) -> std::result::Result<f64, f64>
where
    I: Iterator<Item = (f64, f64)> + Clone,
{
    let pw = Power::new(p);
    let direct: f64 = items.clone().map(|(wi, v)| wi * pw.apply(v.abs())).sum();
    if direct.is_finite() {
        return Ok(direct);
    }
    let ln = ln_weighted_power_sum(items, p);
    let value = ln.exp();
    if value.is_finite() {
        Ok(value)
    } else {
        Err(ln)
    }
}

#[cfg(test)]
mod tests {
    use super::Power;

    #[test]
    fn matches_powf() {
        for a in [
            -1.0, -0.5, -0.25, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 0.3, -0.7,
        ] {
            let pw = Power::new(a);
            for x in [1e-300, 1e-20, 0.1, 1.0, 2.5, 1e10, 1e200] {
                let (got, want) = (pw.apply(x), f64::powf(x, a));
                assert!(
                    got == want || (got - want).abs() <= 1e-14 * want.abs(),
                    "{x}^{a}: {got} vs {want}"
                );
            }
        }
        assert_eq!(Power::new(0.5).apply(0.0), 0.0);
        assert!(Power::new(-0.25).apply(0.0).is_infinite());
    }
}
