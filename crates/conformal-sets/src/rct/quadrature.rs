//! Adaptive Gauss–Kronrod quadrature (QUADPACK `qk15`) of a non-negative
//! integrand, for the tails of the non-central t.

use crate::error::{Error, Result};

/// Nodes (the non-negative half) of the 15-point Kronrod rule on [−1, 1];
/// the odd-indexed ones with the last are the 7-point Gauss nodes (QUADPACK
/// `qk15`).
const XGK: [f64; 8] = [
    0.991_455_371_120_812_6,
    0.949_107_912_342_758_5,
    0.864_864_423_359_769_1,
    0.741_531_185_599_394_4,
    0.586_087_235_467_691_1,
    0.405_845_151_377_397_2,
    0.207_784_955_007_898_5,
    0.0,
];
/// Kronrod weights for [`XGK`].
const WGK: [f64; 8] = [
    0.022_935_322_010_529_22,
    0.063_092_092_629_978_55,
    0.104_790_010_322_250_18,
    0.140_653_259_715_525_92,
    0.169_004_726_639_267_9,
    0.190_350_578_064_785_4,
    0.204_432_940_075_298_9,
    0.209_482_141_084_727_83,
];
/// Gauss weights for the nodes `XGK[1], XGK[3], XGK[5], XGK[7]`.
const WG: [f64; 4] = [
    0.129_484_966_168_869_7,
    0.279_705_391_489_276_7,
    0.381_830_050_505_118_9,
    0.417_959_183_673_469_4,
];

/// The 15-point Gauss–Kronrod estimate of `∫ₐᵇ f` and its error estimate,
/// QUADPACK's `σ·min(1, (200·|K₁₅ − G₇|/σ)^{3/2})` with `σ` the Kronrod
/// estimate of `∫ |f − mean f|`.
fn gauss_kronrod<F: Fn(f64) -> f64>(f: &F, a: f64, b: f64) -> (f64, f64) {
    let (center, half) = (0.5 * (a + b), 0.5 * (b - a));
    let fc = f(center);
    let mut values = [(0.0, 0.0); 7];
    let mut kronrod = WGK[7] * fc;
    let mut gauss = WG[3] * fc;
    for (i, v) in values.iter_mut().enumerate() {
        let dx = half * XGK[i];
        *v = (f(center - dx), f(center + dx));
        let pair = v.0 + v.1;
        kronrod += WGK[i] * pair;
        if i % 2 == 1 {
            gauss += WG[i / 2] * pair;
        }
    }
    let mean = 0.5 * kronrod;
    let mut spread = WGK[7] * (fc - mean).abs();
    for (i, v) in values.iter().enumerate() {
        spread += WGK[i] * ((v.0 - mean).abs() + (v.1 - mean).abs());
    }
    let spread = spread * half.abs();
    let raw = ((kronrod - gauss) * half).abs();
    let error = if spread > 0.0 && raw > 0.0 {
        spread * (200.0 * raw / spread).powf(1.5).min(1.0)
    } else {
        raw
    };
    (kronrod * half, error)
}

/// Globally adaptive Gauss–Kronrod quadrature of a non-negative `f` on
/// `[a, b]`: bisects the interval with the largest error estimate until the
/// summed estimate is below `rtol` of the integral (at most 1000 intervals;
/// then an estimate within `10⁴·rtol` is still accepted).
pub(super) fn integrate_nonneg<F: Fn(f64) -> f64>(f: F, a: f64, b: f64, rtol: f64) -> Result<f64> {
    let mut parts = vec![(a, b, gauss_kronrod(&f, a, b))];
    loop {
        let total: f64 = parts.iter().map(|p| p.2.0).sum();
        let error: f64 = parts.iter().map(|p| p.2.1).sum();
        if error <= rtol * total || error < 1e-300 {
            return Ok(total);
        }
        if parts.len() >= 1000 {
            return if error <= 1e4 * rtol * total {
                Ok(total)
            } else {
                Err(Error::Core(mlcore::Error::NoConvergence {
                    algorithm: "non-central t tail quadrature",
                }))
            };
        }
        let worst = parts
            .iter()
            .enumerate()
            .max_by(|x, y| x.1.2.1.total_cmp(&y.1.2.1))
            .map_or(0, |(i, _)| i);
        let (lo, hi, _) = parts.swap_remove(worst);
        let mid = 0.5 * (lo + hi);
        parts.push((lo, mid, gauss_kronrod(&f, lo, mid)));
        parts.push((mid, hi, gauss_kronrod(&f, mid, hi)));
    }
}
